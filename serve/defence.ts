// What the reward service makes of an episode's outcome, and its runtime defence: per-item verdicts (a
// reference that does not score 1 voids the episode's scores), the confirmation of a failure by a re-run
// in a fresh realm, incidents recorded through library/quarantine.ts's IncidentLog, and request deadlines.
import { neverTheClients, RESPONSE_FN, type IncidentLog, type Misbehaviour } from '../library/quarantine.js';
import { checkVerdict } from '../sandbox/episodes.js';
import type { CallResult, RawVerdict } from '../sandbox/protocol.js';

export type VerifyResult = { score: number; feedback?: string } | { score: 0; error: { code: string; message: string } };

export function failure(code: string, message: string): VerifyResult {
  return { score: 0, error: { code, message } };
}

/**
 * The failure of an episode for its responses' items: the call's own, or its reference not scoring 1 (the
 * environment contradicts itself on this instance, so none of its scores here can be trusted).
 */
export function episodeFailure(result: CallResult, responses: number): { code: string; message: string; fn: string } | null {
  if (!result.ok) return { code: result.code, message: result.message, fn: result.fn };
  const verdicts = (result.value as { verdicts?: unknown } | null)?.verdicts;
  if (!Array.isArray(verdicts) || verdicts.length !== responses + 1) return { code: 'E_PROTOCOL', message: 'the sandbox returned a malformed episode', fn: 'call' };
  const reference = checkVerdict(verdicts[0] as RawVerdict);
  if (!reference.ok) return { code: reference.code, message: `verify failed on the reference: ${reference.message}`, fn: 'verify' };
  if (reference.score !== 1) return { code: 'E_UNSOLVED', message: `verify gives this instance's own reference ${reference.score}, not 1`, fn: 'verify' };
  return null;
}

/** The code an episode failed with, for its call or any of its responses; null when it scored everything. */
export function failureCode(result: CallResult, responses: number): string | null {
  const failed = verdictsOf(result, responses).find((v): v is Extract<VerifyResult, { error: unknown }> => 'error' in v);
  return episodeFailure(result, responses)?.code ?? failed?.error.code ?? null;
}

export function verdictsOf(result: CallResult, responses: number): VerifyResult[] {
  const failed = episodeFailure(result, responses);
  if (failed) return Array.from({ length: responses }, () => failure(failed.code, failed.message));
  const verdicts = (result as { value: { verdicts: RawVerdict[] } }).value.verdicts.slice(1);
  return verdicts.map((raw) => {
    const verdict = checkVerdict(raw);
    if (!verdict.ok) return failure(verdict.code, verdict.message);
    return verdict.feedback === undefined ? { score: verdict.score } : { score: verdict.score, feedback: verdict.feedback };
  });
}

/** What a re-run alone in a fresh realm showed: the code it failed with again (if any), and whether only the response fails. */
export interface Rerun {
  code: string | null;
  /** The instance's reference scored alone while the response failed again: the response's problem. */
  responseOnly: boolean;
}

/**
 * Re-runs each environment's first failing call of a request alone and records the incident, confirmed
 * when it failed again with the same code; when only the client's input fails (the reference alone runs), the
 * incident is that input's (`inputFn`: RESPONSE_FN, or ACTION_LOG_FN for an episode), which quarantines only
 * when independent clients reach it (library/quarantine.ts). A tripwire (E_ESCAPE_ATTEMPT) is the module's
 * own whoever's input reached it: recorded confirmed, without a re-run. Quarantined environments are left alone.
 */
export async function confirmAndRecord(log: IncidentLog, incidents: Misbehaviour[], rerun: (m: Misbehaviour) => Promise<Rerun>, inputFn = RESPONSE_FN): Promise<void> {
  const first = new Map<string, Misbehaviour>();
  for (const m of incidents) if (!first.has(m.record.hash) && !log.quarantined(m.record.hash)) first.set(m.record.hash, m);
  await Promise.all(
    [...first.values()].map(async (m) => {
      if (neverTheClients(m.code)) return log.record(m, true);
      let again: Rerun = { code: null, responseOnly: false };
      try {
        again = await rerun(m);
      } catch {
        // the sandbox itself failed: record it unconfirmed
      }
      const confirmed = again.code === m.code;
      const { client, ...own } = m;
      // The client is kept where only its input failed (the independent-clients rule); elsewhere the failure is the module's.
      await log.record(confirmed && again.responseOnly ? { ...m, fn: inputFn } : own, confirmed);
    }),
  );
}

/** Runs `work` with a deadline; resolves true when it finished in time (it keeps running otherwise). */
export async function withinDeadline(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}

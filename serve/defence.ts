// What the reward service makes of an episode's outcome, and its runtime defence: per-item verdicts (a
// reference that does not score 1 voids the episode's scores), the confirmation of a failure by a re-run
// in a fresh realm, incidents recorded through library/quarantine.ts's IncidentLog, and request deadlines.
import { randomInt } from 'node:crypto';
import {
  CLIENT_SEED_FN,
  neverTheClients,
  RESPONSE_FN,
  type IncidentLog,
  type Misbehaviour,
} from '../library/quarantine.js';
import { checkVerdict } from '../sandbox/episodes.js';
import type { CallResult, RawVerdict } from '../sandbox/protocol.js';

export type VerifyResult =
  | { score: number; feedback?: string }
  | { score: 0; error: { code: string; message: string } };

export function failure(code: string, message: string): VerifyResult {
  return { score: 0, error: { code, message } };
}

/**
 * The failure of an episode for its responses' items: the call's own, or its reference not scoring 1 (the
 * environment contradicts itself on this instance, so none of its scores here can be trusted).
 */
export function episodeFailure(
  result: CallResult,
  responses: number,
): { code: string; message: string; fn: string } | null {
  if (!result.ok) return { code: result.code, message: result.message, fn: result.fn };
  const verdicts = (result.value as { verdicts?: unknown } | null)?.verdicts;
  if (!Array.isArray(verdicts) || verdicts.length !== responses + 1)
    return { code: 'E_PROTOCOL', message: 'the sandbox returned a malformed episode', fn: 'call' };
  const reference = checkVerdict(verdicts[0] as RawVerdict);
  if (!reference.ok)
    return { code: reference.code, message: `verify failed on the reference: ${reference.message}`, fn: 'verify' };
  if (reference.score !== 1)
    return {
      code: 'E_UNSOLVED',
      message: `verify gives this instance's own reference ${reference.score}, not 1`,
      fn: 'verify',
    };
  return null;
}

/** The code an episode failed with, for its call or any of its responses; null when it scored everything. */
export function failureCode(result: CallResult, responses: number): string | null {
  const failed = verdictsOf(result, responses).find(
    (v): v is Extract<VerifyResult, { error: unknown }> => 'error' in v,
  );
  return episodeFailure(result, responses)?.code ?? failed?.error.code ?? null;
}

export function verdictsOf(result: CallResult, responses: number): VerifyResult[] {
  const failed = episodeFailure(result, responses);
  if (failed) return Array.from({ length: responses }, () => failure(failed.code, failed.message));
  const verdicts = (result as { value: { verdicts: RawVerdict[] } }).value.verdicts.slice(1);
  return verdicts.map((raw) => {
    const verdict = checkVerdict(raw);
    if (!verdict.ok) return failure(verdict.code, verdict.message);
    return verdict.feedback === undefined
      ? { score: verdict.score }
      : { score: verdict.score, feedback: verdict.feedback };
  });
}

/** What the re-runs in a fresh realm showed: the codes the call failed with again, if any. */
export interface Rerun {
  /** Without any client input (the instance's reference, or the reference rollout from reset): null when it ran. */
  reference: string | null;
  /** With the client's input alone (its response, its action log): null when it ran. */
  input: string | null;
}

/**
 * Re-runs each environment's first failing call of a request and records the incident, its client always kept.
 * A failure the reference reaches without any client input (generate, a reset, the reference) is the instance's:
 * confirmed when the reference fails alone with the same code. Every identity a request reaches is its client's,
 * listed or drawn by the service from the client's selection (V21-3, V22-1: the client chose the environment, the
 * levels and the count, and a rate of one failure in N is met by N draws), so such a failure is the environment's
 * own (its fn as it failed) only when the service's own re-runs of the reference, at DRAWN_CONFIRMATIONS seeds it
 * draws at that level, all fail with that code too (a failure nearly everywhere: atDrawnSeeds), else that client's
 * vote (CLIENT_SEED_FN). Any other is the input's (`inputFn`: RESPONSE_FN, or
 * ACTION_LOG_FN for an episode), confirmed only when the input alone fails with the same code; votes quarantine only
 * when independent clients reach one code, confirmed (library/quarantine.ts). An unconfirmed one (it failed only beside
 * other inputs, or on a loaded host; or the re-run could not run) never counts. A tripwire (E_ESCAPE_ATTEMPT) is the
 * module's own whoever's input reached it: recorded confirmed, without a re-run. Quarantined environments are left
 * alone.
 */
export async function confirmAndRecord(
  log: IncidentLog,
  incidents: Misbehaviour[],
  rerun: (m: Misbehaviour) => Promise<Rerun>,
  inputFn = RESPONSE_FN,
): Promise<void> {
  const first = new Map<string, Misbehaviour>();
  for (const m of incidents)
    if (!first.has(m.record.hash) && !log.quarantined(m.record.hash)) first.set(m.record.hash, m);
  await Promise.all(
    [...first.values()].map(async (m) => {
      if (neverTheClients(m.code)) return log.record(m, true);
      let again: Rerun = { reference: null, input: null };
      try {
        again = await rerun(m);
      } catch {
        // the sandbox itself failed: nothing is known, so the failure stays the input's, unconfirmed
      }
      if (again.reference === null && m.response !== undefined)
        return log.record({ ...m, fn: inputFn }, again.input === m.code);
      // No client input but the instance's identity, which is the client's too: its vote, unless it fails everywhere.
      const confirmed = again.reference === m.code;
      const everywhere = confirmed ? await atDrawnSeeds(m, rerun) : null;
      if (everywhere) return log.record(everywhere, true);
      await log.record({ ...m, fn: CLIENT_SEED_FN, message: `${m.fn}: ${m.message}` }, confirmed);
    }),
  );
}

/**
 * The service's own sample behind an environment's failure: its size is the service's, whatever the request's (V22-1),
 * so a failure rarer than about one seed in two is never the environment's own however many draws a client asks for.
 */
export const DRAWN_CONFIRMATIONS = 3;

/**
 * A failure of the instance at a client's identity re-run without input at DRAWN_CONFIRMATIONS seeds the service draws
 * (the level kept: a level failing at every seed is the environment's), one after another: the first such failure,
 * the environment's own, when the reference fails at every one with the same code; else null, at the first that runs.
 * Each draw costs what one instance would, charged to the client's turn (V21-3).
 */
async function atDrawnSeeds(m: Misbehaviour, rerun: (m: Misbehaviour) => Promise<Rerun>): Promise<Misbehaviour | null> {
  const { response: _input, ...instance } = m;
  let first: Misbehaviour | null = null;
  for (let k = 0; k < DRAWN_CONFIRMATIONS; k++) {
    const drawn: Misbehaviour = { ...instance, seed: randomInt(0, 2 ** 31) };
    const again = await rerun(drawn).catch(() => null);
    if (again?.reference !== m.code) return null;
    first ??= drawn;
  }
  return first;
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

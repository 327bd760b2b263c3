// Whose a shared sandbox job's failures are. Calls of several clients share jobs (dispatcher.ts packs them; any
// batching that puts several requests' calls in one job or one crossing must hand its results through here),
// and a job fails calls for what other calls did: it stops after maxFailuresPerJob failures ("not run"), a dying
// worker fails every call it had not finished, a late tripwire fails its whole chunk. So a call's failure is
// kept only where its own client's calls alone produced it: a call that did not run goes back into a fresh job,
// and a resource failure in a job shared with other clients is run again in a job of its client's calls only.
import { YIELDED_MESSAGE, type CallResult } from '../sandbox/protocol.js';

/** Failures a call may get for what another call of its job did (the worker's deaths and limits). */
const SHARED_FAILURE_CODES: ReadonlySet<string> = new Set([
  'E_TIMEOUT',
  'E_MEMORY',
  'E_CRASHED',
  'E_PROTOCOL',
  'E_ESCAPE_ATTEMPT',
]);

/**
 * The worker's answer for a call it did not run: its job had already failed maxFailuresPerJob calls
 * (sandbox/worker-job.ts).
 */
const UNRUN = /^not run: \d+ earlier calls of this batch already failed/;

/** Whether the sandbox left this call unrun (nothing of it ran, so running it again changes nothing). */
export function isUnrun(result: CallResult): result is Extract<CallResult, { ok: false }> {
  return !result.ok && result.fn === 'call' && UNRUN.test(result.message);
}

/**
 * The worker's answer for a call its job's time slice did not reach (sandbox/worker-job.ts: yieldAfterMs): it goes on
 * in a later job, whoever's job it was. E_TIMEOUT is a code only the worker makes, never a guest.
 */
export function isYielded(result: CallResult): boolean {
  return (
    !result.ok && result.code === 'E_TIMEOUT' && result.fn === 'call' && result.message.startsWith(YIELDED_MESSAGE)
  );
}

/** A call of a job, as attribution needs it: whose it is, and whether it already ran in a job of its client's own. */
export interface OwnedCall {
  owner: string;
  /** It ran in a job holding only its client's calls: its failures there are its own. */
  alone?: boolean;
}

export interface Attribution<T> {
  /** Calls whose results stand. */
  answered: Array<{ call: T; result: CallResult }>;
  /** Calls to run again in a later job of their queue (they did not run: the job's failure limit, or its slice). */
  requeue: T[];
  /** Calls to run again in a job of their client's calls only (they failed in a job shared with other clients). */
  isolate: T[];
}

/**
 * Attributes a job's results: in a job of one client (or a re-run alone), every result stands, "not run"
 * included (the per-job failure limit bounds a client's own calls); in a job shared by several clients, no
 * call keeps a failure it may owe to another client's calls.
 */
export function attribute<T extends OwnedCall>(calls: readonly T[], results: readonly CallResult[]): Attribution<T> {
  const out: Attribution<T> = { answered: [], requeue: [], isolate: [] };
  const shared = isShared(calls);
  calls.forEach((call, i) => {
    const result = results[i] as CallResult;
    if (stands(call, result, shared)) out.answered.push({ call, result });
    else if (isUnrun(result) || isYielded(result)) out.requeue.push(call);
    else out.isolate.push(call);
  });
  return out;
}

/** Whether a job of these calls holds several clients' calls. */
export const isShared = (calls: readonly OwnedCall[]): boolean => new Set(calls.map((c) => c.owner)).size > 1;

/**
 * Whether a call's result stands as its answer (attribute's `answered`), decided from the result alone: a caller may
 * answer such a call the moment its result arrives (the job's other calls cannot change it).
 */
export function stands(call: OwnedCall, result: CallResult, shared: boolean): boolean {
  if (isYielded(result)) return false;
  return !shared || call.alone === true || result.ok || !SHARED_FAILURE_CODES.has(result.code);
}

// The supervisor's side of a job's results: each result names its call by index ("id"), so results are
// matched to calls by id, never by position; anything malformed, forged or duplicated fails only the call
// it names (or none), and every code from inside an isolate is checked against the closed guest set.
import { createHash } from 'node:crypto';
import { isProblemCode, type ProblemCode } from '../contract/codes.js';
import {
  GUEST_FNS,
  guestCode,
  HOST_VERDICTS,
  maxChunkChars,
  type Call,
  type CallResult,
  type ChargedVerdict,
  type SandboxLimits,
} from './protocol.js';

/** What a caller makes of each result as it arrives (runEpisodes: a checked episode), given the call it answers. */
export type Convert<R> = (result: CallResult, call: Call) => R;

/**
 * Results of one job, filled by id as they arrive and converted at once: what a chunk's parse made beyond
 * the converted value dies young, instead of staying live (and being copied by every scavenge) until the job ends.
 */
export class ResultSlots<R = CallResult> {
  private readonly slots: Array<R | undefined>;
  private filled = 0;
  private maxChars: number | null = null;
  /** Verdicts the worker charged, by call id, put in place when the call's result arrives. */
  private readonly charged = new Map<number, ChargedVerdict[]>();
  private readonly convert: Convert<R>;

  constructor(
    readonly calls: Call[],
    convert?: Convert<R>,
    /** Told each call's result as it is set (RunRequest.onResult). */
    private readonly onPut?: (id: number, result: CallResult) => void,
  ) {
    this.slots = new Array(calls.length);
    this.convert = convert ?? ((result) => result as R);
  }

  get complete(): boolean {
    return this.filled === this.slots.length;
  }

  /** Sets call `id`'s result unless it already has one (the first result wins). */
  put(id: number, result: CallResult): void {
    if (!Number.isSafeInteger(id) || id < 0 || id >= this.slots.length || this.slots[id] !== undefined) return;
    const call = this.calls[id] as Call;
    let given = result;
    try {
      this.slots[id] = this.convert(result, call);
    } catch (error) {
      // This runs in the supervisor's message handler: a throw here would take the host down, not fail the call.
      given = {
        ok: false,
        code: 'E_PROTOCOL',
        message: `the sandbox's result could not be read: ${error instanceof Error ? error.message : String(error)}`,
        fn: 'call',
        ms: 0,
      };
      this.slots[id] = this.convert(given, call);
    }
    this.filled++;
    if (!this.onPut) return;
    try {
      this.onPut(id, given);
    } catch {
      // the caller's listener failing is its own affair: the job's results still hold this one
    }
  }

  /** Fails calls from..from+count-1 that have no result yet. */
  failRange(from: number, count: number, failure: Omit<Extract<CallResult, { ok: false }>, 'ok' | 'ms'>): void {
    // Filled slots are skipped before a failure is built: settling a job of thousands of results fills none.
    for (let id = Math.max(0, from); id < Math.min(this.slots.length, from + count); id++)
      if (this.slots[id] === undefined) this.put(id, { ok: false, ...failure, ms: 0 });
  }

  /** Verdicts of call `id` that the worker charged with a resource failure (sent before its result). */
  charge(id: number, verdicts: ChargedVerdict[]): void {
    if (Number.isSafeInteger(id) && Array.isArray(verdicts))
      this.charged.set(
        id,
        verdicts.map((v) => ({ ...v, code: isProblemCode(v.code) ? v.code : 'E_PROTOCOL' })),
      );
  }

  /** Fails every call still without a result. */
  fillRest(failure: Omit<Extract<CallResult, { ok: false }>, 'ok' | 'ms'>): void {
    this.failRange(0, this.slots.length, failure);
  }

  /** A chunk of results as the runtime wrote them: a JSON array of { id, ok, ms, value | code, message, fn }. */
  acceptChunk(text: string, limits: SandboxLimits): void {
    let parsed: unknown;
    try {
      // The worker checked the chunk's nesting (worker-outbox.ts: readChunk) before it crossed, in parallel with the
      // other workers; here only its size is, so the supervisor's one thread does no per-character scan.
      this.maxChars ??= maxChunkChars(this.calls, limits);
      if (text.length > this.maxChars) return;
      parsed = JSON.parse(text);
    } catch {
      return; // the calls it held stay empty and fail with E_PROTOCOL when the job settles
    }
    if (!Array.isArray(parsed)) return;
    for (const item of parsed) {
      const id = item !== null && typeof item === 'object' ? (item as { id?: unknown }).id : undefined;
      if (typeof id !== 'number') continue;
      const result = toCallResult(item as Record<string, unknown>, limits);
      const charged = this.charged.get(id);
      if (charged && result.ok) withCharged(result.value, charged);
      this.put(id, result);
    }
  }

  results(): R[] {
    this.fillRest({
      code: 'E_PROTOCOL' as ProblemCode,
      message: 'the sandbox returned no result for this call',
      fn: 'call',
    });
    return this.slots as R[];
  }
}

/** SHA-256 of an instance's JSON text (the text the isolate wrote: parse and stringify round-trip it exactly). */
export function instanceDigest(instance: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(instance) ?? 'undefined')
    .digest('hex');
}

/** Puts the worker's charged verdicts in place of the runtime's, as HOST_VERDICTS. */
function withCharged(value: unknown, charged: ChargedVerdict[]): void {
  const verdicts = value !== null && typeof value === 'object' ? (value as { verdicts?: unknown }).verdicts : undefined;
  if (!Array.isArray(verdicts)) return;
  for (const { index, code, message } of charged) {
    if (!Number.isSafeInteger(index) || index < 0 || index >= verdicts.length) continue;
    const verdict = { ok: false, code, message };
    HOST_VERDICTS.add(verdict);
    verdicts[index] = verdict;
  }
}

/** Checks the shape of one result; a failure keeps only a guest code, a known function name and a clipped message. */
function toCallResult(r: Record<string, unknown>, limits: SandboxLimits): CallResult {
  const ms = typeof r.ms === 'number' && Number.isFinite(r.ms) ? r.ms : 0;
  if (r.ok === true && 'value' in r) return { ok: true, value: r.value, ms };
  if (r.ok === false && typeof r.message === 'string') {
    return {
      ok: false,
      code: guestCode(r.code),
      message: r.message.slice(0, limits.maxMessageChars + 1),
      fn: typeof r.fn === 'string' && GUEST_FNS.has(r.fn) ? r.fn : 'call',
      ms,
    };
  }
  return { ok: false, code: 'E_PROTOCOL', message: 'the sandbox returned a malformed result', fn: 'call', ms: 0 };
}

// The supervisor's side of a job's results: each result names its call by index ("id"), so results are
// matched to calls by id, never by position; anything malformed, forged or duplicated fails only the call
// it names (or none), and every code from inside an isolate is checked against the closed guest set.
import { createHash } from 'node:crypto';
import type { ProblemCode } from '../contract/codes.js';
import { GUEST_FNS, guestCode, maxChunkChars, type Call, type CallResult, type SandboxLimits } from './protocol.js';

/** Results of one job, filled by id as they arrive. */
export class ResultSlots {
  private readonly slots: Array<CallResult | undefined>;
  private filled = 0;
  private maxChars: number | null = null;

  constructor(readonly calls: Call[]) {
    this.slots = new Array(calls.length);
  }

  get complete(): boolean {
    return this.filled === this.slots.length;
  }

  /** Sets call `id`'s result unless it already has one (the first result wins). */
  put(id: number, result: CallResult | { ok: true; sameAs: number; ms: number }): void {
    if ('sameAs' in result) {
      // "Identical to the earlier call sameAs": valid only for the call the host marked so, pointing back.
      const earlier = this.calls[id]?.sameAs === result.sameAs ? this.slots[result.sameAs] : undefined;
      result = earlier?.ok ? { ok: true, value: earlier.value, ms: result.ms } : { ok: false, code: 'E_PROTOCOL', message: 'the sandbox referred to a result it did not return', fn: 'call', ms: 0 };
    }
    if (!Number.isSafeInteger(id) || id < 0 || id >= this.slots.length || this.slots[id] !== undefined) return;
    this.slots[id] = result;
    this.filled++;
  }

  /** Fails calls from..from+count-1 that have no result yet. */
  failRange(from: number, count: number, failure: Omit<Extract<CallResult, { ok: false }>, 'ok' | 'ms'>): void {
    // Filled slots are skipped before a failure is built: settling a job of thousands of results fills none.
    for (let id = Math.max(0, from); id < Math.min(this.slots.length, from + count); id++) if (this.slots[id] === undefined) this.put(id, { ok: false, ...failure, ms: 0 });
  }

  /** Fails every call still without a result. */
  fillRest(failure: Omit<Extract<CallResult, { ok: false }>, 'ok' | 'ms'>): void {
    this.failRange(0, this.slots.length, failure);
  }

  /** A chunk of results as the runtime wrote them: a JSON array of { id, ok, ms, value | code, message, fn }. */
  acceptChunk(text: string, limits: SandboxLimits): void {
    let parsed: unknown;
    try {
      // The worker checked the chunk's nesting (worker.ts: readChunk) before it crossed, in parallel with the
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
      this.put(id, this.calls[id]?.digest && !('sameAs' in result) ? digested(result) : result);
    }
  }

  results(): CallResult[] {
    return Array.from(this.slots, (r) => r ?? { ok: false, code: 'E_PROTOCOL' as ProblemCode, message: 'the sandbox returned no result for this call', fn: 'call', ms: 0 });
  }
}

/** The result with its instance replaced by the SHA-256 of the instance's JSON text. */
function digested(result: CallResult): CallResult {
  if (!result.ok || result.value === null || typeof result.value !== 'object') return result;
  const value = result.value as { instance?: unknown };
  return { ...result, value: { ...value, instance: instanceDigest(value.instance) } };
}

/** SHA-256 of an instance's JSON text (the text the isolate wrote: parse and stringify round-trip it exactly). */
export function instanceDigest(instance: unknown): string {
  return createHash('sha256').update(JSON.stringify(instance) ?? 'undefined').digest('hex');
}

/** Checks the shape of one result; a failure keeps only a guest code, a known function name and a clipped message. */
function toCallResult(r: Record<string, unknown>, limits: SandboxLimits): CallResult | { ok: true; sameAs: number; ms: number } {
  const ms = typeof r.ms === 'number' && Number.isFinite(r.ms) ? r.ms : 0;
  if (r.ok === true && 'value' in r) return { ok: true, value: r.value, ms };
  if (r.ok === true && Number.isSafeInteger(r.sameAs)) return { ok: true, sameAs: r.sameAs as number, ms };
  if (r.ok === false && typeof r.message === 'string') {
    return { ok: false, code: guestCode(r.code), message: r.message.slice(0, limits.maxMessageChars + 1), fn: typeof r.fn === 'string' && GUEST_FNS.has(r.fn) ? r.fn : 'call', ms };
  }
  return { ok: false, code: 'E_PROTOCOL', message: 'the sandbox returned a malformed result', fn: 'call', ms: 0 };
}

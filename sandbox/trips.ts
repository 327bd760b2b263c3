// What the sandbox's tripwires recorded (tripwires.js): the worker reads them from a realm after each crossing
// and at load; the supervisor keeps them per module, so a caller (the validator) sees an attempt made anywhere,
// even in a call whose failure the module caught or in work it left behind.
import { setRecent } from './recent.js';

/** The runtime's report: trips since the last read, those made while no call ran, and what was reached for. */
export interface Trips {
  count: number;
  late: number;
  what: string[];
}

const NONE: Trips = { count: 0, late: 0, what: [] };

/** The runtime's trips() text, read defensively (it comes from inside an isolate). */
export function readTrips(text: unknown): Trips {
  if (typeof text !== 'string' || text.length > 4_096) return NONE;
  try {
    const t = JSON.parse(text) as Partial<Trips>;
    const count = Number.isSafeInteger(t.count) && (t.count as number) > 0 ? (t.count as number) : 0;
    const late = Number.isSafeInteger(t.late) && (t.late as number) > 0 ? Math.min(count, t.late as number) : 0;
    const what = Array.isArray(t.what)
      ? t.what
          .filter((w): w is string => typeof w === 'string')
          .slice(0, 8)
          .map((w) => w.slice(0, 200))
      : [];
    return count === 0 ? NONE : { count, late, what: what.length > 0 ? what : ['a capability outside the contract'] };
  } catch {
    return NONE;
  }
}

/**
 * The message of a call failed for trips it did not make itself (work left behind, a getter read after it returned).
 */
export function tripMessage(what: readonly string[]): string {
  return (
    `the module reached for ${what.join('; ')} after its call returned (work it left behind): a capability ` +
    `outside the environment contract (the attempt counts even when the module catches the refusal)`
  );
}

/** Modules (by source hash) that tripped a wire in this pool, with what they reached for; bounded, oldest dropped. */
export class TripLog {
  private readonly byHash = new Map<string, string[]>();

  constructor(private readonly maxModules = 1_024) {}

  record(hash: string, what: unknown): void {
    const known = this.byHash.get(hash) ?? [];
    for (const w of Array.isArray(what) && what.length > 0 ? what : ['a capability outside the contract'])
      if (known.length < 8 && typeof w === 'string' && !known.includes(w)) known.push(w.slice(0, 300));
    setRecent(this.byHash, hash, known, this.maxModules);
  }

  /** What the module with this source hash reached for, in any job of this pool; empty when it never tripped. */
  of(hash: string): readonly string[] {
    return this.byHash.get(hash) ?? [];
  }
}

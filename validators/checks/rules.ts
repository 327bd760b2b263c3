// The two rules that decide every check's findings. Zero tolerance: a response that cannot be a solution
// (it holds no answer, or several, or what it adds to a wrong one) fails at its ceiling, inclusive. A rate
// above chance: a policy's wins, at each level and over all levels pooled, judged at the lower confidence
// bound of their mean (Wilson), must not exceed what chance gives by more than a tolerance.
import type { ProblemCode } from '../../contract/codes.js';
import type { Problem } from '../report.js';
import { lowerBound } from '../stats.js';

export interface ZeroFinding {
  rule: 'zero';
  code: ProblemCode;
  check: string;
  /** What the response is judged on: its score, what it adds to a wrong answer's score, what it costs the reference. */
  judged: number;
  /** It fails at this value or above. */
  ceiling: number;
  /** How the response was built ("spaces", "5 guesses joined by ' or '"). */
  form: string;
  /** What fails, in the singular, for the message ("empty probe"). */
  what: string;
  /** How `judged` reads in the message ("adds 0.50 to a wrong answer's score"); default "scores <judged>". */
  reads?: string;
  /** Built only for the worst failing finding of a code. */
  evidence: () => unknown;
}

/** One attempt of a policy: what it won (in [0, 1]) and what chance gives on the same attempt. */
export interface Trial {
  level: number;
  win: number;
  chance: number;
}

export interface RateFinding {
  rule: 'rate';
  code: ProblemCode;
  check: string;
  /** The policy or reader judged, as the message names it ("one fixed answer", "the option with an even number"). */
  policy: string;
  trials: Trial[];
  /** The margin over chance allowed at one level and over all levels pooled; a scope left out is not judged. */
  tolerance: { level?: number; pooled?: number };
  /** Standard errors of the lower bound (0 judges the rate as measured). */
  z: number;
  /** A scope with fewer trials is not judged. */
  minTrials: number;
  /** Built only for a failing finding: the scope's facts are added to it. */
  evidence: (level: number | null) => unknown;
}

export type Finding = ZeroFinding | RateFinding;

/** A rate judged over one scope: a level, or every level (null). */
export interface Scope {
  level: number | null;
  n: number;
  rate: number;
  chance: number;
  bound: number;
  tolerance: number;
}

const mean = (v: number[]) => (v.length === 0 ? 0 : v.reduce((a, b) => a + b, 0) / v.length);

function scope(level: number | null, trials: Trial[], z: number, tolerance: number): Scope {
  const rate = mean(trials.map((t) => t.win));
  return {
    level,
    n: trials.length,
    rate,
    chance: mean(trials.map((t) => t.chance)),
    bound: lowerBound(rate, trials.length, z),
    tolerance,
  };
}

/** Whether a scope's lower bound exceeds chance by more than its tolerance. */
export const exceeds = (s: Scope): boolean => s.bound - s.chance > s.tolerance;

/** Every judged scope of a rate finding (levels in order, then the pool), and those that fail. */
export function judgeRate(f: RateFinding): { scopes: Scope[]; failing: Scope[] } {
  const scopes: Scope[] = [];
  if (f.tolerance.level !== undefined) {
    const byLevel = new Map<number, Trial[]>();
    for (const t of f.trials) byLevel.set(t.level, [...(byLevel.get(t.level) ?? []), t]);
    for (const [level, trials] of [...byLevel].sort((a, b) => a[0] - b[0]))
      if (trials.length >= f.minTrials) scopes.push(scope(level, trials, f.z, f.tolerance.level));
  }
  if (f.tolerance.pooled !== undefined && f.trials.length >= f.minTrials)
    scopes.push(scope(null, f.trials, f.z, f.tolerance.pooled));
  return { scopes, failing: scopes.filter(exceeds) };
}

/** The trials of a rate finding still to come: how many at each level, and the range their chance lies in. */
export interface Pending {
  byLevel: ReadonlyMap<number, number>;
  /** Default [0, 1]: a trial's chance unknown until it is played. */
  chance?: readonly [number, number];
}

/** Margin a settled verdict clears its bar by: the final judgement sums its means in another order. */
const SETTLED_MARGIN = 1e-9;

/**
 * A sequential test of a rate finding: whether its verdict (judgeRate over the trials seen and the pending ones) is
 * already certain whatever each pending trial wins in [0, 1]. 'fails' where a scope's lower bound clears chance plus
 * its tolerance even if every pending trial loses at the highest chance; 'passes' where no scope can, even if every
 * one wins at the lowest chance (the Wilson bound grows with the rate); null while either can happen. A scope is
 * judged on its final count, so one with fewer than `minTrials` then is never judged.
 */
export function settled(f: RateFinding, pending: Pending): 'fails' | 'passes' | null {
  const [low, high] = pending.chance ?? [0, 1];
  const sums = (trials: Trial[], left: number) => {
    const wins = trials.reduce((a, t) => a + t.win, 0);
    const chance = trials.reduce((a, t) => a + t.chance, 0);
    const n = trials.length + left;
    return {
      n,
      worst: lowerBound(wins / n, n, f.z) - (chance + left * high) / n,
      best: lowerBound((wins + left) / n, n, f.z) - (chance + left * low) / n,
    };
  };
  const scopes: Array<{ n: number; worst: number; best: number; tolerance: number }> = [];
  if (f.tolerance.level !== undefined) {
    const levels = new Set([...f.trials.map((t) => t.level), ...pending.byLevel.keys()]);
    for (const level of [...levels].sort((a, b) => a - b)) {
      const left = pending.byLevel.get(level) ?? 0;
      scopes.push({
        ...sums(
          f.trials.filter((t) => t.level === level),
          left,
        ),
        tolerance: f.tolerance.level,
      });
    }
  }
  if (f.tolerance.pooled !== undefined) {
    const left = [...pending.byLevel.values()].reduce((a, b) => a + b, 0);
    scopes.push({ ...sums(f.trials, left), tolerance: f.tolerance.pooled });
  }
  const judged = scopes.filter((s) => s.n >= f.minTrials && s.n > 0);
  if (judged.some((s) => s.worst > s.tolerance + SETTLED_MARGIN)) return 'fails';
  if (judged.every((s) => s.best <= s.tolerance - SETTLED_MARGIN)) return 'passes';
  return null;
}

/**
 * Whether a policy merely looks strong at a level (its rate at least chance plus half the tolerance) without
 * failing yet: a check that can draw more instances does so before its verdict, so small samples (which
 * overstate a learned policy) never decide alone and honest levels cost nothing extra.
 */
export function undecided(trials: Trial[], tolerance: number, z: number): boolean {
  const s = scope(null, trials, z, tolerance);
  return s.rate >= s.chance + tolerance / 2 && !exceeds(s);
}

const pct = (v: number) => `${(100 * v).toFixed(0)}%`;
const round = (v: number) => Number(v.toFixed(3));

function zeroProblem(code: ProblemCode, failing: ZeroFinding[]): Problem {
  const worst = failing.reduce((w, f) => (f.judged > w.judged ? f : w));
  const forms = [...new Set(failing.map((f) => f.form))];
  return {
    code,
    message:
      `${failing.length} ${worst.what}${failing.length === 1 ? '' : 's'} reach the ceiling ${worst.ceiling} ` +
      `(inclusive; the reference scores 1). Worst: "${worst.form}" ` +
      `${worst.reads ?? `scores ${round(worst.judged)}`}. Failing forms: ${forms.slice(0, 6).join('; ')}` +
      `${forms.length > 6 ? '; …' : ''}`,
    evidence: { check: worst.check, ...asObject(worst.evidence()) },
  };
}

function rateProblem(code: ProblemCode, failing: Array<{ f: RateFinding; s: Scope }>): Problem {
  const excess = (x: { s: Scope }) => x.s.bound - x.s.chance - x.s.tolerance;
  const worst = failing.reduce((a, b) => (excess(b) > excess(a) ? b : a));
  const { f, s } = worst;
  const where = s.level === null ? 'over all levels' : `at level ${s.level}`;
  const levels = [
    ...new Set(failing.filter((x) => x.f === f && x.s.level !== null && x !== worst).map((x) => x.s.level)),
  ];
  const others = [...new Set(failing.filter((x) => x.f !== f).map((x) => x.f.policy))];
  return {
    code,
    message:
      `${f.policy} wins ${pct(s.rate)} ${where} (${s.n} trials; at least ${pct(s.bound)} with confidence) ` +
      `while chance gives ${pct(s.chance)} (tolerance ${(100 * s.tolerance).toFixed(0)} points)` +
      `${levels.length ? `; also at levels ${levels.join(', ')}` : ''}` +
      `${others.length ? `; also: ${others.slice(0, 3).join('; ')}` : ''}`,
    // Every check whose finding failed under this code: the worst one speaks, the others are named.
    evidence: {
      check: f.check,
      checks: [...new Set(failing.map((x) => x.f.check))],
      ...scopeFacts(s),
      ...asObject(f.evidence(s.level)),
    },
  };
}

const scopeFacts = (s: Scope) => ({
  level: s.level,
  n: s.n,
  rate: round(s.rate),
  chance: round(s.chance),
  bound: round(s.bound),
  tolerance: s.tolerance,
});
const asObject = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : v === undefined
      ? {}
      : { detail: v };

/**
 * The problems the findings amount to: one per code (its worst failing finding is the evidence), in order of first
 * appearance.
 */
export function judgeFindings(findings: readonly Finding[]): Problem[] {
  const zero = new Map<ProblemCode, ZeroFinding[]>();
  const rate = new Map<ProblemCode, Array<{ f: RateFinding; s: Scope }>>();
  const order: ProblemCode[] = [];
  for (const f of findings) {
    if (f.rule === 'zero') {
      if (f.judged < f.ceiling) continue;
      if (!zero.has(f.code) && !rate.has(f.code)) order.push(f.code);
      zero.set(f.code, [...(zero.get(f.code) ?? []), f]);
      continue;
    }
    const { failing } = judgeRate(f);
    if (failing.length === 0) continue;
    if (!zero.has(f.code) && !rate.has(f.code)) order.push(f.code);
    rate.set(f.code, [...(rate.get(f.code) ?? []), ...failing.map((s) => ({ f, s }))]);
  }
  // A code failed at zero tolerance needs no rate judgement beside it: one problem per code.
  return order.map((code) =>
    zero.has(code)
      ? zeroProblem(code, zero.get(code) as ZeroFinding[])
      : rateProblem(code, rate.get(code) as Array<{ f: RateFinding; s: Scope }>),
  );
}

/** A rate finding's scopes, small enough for a report's metrics. */
export function rateMetrics(f: RateFinding): Array<Record<string, unknown>> {
  return judgeRate(f).scopes.map((s) => ({ ...scopeFacts(s), ...(exceeds(s) ? { fails: true } : {}) }));
}

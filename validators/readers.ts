// Learned readers, one mechanism: a reader family turns a prompt into features (its tokens in every
// encoding at every place, its numbers and their simple relations, its lists and their items' ranks, its
// multiple-choice options and their arithmetic) and proposes rules "features → the answer"; the best rule is
// fitted on half of each level's instances (and on half of all of them) and judged on the other half
// against chance, both ways round. A new feature is data for a family, not a new stage.
import type { ProblemCode } from '../contract/codes.js';
import type { Episode } from '../sandbox/episodes.js';
import { answerContent } from '../sandbox/answer.js';
import type { RateFinding, Trial } from './checks/rules.js';
import { fitGatedRule, type Gate, type GateOptions, promptGates } from './reader-gates.js';

/** What a reader reads of an instance: its prompt and its reference (seed and level for evidence). */
export type ReaderSample = Pick<Episode, 'seed' | 'level' | 'reference'> & { instance: { prompt: string } };

/** A family prepared over one sample set: rules as strings, indices into that sample set. */
export interface PreparedFamily {
  /** The rules that read sample `i`'s own answer, with the credit each earns there (1, or 1/k for a pick among k). */
  fit(i: number): Iterable<[rule: string, credit: number]>;
  /** What `rule`, read on sample `i`'s prompt, earns against sample `j`'s answer. */
  credit(rule: string, i: number, j: number): number;
  /** Fixed chance on sample `i` (1/K options); absent: chance is the rule read against other instances' answers. */
  nominal?(i: number): number;
  /** What `rule` earns on sample `i` that is no sign of a shortcut (a code move on its examples): chance's floor. */
  floor?(rule: string, i: number): number;
  describe(rule: string): string;
  /** Whether a rule, read over every sample, is the task's own computation rather than a shortcut: never fitted. */
  task?(rule: string): boolean;
}

export interface ReaderFamily {
  name: string;
  /** The code a rule of this family that wins beyond chance is reported with. */
  code: ProblemCode;
  /** The family over these samples, or null where it reads nothing (no numeric answers, no options…). */
  prepare(samples: readonly ReaderSample[]): PreparedFamily | null;
}

export interface ReaderJudgement {
  family: string;
  code: ProblemCode;
  /** Every sample judged once, with the rule fitted on the other half of its level. */
  level: Trial[];
  /** Every sample judged once, with the rule fitted on the other half of all levels. */
  pooled: Trial[];
  /** The rules fitted, per level (null: over all levels), one per half. */
  rules: Map<number | null, string[]>;
  /** Per level (null: over all levels) or per gate (its description). */
  examples: Map<number | string | null, Array<{ seed: number; level: number; answer: string }>>;
  /**
   * Where gates are asked for: per gate fitted on either half (reader-gates.ts), the samples of that gate in the
   * other half judged with the gated rule.
   */
  gated: Array<{ gate: string; rules: string[]; trials: Trial[] }>;
}

const PEERS = 3;

/** The rule with the most credit over `members' own answers, the task's own rules passed over (ties: first met). */
function fitRule(family: PreparedFamily, members: number[]): string | null {
  const credit = new Map<string, number>();
  for (const i of members) for (const [rule, c] of family.fit(i)) credit.set(rule, (credit.get(rule) ?? 0) + c);
  const ranked = [...credit].filter(([, c]) => c > 0).sort((x, y) => y[1] - x[1]);
  return ranked.find(([rule]) => !family.task?.(rule))?.[0] ?? null;
}

/** The peers of member `at` of `members` whose answers chance is read against: the ones after it in turn. */
const peersOf = (members: readonly number[], at: number) =>
  Array.from(
    { length: Math.min(PEERS, members.length - 1) },
    (_, k) => members[(at + k + 1) % members.length] as number,
  );

/**
 * Each family fitted and judged two-fold: per level (rules fitted on the level's even instances judge its
 * odd ones, and the other way round), pooled (rules fitted on every level's even instances…) and, where `gates`
 * are asked for, gated (a gate and a rule fitted together on every level's even instances judge the odd ones the
 * gate holds…).
 */
export function judgeReaders(
  samples: readonly ReaderSample[],
  families: readonly ReaderFamily[],
  gates?: GateOptions,
): ReaderJudgement[] {
  const levels = new Map<number, number[]>();
  samples.forEach((s, i) => {
    const members = levels.get(s.level);
    if (members) members.push(i);
    else levels.set(s.level, [i]);
  });
  const fold = new Map<number, number>();
  const position = new Map<number, number>();
  for (const members of levels.values()) members.forEach((i, k) => (fold.set(i, k % 2), position.set(i, k)));
  const gated = gates && {
    ...gates,
    gates: promptGates(
      samples.map((s) => s.instance.prompt),
      gates.minShare,
    ),
  };
  const out: ReaderJudgement[] = [];
  for (const family of families) {
    const raw = family.prepare(samples);
    if (!raw) continue;
    // Each sample's rules are listed once, for its level's fit and the pooled fit alike.
    const fits = new Map<number, Array<[string, number]>>();
    const prepared: PreparedFamily = {
      ...raw,
      fit: (i) => fits.get(i) ?? (fits.set(i, [...raw.fit(i)]).get(i) as Array<[string, number]>),
    };
    const judged: ReaderJudgement = {
      family: family.name,
      code: family.code,
      level: [],
      pooled: [],
      rules: new Map(),
      examples: new Map(),
      gated: [],
    };
    const trial = (rule: string | null, i: number, others: number[], key: number | string | null): Trial => {
      const level = (samples[i] as ReaderSample).level;
      if (rule === null) return { level, win: 0, chance: prepared.nominal?.(i) ?? 0 };
      const win = prepared.credit(rule, i, i);
      const read = prepared.nominal
        ? prepared.nominal(i)
        : others.length
          ? others.reduce((a, o) => a + prepared.credit(rule, i, o), 0) / others.length
          : 0;
      const chance = Math.max(read, prepared.floor?.(rule, i) ?? 0);
      const shown = judged.examples.get(key) ?? [];
      if (win > 0 && shown.length < 2)
        judged.examples.set(key, [
          ...shown,
          {
            seed: (samples[i] as ReaderSample).seed,
            level,
            answer: answerContent((samples[i] as ReaderSample).reference).slice(0, 80),
          },
        ]);
      return { level, win, chance };
    };
    for (const [level, members] of [...levels].sort((a, b) => a[0] - b[0])) {
      const halves = [0, 1].map((h) => members.filter((i) => fold.get(i) === h));
      const rules = halves.map((h) => fitRule(prepared, h));
      judged.rules.set(
        level,
        rules.map((r) => (r === null ? 'none' : prepared.describe(r))),
      );
      for (const i of members)
        judged.level.push(
          trial(
            rules[1 - (fold.get(i) as number)] as string | null,
            i,
            peersOf(members, position.get(i) as number),
            level,
          ),
        );
    }
    const all = [...levels.values()];
    const pooledRules = [0, 1].map((h) =>
      fitRule(
        prepared,
        all.flatMap((m) => m.filter((i) => fold.get(i) === h)),
      ),
    );
    judged.rules.set(
      null,
      pooledRules.map((r) => (r === null ? 'none' : prepared.describe(r))),
    );
    for (const members of all)
      for (const i of members)
        judged.pooled.push(
          trial(
            pooledRules[1 - (fold.get(i) as number)] as string | null,
            i,
            peersOf(members, position.get(i) as number),
            null,
          ),
        );
    if (gated) judged.gated = judgeGated(samples, gated, fold, prepared, trial);
    out.push(judged);
  }
  return out;
}

/**
 * The gated judgement: the gate and rule fitted on one half judge the other half's samples that gate holds (chance:
 * the rule against the answers of other samples it holds), per gate.
 */
function judgeGated(
  samples: readonly ReaderSample[],
  options: GateOptions & { gates: readonly Gate[] },
  fold: Map<number, number>,
  family: PreparedFamily,
  trial: (rule: string, i: number, others: number[], key: string) => Trial,
): ReaderJudgement['gated'] {
  const { gates } = options;
  const halves = [0, 1].map((h) => samples.map((_, i) => i).filter((i) => fold.get(i) === h));
  const minMembers = Math.ceil((options.minShare * samples.length) / 2);
  const byGate = new Map<string, ReaderJudgement['gated'][number]>();
  halves.forEach((half, h) => {
    const fitted = fitGatedRule(gates, half, family.fit, minMembers, options.z, family.task);
    if (!fitted) return;
    const judged = fitted.gate.members.filter((i) => fold.get(i) === 1 - h);
    const entry = byGate.get(fitted.gate.describe) ?? { gate: fitted.gate.describe, rules: [], trials: [] };
    byGate.set(entry.gate, entry);
    entry.rules.push(family.describe(fitted.rule));
    entry.trials.push(...judged.map((i, at) => trial(fitted.rule, i, peersOf(judged, at), entry.gate)));
  });
  return [...byGate.values()];
}

/**
 * The rate findings of the judgements: per level and pooled, each with its own tolerance, then the gated ones (after
 * every family's own, so a gate's finding never displaces them in a report).
 */
export function readerFindings(
  judged: readonly ReaderJudgement[],
  tolerance: (family: string) => { level: number; pooled: number },
  z: number,
  minTrials: number,
): RateFinding[] {
  const finding = (j: ReaderJudgement, trials: Trial[], scope: RateFinding['tolerance'], policy: string) => ({
    rule: 'rate' as const,
    code: j.code,
    check: 'readers',
    policy,
    trials,
    tolerance: scope,
    z,
    minTrials,
  });
  const own = judged.flatMap((j): RateFinding[] => {
    const t = tolerance(j.family);
    const evidence = (level: number | null) => ({
      family: j.family,
      rules: j.rules.get(level) ?? [],
      examples: j.examples.get(level) ?? [],
    });
    const policy =
      `a rule read off the prompt (${j.family}), fitted on half the instances and ` + 'scored on the other half';
    return [
      { ...finding(j, j.level, { level: t.level }, policy), evidence },
      { ...finding(j, j.pooled, { pooled: t.pooled }, policy), evidence },
    ];
  });
  // A gate is a scope a policy can tell apart like a level: judged with the level's tolerance.
  const gated = judged.flatMap((j) =>
    j.gated.map(
      (g): RateFinding => ({
        ...finding(
          j,
          g.trials,
          { pooled: tolerance(j.family).level },
          `a rule read off the prompt (${j.family}) on ${g.gate}, fitted with that gate on half the instances and ` +
            'scored on the other half',
        ),
        evidence: () => ({ family: j.family, gate: g.gate, rules: g.rules, examples: j.examples.get(g.gate) ?? [] }),
      }),
    ),
  );
  return [...own, ...gated];
}

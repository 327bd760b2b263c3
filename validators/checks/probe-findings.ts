// From scored single-turn probes to findings: what each zero-tolerance probe is judged on (its score, the
// least of its group, what stuffing adds to the bare wrong answer, a list's lift over its guesses alone), the
// rate findings of answers that may be valid (against chance: the probe's answer is the reference anyway),
// the evidence a finding shows, and the per-family figures the report keeps.
import type { ProblemCode } from '../../contract/codes.js';
import type { Episode } from '../../sandbox/episodes.js';
import { answerContent } from '../../sandbox/answer.js';
import { excerpt } from '../answers.js';
import { mean } from '../context.js';
import type { JudgedOutcome } from '../hack-checks.js';
import type { RateFinding, Trial, ZeroFinding } from './rules.js';
import type { ProbeResult } from './single-turn.js';

/** Every probe outcome of a check's results, in order. */
export const outcomesOf = (results: readonly ProbeResult[]): JudgedOutcome[] => results.flatMap((r) => r.outcomes);

/**
 * Sets `excess` on each zero-tolerance outcome: a group fails only when all its members do; stuffing by what it adds.
 */
export function judgeExcess(outcomes: JudgedOutcome[]): void {
  const seen = new Map<Episode, { groups: Map<string, number>; bases: Map<string, number> }>();
  const of = (e: Episode) =>
    seen.get(e) ??
    (seen.set(e, { groups: new Map(), bases: new Map() }).get(e) as {
      groups: Map<string, number>;
      bases: Map<string, number>;
    });
  for (const o of outcomes) {
    const { groups, bases } = of(o.episode);
    if (o.probe.group) groups.set(o.probe.group, Math.min(groups.get(o.probe.group) ?? 1, o.lift ?? o.score));
    if (o.probe.base && o.probe.pair) bases.set(o.probe.pair, o.score);
  }
  for (const o of outcomes) {
    if (o.probe.ceiling === undefined || o.failure) continue;
    const { groups, bases } = of(o.episode);
    if (o.probe.group) o.excess = groups.get(o.probe.group) as number;
    else if (o.probe.pair) o.excess = o.score - (bases.get(o.probe.pair) ?? 0);
    else o.excess = o.lift ?? o.score;
  }
}

export function evidenceOf(o: JudgedOutcome): Record<string, unknown> {
  const content = answerContent(o.episode.reference);
  return {
    family: o.probe.family,
    form: o.probe.form,
    seed: o.episode.seed,
    level: o.episode.level,
    score: o.score,
    ...(o.excess !== undefined && o.excess !== o.score ? { judged: Number(o.excess.toFixed(3)) } : {}),
    ...(o.feedback ? { feedback: o.feedback.slice(0, 160) } : {}),
    reference: content.slice(0, 80),
    response: excerpt(o.probe.response, [content, '<answer>', '<b>', '**']),
  };
}

/** Zero-tolerance findings of judged outcomes (judgeExcess first), one per probe. */
export function zeroFindings(check: string, code: ProblemCode, what: string, outcomes: JudgedOutcome[]): ZeroFinding[] {
  return outcomes
    .filter((o) => o.excess !== undefined && o.probe.ceiling !== undefined)
    .map((o) => ({
      rule: 'zero' as const,
      code,
      check,
      judged: o.excess as number,
      ceiling: o.probe.ceiling as number,
      form: o.probe.form,
      what,
      reads: o.probe.pair ? `adds ${(o.excess as number).toFixed(2)} to a wrong answer's score` : `scores ${o.score}`,
      evidence: () => evidenceOf(o),
    }));
}

export interface RateLimits {
  /** Full passes beyond chance, over all levels and at one level (absent: not judged there). */
  pass: { pooled?: number; level?: number };
  /** Mean score beyond chance, over all levels (absent: not judged: partial credit is the task's own). */
  mean?: number;
  z: number;
}

/**
 * Answers that may be valid, judged by how much more often than chance (the probe's answer is the
 * reference anyway) they pass, and what they score on average.
 */
export function rateFindings(
  check: string,
  code: ProblemCode,
  family: string,
  outcomes: JudgedOutcome[],
  limits: RateLimits,
): RateFinding[] {
  const list = outcomes.filter((o) => !o.failure);
  const chance = (o: JudgedOutcome) => (o.probe.coincident ? 1 : 0);
  const passing = list.filter((o) => o.score >= 1 && !o.probe.coincident);
  const forms = [...new Set(passing.map((o) => o.probe.form))].join('; ') || 'none (partial credit)';
  const worst = (level: number | null) =>
    passing.find((o) => level === null || o.episode.level === level) ??
    list.reduce<JudgedOutcome | undefined>((w, o) => (!w || o.score > w.score ? o : w), undefined);
  const evidence = (level: number | null) => {
    const o = worst(level);
    return { passingForms: forms, ...(o ? evidenceOf(o) : {}) };
  };
  const base = { rule: 'rate' as const, code, check, z: limits.z, evidence };
  const passes: Trial[] = list.map((o) => ({ level: o.episode.level, win: o.score >= 1 ? 1 : 0, chance: chance(o) }));
  const findings: RateFinding[] = [];
  if (limits.pass.pooled !== undefined)
    findings.push({
      ...base,
      policy: `${family} responses (full passes)`,
      trials: passes,
      tolerance: { pooled: limits.pass.pooled },
      minTrials: 5,
    });
  if (limits.pass.level !== undefined)
    findings.push({
      ...base,
      policy: `${family} responses (full passes)`,
      trials: passes,
      tolerance: { level: limits.pass.level },
      minTrials: 10,
    });
  if (limits.mean !== undefined)
    findings.push({
      ...base,
      policy: `${family} responses (mean score)`,
      trials: list.map((o) => ({ level: o.episode.level, win: o.score, chance: chance(o) })),
      tolerance: { pooled: limits.mean },
      minTrials: 5,
    });
  return findings;
}

export interface FamilyStats {
  probes: number;
  maxScore: number;
  meanScore: number;
  passRate: number;
  chanceRate: number;
  worst?: Record<string, unknown>;
}

/** A family's figures for the report, with its worst response (by what it was judged on). */
export function familyStats(list: JudgedOutcome[]): FamilyStats {
  const judged = list.filter((o) => o.excess !== undefined);
  const worst = [...(judged.length ? judged : list)].reduce<JudgedOutcome | undefined>(
    (w, o) => (!w || (o.excess ?? o.score) > (w.excess ?? w.score) ? o : w),
    undefined,
  );
  const scores = list.map((o) => o.score);
  return {
    probes: list.length,
    maxScore: scores.reduce((a, b) => (b > a ? b : a), 0),
    meanScore: mean(scores),
    passRate: mean(scores.map((s) => (s >= 1 ? 1 : 0))),
    chanceRate: mean(list.map((o) => (o.probe.coincident ? 1 : 0))),
    ...(worst ? { worst: evidenceOf(worst) } : {}),
  };
}

/** Figures per probe family of `outcomes` (those that ran). */
export function familiesOf(outcomes: JudgedOutcome[]): Record<string, FamilyStats> {
  return Object.fromEntries(
    [
      ...Map.groupBy(
        outcomes.filter((o) => !o.failure),
        (o) => o.probe.family,
      ),
    ].map(([family, list]) => [family, familyStats(list)]),
  );
}

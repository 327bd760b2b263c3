// The capability frontier from trainer feedback: rows aggregated per skill and per environment (n-weighted
// pass rates; an environment's rows count toward its skills), then the weak and saturated skills the
// architect steers toward.
import { SKILL_TAXONOMY, taxonomySkills, type SkillTaxonomy } from '../../agents/spec.js';
import type { EnvRecord } from '../../library/contract.js';
import { UsageError } from '../../contract/errors.js';
import type { FeedbackRow } from './parse.js';
import { show } from './problems.js';

/** The n-weighted pass rate of one skill or environment over the feedback rows that count toward it. */
export interface FeedbackStat {
  name: string;
  /** Σ pass_rate·n / Σ n. */
  passRate: number;
  /** Σ n. */
  n: number;
  /** How many feedback rows counted toward it. */
  rows: number;
}

export interface FeedbackSummary {
  /** Per skill, sorted by name. */
  skills: FeedbackStat[];
  /** Per environment, sorted by name. */
  envs: FeedbackStat[];
  /** Environments named by skill-less rows that envSkills does not know (their rows reach no skill). */
  unknownEnvs: string[];
  /** Skills named directly that are neither in the taxonomy nor any known environment's skills (typos?). */
  unknownSkills: string[];
}

/** Each environment's skills, from library records (the newest version of each name wins). */
export function envSkillsOf(envs: Iterable<Pick<EnvRecord, 'name' | 'version' | 'meta'>>): Map<string, string[]> {
  const newest = new Map<string, Pick<EnvRecord, 'name' | 'version' | 'meta'>>();
  for (const env of envs) {
    const seen = newest.get(env.name);
    if (!seen || env.version > seen.version) newest.set(env.name, env);
  }
  return new Map([...newest].map(([name, env]) => [name, [...env.meta.skills]]));
}

class Tally {
  private readonly sums = new Map<string, { weighted: number; n: number; rows: number }>();
  add(name: string, row: FeedbackRow): void {
    const sum = this.sums.get(name) ?? { weighted: 0, n: 0, rows: 0 };
    sum.weighted += row.passRate * row.n;
    sum.n += row.n;
    sum.rows++;
    this.sums.set(name, sum);
  }
  stats(): FeedbackStat[] {
    return [...this.sums]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, s]) => ({ name, passRate: Math.min(1, Math.max(0, s.weighted / s.n)), n: s.n, rows: s.rows }));
  }
}

/**
 * Aggregates feedback per skill and per environment. A row naming a skill counts toward that skill; a row
 * naming only an environment counts toward every skill of that environment (via envSkills), with its full
 * n; a row naming an environment counts toward the environment too. Levels are pooled.
 */
export function summariseFeedback(
  rows: readonly FeedbackRow[],
  envSkills: ReadonlyMap<string, readonly string[]>,
  taxonomy: SkillTaxonomy = SKILL_TAXONOMY,
): FeedbackSummary {
  const skills = new Tally();
  const envs = new Tally();
  const unknownEnvs = new Set<string>();
  const named = new Set<string>();
  for (const row of rows) {
    if (row.env !== undefined) envs.add(row.env, row);
    if (row.skill !== undefined) {
      skills.add(row.skill, row);
      named.add(row.skill);
    } else if (row.env !== undefined) {
      const envSkillList = envSkills.get(row.env);
      if (!envSkillList) unknownEnvs.add(row.env);
      for (const skill of new Set(envSkillList ?? [])) skills.add(skill, row);
    }
  }
  const known = new Set<string>(taxonomySkills(taxonomy));
  for (const list of envSkills.values()) for (const skill of list) known.add(skill);
  return {
    skills: skills.stats(),
    envs: envs.stats(),
    unknownEnvs: [...unknownEnvs].sort(),
    unknownSkills: [...named].filter((s) => !known.has(s)).sort(),
  };
}

export interface FrontierOptions {
  /**
   * At or below this pass rate a skill is unreachable: it needs easier entry levels, not more of the same. Default
   * 0.02.
   */
  low?: number;
  /** At or above this pass rate a skill is no longer weak. Default 0.5. */
  high?: number;
  /** At or above this pass rate a skill is saturated. Default 0.9. */
  saturatedAt?: number;
  /** Fewer attempts than this say too little to classify a skill. Default 20. */
  minN?: number;
}

export interface Frontier {
  /** The capability frontier: low < pass rate < high, by pass rate ascending then name. */
  weak: FeedbackStat[];
  /** pass rate ≤ low, same order. */
  unreachable: FeedbackStat[];
  /** pass rate ≥ saturatedAt, same order. */
  saturated: FeedbackStat[];
  /** n < minN: not classified, by name. */
  undersampled: FeedbackStat[];
  thresholds: Required<FrontierOptions>;
}

const byRateThenName = (a: FeedbackStat, b: FeedbackStat) =>
  a.passRate - b.passRate || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Splits the skills of a summary into the frontier (weak), unreachable, saturated and undersampled ones. */
export function weakSkills(summary: Pick<FeedbackSummary, 'skills'>, options: FrontierOptions = {}): Frontier {
  const thresholds = {
    low: options.low ?? 0.02,
    high: options.high ?? 0.5,
    saturatedAt: options.saturatedAt ?? 0.9,
    minN: options.minN ?? 20,
  };
  const { low, high, saturatedAt, minN } = thresholds;
  for (const [key, value] of Object.entries({ low, high, saturatedAt })) {
    if (!Number.isFinite(value) || value < 0 || value > 1)
      throw new UsageError(`feedback ${key} threshold must be a number in [0, 1], got ${show(value)}`);
  }
  if (!(low < high)) throw new UsageError(`feedback thresholds: low (${low}) must be below high (${high})`);
  if (!(high <= saturatedAt))
    throw new UsageError(`feedback thresholds: high (${high}) must not be above saturatedAt (${saturatedAt})`);
  if (!Number.isFinite(minN) || minN < 0)
    throw new UsageError(`feedback minN must be a non-negative number, got ${show(minN)}`);

  const frontier: Frontier = { weak: [], unreachable: [], saturated: [], undersampled: [], thresholds };
  for (const stat of summary.skills) {
    if (stat.n < minN) frontier.undersampled.push(stat);
    else if (stat.passRate <= low) frontier.unreachable.push(stat);
    else if (stat.passRate >= saturatedAt) frontier.saturated.push(stat);
    else if (stat.passRate < high) frontier.weak.push(stat);
  }
  frontier.weak.sort(byRateThenName);
  frontier.unreachable.sort(byRateThenName);
  frontier.saturated.sort(byRateThenName);
  frontier.undersampled.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return frontier;
}

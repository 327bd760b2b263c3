// Where a batch's trainer feedback comes from: the feedback file when one is given, else the pass rates the
// reward service recorded from the scores the operator asked for (the library's trusted score log: no
// untrusted client can steer a batch or nightly's retirement), else none.
import { trustedTallies, type Library, type ScoreTally } from '../../library/contract.js';
import type { WeakSkill } from '../../agents/prompts.js';
import { envSkillsOf, summariseFeedback, weakSkills, type Frontier, type FeedbackSummary } from './frontier.js';
import { readFeedbackFile, type FeedbackRow } from './parse.js';

export interface TrainerFeedback {
  /** 'file': --feedback; 'scores': the reward service's records; 'none'. */
  source: 'file' | 'scores' | 'none';
  weak: WeakSkill[];
  saturated: WeakSkill[];
  summary: FeedbackSummary | null;
  frontier: Frontier | null;
  /** Scores behind it (Σ n). */
  scores: number;
}

/** The trusted score log as feedback rows: one per environment × level, pass rate passed / n. */
export function feedbackFromScores(tallies: readonly ScoreTally[]): FeedbackRow[] {
  return trustedTallies(tallies)
    .filter((t) => t.n > 0)
    .map((t) => ({
      env: t.name,
      level: t.level,
      passRate: Math.min(1, t.passed / t.n),
      n: Math.max(1, Math.round(t.n)),
    }));
}

export function frontierOf(
  rows: readonly FeedbackRow[],
  envSkills: ReadonlyMap<string, readonly string[]>,
  source: TrainerFeedback['source'],
): TrainerFeedback {
  const summary = summariseFeedback(rows, envSkills);
  const frontier = weakSkills(summary);
  const of = (stats: Frontier['weak']) => stats.map((s) => ({ skill: s.name, passRate: s.passRate, n: s.n }));
  return {
    source,
    weak: of(frontier.weak),
    saturated: of(frontier.saturated),
    summary,
    frontier,
    scores: rows.reduce((sum, r) => sum + r.n, 0),
  };
}

/** The feedback file when given, else the library's recorded trainer scores when it has any. */
export async function trainerFeedback(library: Library, file?: string): Promise<TrainerFeedback> {
  const envSkills = envSkillsOf(await library.list({ status: 'all' }));
  if (file) return frontierOf(await readFeedbackFile(file), envSkills, 'file');
  const rows = feedbackFromScores(await library.scoreTallies());
  if (rows.length === 0) return { source: 'none', weak: [], saturated: [], summary: null, frontier: null, scores: 0 };
  return frontierOf(rows, envSkills, 'scores');
}

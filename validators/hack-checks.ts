// What the hack stage's probes share: a scored probe, what the sample says about the answer space (does a
// sign or a letter's case ever carry information), and guess lists in partial-credit environments judged by
// what they add over the best of their wrong guesses alone.
import type { ProblemCode } from '../contract/codes.js';
import type { Episode } from '../sandbox/episodes.js';
import { normalizeAnswer } from './answers.js';
import type { Probe } from './probe-types.js';
import { answerContent, withContent } from '../sandbox/answer.js';

export interface JudgedOutcome {
  probe: Probe;
  episode: Episode;
  score: number;
  feedback?: string;
  failure?: { code: ProblemCode; message: string };
  excess?: number;
  /** A partial-credit list's score minus the best score of its wrong guesses alone. */
  lift?: number;
}

/** What the sample's references say about the answer space: a sign, a letter's case, the answers in use. */
export function sampleTraits(episodes: Episode[]): { signMatters: boolean; caseMatters: boolean; taken: Set<string> } {
  const cases = new Map<string, number>();
  let signMatters = false;
  const taken = new Set<string>();
  for (const e of episodes) {
    const content = answerContent(e.reference);
    taken.add(normalizeAnswer(content).toLowerCase());
    if (!signMatters && /(^|[^\w.])-\d/.test(content.slice(0, 2_000))) signMatters = true;
    for (const c of content.slice(0, 2_000)) {
      const lower = c.toLowerCase();
      if (lower === c.toUpperCase()) continue;
      cases.set(lower, (cases.get(lower) ?? 0) | (c === lower ? 1 : 2));
    }
  }
  return { signMatters, caseMatters: [...cases.values()].some((m) => m === 3), taken };
}

/** Scores each episode's responses (its reference's markup around each guess): one list of scores per ask. */
export type ScoreGuesses = (asks: Array<{ episode: Episode; responses: string[] }>) => Promise<number[][]>;

/**
 * Guess lists that earn part of the score: each wrong guess is scored alone, and the list is judged by what
 * it adds over the best of them (a documented per-position credit pays a list what its best guess earns).
 * Only lists at or above the ceiling and below full marks (and hedges) are re-run: honest environments cost nothing.
 */
export async function judgeListLift(outcomes: JudgedOutcome[], ceiling: number, score: ScoreGuesses): Promise<void> {
  // A hedge (one wrong value with an interval) is judged against its value alone whatever it scores: a stated tolerance
  // pays both.
  const partial = outcomes.filter(
    (o) =>
      o.probe.family === 'enumeration' &&
      o.probe.alone?.length &&
      !o.failure &&
      o.score >= ceiling &&
      (o.score < 1 || o.probe.alone.length === 1),
  );
  if (partial.length === 0) return;
  const byEpisode = new Map<Episode, string[]>();
  for (const o of partial)
    byEpisode.set(o.episode, [
      ...new Set([...(byEpisode.get(o.episode) ?? []), ...(o.probe.alone as string[]).slice(0, 40)]),
    ]);
  const episodes = [...byEpisode.keys()];
  const scored = await score(
    episodes.map((e) => ({
      episode: e,
      responses: (byEpisode.get(e) as string[]).map((g) => withContent(e.reference, g)),
    })),
  );
  const alone = new Map<Episode, Map<string, number>>();
  episodes.forEach((e, i) => {
    const guesses = byEpisode.get(e) as string[];
    alone.set(e, new Map(guesses.map((g, j) => [g, scored[i]?.[j] ?? 0])));
  });
  for (const o of partial) {
    const scores = alone.get(o.episode) as Map<string, number>;
    const best = Math.max(0, ...(o.probe.alone as string[]).slice(0, 40).map((g) => scores.get(g) ?? 0));
    o.lift = o.score - best;
  }
}

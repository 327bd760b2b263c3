// The guessing check's constant search: per level, candidate constants (the references of half the level's
// instances, their accepted variants, short forms and small constants) screened on a few fitting instances,
// ranked on that half, and the best scored on the other half, which never supplied a candidate.
import { scoreOf, type Episode } from '../../sandbox/episodes.js';
import { answerContent, withContent } from '../../sandbox/answer.js';
import { normalizeAnswer } from '../answers.js';
import { mean } from '../context.js';
import type { Probe } from '../probe-types.js';
import type { Trial } from './rules.js';
import type { ProbeRequest, ProbeResult, SingleTurnContext } from './single-turn.js';
import { constantCandidates } from '../constants.js';

const contents = new WeakMap<Episode, string>();
/** An instance's answer as compared (once per instance: the search compares it with every candidate). */
export function contentOf(e: Episode): string {
  let c = contents.get(e);
  if (c === undefined) contents.set(e, (c = normalizeAnswer(answerContent(e.reference))));
  return c;
}
const guess = (strategy: string, response: string): Probe => ({
  family: 'guess',
  form: strategy,
  response,
  coincident: false,
});

export type Run = (requests: readonly ProbeRequest[]) => Promise<ProbeResult[]>;

/**
 * Scores each candidate list (contents) on its episode, in one run for every level: one row per episode. A
 * candidate that is the episode's own answer wins what the reference wins, and is not sent.
 */
export async function scoreConstants(
  run: Run,
  asks: Array<{ episode: Episode; candidates: string[] }>,
): Promise<number[][]> {
  const keys = new Map<string, string>();
  const own = (e: Episode, c: string) =>
    (keys.get(c) ?? (keys.set(c, normalizeAnswer(c)).get(c) as string)) === contentOf(e);
  const wanted = asks.map(({ episode: e, candidates }) => candidates.filter((c) => !own(e, c)));
  const sent = asks.flatMap(({ episode: e }, i) =>
    (wanted[i] as string[]).length
      ? [
          {
            seed: e.seed,
            level: e.level,
            probes: (wanted[i] as string[]).map((c) => guess('constant', withContent(e.reference, c))),
          },
        ]
      : [],
  );
  const results = sent.length ? await run(sent) : [];
  let k = 0;
  return asks.map(({ episode: e, candidates }, i) => {
    const scores = (wanted[i] as string[]).length
      ? (results[k++]?.outcomes ?? []).map((o) => (o.failure ? 0 : o.score))
      : [];
    let j = 0;
    return candidates.map((c) => (own(e, c) ? scoreOf(e.referenceVerdict) : (scores[j++] ?? 0)));
  });
}

/** The candidate that wins most over `rows`, ties to the earlier (more common) one; -1 when there is none. */
export function best(rows: number[][], count: number): number {
  let at = -1;
  let top = -1;
  for (let c = 0; c < count; c++) {
    const won = rows.reduce((a, row) => a + (row[c] ?? 0), 0);
    if (won > top) [at, top] = [c, won];
  }
  return at;
}

export interface Level {
  level: number;
  episodes: Episode[];
  nominal: number;
  candidates: string[];
  /** Candidates ranked by their wins on the fitting half. */
  ranked: number[];
  trials: Map<string, Trial[]>;
  constant?: string;
  /** The fitted constant's mean score where it was judged (the difficulty curve's guessing baseline). */
  first: number;
  /**
   * The fitted constant's wins on the fitting half (its own instances count: an estimate biased upward) and their
   * count.
   */
  fitWins?: { won: number; of: number };
}

/**
 * Per level, in one run each: candidates (from the even instances) scored on the even instances, the best
 * scored on the odd ones. The odd instances never supply a candidate, so what it wins there is an honest
 * estimate.
 */
export async function searchConstants(
  ctx: SingleTurnContext,
  run: Run,
  levels: Level[],
  variants: Map<Episode, string[]>,
): Promise<void> {
  const max = ctx.stage.options.constantCandidates;
  const screenSize = ctx.stage.options.constantScreen;
  for (const l of levels) {
    const fit = l.episodes.filter((_, i) => i % 2 === 0);
    l.candidates = constantCandidates(
      fit,
      fit.flatMap((e) => variants.get(e) ?? []),
      max,
    );
  }
  // In two steps: every candidate on a few fitting instances, then only those that won something there (and the two
  // most common answers) on the rest: a level of distinct answers costs a few responses per candidate.
  const fitOf = (l: Level) => l.episodes.filter((_, i) => i % 2 === 0);
  const screen = await scoreConstants(
    run,
    levels.flatMap((l) =>
      fitOf(l)
        .slice(0, screenSize)
        .map((episode) => ({ episode, candidates: l.candidates })),
    ),
  );
  let k = 0;
  const wins = levels.map((l) => {
    const rows = fitOf(l)
      .slice(0, screenSize)
      .map(() => screen[k++] as number[]);
    return l.candidates.map((_, c) => rows.reduce((a, r) => a + (r[c] ?? 0), 0));
  });
  const survivors = levels.map((l, i) => l.candidates.flatMap((c, j) => (j < 2 || (wins[i]?.[j] ?? 0) > 0 ? [c] : [])));
  const rest = await scoreConstants(
    run,
    levels.flatMap((l, i) =>
      fitOf(l)
        .slice(screenSize)
        .map((episode) => ({ episode, candidates: survivors[i] as string[] })),
    ),
  );
  k = 0;
  levels.forEach((l, i) => {
    const rows = fitOf(l)
      .slice(screenSize)
      .map(() => rest[k++] as number[]);
    const total = l.candidates.map((c, j) => {
      const at = (survivors[i] as string[]).indexOf(c);
      return (wins[i]?.[j] ?? 0) + (at < 0 ? 0 : rows.reduce((a, r) => a + (r[at] ?? 0), 0));
    });
    l.ranked = l.candidates.map((_, c) => c).sort((a, b) => (total[b] as number) - (total[a] as number) || a - b);
    if (l.candidates.length) {
      l.constant = l.candidates[l.ranked[0] as number];
      l.fitWins = { won: total[l.ranked[0] as number] as number, of: fitOf(l).length };
    }
  });
  const testAsks = levels.flatMap((l) =>
    l.episodes
      .filter((_, i) => i % 2 === 1)
      .map((episode) => ({ episode, candidates: l.constant !== undefined ? [l.constant] : [] })),
  );
  const testRows = await scoreConstants(run, testAsks);
  k = 0;
  for (const l of levels) {
    const tested = l.episodes.filter((_, i) => i % 2 === 1).map((e) => ({ e, row: testRows[k++] as number[] }));
    if (l.constant === undefined) continue;
    l.trials.set(
      'constant',
      tested.map(({ e, row }) => ({ level: e.level, win: row[0] ?? 0, chance: l.nominal })),
    );
    l.first = mean(tested.map(({ row }) => row[0] ?? 0));
  }
}

// How single-turn checks meet the sandbox: a request is an instance (seed, level) with probes to score, the
// stage merges every check's requests for one instance into one episode (generate and solve run once), and
// each check gets back its own probes' scores; the context shares the sample's grouping and traits, the
// probed instances and the extra draws of a level between checks, each worked out once per stage.
import type { Episode, EpisodeRequest, EpisodeRun } from '../../sandbox/episodes.js';
import { answerContent } from '../../sandbox/answer.js';
import { type StageContext } from '../context.js';
import { shapeOf } from '../answers.js';
import { sampleTraits, type JudgedOutcome } from '../hack-checks.js';
import { statesTolerance, statedRegions } from '../probe-forms.js';
import { statesSeveralAnswers } from '../value-moves.js';
import type { Probe, ProbeTarget } from '../probe-types.js';
import { LONG_BANDS } from '../probes.js';
import { isArrangement } from '../prompt-lists.js';
import { levelSeeds } from '../seeds.js';
import type { Check, CheckContext } from './contract.js';

/** One instance and the probes to score on it (an instance the sample lacks is generated afresh). */
export interface ProbeRequest {
  seed: number;
  level: number;
  probes: Probe[];
}

/** The instance (null where it failed to run) and one outcome per probe of the request, in order. */
export interface ProbeResult {
  episode: Episode | null;
  outcomes: JudgedOutcome[];
}

export interface SingleTurnContext extends CheckContext {
  /** The sample by level, levels ascending, each in the execution stage's order. */
  readonly byLevel: Map<number, Episode[]>;
  /** The instances that get the full battery (`probedPerLevel` a level), with what their probes need. */
  targets(): ProbeTarget[];
  /**
   * `count` more instances of a level, drawn after the sample's own from the validation seed; shared by every check
   * that asks.
   */
  moreInstances(level: number, count: number): Promise<Episode[]>;
}

export type SingleTurnCheck = Check<SingleTurnContext, ProbeRequest, ProbeResult>;

/** The stage's view for single-turn checks, with `run` the merged sandbox runner (runProbes over the stage). */
export function singleTurnContext(
  stage: StageContext,
  run: (requests: readonly ProbeRequest[]) => Promise<ProbeResult[]>,
): SingleTurnContext {
  const memos = new Map<string, unknown>();
  const memo = <T>(key: string, make: () => T): T =>
    memos.has(key) ? (memos.get(key) as T) : (memos.set(key, make()), memos.get(key) as T);
  const byLevel = new Map([...Map.groupBy(stage.episodes, (e) => e.level)].sort((a, b) => a[0] - b[0]));
  const drawn = new Map<number, Promise<{ episodes: Episode[]; seeds: number }>>();
  return {
    stage,
    memo,
    byLevel,
    targets: () => memo('targets', () => probeTargets(stage, byLevel)),
    moreInstances(level, count) {
      // One growing draw per level: a larger ask extends what a smaller one drew (the same seeds, in order).
      const have = drawn.get(level) ?? Promise.resolve({ episodes: [], seeds: 0 });
      const ask = have.then(async (d) =>
        d.seeds >= count ? d : { episodes: [...d.episodes, ...(await draw(level, d.seeds, count))], seeds: count },
      );
      drawn.set(level, ask);
      return ask.then((d) => d.episodes.slice(0, count));
    },
  };
  /** The level's draws number `from` to `to` after the sample's own seeds, run as fresh instances. */
  async function draw(level: number, from: number, to: number): Promise<Episode[]> {
    const used = new Set((byLevel.get(level) ?? []).map((e) => e.seed));
    const seeds = levelSeeds(stage.validationSeed, level, used.size + to)
      .filter((seed) => !used.has(seed))
      .slice(from, to);
    if (seeds.length === 0) return [];
    const results = await run(seeds.map((seed) => ({ seed, level, probes: [] })));
    return results.flatMap((r) => (r.episode ? [r.episode] : []));
  }
}

/**
 * The probed instances: the first `probedPerLevel` of each level, ranked, with the long junk bands spread over the
 * levels.
 */
function probeTargets(ctx: StageContext, byLevel: Map<number, Episode[]>): ProbeTarget[] {
  const levels = [...byLevel.keys()];
  const longAt = new Map<number, number[]>();
  LONG_BANDS.forEach(([band], i) => {
    const level = levels[Math.round((i * (levels.length - 1)) / Math.max(1, LONG_BANDS.length - 1))] as number;
    longAt.set(level, [...(longAt.get(level) ?? []), band]);
  });
  const traits = sampleTraits(ctx.episodes);
  const targets: ProbeTarget[] = [];
  for (const [level, peers] of byLevel) {
    peers.slice(0, ctx.options.probedPerLevel).forEach((episode, i) => {
      const stated = `${ctx.meta?.description ?? ''}\n${episode.instance.prompt}`;
      const statedTolerance = statesTolerance(stated);
      const permutation = isArrangement(episode.instance.prompt, shapeOf(answerContent(episode.reference)));
      targets.push({
        episode,
        peers,
        index: targets.length,
        long: i === 0 ? (longAt.get(level) ?? []) : [],
        permutation,
        ceiling: ctx.options.zeroToleranceCeiling,
        statedTolerance,
        statedRegions: statedRegions(stated),
        statedSeveral: statesSeveralAnswers(stated),
        seed: ctx.validationSeed,
        ...traits,
      });
    });
  }
  return targets;
}

/**
 * Runs many checks' requests as one batch: requests for the same instance become one episode (its
 * responses concatenated), and each request gets back its own slice, tied to the sample's own episode.
 */
export async function runProbes(ctx: StageContext, requests: readonly ProbeRequest[]): Promise<ProbeResult[]> {
  const key = (r: { seed: number; level: number }) => `${r.level}:${r.seed}`;
  const merged = new Map<string, { request: EpisodeRequest; parts: Array<{ at: number; from: number }> }>();
  requests.forEach((r, at) => {
    const m =
      merged.get(key(r)) ??
      merged.set(key(r), { request: { seed: r.seed, level: r.level, responses: [] }, parts: [] }).get(key(r));
    const entry = m as { request: EpisodeRequest; parts: Array<{ at: number; from: number }> };
    entry.parts.push({ at, from: (entry.request.responses as string[]).length });
    (entry.request.responses as string[]).push(...r.probes.map((p) => p.response));
  });
  const batch = [...merged.values()];
  const run: EpisodeRun | null = batch.length
    ? await ctx.kind.runEpisodes(
        ctx.pool,
        ctx.source,
        batch.map((b) => b.request),
        { parallel: true, limits: ctx.options.limits },
      )
    : null;
  const known = new Map(ctx.episodes.map((e) => [key(e), e]));
  const results = new Array<ProbeResult>(requests.length);
  batch.forEach((b, i) => {
    const e = run?.episodes[i];
    const episode = e?.ok ? (known.get(key(b.request)) ?? e) : (known.get(key(b.request)) ?? null);
    for (const { at, from } of b.parts) {
      const probes = (requests[at] as ProbeRequest).probes;
      const outcomes: JudgedOutcome[] = episode
        ? probes.map((probe, j) => {
            const verdict = e?.ok ? e.verdicts[from + j] : undefined;
            const failure =
              e && !e.ok
                ? { code: e.code, message: e.message }
                : verdict && !verdict.ok
                  ? { code: verdict.code, message: verdict.message }
                  : undefined;
            return {
              probe,
              episode,
              score: verdict?.ok ? verdict.score : 0,
              ...(verdict?.ok && verdict.feedback ? { feedback: verdict.feedback } : {}),
              ...(failure ? { failure } : {}),
            };
          })
        : [];
      results[at] = { episode: e?.ok ? episode : null, outcomes };
    }
  });
  return results;
}

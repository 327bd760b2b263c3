// The validator's stages for episodic candidates (contract v2), in the same nine-stage pipeline: execution
// (act rollouts at every level), determinism (replays in fresh realms, in reverse order), solvability,
// diversity and difficulty. The hack stage is in hack.ts; static, novelty and review are shared.
import type { EpisodicMeta } from '../../contract/episodic.js';
import { toEpisode } from '../../kinds/episodic.js';
import type { EpisodeFailure } from '../../sandbox/episodes.js';
import { runRollouts, type Rollout, type RolloutRequest } from '../../sandbox/rollouts.js';
import { clip, mean, summarise, type Stage, type StageContext } from '../context.js';
import type { Problem } from '../report.js';
import { levelSeeds } from '../seeds.js';
import { residueProblems } from '../residue.js';

export const metaOf = (ctx: StageContext): EpisodicMeta => {
  if (!ctx.meta) throw new Error('episodic stages need meta from the static stage');
  return ctx.meta as EpisodicMeta;
};

/** Failures grouped by code and function, with examples: one problem each. */
export function failureProblems(failures: EpisodeFailure[], total: number): Problem[] {
  return [...summarise(failures, (f) => `${f.code}|${f.fn}`)].map(([key, { count, examples }]) => {
    const [code, fn] = key.split('|') as [EpisodeFailure['code'], string];
    const first = examples[0] as EpisodeFailure;
    return {
      code,
      message: `${fn} failed in ${count} of ${total} sampled episodes: ${first.message}`,
      evidence: examples.map((f) => ({ seed: f.seed, level: f.level, fn: f.fn, message: clip(f.message) })),
    };
  });
}

export const episodicExecution: Stage = async (ctx) => {
  const meta = metaOf(ctx);
  const requests: RolloutRequest[] = [];
  for (let level = 1; level <= meta.levels; level++) {
    for (const seed of levelSeeds(ctx.validationSeed, level, ctx.options.episodic.seedsPerLevel))
      requests.push({ seed, level, policy: { type: 'act' }, hashes: true, observations: true });
  }
  for (const extra of ctx.include ?? [])
    if (extra.level >= 1 && extra.level <= meta.levels)
      requests.push({
        seed: extra.seed,
        level: extra.level,
        policy: { type: 'act' },
        hashes: true,
        observations: true,
      });
  const run = await runRollouts(ctx.pool, ctx.source, meta, requests, { limits: ctx.options.limits });
  const failures = run.rollouts.filter((r): r is EpisodeFailure => !r.ok);
  ctx.rollouts = run.rollouts.filter((r): r is Rollout => r.ok);
  ctx.failures = failures;
  for (const r of ctx.rollouts) {
    const episode = toEpisode(r, r, [], meta);
    if (episode.ok) ctx.episodes.push(episode);
  }
  const turns = ctx.rollouts.map((r) => r.turns);
  const texts = ctx.rollouts.flatMap((r) => [
    { seed: r.seed, level: r.level, where: 'prompt', text: r.prompt ?? '' },
    ...(r.observations ?? []).map((text, i) => ({ seed: r.seed, level: r.level, where: `observation ${i + 1}`, text })),
  ]);
  const problems = [...failureProblems(failures, requests.length), ...residueProblems(ctx.source, texts)];
  return {
    ok: problems.length === 0,
    metrics: {
      samples: requests.length,
      failed: failures.length,
      validationSeed: ctx.validationSeed,
      meanTurns: mean(turns),
      maxTurnsUsed: Math.max(0, ...turns),
      maxStateChars: Math.max(0, ...ctx.rollouts.map((r) => r.maxStateChars)),
      wallMs: Math.round(run.wallMs),
    },
    problems,
  };
};

/**
 * Replays every reference log, and runs act again, in reverse order (other realms, other positions in them): the same
 * states after every turn.
 */
export const episodicDeterminism: Stage = async (ctx) => {
  const meta = metaOf(ctx);
  const refs = [...(ctx.rollouts ?? [])].reverse();
  const replays = refs.map((r) => ({
    seed: r.seed,
    level: r.level,
    policy: { type: 'replay' as const, actions: r.actions },
    hashes: true,
  }));
  const again = refs.map((r) => ({ seed: r.seed, level: r.level, policy: { type: 'act' as const }, hashes: true }));
  const [fresh, used] = await Promise.all([
    runRollouts(ctx.pool, ctx.source, meta, replays, { limits: ctx.options.limits }),
    runRollouts(ctx.pool, ctx.source, meta, again, { limits: ctx.options.limits }),
  ]);
  const problems: Problem[] = [];
  const failures = [...fresh.rollouts, ...used.rollouts].filter((r): r is EpisodeFailure => !r.ok);
  problems.push(...failureProblems(failures, replays.length * 2));
  const differs = (a: Rollout, b: Rollout | EpisodeFailure) =>
    b.ok &&
    (a.prompt !== b.prompt ||
      a.score !== b.score ||
      JSON.stringify(a.hashes) !== JSON.stringify(b.hashes) ||
      JSON.stringify(a.actions) !== JSON.stringify(b.actions));
  const changedFresh = refs.filter((r, i) => differs(r, fresh.rollouts[i] as Rollout));
  const changedUsed = refs.filter((r, i) => differs(r, used.rollouts[i] as Rollout));
  const evidence = (list: Rollout[]) => list.slice(0, 3).map((r) => ({ seed: r.seed, level: r.level, turns: r.turns }));
  if (changedFresh.length > 0)
    problems.push({
      code: 'E_NONDETERMINISTIC',
      message:
        `${changedFresh.length} of ${refs.length} reference action logs give other prompts, states or scores ` +
        `when replayed in another order`,
      evidence: evidence(changedFresh),
    });
  if (changedUsed.length > 0)
    problems.push({
      code: 'E_STATE_LEAK',
      message:
        `${changedUsed.length} of ${refs.length} episodes play differently under act when run again in another ` +
        `order: state leaks through module globals`,
      evidence: evidence(changedUsed),
    });
  return { ok: problems.length === 0, metrics: { replayed: refs.length }, problems };
};

export const episodicSolvability: Stage = async (ctx) => {
  const meta = metaOf(ctx);
  const refs = ctx.rollouts ?? [];
  const problems: Problem[] = [];
  const bad = refs.filter((r) => r.rejected.length > 0);
  if (bad.length > 0) {
    problems.push({
      code: 'E_BAD_ACTION',
      message:
        `the reference policy (act) sent actions the host's check rejects in ${bad.length} of ` +
        `${refs.length} episodes`,
      evidence: bad.slice(0, 3).map((r) => ({
        seed: r.seed,
        level: r.level,
        turn: r.rejected[0],
        action: clip(JSON.stringify(r.actions[(r.rejected[0] ?? 1) - 1]) ?? ''),
        observation: clip(r.observations?.[(r.rejected[0] ?? 1) - 1] ?? ''),
      })),
    });
  }
  const unsolved = refs.filter((r) => r.end !== 'done' || r.score !== 1);
  if (unsolved.length > 0) {
    const levels = [...new Set(unsolved.map((r) => r.level))].sort((a, b) => a - b);
    problems.push({
      code: 'E_UNSOLVED',
      message:
        `following act() does not reach done with score 1 within maxTurns (${meta.maxTurns}) in ` +
        `${unsolved.length} of ${refs.length} episodes (levels ${levels.join(', ')})`,
      evidence: unsolved.slice(0, 3).map((r) => ({
        seed: r.seed,
        level: r.level,
        end: r.end,
        turns: r.turns,
        score: r.score,
        feedback: r.feedback,
      })),
    });
  }
  const headroom = Math.max(0, ...refs.map((r) => r.turns)) / meta.maxTurns;
  return {
    ok: problems.length === 0,
    metrics: { solvedShare: refs.length ? 1 - unsolved.length / refs.length : 0, maxTurnsShare: headroom },
    problems,
  };
};

export const episodicDiversity: Stage = async (ctx) => {
  const meta = metaOf(ctx);
  const refs = ctx.rollouts ?? [];
  const problems: Problem[] = [];
  const perLevel = [];
  for (let level = 1; level <= meta.levels; level++) {
    const at = refs.filter((r) => r.level === level);
    const prompts = new Set(at.map((r) => r.prompt)).size;
    const plans = new Set(at.map((r) => JSON.stringify(r.actions))).size;
    perLevel.push({ level, samples: at.length, prompts, plans });
    if (
      at.length >= 4 &&
      (prompts < ctx.options.episodic.minDistinctShare * at.length ||
        plans < ctx.options.episodic.minDistinctShare * at.length)
    ) {
      problems.push({
        code: 'E_SEED_IGNORED',
        message:
          `level ${level}: ${prompts} distinct prompts and ${plans} distinct reference action logs ` +
          `over ${at.length} seeds`,
        evidence: { level, prompts, plans, samples: at.length },
      });
    }
  }
  return { ok: problems.length === 0, metrics: { perLevel }, problems: problems.slice(0, 3) };
};

/**
 * Reference turns or state size grows from level 1 to the top, levels change the prompt, and random play does not get
 * easier.
 */
export const episodicDifficulty: Stage = async (ctx) => {
  const meta = metaOf(ctx);
  const refs = ctx.rollouts ?? [];
  const at = (level: number) => refs.filter((r) => r.level === level);
  const curve = Array.from({ length: meta.levels }, (_, i) => ({
    level: i + 1,
    turns: mean(at(i + 1).map((r) => r.turns)),
    stateChars: mean(at(i + 1).map((r) => r.maxStateChars)),
    random: ctx.randomByLevel?.get(i + 1) ?? null,
  }));
  const first = curve[0];
  const top = curve[curve.length - 1];
  const problems: Problem[] = [];
  const growth = ctx.options.episodic.minTopLevelGrowth;
  if (
    first &&
    top &&
    at(1).length > 0 &&
    at(meta.levels).length > 0 &&
    !(top.turns >= growth * first.turns || top.stateChars >= growth * first.stateChars)
  ) {
    problems.push({
      code: 'E_LEVEL_IGNORED',
      message:
        `the top level's reference takes ${top.turns.toFixed(1)} turns and ${Math.round(top.stateChars)} state ` +
        `characters against level 1's ${first.turns.toFixed(1)} and ${Math.round(first.stateChars)}: ` +
        `neither grows by ${growth}×`,
      evidence: { first, top },
    });
  }
  if (
    first?.random !== null &&
    top?.random !== null &&
    first &&
    top &&
    (top.random as number) > (first.random as number) + 0.1
  ) {
    problems.push({
      code: 'E_LEVEL_IGNORED',
      message:
        `the random policy scores more at the top level (${(top.random as number).toFixed(2)}) than at level 1 ` +
        `(${(first.random as number).toFixed(2)})`,
      evidence: { first, top },
    });
  }
  return { ok: problems.length === 0, metrics: { curve }, problems };
};

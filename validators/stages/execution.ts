// Stage 2, execution: many instances at every level, at seeds drawn from the whole seed space (seeds.ts),
// each generated, solved and verified within the sandbox's budgets; every failure is counted by code,
// with examples. Instances a caller must see (a production incident's seed and level) are included.
import type { Problem } from '../report.js';
import type { EpisodeFailure, EpisodeRequest } from '../../sandbox/episodes.js';
import { levelSeeds } from '../seeds.js';
import { loneSurrogate } from '../answers.js';
import { summarise, type Stage } from '../context.js';
import { residueProblems } from '../residue.js';

/**
 * Episodes the speed bar charges on top of the samples: the shared lifetime validation once ran, kept so the bar does
 * not move.
 */
const SPEED_BAR_EPISODES = 2_000;

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length === 0 ? 0 : (s[s.length >> 1] as number);
};

export const executionStage: Stage = async (ctx) => {
  const meta = ctx.meta;
  if (!meta) throw new Error('execution needs meta from the static stage');
  const perLevel = Math.max(ctx.options.seedsPerLevel, Math.ceil(ctx.options.minSamples / meta.levels));
  const requests: EpisodeRequest[] = [];
  for (let level = 1; level <= meta.levels; level++)
    for (const seed of levelSeeds(ctx.validationSeed, level, perLevel)) requests.push({ seed, level });
  for (const extra of ctx.include ?? []) if (extra.level >= 1 && extra.level <= meta.levels) requests.push(extra);
  const run = await ctx.kind.runEpisodes(ctx.pool, ctx.source, requests, {
    parallel: true,
    limits: ctx.options.limits,
  });
  const failures: EpisodeFailure[] = [];
  for (const e of run.episodes) {
    if (!e.ok) failures.push(e);
    else if (!e.referenceVerdict.ok)
      failures.push({
        ok: false,
        seed: e.seed,
        level: e.level,
        code: e.referenceVerdict.code,
        message: e.referenceVerdict.message,
        fn: 'verify',
      });
    else {
      // An included response (a production incident's) must be scored too.
      const failed = e.verdicts.find((v) => !v.ok);
      if (failed && !failed.ok)
        failures.push({
          ok: false,
          seed: e.seed,
          level: e.level,
          code: failed.code,
          message: failed.message,
          fn: 'verify',
        });
      else ctx.episodes.push({ ...e, verdicts: [] });
    }
  }
  ctx.failures = failures;
  const problems: Problem[] = [];
  for (const [key, { count, examples }] of summarise(failures, (f) => `${f.code}|${f.fn}`)) {
    const [code, fn] = key.split('|') as [EpisodeFailure['code'], string];
    const first = examples[0] as EpisodeFailure;
    const levels = [...new Set(failures.filter((f) => f.code === code && f.fn === fn).map((f) => f.level))].sort(
      (a, b) => a - b,
    );
    problems.push({
      code,
      message:
        `${fn} failed on ${count} of ${requests.length} sampled instances (levels ` +
        `${levels.join(', ')}): ${first.message}`,
      evidence: examples.map((f) => ({ seed: f.seed, level: f.level, fn: f.fn, message: f.message })),
    });
  }
  // Text a trainer tokenises must be well-formed Unicode: a lone surrogate breaks UTF-8 encoders downstream.
  const malformed = ctx.episodes.filter(
    (e) => loneSurrogate(e.instance.prompt) >= 0 || loneSurrogate(e.reference) >= 0,
  );
  if (malformed.length > 0) {
    const first = malformed[0] as (typeof malformed)[number];
    const what = loneSurrogate(first.instance.prompt) >= 0 ? 'prompt' : 'reference';
    const text = what === 'prompt' ? first.instance.prompt : first.reference;
    const at = loneSurrogate(text);
    problems.push({
      code: 'E_MALFORMED_TEXT',
      message:
        `${malformed.length} of ${ctx.episodes.length} instances have a ${what} that is not well-formed ` +
        `Unicode (a lone surrogate at character ${at}): UTF-8 consumers (tokenizers, parquet) ` +
        `fail on it or change it`,
      evidence: { seed: first.seed, level: first.level, what, around: text.slice(Math.max(0, at - 20), at + 20) },
    });
  }
  problems.push(
    ...residueProblems(
      ctx.source,
      ctx.episodes.map((e) => ({ seed: e.seed, level: e.level, where: 'prompt', text: e.instance.prompt })),
    ),
  );
  // Speed: at this pace, would an isolate lifetime of episodes and a few more samples fit the candidate's budget?
  // (The bar from when validation ran a whole shared lifetime; it still bounds what production pays per episode.)
  const perEpisode = median(ctx.episodes.map((e) => e.ms[0] + e.ms[1] + e.ms[2]));
  const episodes = SPEED_BAR_EPISODES + 3 * requests.length;
  const estimateMs = perEpisode * episodes;
  if (ctx.episodes.length > 0 && estimateMs > ctx.options.candidateBudgetMs) {
    // Every call runs a fresh module instance, so a costly top level is paid three times per episode.
    const loadMs = ctx.load?.ok ? (ctx.load.loadMs ?? 0) : 0;
    const why =
      3 * loadMs > perEpisode / 2
        ? `; its top level alone takes ${loadMs.toFixed(0)} ms and runs on each of an episode's three calls ` +
          `(every call gets a fresh module instance, so nothing built at load is kept): build only what one ` +
          `instance needs, inside the functions`
        : '. Make the reference solver and the generator faster';
    problems.push({
      code: 'E_TOO_SLOW',
      message:
        `an episode (generate, solve, verify) takes ${perEpisode.toFixed(0)} ms at the median; validation runs ` +
        `about ${episodes} episodes, about ${Math.round(estimateMs / 1000)} s, over the candidate budget of ` +
        `${Math.round(ctx.options.candidateBudgetMs / 1000)} s${why}`,
      evidence: {
        medianEpisodeMs: Number(perEpisode.toFixed(2)),
        topLevelMs: Number(loadMs.toFixed(2)),
        episodes,
        budgetMs: ctx.options.candidateBudgetMs,
      },
    });
  }
  const maxPromptChars = ctx.episodes.reduce((most, e) => Math.max(most, e.instance.prompt.length), 0);
  return {
    ok: problems.length === 0,
    metrics: {
      samples: requests.length,
      perLevel,
      validationSeed: ctx.validationSeed,
      failed: failures.length,
      maxPromptChars,
      wallMs: Math.round(run.wallMs),
    },
    problems,
  };
};

// Stage 3, determinism: the same (seed, level) gives the same instance, reference and scores in fresh
// isolates (else E_NONDETERMINISTIC), and also after other calls, in another order, or repeated
// (else E_STATE_LEAK: state is leaking through module globals).
import { runEpisodes, scoreOf, type Episode, type EpisodeRequest, type EpisodeResult } from '../../sandbox/episodes.js';
import type { Problem } from '../report.js';
import type { Stage } from '../context.js';

function signature(e: EpisodeResult): string {
  if (!e.ok) return `failed:${e.code}:${e.fn}`;
  return JSON.stringify([e.instance, e.reference, scoreOf(e.referenceVerdict), e.verdicts.map(scoreOf)]);
}

/** Instance, reference and reference score only: what the execution stage sampled too. */
function coreSignature(e: EpisodeResult): string {
  return e.ok ? JSON.stringify([e.instance, e.reference, scoreOf(e.referenceVerdict)]) : `failed:${e.code}:${e.fn}`;
}

/** Spreads `count` picks evenly over the episodes (which are ordered by level). */
function spread(episodes: Episode[], count: number): Episode[] {
  if (episodes.length <= count) return episodes;
  const step = episodes.length / count;
  return Array.from({ length: count }, (_, i) => episodes[Math.floor(i * step)] as Episode);
}

export const determinismStage: Stage = async (ctx) => {
  const picked = spread(ctx.episodes, ctx.options.determinismSamples);
  // Each item is also scored on another instance's reference, so verify's determinism is tested too.
  const requests: EpisodeRequest[] = picked.map((e, i) => ({ seed: e.seed, level: e.level, responses: [(picked[(i + 1) % picked.length] as Episode).reference, ''] }));
  const reversedTwice = [...requests].reverse().flatMap((r) => [r, r]);
  const options = { fresh: true, limits: ctx.options.limits };
  const [first, second, shuffled] = await Promise.all([
    runEpisodes(ctx.pool, ctx.source, requests, options),
    runEpisodes(ctx.pool, ctx.source, requests, options),
    runEpisodes(ctx.pool, ctx.source, reversedTwice, options),
  ]);
  const problems: Problem[] = [];
  const a = first.episodes.map(signature);
  const b = second.episodes.map(signature);
  const nondeterministic = picked.filter((_, i) => a[i] !== b[i]);
  if (nondeterministic.length > 0) {
    const e = nondeterministic[0] as Episode;
    problems.push({
      code: 'E_NONDETERMINISTIC',
      message: `${nondeterministic.length} of ${picked.length} (seed, level) pairs gave different results in two fresh runs of the same calls (first: seed ${e.seed}, level ${e.level})`,
      evidence: nondeterministic.slice(0, 3).map((p) => ({ seed: p.seed, level: p.level })),
    });
  }
  const n = picked.length;
  const leaks: Array<{ seed: number; level: number; how: string }> = [];
  picked.forEach((e, i) => {
    if (a[i] !== b[i]) return; // already reported as nondeterministic
    const late = shuffled.episodes[2 * (n - 1 - i)] as EpisodeResult;
    const repeated = shuffled.episodes[2 * (n - 1 - i) + 1] as EpisodeResult;
    if (signature(late) !== a[i]) leaks.push({ seed: e.seed, level: e.level, how: 'differs when called after other instances (reversed order)' });
    else if (signature(repeated) !== a[i]) leaks.push({ seed: e.seed, level: e.level, how: 'differs when the same call is repeated' });
    else if (coreSignature(e) !== coreSignature(first.episodes[i] as EpisodeResult)) {
      leaks.push({ seed: e.seed, level: e.level, how: 'differs from the same call in a long-lived isolate' });
    }
  });
  if (leaks.length > 0) {
    problems.push({
      code: 'E_STATE_LEAK',
      message: `${leaks.length} of ${n} (seed, level) pairs give different results depending on earlier calls (first: seed ${leaks[0]?.seed}, level ${leaks[0]?.level}, ${leaks[0]?.how}); keep module-level values constant`,
      evidence: leaks.slice(0, 3),
    });
  }
  return { ok: problems.length === 0, metrics: { checked: n, nondeterministic: nondeterministic.length, leaking: leaks.length }, problems };
};

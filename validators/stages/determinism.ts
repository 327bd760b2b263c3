// Stage 3, determinism: the same (seed, level) gives the same instance, reference and scores in fresh
// isolates (else E_NONDETERMINISTIC), and also after other calls, in another order, or repeated (else
// E_STATE_LEAK: state leaks between calls through the realm; every call gets a fresh module instance,
// sandbox/realm.ts, so module globals start over, and this guards what a realm still shares).
import { LOAD_SENSITIVE } from '../../contract/codes.js';
import { scoreOf, toEpisode, type Episode, type EpisodeRequest, type EpisodeResult } from '../../sandbox/episodes.js';
import type { Call, CallResult, EpisodeValue } from '../../sandbox/protocol.js';
import { instanceDigest } from '../../sandbox/results.js';
import type { Stage, StageContext } from '../context.js';
import type { Problem } from '../report.js';

/** Instance (by digest), reference and every verdict of one raw result: equal when the call behaved the same. */
function signature(result: CallResult | undefined): string {
  if (!result?.ok) return `failed:${result?.code}:${result?.fn}`;
  const value = result.value as EpisodeValue;
  const instance = typeof value.instance === 'string' ? value.instance : instanceDigest(value.instance);
  const verdicts = (value.verdicts ?? []).map((v) => (v?.ok ? JSON.stringify(v.value) : `x:${v?.code}`));
  return JSON.stringify([instance, value.reference, verdicts]);
}

/**
 * Whether the clock stopped a call or one of its verdicts (a LOAD_SENSITIVE code: a deadline, the candidate's time
 * budget): a loaded machine can cause that alone.
 */
const clocked = (r: CallResult | undefined): boolean =>
  r !== undefined &&
  (!r.ok
    ? LOAD_SENSITIVE.has(r.code)
    : ((r.value as EpisodeValue).verdicts ?? []).some((v) => v !== undefined && !v.ok && LOAD_SENSITIVE.has(v.code)));

/**
 * Runs that differed only where one of them ran out of time are a timeout, not nondeterminism: E_TIMEOUT is a
 * load-sensitive code (the pipeline validates such a rejection again before it counts), E_NONDETERMINISTIC is not.
 */
export function timedOutRuns(pairs: Array<{ seed: number; level: number }>, n: number): Problem[] {
  if (pairs.length === 0) return [];
  return [
    {
      code: 'E_TIMEOUT',
      message:
        `${pairs.length} of ${n} (seed, level) pairs differed between runs only where a run ran past its ` +
        `wall-clock budget (first: seed ${pairs[0]?.seed}, level ${pairs[0]?.level}); on a loaded ` +
        `machine this can be the load`,
      evidence: pairs.slice(0, 3).map((p) => ({ seed: p.seed, level: p.level })),
    },
  ];
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

async function run(ctx: StageContext, calls: Call[]): Promise<CallResult[]> {
  return (await ctx.pool.run({ source: ctx.source, calls, fresh: true, limits: ctx.options.limits })).results;
}

const episodeCall = (r: EpisodeRequest): Call => ({
  op: 'episode',
  seed: r.seed,
  level: r.level,
  responses: r.responses ?? [],
});

export const determinismStage: Stage = async (ctx) => {
  const picked = spread(ctx.episodes, ctx.options.determinismSamples);
  const n = picked.length;
  // Each item is also scored on two other instances' references and the empty response, so verify's
  // determinism is tested too. Two fresh realms: the calls; and the same calls again, then the calls reversed
  // and repeated (each after at least n others). A realm costs more than the calls it serves (SES lockdown),
  // and a third fresh one would show no more: the repeat's first n calls are the fresh run the first is
  // compared with, and what follows them runs after other instances, as the reversed run did.
  const requests: EpisodeRequest[] = picked.map((e, i) => ({
    seed: e.seed,
    level: e.level,
    responses: [(picked[(i + 1) % n] as Episode).reference, '', (picked[(i + n - 1) % n] as Episode).reference],
  }));
  const reversedTwice = [...requests].reverse().flatMap((r) => [r, r]);
  const [first, again] = await Promise.all([
    run(ctx, requests.map(episodeCall)),
    run(ctx, [...requests, ...reversedTwice].map(episodeCall)),
  ]);
  const second = again.slice(0, n);
  const shuffled = again.slice(n);
  const problems: Problem[] = [];
  const a = first.map(signature);
  const b = second.map(signature);
  const differs = (i: number) => a[i] !== b[i];
  const timedOut = picked.filter((_, i) => differs(i) && (clocked(first[i]) || clocked(second[i])));
  const nondeterministic = picked.filter((e, i) => differs(i) && !timedOut.includes(e));
  if (nondeterministic.length > 0) {
    const e = nondeterministic[0] as Episode;
    problems.push({
      code: 'E_NONDETERMINISTIC',
      message:
        `${nondeterministic.length} of ${n} (seed, level) pairs gave different results in two fresh runs of ` +
        `the same calls (first: seed ${e.seed}, level ${e.level})`,
      evidence: nondeterministic.slice(0, 3).map((p) => ({ seed: p.seed, level: p.level })),
    });
  }
  problems.push(...timedOutRuns(timedOut, n));
  const leaks: Array<{ seed: number; level: number; how: string }> = [];
  const firstEpisodes = first.map((r, i) => toEpisode(requests[i] as EpisodeRequest, r));
  picked.forEach((e, i) => {
    if (a[i] !== b[i]) return; // already reported as nondeterministic (or a timeout)
    const later = [shuffled[2 * (n - 1 - i)], shuffled[2 * (n - 1 - i) + 1]];
    if (later.some(clocked)) return; // a later run timed out: the timeout says nothing of leaks
    if (signature(later[0]) !== a[i])
      leaks.push({ seed: e.seed, level: e.level, how: 'differs when called after other instances (reversed order)' });
    else if (signature(later[1]) !== a[i])
      leaks.push({ seed: e.seed, level: e.level, how: 'differs when the same call is repeated' });
    else if (coreSignature(e) !== coreSignature(firstEpisodes[i] as EpisodeResult)) {
      leaks.push({
        seed: e.seed,
        level: e.level,
        how: 'differs from the same call in the execution stage (a realm that had served many calls)',
      });
    }
  });
  if (leaks.length > 0) {
    problems.push({
      code: 'E_STATE_LEAK',
      message:
        `${leaks.length} of ${n} (seed, level) pairs give different results depending on earlier calls (first: ` +
        `seed ${leaks[0]?.seed}, level ${leaks[0]?.level}, ${leaks[0]?.how}); keep ` +
        `module-level values constant`,
      evidence: leaks.slice(0, 3),
    });
  }
  return {
    ok: problems.length === 0,
    metrics: { checked: n, nondeterministic: nondeterministic.length, leaking: leaks.length },
    problems,
  };
};

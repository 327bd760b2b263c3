// Stage 3, determinism: the same (seed, level) gives the same instance, reference and scores in fresh
// isolates (else E_NONDETERMINISTIC), and also after other calls, in another order, repeated, or (for a
// module whose calls share one instance, sandbox/realm.ts) at any point of a whole isolate lifetime (else
// E_STATE_LEAK: state leaks through module globals, e.g. a module that counts calls and changes after N).
import { scoreOf, toEpisode, type Episode, type EpisodeRequest, type EpisodeResult } from '../../sandbox/episodes.js';
import { INSTANCE_BUDGET_MS, SHARED_MARGIN, type Call, type CallResult, type EpisodeValue } from '../../sandbox/protocol.js';
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

async function run(ctx: StageContext, calls: Call[], sharedInstance = false): Promise<CallResult[]> {
  return (await ctx.pool.run({ source: ctx.source, calls, fresh: true, limits: { ...ctx.options.limits, ...(sharedInstance ? { sharedInstance } : {}) } })).results;
}

const episodeCall = (r: EpisodeRequest): Call => ({ op: 'episode', seed: r.seed, level: r.level, responses: r.responses ?? [] });

/**
 * One whole isolate lifetime: the n requests, then again and again up to `length` calls. The first n are
 * a fresh run (kept in full); each later call answers "same as call k mod n" when nothing changed, so only
 * a divergence crosses in full (its instance as a digest).
 */
function lifetimeCalls(requests: EpisodeRequest[], length: number): Call[] {
  const n = requests.length;
  return Array.from({ length }, (_, k) => ({ ...episodeCall(requests[k % n] as EpisodeRequest), ...(k < n ? { keep: true } : { sameAs: k % n, digest: true }) }));
}

function mayShareInstance(ctx: StageContext): boolean {
  const load = ctx.load;
  return !load?.ok || load.instancing !== 'episode' || (load.loadMs ?? Infinity) * SHARED_MARGIN > INSTANCE_BUDGET_MS;
}

export const determinismStage: Stage = async (ctx) => {
  const picked = spread(ctx.episodes, ctx.options.determinismSamples);
  const n = picked.length;
  // Each item is also scored on two other instances' references and the empty response, so verify's
  // determinism is tested too, and a lifetime of these reaches the isolate's verify budget as well.
  // Three fresh realms: the lifetime (whose first n calls are the fresh run), the same calls again, and
  // the calls reversed and repeated.
  const requests: EpisodeRequest[] = picked.map((e, i) => ({
    seed: e.seed,
    level: e.level,
    responses: [(picked[(i + 1) % n] as Episode).reference, '', (picked[(i + n - 1) % n] as Episode).reference],
  }));
  const reversedTwice = [...requests].reverse().flatMap((r) => [r, r]);
  // A module whose calls get fresh instances has no state to age with the realm: no lifetime run is needed,
  // unless its top level costs enough that production, on a busier machine, may run it in a shared instance.
  const shared = mayShareInstance(ctx);
  const lifetime = shared ? { ...ctx.pool.options.limits, ...ctx.options.limits }.isolateCalls : n;
  const [long, second, shuffled] = await Promise.all([run(ctx, lifetimeCalls(requests, Math.max(lifetime, n)), shared), run(ctx, requests.map(episodeCall)), run(ctx, reversedTwice.map(episodeCall))]);
  const first = long.slice(0, n);
  const problems: Problem[] = [];
  const a = first.map(signature);
  const b = second.map(signature);
  const nondeterministic = picked.filter((_, i) => a[i] !== b[i]);
  if (nondeterministic.length > 0) {
    const e = nondeterministic[0] as Episode;
    problems.push({
      code: 'E_NONDETERMINISTIC',
      message: `${nondeterministic.length} of ${n} (seed, level) pairs gave different results in two fresh runs of the same calls (first: seed ${e.seed}, level ${e.level})`,
      evidence: nondeterministic.slice(0, 3).map((p) => ({ seed: p.seed, level: p.level })),
    });
  }
  const leaks: Array<{ seed: number; level: number; how: string }> = [];
  const firstEpisodes = first.map((r, i) => toEpisode(requests[i] as EpisodeRequest, r));
  picked.forEach((e, i) => {
    if (a[i] !== b[i]) return; // already reported as nondeterministic
    const lateCall = long.findIndex((r, k) => k >= n && k % n === i && signature(r) !== a[i]);
    if (signature(shuffled[2 * (n - 1 - i)]) !== a[i]) leaks.push({ seed: e.seed, level: e.level, how: 'differs when called after other instances (reversed order)' });
    else if (signature(shuffled[2 * (n - 1 - i) + 1]) !== a[i]) leaks.push({ seed: e.seed, level: e.level, how: 'differs when the same call is repeated' });
    else if (lateCall >= 0) leaks.push({ seed: e.seed, level: e.level, how: `differs at call ${lateCall + 1} of an isolate's lifetime of ${lifetime} calls` });
    else if (coreSignature(e) !== coreSignature(firstEpisodes[i] as EpisodeResult)) {
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
  return { ok: problems.length === 0, metrics: { checked: n, nondeterministic: nondeterministic.length, leaking: leaks.length, lifetimeCalls: shared ? lifetime : 0 }, problems };
};

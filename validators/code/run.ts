// How the code kind's checks reach the sandbox: their requests (an instance and programs to score) merged
// per (seed, level), so each instance is generated once however many checks probe it, and split back.
import type { EpisodeRequest, EpisodeResult } from '../../sandbox/episodes.js';
import type { StageContext } from '../context.js';

export type CodeRequest = Required<Pick<EpisodeRequest, 'seed' | 'level' | 'responses'>>;

export async function runCodeRequests(ctx: StageContext, requests: readonly CodeRequest[]): Promise<EpisodeResult[]> {
  const merged = new Map<string, { seed: number; level: number; responses: string[] }>();
  const places = requests.map((r) => {
    const key = `${r.seed}/${r.level}`;
    let m = merged.get(key);
    if (!m) merged.set(key, (m = { seed: r.seed, level: r.level, responses: [] }));
    const at = m.responses.length;
    m.responses.push(...r.responses);
    return { key, at, count: r.responses.length };
  });
  const keys = [...merged.keys()];
  const run = await ctx.kind.runEpisodes(ctx.pool, ctx.source, [...merged.values()], {
    parallel: true,
    limits: ctx.options.limits,
  });
  const byKey = new Map(keys.map((k, i) => [k, run.episodes[i] as EpisodeResult]));
  return places.map(({ key, at, count }) => {
    const e = byKey.get(key) as EpisodeResult;
    return e.ok ? { ...e, verdicts: e.verdicts.slice(at, at + count) } : e;
  });
}

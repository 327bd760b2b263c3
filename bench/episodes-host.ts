// `node dist/bench/episodes-host.js BASE_DIST [ROUNDS]` (issue 16): the supervisor's own CPU time per episode
// of a runEpisodes job, from the worker's chunk texts to checked episodes, for this build and another build's
// dist/ in one process, rounds interleaved. One thread and fixed input: far steadier on a loaded machine than
// the whole path (bench/episodes-side-by-side.ts), which it does not replace.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { toEpisode as ownToEpisode, type EpisodeResult } from '../sandbox/episodes.js';
import { DEFAULT_LIMITS, type Call, type CallResult } from '../sandbox/protocol.js';
import { ResultSlots as OwnSlots } from '../sandbox/results.js';
import { baseDistAndRounds, median } from './episodes-args.js';

const ITEMS = 10_000;
/** Results per chunk: what one 100 ms slice of GCD episodes returns on a quiet core, roughly. */
const PER_CHUNK = 500;

interface Build {
  Slots: typeof OwnSlots;
  toEpisode: typeof ownToEpisode;
}

async function build(dist: string | null): Promise<Build> {
  if (!dist) return { Slots: OwnSlots, toEpisode: ownToEpisode };
  const load = async <T>(file: string): Promise<T> => (await import(pathToFileURL(resolve(dist, file)).href)) as T;
  return {
    Slots: (await load<{ ResultSlots: typeof OwnSlots }>('sandbox/results.js')).ResultSlots,
    toEpisode: (await load<{ toEpisode: typeof ownToEpisode }>('sandbox/episodes.js')).toEpisode,
  };
}

/** A GCD episode's result as the runtime writes it. */
const item = (i: number) =>
  `{"id":${i},"ok":true,"ms":0,"value":{"instance":{"prompt":"What is the greatest common divisor of ` +
  `${i * 37}, ${i * 91}, ${i * 13}? Answer as <answer>N</answer>.","numbers":[${i * 37},${i * 91},${i * 13}` +
  `],"answer":${i}},"reference":"<answer>${i}</answer>","verdicts":[{"ok":true,"value":1}],"ms":[0,0,0]}}`;

/**
 * One job's results through a build's path: a build without per-result conversion maps them after the job, as its
 * runEpisodes did.
 */
function episodes(b: Build, calls: Call[], chunks: string[]): EpisodeResult[] {
  const slots = new b.Slots(calls, (result: CallResult, call: Call) => b.toEpisode(call, result));
  for (const chunk of chunks) slots.acceptChunk(chunk, DEFAULT_LIMITS);
  const results = slots.results() as Array<EpisodeResult | CallResult>;
  return results.map((r, i) => ('value' in r ? b.toEpisode(calls[i] as Call, r) : r) as EpisodeResult);
}

async function main(): Promise<void> {
  const { baseDist, rounds } = baseDistAndRounds('episodes-host.js', 25);
  const builds: Record<string, Build> = { base: await build(baseDist), this: await build(null) };
  const calls: Call[] = Array.from({ length: ITEMS }, (_, i) => ({ op: 'episode', seed: i, level: 1, responses: [] }));
  const chunks: string[] = [];
  for (let i = 0; i < ITEMS; i += PER_CHUNK)
    chunks.push(`[${Array.from({ length: PER_CHUNK }, (_, k) => item(i + k)).join(',')}]`);
  const us: Record<string, number[]> = { base: [], this: [] };
  const kept: unknown[] = []; // a caller holds its episodes a while, so they are not all garbage at once
  for (let round = -3; round < rounds; round++) {
    for (const name of round % 2 === 0 ? ['base', 'this'] : ['this', 'base']) {
      const before = process.cpuUsage();
      const out = episodes(builds[name] as Build, calls, chunks);
      const spent = process.cpuUsage(before);
      kept.push(out);
      if (kept.length > 4) kept.shift();
      if (!out.every((e) => e.ok && e.referenceVerdict.ok && e.referenceVerdict.score === 1))
        throw new Error(`${name}: an episode failed`);
      if (round >= 0) us[name]?.push((spent.user + spent.system) / ITEMS);
    }
  }
  const row = (name: string) => ({
    cpuUsPerItemMedian: +median(us[name] as number[]).toFixed(3),
    cpuUsPerItemLeast: +Math.min(...(us[name] as number[])).toFixed(3),
  });
  process.stdout.write(
    `${JSON.stringify({ items: ITEMS, perChunk: PER_CHUNK, rounds, base: row('base'), this: row('this') }, null, 2)}\n`,
  );
}

await main();

// Episodic (contract v2) benchmarks: reference rollouts (act) of the episodic seeds through the sandbox on
// all workers against the same modules in plain Node on one core, and validation latency per candidate.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseEpisodicMeta, type EpisodicMeta } from '../contract/episodic.js';
import { EPISODIC_SEEDS_DIR, PACKAGE_ROOT } from '../contract/paths.js';
import { listSeeds } from '../library/seeds.js';
import { SandboxPool } from '../sandbox/pool.js';
import { deriveRngState, deriveTurnRngState } from '../sandbox/rng.js';
import { runRollouts } from '../sandbox/rollouts.js';
import { loadPlainRuntime, type PlainRng } from '../sandbox/runtime.js';
import { validateCandidate } from '../validators/validate.js';
import type { BenchEntries } from './types.js';

interface PlainEpisodic {
  meta: EpisodicMeta;
  reset(rng: PlainRng, level: number): { state: unknown; prompt: string };
  step(state: unknown, action: unknown, rng: PlainRng): { state: unknown; done: boolean };
  score(state: unknown): unknown;
  act(state: unknown): unknown;
}

const EPISODES_PER_SEED = 400;
const episodes = (levels: number) => Array.from({ length: EPISODES_PER_SEED }, (_, i) => ({ seed: i, level: (i % levels) + 1 }));

/** The physical limit: the module's own functions called directly, state passed by reference, one core. */
function plainSteps(envs: PlainEpisodic[]): number {
  const runtime = loadPlainRuntime();
  const start = performance.now();
  let steps = 0;
  for (const env of envs) {
    for (const { seed, level } of episodes(env.meta.levels)) {
      let { state } = env.reset(runtime.makeRng(...deriveRngState(env.meta.name, seed, level)), level);
      const base = deriveTurnRngState(env.meta.name, seed, level);
      for (let turn = 1; turn <= env.meta.maxTurns; turn++) {
        const out = env.step(state, env.act(state), runtime.episodic.turnRng(base, turn));
        state = out.state;
        steps++;
        if (out.done) break;
      }
      env.score(state);
    }
  }
  return steps / ((performance.now() - start) / 1000);
}

async function sandboxSteps(pool: SandboxPool, seeds: Array<{ source: string; meta: EpisodicMeta }>): Promise<number> {
  const start = performance.now();
  let steps = 0;
  for (const { source, meta } of seeds) {
    const run = await runRollouts(pool, source, meta, episodes(meta.levels).map((e) => ({ ...e, policy: { type: 'act' as const } })));
    for (const r of run.rollouts) {
      if (!r.ok || r.score !== 1) throw new Error(`${meta.name}: a reference rollout failed in the episodic benchmark`);
      steps += r.turns;
    }
  }
  return steps / ((performance.now() - start) / 1000);
}

export async function benchEpisodic(): Promise<BenchEntries> {
  const files = listSeeds(EPISODIC_SEEDS_DIR);
  const runtime = loadPlainRuntime();
  (globalThis as { kit?: unknown }).kit = runtime.kit;
  const plain = await Promise.all(files.map(async (s) => (await import(pathToFileURL(s.file).href)) as PlainEpisodic));
  const seeds = files.map((s, i) => ({ source: s.source, meta: parseEpisodicMeta((plain[i] as PlainEpisodic).meta) as EpisodicMeta }));
  const pool = new SandboxPool();
  try {
    await sandboxSteps(pool, seeds); // warm-up: workers started, modules compiled
    plainSteps(plain);
    const sandbox = await sandboxSteps(pool, seeds);
    const baseline = plainSteps(plain);
    // Validation latency over the episodic seeds and the good candidates of the episodic corpus.
    const corpus = join(PACKAGE_ROOT, 'tests', 'fixtures', 'episodic');
    const candidates = [...files.map((s) => s.source), ...readdirSync(corpus).filter((f) => f.startsWith('good-')).map((f) => readFileSync(join(corpus, f), 'utf8'))];
    const times: number[] = [];
    let rejected = 0;
    for (const source of candidates) {
      const report = await validateCandidate(source, { pool });
      if (report.verdict !== 'admit') rejected++;
      times.push(report.ms);
    }
    const sorted = [...times].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
    return {
      'episodic.stepsPerSecRatio': { value: sandbox / baseline, unit: 'ratio', sandboxStepsPerSec: Math.round(sandbox), plainStepsPerSec: Math.round(baseline), workers: pool.options.workers, episodes: EPISODES_PER_SEED * seeds.length },
      'episodic.validate.p50Ms': { value: at(0.5), unit: 'ms', candidates: times.length, rejected, workers: pool.options.workers },
      'episodic.validate.p95Ms': { value: at(0.95), unit: 'ms', candidates: times.length },
    };
  } finally {
    await pool.close();
  }
}

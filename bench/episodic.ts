// Episodic (contract v2) benchmarks: reference rollouts (act) of the episodic seeds through the sandbox on
// all workers against the same modules in plain Node on one core, and validation latency per candidate;
// with --base, the base build's sandbox and validator beside this one's, candidate by candidate.
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
import { baseDir, fromBase, loadNow, ratio } from './base.js';
import type { BenchEntries } from './types.js';

interface PlainEpisodic {
  meta: EpisodicMeta;
  reset(rng: PlainRng, level: number): { state: unknown; prompt: string };
  step(state: unknown, action: unknown, rng: PlainRng): { state: unknown; done: boolean };
  score(state: unknown): unknown;
  act(state: unknown): unknown;
}

const EPISODES_PER_SEED = 400;
const episodes = (levels: number) =>
  Array.from({ length: EPISODES_PER_SEED }, (_, i) => ({ seed: i, level: (i % levels) + 1 }));

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

/** What a build offers this benchmark: its pool, its rollouts and its validator. */
interface Build {
  name: 'this' | 'base';
  pool: SandboxPool;
  runRollouts: typeof runRollouts;
  validateCandidate: typeof validateCandidate;
}

async function sandboxSteps(build: Build, seeds: Array<{ source: string; meta: EpisodicMeta }>): Promise<number> {
  const start = performance.now();
  let steps = 0;
  for (const { source, meta } of seeds) {
    const run = await build.runRollouts(
      build.pool,
      source,
      meta,
      episodes(meta.levels).map((e) => ({ ...e, policy: { type: 'act' as const } })),
    );
    for (const r of run.rollouts) {
      if (!r.ok || r.score !== 1)
        throw new Error(`${meta.name}: a reference rollout failed in the episodic benchmark (${build.name} build)`);
      steps += r.turns;
    }
  }
  return steps / ((performance.now() - start) / 1000);
}

/** This build, and the base's beside it when --base names one. */
async function builds(): Promise<Build[]> {
  const list: Build[] = [{ name: 'this', pool: new SandboxPool(), runRollouts, validateCandidate }];
  const base = baseDir();
  if (base) {
    const { SandboxPool: BasePool } = await fromBase<{ SandboxPool: typeof SandboxPool }>(base, 'sandbox/pool.js');
    const rollouts = await fromBase<{ runRollouts: typeof runRollouts }>(base, 'sandbox/rollouts.js');
    const validator = await fromBase<{ validateCandidate: typeof validateCandidate }>(base, 'validators/validate.js');
    list.push({
      name: 'base',
      pool: new BasePool(),
      runRollouts: rollouts.runRollouts,
      validateCandidate: validator.validateCandidate,
    });
  }
  return list;
}

const at = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;

export async function benchEpisodic(): Promise<BenchEntries> {
  const files = listSeeds(EPISODIC_SEEDS_DIR);
  const runtime = loadPlainRuntime();
  (globalThis as { kit?: unknown }).kit = runtime.kit;
  const plain = await Promise.all(files.map(async (s) => (await import(pathToFileURL(s.file).href)) as PlainEpisodic));
  const seeds = files.map((s, i) => ({
    source: s.source,
    meta: parseEpisodicMeta((plain[i] as PlainEpisodic).meta) as EpisodicMeta,
  }));
  const list = await builds();
  try {
    // Steps: every build warmed up, then plain Node and each build in turn.
    for (const b of list) await sandboxSteps(b, seeds);
    plainSteps(plain);
    const rates = new Map<Build['name'], number>();
    let baseline = 0;
    for (const b of list) rates.set(b.name, await sandboxSteps(b, seeds));
    baseline = plainSteps(plain);
    // Validation latency over the episodic seeds and the good candidates of the episodic corpus, each
    // candidate validated by every build in turn (alternating which goes first).
    const corpus = join(PACKAGE_ROOT, 'tests', 'fixtures', 'episodic');
    const good = readdirSync(corpus).filter((f) => f.startsWith('good-'));
    const candidates = [...files.map((s) => s.source), ...good.map((f) => readFileSync(join(corpus, f), 'utf8'))];
    const names = [...files.map((s) => s.file), ...good.map((f) => join(corpus, f))];
    // Each rejection named with its build, validation seed and codes: a false rejection is replayable.
    const rejections: string[] = [];
    const times = new Map<Build['name'], number[]>(list.map((b) => [b.name, []]));
    const rejected = new Map<Build['name'], number>(list.map((b) => [b.name, 0]));
    const loads: number[] = [];
    for (const [i, source] of candidates.entries()) {
      loads.push(loadNow());
      for (const b of i % 2 === 0 ? list : [...list].reverse()) {
        const report = await b.validateCandidate(source, { pool: b.pool });
        if (report.verdict !== 'admit') {
          rejected.set(b.name, (rejected.get(b.name) ?? 0) + 1);
          const codes = report.problems.map((p) => p.code).join(', ');
          rejections.push(`${b.name}: ${names[i]} --validation-seed ${report.validationSeed}: ${codes}`);
        }
        times.get(b.name)?.push(report.ms);
      }
    }
    const sorted = (name: Build['name']) => [...(times.get(name) ?? [])].sort((a, b) => a - b);
    const [mine, base] = [sorted('this'), list.length > 1 ? sorted('base') : null];
    const common = {
      candidates: candidates.length,
      workers: list[0]?.pool.options.workers,
      loadAverage: { min: Math.min(...loads), max: Math.max(...loads) },
      baseBuild: baseDir(),
    };
    const stepsRatio = (name: Build['name']) => (rates.has(name) ? (rates.get(name) as number) / baseline : null);
    return {
      'episodic.stepsPerSecRatio': {
        value: stepsRatio('this') as number,
        unit: 'ratio',
        base: stepsRatio('base'),
        sandboxStepsPerSec: Math.round(rates.get('this') as number),
        baseSandboxStepsPerSec: rates.has('base') ? Math.round(rates.get('base') as number) : null,
        plainStepsPerSec: Math.round(baseline),
        episodes: EPISODES_PER_SEED * seeds.length,
        ...common,
      },
      'episodic.validate.p50Ms': {
        value: at(mine, 0.5),
        unit: 'ms',
        base: base && at(base, 0.5),
        ratio: ratio(at(mine, 0.5), base && at(base, 0.5)),
        rejected: rejected.get('this'),
        baseRejected: rejected.get('base') ?? null,
        rejections,
        msEach: times.get('this')?.map(Math.round),
        baseMsEach: times.get('base')?.map(Math.round) ?? null,
        target: '<= 1000 ms',
        ...common,
      },
      'episodic.validate.p95Ms': {
        value: at(mine, 0.95),
        unit: 'ms',
        base: base && at(base, 0.95),
        ratio: ratio(at(mine, 0.95), base && at(base, 0.95)),
        target: '<= 3000 ms',
        ...common,
      },
    };
  } finally {
    for (const b of list) await b.pool.close();
  }
}

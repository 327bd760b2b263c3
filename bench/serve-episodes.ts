// Benchmark of the reward service's episode sessions (contract v2) over the episodic seeds, the server in its
// own process, driven over loopback by node:http clients:
//   serve.episodes.concurrentSessions: sessions held open at once (created, then each stepped once) with <= 1% errors;
//   serve.episodes.stepsPerSec: 256 concurrent sessions playing reference rollouts back to back (a finished one
//   starts another); serve.episodes.stepP99Ms: the same 256 sessions offered half that rate (think time between
//   steps); serve.episodes.replayStepsPerSec: the same turns each scored by replaying the whole action log so far
//   (POST /v1/episodes/score), the O(turns²) design sessions avoid. These three: best of 3 interleaved 5 s rounds.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';
import { runRollouts } from '../sandbox/rollouts.js';
import { admitEpisodicSeeds } from './episodic-library.js';
import { startChild, stopChild } from './serve.js';
import type { BenchEntries } from './types.js';

const HELD = [1_024, 2_048, 4_096];
const CONCURRENT = 256;
const DURATION_MS = 5_000;
const ROUNDS = 3;

interface Plan {
  env: string;
  seed: number;
  level: number;
  actions: unknown[];
}

/** Keep-alive connections: on 2 loaded cores fetch() itself tops out near 800 requests/s, node:http near 4,400. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });

function send(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const data = body === undefined ? '' : JSON.stringify(body);
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) };
    const request = http.request({ host: hostname, port, path, method, agent, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> }));
    });
    request.on('error', reject);
    request.end(data);
  });
}

/** Runs `work(i)` for i < n with at most `width` at once. */
async function spread(n: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, width) }, async () => {
    while (next < n) await work(next++);
  }));
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Opens `n` sessions (each stepped once) and reports how many answered both without error. */
async function holdOpen(url: string, plans: Plan[], n: number): Promise<{ held: number; errors: number; ms: number }> {
  const started = performance.now();
  let errors = 0;
  const ids: string[] = [];
  await spread(n, 64, async (i) => {
    const plan = plans[i % plans.length] as Plan;
    const failed = { status: 0, body: {} as Record<string, unknown> };
    const created = await send(url, 'POST', '/v1/episodes', { env: plan.env, seed: plan.seed, level: plan.level }).catch(() => failed);
    if (created.status !== 200) return void errors++;
    const step = await send(url, 'POST', `/v1/episodes/${created.body.episode as string}/step`, { ...(plan.actions[0] as object), turn: 1 }).catch(() => failed);
    if (step.status !== 200) return void errors++;
    ids.push(created.body.episode as string);
  });
  const ms = performance.now() - started;
  const held = ids.length;
  await spread(ids.length, 64, async (i) => void (await send(url, 'DELETE', `/v1/episodes/${ids[i] as string}`)));
  return { held, errors, ms };
}

/** `CONCURRENT` loops, each playing reference rollouts one after another for `ms`; per-step latencies. */
async function play(url: string, plans: Plan[], ms: number, replay: boolean, thinkMs = 0): Promise<{ steps: number; latencies: number[]; errors: number; finished: number; wrong: number }> {
  const until = performance.now() + ms;
  const latencies: number[] = [];
  let errors = 0;
  let finished = 0;
  let wrong = 0;
  await Promise.all(Array.from({ length: CONCURRENT }, async (_, loop) => {
    for (let k = loop; performance.now() < until; k += CONCURRENT) {
      const plan = plans[k % plans.length] as Plan;
      const created = replay ? null : await send(url, 'POST', '/v1/episodes', { env: plan.env, seed: plan.seed, level: plan.level });
      if (created && created.status !== 200) {
        errors++;
        continue;
      }
      let finishedThis = false;
      for (let t = 0; t < plan.actions.length && performance.now() < until; t++) {
        const t0 = performance.now();
        const r = replay
          ? await send(url, 'POST', '/v1/episodes/score', { env: plan.env, seed: plan.seed, level: plan.level, actions: plan.actions.slice(0, t + 1) })
          : await send(url, 'POST', `/v1/episodes/${created?.body.episode as string}/step`, { ...(plan.actions[t] as object), turn: t + 1 });
        latencies.push(performance.now() - t0);
        // A trainer's policy thinks (generates) between steps: jittered so sessions do not step in lockstep.
        if (thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, thinkMs * (0.5 + Math.random())));
        if (r.status !== 200) errors++;
        if (t === plan.actions.length - 1) {
          finished++;
          finishedThis = true;
          if (r.body.score !== 1) wrong++;
        }
      }
      // An episode cut off by the clock is ended, so its session does not hold a slot into the next phase.
      if (created && !finishedThis) await send(url, 'DELETE', `/v1/episodes/${created.body.episode as string}`);
    }
  }));
  return { steps: latencies.length, latencies: latencies.sort((a, b) => a - b), errors, finished, wrong };
}

export async function benchServeEpisodes(): Promise<BenchEntries> {
  const tmp = mkdtempSync(join(tmpdir(), 'envforge-bench-episodes-'));
  const libraryDir = join(tmp, 'library');
  const plans: Plan[] = [];
  {
    const library = SqliteLibrary.open(libraryDir, { create: true });
    const pool = new SandboxPool();
    try {
      for (const seed of await admitEpisodicSeeds(library, pool)) {
        const requests = Array.from({ length: 24 }, (_, i) => ({ seed: 1_000 + i, level: 1 + (i % Math.min(3, seed.meta.levels)), policy: { type: 'act' as const } }));
        const run = await runRollouts(pool, seed.source, seed.meta, requests);
        for (const r of run.rollouts) if (r.ok && r.score === 1 && r.end === 'done') plans.push({ env: seed.meta.name, seed: r.seed, level: r.level, actions: r.actions });
      }
    } finally {
      await pool.close();
      await library.close();
    }
  }
  plans.sort((a, b) => (a.seed - b.seed) || (a.env < b.env ? -1 : 1)); // interleave the environments
  const { child, url } = await startChild(libraryDir, { maxSessions: Math.max(0, ...HELD) + CONCURRENT, maxQueue: 1 << 20 });
  try {
    let concurrent = 0;
    const tries: Array<{ n: number; held: number; errors: number; ms: number }> = [];
    for (const n of HELD) {
      const r = await holdOpen(url, plans, n);
      tries.push({ n, ...r, ms: Math.round(r.ms) });
      if (r.errors > n * 0.01) break;
      concurrent = r.held;
    }
    await play(url, plans, 2_000, false); // warm-up
    // Interleaved rounds, the best of each kept: noise on a shared machine only ever slows a round down.
    type Played = Awaited<ReturnType<typeof play>>;
    let live: Played | null = null;
    let paced: Played | null = null;
    let replay: Played | null = null;
    let thinkMs = 0;
    const rounds: Array<{ live: number; pacedP99Ms: number; replay: number }> = [];
    for (let k = 0; k < ROUNDS; k++) {
      const l = await play(url, plans, DURATION_MS, false);
      // The same 256 sessions offered half the closed-loop rate: step latency with headroom, as trainers load it.
      const think = (1000 * CONCURRENT) / (0.5 * Math.max(1, l.steps / (DURATION_MS / 1000)));
      const p = await play(url, plans, DURATION_MS, false, think);
      const r = await play(url, plans, DURATION_MS, true);
      rounds.push({ live: l.steps / (DURATION_MS / 1000), pacedP99Ms: Math.round(percentile(p.latencies, 0.99)), replay: r.steps / (DURATION_MS / 1000) });
      if (!live || l.steps > live.steps) live = l;
      if (!paced || percentile(p.latencies, 0.99) < percentile(paced.latencies, 0.99)) [paced, thinkMs] = [p, think];
      if (!replay || r.steps > replay.steps) replay = r;
    }
    if (!live || !paced || !replay) throw new Error('no rounds');
    const meanTurns = plans.reduce((a, p) => a + p.actions.length, 0) / plans.length;
    const common = { cores: availableParallelism(), sandboxWorkers: availableParallelism(), envs: new Set(plans.map((p) => p.env)).size, meanTurns: round(meanTurns), note: 'server in its own process; node:http keep-alive clients in the bench process; loopback; reference (act) rollouts' };
    const stepsPerSec = live.steps / (DURATION_MS / 1000);
    const replayPerSec = replay.steps / (DURATION_MS / 1000);
    return {
      'serve.episodes.concurrentSessions': { value: concurrent, unit: 'sessions', ...common, tries, target: '>= 2000 held open with <= 1% errors' },
      // rounds: every round's closed-loop and replay steps/s and paced p99, for the spread.
      'serve.episodes.stepsPerSec': { value: round(stepsPerSec), unit: 'steps/s', ...common, sessions: CONCURRENT, durationS: DURATION_MS / 1000, rounds, errors: live.errors, episodesFinished: live.finished, finishedNotScoringOne: live.wrong, p50Ms: round(percentile(live.latencies, 0.5), 2) },
      'serve.episodes.stepP99Ms': {
        value: round(percentile(paced.latencies, 0.99), 2),
        unit: 'ms',
        ...common,
        sessions: CONCURRENT,
        offeredStepsPerSec: round(paced.steps / (DURATION_MS / 1000)),
        meanThinkMs: round(thinkMs),
        errors: paced.errors,
        p50Ms: round(percentile(paced.latencies, 0.5), 2),
        p90Ms: round(percentile(paced.latencies, 0.9), 2),
        closedLoopP50Ms: round(percentile(live.latencies, 0.5), 2),
        closedLoopP99Ms: round(percentile(live.latencies, 0.99), 2),
        target: '<= 20 ms',
        note: 'p99 of steps with 256 sessions offered half the closed-loop rate (each waits a jittered think time between steps); closedLoop*: the same sessions stepping back to back (pure queueing: 256 / steps per second)',
      },
      'serve.episodes.replayStepsPerSec': { value: round(replayPerSec), unit: 'steps/s', ...common, sessions: CONCURRENT, errors: replay.errors, p99Ms: round(percentile(replay.latencies, 0.99), 2), sessionSpeedup: round(stepsPerSec / Math.max(1e-9, replayPerSec), 2), note: 'each turn scored by replaying the whole log so far (stateless), side by side with the sessions above' },
    };
  } finally {
    await stopChild(child);
    rmSync(tmp, { recursive: true, force: true });
  }
}

// Benchmark of the reward service: a server over a temporary seeded library, in its own process (so the
// load generator does not share its event loop), driven over loopback with autocannon.
//   serve.singleRps / serve.singleP99Ms: POST /v1/verify with one item per request, 64 connections.
//   serve.batchedVerifiesPerSec: POST /v1/verify with 1,000 items per request.
// With `--base DIR`, the base build's server runs beside this one's, in interleaved rounds (base and ratio added).
// Items are reference responses of instances drawn from every seed environment, so every verdict is a
// full generate + verify in the sandbox (the service keeps no instances).
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedLibrary } from '../library/maintenance.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';
import { startServer } from '../serve/server.js';
import { baseDir, fromBase, loadNow, ratio } from './base.js';
import type { BenchEntries } from './types.js';

interface AutocannonResult {
  latency: { p50: number; p90: number; p99: number; average: number; max: number };
  requests: { average: number; total: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
// autocannon ships no type declarations.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const CHILD_FLAG = 'ENVFORGE_BENCH_SERVE_LIBRARY';
/** Server options beside the defaults below, as JSON (the episode benchmark's session limit). */
const OPTIONS_FLAG = 'ENVFORGE_BENCH_SERVE_OPTIONS';
const SELF = fileURLToPath(import.meta.url);

const SINGLE = { connections: 64, durationS: 10, warmupS: 2, distinctBodies: 512 };
const BATCHED = { connections: 4, durationS: 10, warmupS: 2, itemsPerRequest: 1_000, distinctBodies: 8 };
/** Interleaved rounds per build beside a base. */
const ROUNDS = 2;

interface Item {
  ground_truth: string;
  reference: string;
}

/** The bench's operator token: drawing the items with their references (`reveal`) needs one (SECURITY.md). */
const OPERATOR_TOKEN = 'envforge-bench-operator-token-0000000000';

/** The server process: started by benchServe, reports its URL over IPC, stops on 'stop' or disconnect. */
async function serveChild(libraryDir: string): Promise<void> {
  const extra = JSON.parse(process.env[OPTIONS_FLAG] ?? '{}') as Record<string, unknown>;
  const server = await startServer({
    libraryDir,
    port: 0,
    maxQueue: 1 << 20,
    maxItemsPerRequest: 10_000,
    operatorToken: OPERATOR_TOKEN,
    ...extra,
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void server.close().then(() => process.exit(0));
  };
  process.on('message', (m) => m === 'stop' && stop());
  process.on('disconnect', stop);
  process.send?.({ url: server.url });
}

if (process.env[CHILD_FLAG] && process.send) void serveChild(process.env[CHILD_FLAG] as string);

/** A server over `libraryDir` in a process of its own, so a load generator does not share its event loop. */
export function startChild(
  libraryDir: string,
  options: Record<string, unknown> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(SELF, [], {
    execArgv: SELF.endsWith('.ts') ? ['--import', 'tsx'] : [],
    env: { ...process.env, [CHILD_FLAG]: libraryDir, [OPTIONS_FLAG]: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ child, url: (m as { url: string }).url }));
    child.once('exit', (code) => reject(new Error(`the bench server exited early (code ${code})`)));
  });
}

async function post(url: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${OPERATOR_TOKEN}` },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}: ${await response.text()}`);
  return response.json();
}

function verifyRequest(items: Item[]): { method: string; path: string; headers: Record<string, string>; body: string } {
  return {
    method: 'POST',
    path: '/v1/verify',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ items: items.map((i) => ({ ground_truth: i.ground_truth, response: i.reference })) }),
  };
}

async function load(
  url: string,
  requests: unknown[],
  connections: number,
  durationS: number,
): Promise<AutocannonResult> {
  return autocannon({ url, connections, duration: durationS, requests, timeout: 30 });
}

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

/** One server's figures in one round: single-item requests, then 1,000-item ones (each after its warm-up). */
async function measure(url: string, singles: unknown[], batches: unknown[]) {
  const loadAverage = loadNow();
  await load(url, singles, SINGLE.connections, SINGLE.warmupS);
  const single = await load(url, singles, SINGLE.connections, SINGLE.durationS);
  await load(url, batches, BATCHED.connections, BATCHED.warmupS);
  const batched = await load(url, batches, BATCHED.connections, BATCHED.durationS);
  return { loadAverage, single, batched };
}
type Round = Awaited<ReturnType<typeof measure>> & { build: 'this' | 'base' };

const rps = (r: AutocannonResult) => round(r['2xx'] / r.duration);
const verifiesPerSec = (r: AutocannonResult) => round((r['2xx'] * BATCHED.itemsPerRequest) / r.duration);

export async function benchServe(): Promise<BenchEntries> {
  const tmp = mkdtempSync(join(tmpdir(), 'envforge-bench-serve-'));
  const libraryDir = join(tmp, 'library');
  {
    const library = SqliteLibrary.open(libraryDir, { create: true });
    const pool = new SandboxPool();
    try {
      await seedLibrary(library, pool);
    } finally {
      await pool.close();
      await library.close();
    }
  }
  const base = baseDir();
  const servers: Array<{ build: Round['build']; child: ChildProcess; url: string }> = [];
  try {
    servers.push({ build: 'this', ...(await startChild(libraryDir)) });
    if (base) {
      const { startChild: startBase } = await fromBase<{ startChild: typeof startChild }>(base, 'bench/serve.js');
      servers.push({ build: 'base', ...(await startBase(libraryDir)) });
    }
    const { url } = servers[0] as (typeof servers)[number];
    const sampled = (await post(url, '/v1/sample', { select: { n: 4_000, seed: 2024 }, reveal: true })) as {
      items: Array<Item & { error?: unknown }>;
    };
    const items = sampled.items.filter((i) => !i.error);
    const envs = new Set(items.map((i) => (JSON.parse(i.ground_truth) as { env: string }).env)).size;

    // Sanity: every reference scores 1 through the service.
    const check = (await post(url, '/v1/verify', {
      items: items.slice(0, 1_000).map((i) => ({ ground_truth: i.ground_truth, response: i.reference })),
    })) as { results: Array<{ score: number }> };
    const sanityAllOne = check.results.every((r) => r.score === 1);

    const singles = items.slice(0, SINGLE.distinctBodies).map((i) => verifyRequest([i]));
    const batches = Array.from({ length: BATCHED.distinctBodies }, (_, b) =>
      verifyRequest(
        Array.from(
          { length: BATCHED.itemsPerRequest },
          (_, k) => items[(b * BATCHED.itemsPerRequest + k) % items.length] as Item,
        ),
      ),
    );
    // With a base, interleaved rounds, alternating which build goes first; the best round of each build kept.
    const rounds: Round[] = [];
    for (let k = 0; k < (base ? ROUNDS : 1); k++)
      for (const s of k % 2 === 0 ? servers : [...servers].reverse())
        rounds.push({ build: s.build, ...(await measure(s.url, singles, batches)) });
    const best = (build: Round['build'], score: (r: Round) => number) =>
      rounds.filter((r) => r.build === build).reduce<Round | null>((a, b) => (a && score(a) >= score(b) ? a : b), null);
    const single = best('this', (r) => rps(r.single)) as Round;
    const batched = best('this', (r) => verifiesPerSec(r.batched)) as Round;
    const [singleBase, batchedBase] = [
      best('base', (r) => rps(r.single)),
      best('base', (r) => verifiesPerSec(r.batched)),
    ];

    const common = {
      cores: availableParallelism(),
      sandboxWorkers: availableParallelism(),
      envs,
      sanityAllOne,
      baseBuild: base,
      rounds: rounds.map((r) => ({
        build: r.build,
        loadAverage: r.loadAverage,
        singleRps: rps(r.single),
        singleP99Ms: r.single.latency.p99,
        batchedVerifiesPerSec: verifiesPerSec(r.batched),
      })),
      note:
        'server in its own process; autocannon in the bench process; loopback; reference responses; with a base, ' +
        'rounds interleaved and the best round of each build kept',
    };
    const detail = (r: AutocannonResult, connections: number) => ({
      connections,
      durationS: r.duration,
      requests: r['2xx'],
      errors: r.errors,
      timeouts: r.timeouts,
      non2xx: r.non2xx,
    });
    const s = single.single;
    const b = batched.batched;
    return {
      'serve.singleRps': {
        value: rps(s),
        unit: 'req/s',
        base: singleBase && rps(singleBase.single),
        ratio: ratio(rps(s), singleBase && rps(singleBase.single)),
        loadAverage: single.loadAverage,
        ...common,
        ...detail(s, SINGLE.connections),
        itemsPerRequest: 1,
        p50Ms: s.latency.p50,
        p90Ms: s.latency.p90,
        p99Ms: s.latency.p99,
      },
      'serve.singleP99Ms': {
        value: s.latency.p99,
        unit: 'ms',
        base: singleBase?.single.latency.p99 ?? null,
        ratio: ratio(s.latency.p99, singleBase?.single.latency.p99),
        loadAverage: single.loadAverage,
        ...common,
        ...detail(s, SINGLE.connections),
        p50Ms: s.latency.p50,
        p90Ms: s.latency.p90,
        maxMs: s.latency.max,
        target: '< 50 ms',
      },
      'serve.batchedVerifiesPerSec': {
        value: verifiesPerSec(b),
        unit: 'verifications/s',
        base: batchedBase && verifiesPerSec(batchedBase.batched),
        ratio: ratio(verifiesPerSec(b), batchedBase && verifiesPerSec(batchedBase.batched)),
        loadAverage: batched.loadAverage,
        ...common,
        ...detail(b, BATCHED.connections),
        itemsPerRequest: BATCHED.itemsPerRequest,
        requestP50Ms: b.latency.p50,
        requestP99Ms: b.latency.p99,
        target: '>= 5000 verifications/s',
      },
    };
  } finally {
    for (const server of servers) await stopChild(server.child);
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Stops a server process startChild started (killed after 10 s). */
export async function stopChild(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) =>
    child.exitCode !== null ? resolve() : child.once('exit', () => resolve()),
  );
  child.send('stop');
  setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  await exited;
}

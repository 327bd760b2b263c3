// Benchmark of the reward service: a server over a temporary seeded library, in its own process (so the
// load generator does not share its event loop), driven over loopback with autocannon.
//   serve.singleRps / serve.singleP99Ms: POST /v1/verify with one item per request, 64 connections.
//   serve.batchedVerifiesPerSec: POST /v1/verify with 1,000 items per request.
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
  const { child, url } = await startChild(libraryDir);
  try {
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
    await load(url, singles, SINGLE.connections, SINGLE.warmupS);
    const single = await load(url, singles, SINGLE.connections, SINGLE.durationS);

    const batches = Array.from({ length: BATCHED.distinctBodies }, (_, b) =>
      verifyRequest(
        Array.from(
          { length: BATCHED.itemsPerRequest },
          (_, k) => items[(b * BATCHED.itemsPerRequest + k) % items.length] as Item,
        ),
      ),
    );
    await load(url, batches, BATCHED.connections, BATCHED.warmupS);
    const batched = await load(url, batches, BATCHED.connections, BATCHED.durationS);

    const common = {
      cores: availableParallelism(),
      sandboxWorkers: availableParallelism(),
      envs,
      sanityAllOne,
      note: 'server in its own process; autocannon in the bench process; loopback; reference responses',
    };
    const detail = (r: AutocannonResult, connections: number) => ({
      connections,
      durationS: r.duration,
      requests: r['2xx'],
      errors: r.errors,
      timeouts: r.timeouts,
      non2xx: r.non2xx,
    });
    return {
      'serve.singleRps': {
        value: round(single['2xx'] / single.duration),
        unit: 'req/s',
        ...common,
        ...detail(single, SINGLE.connections),
        itemsPerRequest: 1,
        p50Ms: single.latency.p50,
        p90Ms: single.latency.p90,
        p99Ms: single.latency.p99,
      },
      'serve.singleP99Ms': {
        value: single.latency.p99,
        unit: 'ms',
        ...common,
        ...detail(single, SINGLE.connections),
        p50Ms: single.latency.p50,
        p90Ms: single.latency.p90,
        maxMs: single.latency.max,
        target: '< 50 ms',
      },
      'serve.batchedVerifiesPerSec': {
        value: round((batched['2xx'] * BATCHED.itemsPerRequest) / batched.duration),
        unit: 'verifications/s',
        ...common,
        ...detail(batched, BATCHED.connections),
        itemsPerRequest: BATCHED.itemsPerRequest,
        requestP50Ms: batched.latency.p50,
        requestP99Ms: batched.latency.p99,
        target: '>= 5000 verifications/s',
      },
    };
  } finally {
    await stopChild(child);
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

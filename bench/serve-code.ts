// Benchmark of scoring code answers (contract v3) through the reward service, side by side with plain Node
// running the same programs on the same tests in one process (no sandbox, no service) in the same run:
//   serveCode.testsPerSec: hidden tests run per second by POST /v1/verify (JavaScript answers, groups of
//     8 responses per instance as GRPO sends them, 512 items per request), on the machine's cores;
//   serveCode.plainNodeTestsPerSec: the same tests in plain Node (new Function, JSON in and out, compare).
// Each entry records the load average, since this machine is shared.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson, outputsMatch } from '../contract/compare.js';
import { identityString } from '../contract/identity.js';
import { code, type CodeInstance } from '../kinds/code.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { extractProgram } from '../sandbox/code/program.js';
import type { Episode } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import { startServer } from '../serve/server.js';
import { validateCandidate } from '../validators/validate.js';
import type { BenchEntries } from './types.js';

const SEEDS = ['count-inversions', 'longest-rising-run'];
const GROUP = 8;
const ITEMS_PER_REQUEST = 512;
const DURATION_MS = 15_000;

interface Item {
  ground_truth: string;
  response: string;
  tests: CodeInstance['tests'];
  entry: string;
}

/** Instances of the seeds with their reference programs as answers: every answer runs every hidden test. */
async function items(pool: SandboxPool, library: SqliteLibrary): Promise<Item[]> {
  const out: Item[] = [];
  for (const name of SEEDS) {
    const source = readFileSync(new URL(`../../seeds/code/${name}.js`, import.meta.url), 'utf8');
    const report = await validateCandidate(source, { pool });
    if (report.verdict !== 'admit')
      throw new Error(`${name} was not admitted: ${report.problems.map((p) => p.code).join(', ')}`);
    const admitted = await library.admit({ source, report, lineage: { author: 'bench' } });
    if (!admitted.env) throw new Error(`${name} was not admitted to the bench library (${admitted.status})`);
    const version = admitted.env.version;
    const entry = (report.meta as unknown as { entry: string }).entry;
    const requests = Array.from({ length: 128 }, (_, i) => ({ seed: 1_000 + i, level: 1 + (i % 5) }));
    for (const e of (await code.runEpisodes(pool, source, requests)).episodes as Episode[]) {
      for (let k = 0; k < GROUP; k++)
        out.push({
          ground_truth: identityString({ env: name, version, seed: e.seed, level: e.level }),
          response: e.reference,
          tests: (e.instance as CodeInstance).tests,
          entry,
        });
    }
  }
  return out;
}

/** Plain Node: each answer compiled with new Function, each test's arguments parsed from JSON, its output compared. */
function plainNode(list: Item[]): { tests: number; ms: number } {
  const started = performance.now();
  let tests = 0;
  while (performance.now() - started < DURATION_MS / 3) {
    for (const item of list) {
      const found = extractProgram(item.response);
      if (!found.ok) continue;
      const fn = new Function(`${found.program}\nreturn ${item.entry};`)() as (...a: unknown[]) => unknown;
      for (const t of item.tests) {
        const out = JSON.parse(JSON.stringify(fn(...(JSON.parse(canonicalJson(t.input)) as unknown[])))) as unknown;
        if (!outputsMatch('exact', t.output, out)) throw new Error('plain Node disagrees with the reference');
        tests++;
      }
    }
  }
  return { tests, ms: performance.now() - started };
}

async function throughService(url: string, list: Item[]): Promise<{ tests: number; ms: number; errors: number }> {
  const started = performance.now();
  let tests = 0;
  let errors = 0;
  let at = 0;
  const post = async () => {
    while (performance.now() - started < DURATION_MS) {
      const batch = Array.from({ length: ITEMS_PER_REQUEST }, () => list[at++ % list.length] as Item);
      const response = await fetch(`${url}/v1/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ items: batch.map((i) => ({ ground_truth: i.ground_truth, response: i.response })) }),
      });
      const body = (await response.json()) as { results?: Array<{ score: number; error?: unknown }> };
      (body.results ?? []).forEach((r, k) => {
        if (r.error || r.score !== 1) errors++;
        else tests += (batch[k] as Item).tests.length;
      });
    }
  };
  await Promise.all([post(), post()]);
  return { tests, ms: performance.now() - started, errors };
}

export async function benchServeCode(): Promise<BenchEntries> {
  const dir = mkdtempSync(join(tmpdir(), 'envforge-bench-code-'));
  const pool = new SandboxPool({ workers: availableParallelism() });
  try {
    const library = SqliteLibrary.open(dir, { create: true });
    const list = await items(pool, library);
    await library.close();
    const server = await startServer({ libraryDir: dir, port: 0, maxQueue: 1 << 20, maxItemsPerRequest: 10_000 });
    try {
      // warm-up: workers, isolates
      await throughService(server.url, list.slice(0, ITEMS_PER_REQUEST)).catch(() => undefined);
      const load = loadavg().map((v) => Number(v.toFixed(2)));
      const served = await throughService(server.url, list);
      const plain = plainNode(list);
      const served_ = (served.tests * 1000) / served.ms;
      const plain_ = (plain.tests * 1000) / plain.ms;
      const common = {
        cores: availableParallelism(),
        loadAverage: load,
        loadAverageAfter: loadavg().map((v) => Number(v.toFixed(2))),
      };
      return {
        'serveCode.testsPerSec': {
          value: Math.round(served_),
          unit: 'tests/s',
          ...common,
          answers: Math.round(served.tests / 12),
          wrongOrErrors: served.errors,
          ratioToPlainNode: Number((served_ / plain_).toFixed(4)),
        },
        'serveCode.plainNodeTestsPerSec': { value: Math.round(plain_), unit: 'tests/s', ...common },
      };
    } finally {
      await server.close();
    }
  } finally {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  void benchServeCode().then((entries) => console.log(JSON.stringify(entries, null, 2)));
}

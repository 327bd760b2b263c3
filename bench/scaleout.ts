// Scale-out on both stores, on a throwaway PostgreSQL server (fsync on, like SQLite's synchronous=FULL):
// admissions/s (one writer, and four at once, with the novelty re-check), two offline batches at once on
// one library (near-duplicate pairs admitted, counted with the validator's fingerprints), and validation
// jobs/s through the pg-boss queue with 1 and 2 `envforge worker` processes (one sandbox worker each).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOfflineAuthor } from '../agents/offline/author.js';
import { CostLedger } from '../agents/llm/cost.js';
import { hashSource } from '../contract/hash.js';
import { PACKAGE_ROOT } from '../contract/paths.js';
import type { Library } from '../library/contract.js';
import { seedLibrary } from '../library/maintenance.js';
import { nearDuplicatePairs } from '../library/novelty-audit.js';
import { openLibrary } from '../library/open.js';
import { PostgresWorkQueue } from '../library/postgres/queue.js';
import type { PostgresLibrary } from '../library/postgres/store.js';
import { DEFAULT_BATCH_OPTIONS, runBatch } from '../pipeline/batch.js';
import { SandboxPool } from '../sandbox/pool.js';
import { fingerprint } from '../validators/novelty/fingerprint.js';
import type { ValidationReport } from '../validators/report.js';
import { startPostgres, type PostgresServer } from './postgres-server.js';
import type { BenchEntries } from './types.js';

const ADMISSIONS = 300;
const WRITERS = 4;
const JOBS = 24;

/** A distinct admission (its own code and behaviour) with a real fingerprint, so the re-check does real work. */
function admission(i: number, cursor: number) {
  const name = `scale-env-${i}`;
  const fn = (k: number) => `export function f${k}() { return ${'['.repeat(k % 3)}${i * 31 + k}${']'.repeat(k % 3)}; }`;
  const functions = Array.from({ length: 1 + (i % 7) }, (_, k) => fn(k)).join('\n');
  const source =
    `export const meta = { name: '${name}', title: 'S', description: 'd', skills: ['arithmetic'], levels: 1 ` +
    `};\n${functions}\n// ${i}\n`;
  const report = {
    verdict: 'admit',
    name,
    hash: hashSource(source),
    meta: { name, title: 'S', description: 'd', skills: ['arithmetic'], levels: 1 },
    stages: [],
    problems: [],
    curve: [],
    fingerprint: fingerprint(source, [`task ${i} ${'word'.repeat(i % 5)} about ${name}`], [`<answer>${i}</answer>`]),
    validatorVersion: 'bench',
    validationSeed: 0,
    ms: 0,
  } as unknown as ValidationReport;
  return { source, report, lineage: { author: 'bench' }, noveltyCursor: cursor };
}

async function admissionsPerSec(open: () => Library): Promise<{ one: number; four: number }> {
  const lib = open();
  let t = performance.now();
  for (let i = 0; i < ADMISSIONS; i++) await lib.admit(admission(i, await lib.admissionCursor()));
  const one = ADMISSIONS / ((performance.now() - t) / 1000);
  const writers = Array.from({ length: WRITERS }, open);
  t = performance.now();
  await Promise.all(
    writers.map(async (w, k) => {
      for (let i = 0; i < ADMISSIONS / WRITERS; i++)
        await w.admit(admission(ADMISSIONS + k * 10_000 + i, await w.admissionCursor()));
    }),
  );
  const four = ADMISSIONS / ((performance.now() - t) / 1000);
  for (const w of [lib, ...writers]) await w.close();
  return { one, four };
}

/** Two offline batches at once on one seeded library (two handles, one sandbox pool). */
async function concurrentBatches(location: string, pool: SandboxPool) {
  const seeding = openLibrary(location, { create: true });
  await seedLibrary(seeding, pool);
  await seeding.close();
  const handles = [openLibrary(location), openLibrary(location)];
  const t = performance.now();
  const reports = await Promise.all(
    handles.map((library, k) =>
      runBatch(
        { library, pool, author: createOfflineAuthor({ seed: k + 1 }), ledger: new CostLedger() },
        { ...DEFAULT_BATCH_OPTIONS, batchId: `both-${k}`, target: 10, maxCandidates: 16, review: false },
      ),
    ),
  );
  const wallMs = performance.now() - t;
  const envs = (await handles[0]!.admittedSince(0)).envs;
  const rechecked = (await handles[0]!.rejections({ limit: 10_000 })).filter((r) =>
    r.report.stages.some((s) => s.metrics.recheckedAtAdmission),
  ).length;
  for (const h of handles) await h.close();
  return {
    pairs: nearDuplicatePairs(envs).length,
    admitted: reports.reduce((n, r) => n + r.funnel.admitted, 0),
    rejectedAtAdmission: rechecked,
    wallMs: Math.round(wallMs),
  };
}

/** Validation jobs settled per second by `processes` worker processes (each `--concurrency 1`). */
async function validationsPerSec(
  server: PostgresServer,
  seeded: string,
  processes: number,
  modules: string[],
): Promise<number> {
  const url = await server.createDatabase(seeded);
  const library = openLibrary(url) as PostgresLibrary;
  const queue = await PostgresWorkQueue.open(library);
  try {
    const main = join(PACKAGE_ROOT, 'dist', 'cli', 'main.js');
    const workers = Array.from({ length: processes }, () =>
      spawn(process.execPath, [main, 'worker', '--database', url, '--concurrency', '1', '--json'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      }),
    );
    // Timed from when every worker is up (connected, novelty index loaded), so start-up is not counted.
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            let err = '';
            w.stderr?.on('data', (chunk: Buffer) => {
              err += chunk.toString();
              if (err.includes('"type":"ready"')) resolve();
            });
          }),
      ),
    );
    const t = performance.now();
    for (let i = 0; i < JOBS; i++) {
      const source = (modules[i % modules.length] as string).replace(/name: '([a-z0-9-]+)'/, `name: '$1-v${i}'`);
      await queue.send({ batchId: 'bench', key: `job-${i}`, source, lineage: { author: 'bench' } });
    }
    for (;;) {
      const { rows } = await library.db.query(
        "SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'envforge-validate' AND state = 'completed'",
      );
      if ((rows[0] as { n: number }).n >= JOBS) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const perSec = JOBS / ((performance.now() - t) / 1000);
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(
      workers.map((w) => new Promise((resolve) => (w.exitCode === null ? w.on('close', resolve) : resolve(null)))),
    );
    return perSec;
  } finally {
    await queue.close();
    await library.close();
  }
}

export async function benchScaleout(): Promise<BenchEntries> {
  const server = await startPostgres({ fsync: true });
  const root = mkdtempSync(join(tmpdir(), 'envforge-bench-scale-'));
  const pool = new SandboxPool();
  try {
    const sqlite = await admissionsPerSec(() => openLibrary(join(root, 'admit'), { create: true }));
    const pgUrl = await server.createDatabase();
    const postgres = await admissionsPerSec(() => openLibrary(pgUrl, { create: true }));
    const bothSqlite = await concurrentBatches(join(root, 'both'), pool);
    const seeded = await server.createDatabase();
    const bothPostgres = await concurrentBatches(seeded, pool);
    const fixtures = join(PACKAGE_ROOT, 'tests', 'fixtures', 'candidates');
    const modules = readdirSync(fixtures)
      .filter((f) => f.startsWith('good-'))
      .sort()
      .map((f) => readFileSync(join(fixtures, f), 'utf8'));
    const one = await validationsPerSec(server, seeded, 1, modules);
    const two = await validationsPerSec(server, seeded, 2, modules);
    const note =
      `${ADMISSIONS} admissions with real fingerprints and the novelty re-check; ${WRITERS} writers = ` +
      `${WRITERS} handles in one process`;
    return {
      'library.admissionsPerSec.sqlite': { value: sqlite.one, unit: 'admissions/s', fourWriters: sqlite.four, note },
      'library.admissionsPerSec.postgres': {
        value: postgres.one,
        unit: 'admissions/s',
        fourWriters: postgres.four,
        ratioToSqlite: postgres.one / sqlite.one,
        note,
      },
      'library.concurrentBatches.sqlite': {
        value: bothSqlite.pairs,
        unit: 'near-duplicate pairs admitted',
        ...bothSqlite,
        note: 'two offline batches (seeds 1 and 2, target 10 each) at once on one seeded library',
      },
      'library.concurrentBatches.postgres': {
        value: bothPostgres.pairs,
        unit: 'near-duplicate pairs admitted',
        ...bothPostgres,
        note: 'two offline batches (seeds 1 and 2, target 10 each) at once on one seeded library',
      },
      'scaleout.validationsPerSec': {
        value: two,
        unit: 'validations/s',
        oneWorker: one,
        twoWorkers: two,
        ratio: two / one,
        jobs: JOBS,
        note: 'envforge worker processes with --concurrency 1 (one sandbox worker each) against one PostgreSQL server',
      },
    };
  } finally {
    await pool.close();
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

// The nightly batch on many processes: `envforge run --database URL --workers remote` with two
// `envforge worker` processes on one PostgreSQL server, one of them SIGKILLed mid-validation. Its job
// goes to the other worker after the job timeout; the batch ends with every environment admitted
// exactly once, no job lost or failed, and the same outcomes as a single-process run of the same seed.
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { nearDuplicatePairs } from '../library/novelty-audit.js';
import { openLibrary } from '../library/open.js';
import type { BatchReport } from '../pipeline/report.js';
import { MAIN, runEnvforge } from './helpers/cli.js';
import { postgresForTests } from './helpers/postgres.js';
import { sharedSeededLibrary } from './helpers/seeded-library.js';

const server = postgresForTests();
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await server.stop();
});

/**
 * How long a taken job may run before it goes to another worker: what the killed worker's job waits before its retry
 * (and a quarter of it more: library/postgres/queue.ts expiryIntervals). Well past a healthy single-turn validation
 * under load (5-14 s at load 24), so no job of the survivor's expires; given to the workers and the batch alike, since
 * the queue takes it from whichever process creates it first (the batch's default is 300 s).
 */
const JOB_TIMEOUT = ['--job-timeout', '30'];

/** A worker process; `taken` resolves on its first job taken (its validation is then under way). */
function worker(url: string) {
  const child = spawn(process.execPath, [MAIN, 'worker', '--database', url, '--json', ...JOB_TIMEOUT], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let err = '';
  const taken = new Promise<void>((resolve) =>
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (err.includes('"type":"taken"')) resolve();
    }),
  );
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return { child, taken, exited, stderr: () => err };
}

// Single-turn candidates keep the run short (mixed ones put episodic validations on the queue: ~5 min in CI).
// The same seed gives the same validation key, so both runs draw the same validation seeds per candidate.
const RUN = [
  '--provider',
  'offline',
  '--kind',
  'single',
  '--seed',
  '11',
  '--target',
  '100',
  '--max-candidates',
  '3',
  '--repair-rounds',
  '0',
  '--concurrency',
  '3',
  '--json',
];

/** What a rerun of the same seed must reproduce: everything but ids, timings and the order of completion. */
const outcomesOf = (r: BatchReport) => ({
  stopReason: r.stopReason,
  funnel: r.funnel,
  firstFailedStage: r.firstFailedStage,
  rejectionsByCode: r.rejectionsByCode,
  repair: r.repair,
  admitted: [...r.admitted].sort((a, b) => a.name.localeCompare(b.name)),
  cost: r.cost.totalUsd,
});

/**
 * A database of the single-turn seeds, made once for this file (tests work on copies): the run's seeded library
 * (`library init --kind single`, validated once per test run: tests/helpers/seeded-library.ts) copied by `library
 * migrate`.
 */
let seededDatabase: Promise<string> | undefined;
const seeded = () =>
  (seededDatabase ??= (async () => {
    const url = await (await server.ready()).createDatabase();
    const migrated = await runEnvforge(
      'library',
      'migrate',
      '--from',
      (await sharedSeededLibrary('single')).dir,
      '--to',
      url,
    );
    expect(migrated.code, migrated.stderr).toBe(0);
    return url;
  })());

describe.skipIf(server.skipped)('envforge run --workers remote with two envforge worker processes', () => {
  it('survives a SIGKILLed worker: every environment admitted once, no job lost, the same outcomes as one process', {
    timeout: 360_000,
  }, async () => {
    const pgServer = await server.ready();
    const [single, shared] = [
      await pgServer.createDatabase(await seeded()),
      await pgServer.createDatabase(await seeded()),
    ];

    // The single-process run, on a database of its own, runs while the remote one waits out the killed job's timeout.
    const aloneRun = runEnvforge('run', '--database', single, ...RUN);

    const [w1, w2] = [worker(shared), worker(shared)];
    const batch = runEnvforge('run', '--database', shared, '--workers', 'remote', ...JOB_TIMEOUT, ...RUN);
    // Kill whichever worker takes a job first, in the middle of validating it.
    const victim = await Promise.race([w1.taken.then(() => w1), w2.taken.then(() => w2)]);
    victim.child.kill('SIGKILL');
    const [alone, result] = [await aloneRun, await batch];
    expect(alone.code, alone.stderr).toBe(0);
    const expected = JSON.parse(alone.stdout) as BatchReport;
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as BatchReport;
    const survivor = victim === w1 ? w2 : w1;
    expect(survivor.stderr()).toContain('"type":"settled"');

    // The same outcomes as the single-process run; the budget (none spent) held.
    expect(outcomesOf(report)).toEqual(outcomesOf(expected));
    expect(report.cost.totalUsd).toBe(0);

    // Every environment admitted exactly once, none a near-duplicate of another.
    const library = openLibrary(shared);
    try {
      const admitted = (await library.admittedSince(0)).envs.filter((e) => e.lineage.batchId === report.batchId);
      expect(admitted.map((e) => e.name).sort()).toEqual(report.admitted.map((a) => a.name).sort());
      expect(new Set(admitted.map((e) => e.name)).size).toBe(admitted.length);
      expect(nearDuplicatePairs((await library.admittedSince(0)).envs)).toEqual([]);
    } finally {
      await library.close();
    }
    // No job lost or failed: every job the batch sent completed (the killed one on its retry).
    const sql = new pg.Client({ connectionString: shared });
    await sql.connect();
    try {
      const { rows } = await sql.query(
        'SELECT state, count(*)::int AS n, max(retry_count) AS retries FROM pgboss.job WHERE name = ' +
          "'envforge-validate' GROUP BY state",
      );
      expect(rows.map((r: { state: string }) => r.state)).toEqual(['completed']);
      expect(rows[0].n).toBe(report.funnel.validations);
      expect(rows[0].retries).toBeGreaterThanOrEqual(1);
    } finally {
      await sql.end();
    }
    survivor.child.kill('SIGTERM');
    await survivor.exited;
  });

  it('with no worker running: says it is waiting, then stops at --wait-timeout with the batch kept for --resume', {
    timeout: 120_000,
  }, async () => {
    const pgServer = await server.ready();
    const url = await pgServer.createDatabase(await seeded());
    const result = await runEnvforge('run', '--database', url, '--workers', 'remote', '--wait-timeout', '7', ...RUN);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        String.raw`waiting for workers: a job has waited \d+ s and no envforge worker has taken it; start one ` +
          'with: envforge worker --database ',
      ),
    );
    expect(result.stderr).toMatch(
      /no envforge worker took a job within --wait-timeout 7 s; the batch is kept\. .*envforge run --resume batch-\S+/,
    );
    const report = JSON.parse(result.stdout) as BatchReport;
    expect(report.stopReason).toBe('no-worker');
    const library = openLibrary(url);
    try {
      expect((await library.getBatch(report.batchId))?.status).toBe('running');
    } finally {
      await library.close();
    }
  });
});

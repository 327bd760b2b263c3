// The offline author end to end: a batch with target 20 on a freshly seeded library, no LLM, as
// `npx envforge run --kind single --target 20` runs it on a fresh clone (aim: under 2 minutes on 2 cores), and
// the same for `--kind episodic --target 10` (offline.episodicFirstRunMs). Also times
// the author alone (propose + write) against the batch, side by side in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CostLedger } from '../agents/llm/cost.js';
import { createOfflineAuthor } from '../agents/offline/author.js';
import { seedLibrary } from '../library/maintenance.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { DEFAULT_BATCH_OPTIONS, runBatch } from '../pipeline/batch.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { RunKind } from '../agents/spec.js';
import type { BenchEntries } from './types.js';

const TARGET = 20;
const EPISODIC_TARGET = 10;
const SEED = 1;

export async function benchOffline(): Promise<BenchEntries> {
  return { ...(await benchSingle()), ...(await benchEpisodicRun()) };
}

/** A fresh library seeded, then one offline batch of a kind to a target, as on a fresh clone. */
async function firstRun(kind: RunKind, target: number) {
  const root = mkdtempSync(join(tmpdir(), `envforge-bench-offline-${kind}-`));
  const pool = new SandboxPool();
  try {
    const library = SqliteLibrary.open(join(root, 'library'), { create: true });
    const started = performance.now();
    await seedLibrary(library, pool);
    const seededMs = performance.now() - started;
    const report = await runBatch(
      { library, pool, author: createOfflineAuthor({ seed: SEED }), ledger: new CostLedger() },
      { ...DEFAULT_BATCH_OPTIONS, batchId: `bench-offline-${kind}`, kind, target, review: false },
    );
    const wallMs = performance.now() - started;
    const stats = await library.stats();
    await library.close();
    const entry = {
      value: wallMs,
      unit: 'ms',
      aimMs: 120_000,
      seedingMs: Math.round(seededMs),
      batchMs: Math.round(wallMs - seededMs),
      target,
      admitted: report.funnel.admitted,
      candidates: report.funnel.candidates,
      validations: report.funnel.validations,
      rejected: report.funnel.rejected,
      stopReason: report.stopReason,
    };
    return { report, stats, entry };
  } finally {
    await pool.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** `npx envforge run --kind episodic --target 10` on a fresh library with no LLM (aim: under 2 minutes on 2 cores). */
async function benchEpisodicRun(): Promise<BenchEntries> {
  const { stats, entry } = await firstRun('episodic', EPISODIC_TARGET);
  return {
    'offline.episodicFirstRunMs': {
      ...entry,
      episodicInLibrary: stats.byKind?.episodic ?? 0,
      note: 'seeding the library (12 seed validations) plus an episodic batch (--kind episodic), as on a fresh clone',
    },
  };
}

async function benchSingle(): Promise<BenchEntries> {
  const { report, entry } = await firstRun('single', TARGET);
  // The author alone, for the same number of specs: how much of the batch is synthesis.
  const author = createOfflineAuthor({ seed: SEED });
  const t0 = performance.now();
  const stats = { environments: 0, versions: 0, byStatus: {}, bySkill: {}, byAuthor: {}, levels: null, rejections: 0 };
  const { specs } = await author.propose({ stats, n: report.funnel.candidates, environments: [], kind: 'single' });
  for (const spec of specs) await author.write(spec);
  const authorMs = performance.now() - t0;
  return {
    'offline.firstRunMs': {
      ...entry,
      authorOnlyMs: Math.round(authorMs),
      authorShareOfBatch: authorMs / entry.batchMs,
      note:
        'seeding the library (12 seed validations) plus the batch, as on a fresh clone; authorOnlyMs re-runs ' +
        'propose+write for as many specs without validation',
    },
  };
}

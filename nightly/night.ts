// `envforge nightly`: the night's work in one run, in order, each step in one report: revalidate what an
// older validator admitted, retire what the trainer has saturated, run the batch aimed at the weak skills
// within the budget, export a dated dataset snapshot, write the report. Each finished step is recorded in
// DIR/nightly/<night>.json before the next starts, and the batch resumes from its journal, so a killed
// night run again finishes without repeating paid or admitted work.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { VALIDATOR_VERSION } from '../validators/validate.js';
import { FORMATS, type FormatName } from '../export/registry.js';
import { runExport } from '../export/run.js';
import { DEFAULT_SPLIT, parseSplit } from '../export/select.js';
import type { BatchRecord, Library } from '../library/contract.js';
import { revalidate } from '../library/maintenance.js';
import type { Author } from '../agents/author.js';
import type { CostLedger } from '../agents/llm/cost.js';
import { DEFAULT_BATCH_OPTIONS, runBatch, type BatchEvent } from '../pipeline/batch.js';
import { trainerFeedback } from '../pipeline/feedback/source.js';
import type { BatchReport } from '../pipeline/report.js';
import type { SandboxPool } from '../sandbox/pool.js';
import type { NightlyConfig } from './config.js';
import { nightMarkdown, type NightReport } from './report.js';

export interface NightDeps {
  library: Library;
  pool: SandboxPool;
  /** The batch's author and cost ledger, given the batch's record when it is resumed. */
  author(batchId: string, record: BatchRecord | undefined): { author: Author; ledger: CostLedger };
  log(line: string): void;
  onBatchEvent?: (event: BatchEvent) => void;
  signal?: AbortSignal;
}

export const nightlyDir = (library: Library) => join(library.dir, 'nightly');
export const nightBatchId = (night: string) => `nightly-${night}`;

function save(file: string, report: NightReport): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(report, null, 2)}\n`);
  renameSync(tmp, file); // the report is whole or absent, whenever the run is killed
}

export async function runNight(deps: NightDeps, config: NightlyConfig, night: string): Promise<NightReport> {
  const { library, pool, log } = deps;
  const dir = nightlyDir(library);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${night}.json`);
  const report: NightReport = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as NightReport)
    : { night, startedAt: new Date().toISOString(), finishedAt: null, steps: {} };
  const step = async <K extends keyof NightReport['steps']>(
    name: K,
    work: () => Promise<NonNullable<NightReport['steps'][K]>>,
  ) => {
    if (report.steps[name]) return log(`nightly ${night}: ${name}: done in an earlier run, skipped`);
    log(`nightly ${night}: ${name} …`);
    try {
      report.steps[name] = await work();
    } catch (error) {
      if (error instanceof NightInterrupted) throw error;
      // The report of a failed night is written and handed up whole: the steps done, and the one that failed.
      report.failed = { step: name, message: (error as Error).message ?? String(error) };
      save(file, report);
      writeFileSync(join(dir, `${night}.md`), nightMarkdown(report));
      throw new NightFailed(report, error);
    }
    delete report.failed;
    save(file, report);
  };

  await step('revalidate', async () => {
    const stale = [
      ...new Set((await library.list()).filter((e) => e.validatorVersion !== VALIDATOR_VERSION).map((e) => e.name)),
    ];
    const outcomes = stale.length ? await revalidate(library, pool, stale) : [];
    return {
      validatorVersion: VALIDATOR_VERSION,
      outcomes: outcomes.map((o) => ({
        name: o.name,
        version: o.version,
        verdict: o.verdict,
        retired: o.retired,
        codes: o.codes,
      })),
    };
  });

  const feedback = await trainerFeedback(library, config.feedback);
  await step('retire', async () => {
    const active = new Set((await library.list()).map((e) => e.name));
    const saturated = (feedback.summary?.envs ?? []).filter(
      (e) => active.has(e.name) && e.passRate >= config.retireAt && e.n >= config.minAttempts,
    );
    for (const e of saturated)
      await library.retire(
        e.name,
        `saturated: the trainer passes it (${(100 * e.passRate).toFixed(0)}% of ${Math.round(e.n)} attempts, ` +
          `from ${feedback.source === 'file' ? config.feedback : "the reward service's records"})`,
      );
    return {
      source: feedback.source,
      retireAt: config.retireAt,
      retired: saturated.map((e) => ({ name: e.name, passRate: e.passRate, n: e.n })),
    };
  });

  await step('batch', async () => {
    const batchId = nightBatchId(night);
    const record = await library.getBatch(batchId);
    let batch: BatchReport;
    if (record?.status === 'finished')
      batch = record.report as BatchReport; // finished, then killed before the step was recorded
    else {
      const { author, ledger } = deps.author(batchId, record);
      batch = await runBatch(
        {
          library,
          pool,
          author,
          ledger,
          ...(deps.onBatchEvent ? { onEvent: deps.onBatchEvent } : {}),
          ...(deps.signal ? { signal: deps.signal } : {}),
        },
        {
          ...DEFAULT_BATCH_OPTIONS,
          batchId,
          kind: config.kind,
          target: config.target,
          ...(config.maxCandidates ? { maxCandidates: config.maxCandidates } : {}),
          repairRounds: config.repairRounds,
          concurrency: config.concurrency,
          weakSkills: feedback.weak,
          saturatedSkills: feedback.saturated,
          weakShare: config.weakShare,
        },
      );
      if (batch.stopReason === 'cancelled') throw new NightInterrupted(night);
    }
    return {
      batchId,
      feedback: feedback.source,
      weakSkills: feedback.weak.map((w) => w.skill),
      admitted: batch.funnel.admitted,
      rejected: batch.funnel.rejected,
      costUsd: batch.cost.totalUsd,
      perAdmittedUsd: batch.cost.perAdmittedUsd,
      stopReason: batch.stopReason,
      frontier: batch.frontier ?? null,
    };
  });

  await step('export', async () => {
    const snapshots: NonNullable<NightReport['steps']['export']>['snapshots'] = [];
    for (const format of config.export.formats as FormatName[]) {
      const out = resolve(snapshotsHome(library), config.export.out, night, format);
      const summary = await runExport(library, pool, {
        format: FORMATS[format],
        out,
        selection: config.export.kind ? { kind: config.export.kind } : {},
        counts: { perEnv: config.export.perEnv },
        splits: parseSplit(DEFAULT_SPLIT),
        seed: config.export.seed,
        serviceUrl: 'http://127.0.0.1:8787',
      });
      snapshots.push({ format, out, rows: summary.total, envs: summary.envs.length });
    }
    return { snapshots };
  });

  report.finishedAt ??= new Date().toISOString();
  save(file, report);
  writeFileSync(join(dir, `${night}.md`), nightMarkdown(report));
  return report;
}

/** A relative export.out is beside the library: its folder, or (a database library) the current folder. */
const snapshotsHome = (library: Library) => (existsSync(library.dir) ? library.dir : process.cwd());

/** A step failed: the report (written to the nightly folder too) says which, after the steps that finished. */
export class NightFailed extends Error {
  constructor(
    readonly report: NightReport,
    cause: unknown,
  ) {
    super(`the night ${report.night} failed in its ${report.failed?.step} step: ${report.failed?.message}`, { cause });
  }
}

/** The batch was cancelled (SIGINT/SIGTERM): the night is kept and finishes when run again. */
export class NightInterrupted extends Error {
  constructor(readonly night: string) {
    super(`the night ${night} was interrupted; run envforge nightly again to finish it`);
  }
}

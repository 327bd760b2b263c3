// Work done once per test run and shared by the test files that need its result (a seeded library, the validation
// report of a module at a fixed validation seed and options): a folder per run, and `once`, which computes a JSON value
// under a key once, the other files' callers waiting for it.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashSource } from '../../contract/hash.js';
import type { ValidateOptions } from '../../validators/validate.js';
import type { ValidationReport } from '../../validators/report.js';

/** Set by tests/setup/run-cache.ts (the global setup) for the whole run; a file run without it keeps its own. */
export const RUN_DIR_VARIABLE = 'TEST_SHARED_RUN_DIR';
let ownDir: string | undefined;

export function runDir(): string {
  const shared = process.env[RUN_DIR_VARIABLE];
  if (shared && existsSync(shared)) return shared;
  ownDir ??= mkdtempSync(join(tmpdir(), 'envforge-testrun-'));
  return ownDir;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pending = new Map<string, Promise<unknown>>();

/**
 * The value of `compute` for `key`, computed by the first caller of the run (a lock folder says who) and read
 * from the run folder by every other; a caller that finds the computing one failed (no value, no lock) computes.
 * A value `keep` refuses is returned to its caller only, and the next caller computes again; a lock whose
 * process has ended is taken over.
 */
export function once<T>(
  key: string,
  compute: () => Promise<T>,
  waitMs = 600_000,
  keep: (value: T) => boolean = () => true,
): Promise<T> {
  const known = pending.get(key);
  if (known) return known as Promise<T>;
  const result = (async () => {
    const dir = runDir();
    const file = join(dir, `${key}.json`);
    const lock = join(dir, `${key}.lock`);
    for (const deadline = Date.now() + waitMs; ; ) {
      if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as T;
      try {
        mkdirSync(lock);
        writeFileSync(join(lock, 'pid'), String(process.pid));
      } catch {
        if (holderGone(lock)) rmSync(lock, { recursive: true, force: true });
        else if (Date.now() > deadline) throw new Error(`waited ${waitMs} ms for ${key} in ${dir}`);
        await sleep(250);
        continue;
      }
      try {
        const value = await compute();
        if (!keep(value)) {
          pending.delete(key);
          return value;
        }
        writeFileSync(`${file}.${process.pid}.tmp`, JSON.stringify(value));
        renameSync(`${file}.${process.pid}.tmp`, file);
        return value;
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    }
  })();
  pending.set(key, result);
  result.catch(() => pending.delete(key));
  return result;
}

/** Whether the process that took `lock` has ended without removing it (a test file's worker ended mid-computation). */
function holderGone(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    return false; // taken this instant, its pid not written yet
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * The validator's report on `source` with a fixed validation seed, validated once per run: for tests that need an
 * admitted report of a module (to put it in a library) and do not test its validation. The key is the source's
 * hash, the validation seed and the options (the build does not change within a run).
 */
export function validatedOnce(
  source: string,
  options: ValidateOptions & { validationSeed: number },
): Promise<ValidationReport> {
  // Only an admission is kept: a rejection may be the machine's (a pool closed under it, a timeout under load).
  return reportOnce(source, options, (report) => report.verdict === 'admit');
}

/** The report of validatedOnce and judgedOnce, as `validate --json` prints it (a JSON copy), kept where `keep` says. */
function reportOnce(
  source: string,
  options: ValidateOptions & { validationSeed: number },
  keep: (report: ValidationReport) => boolean,
): Promise<ValidationReport> {
  const { pool, ...rest } = options;
  return once(
    reportKey(source, options),
    async () => {
      const { validateCandidate } = await import('../../validators/validate.js');
      return JSON.parse(JSON.stringify(await validateCandidate(source, { pool, ...rest }))) as ValidationReport;
    },
    600_000,
    keep,
  );
}

/**
 * Keeps an admitting report that a test of the validation computed itself, for validatedOnce's later callers
 * in the run (the first report of a key stays).
 */
export function publishReport(
  source: string,
  options: ValidateOptions & { validationSeed: number },
  report: ValidationReport,
): void {
  const file = join(runDir(), `${reportKey(source, options)}.json`);
  if (existsSync(file) || report.verdict !== 'admit') return;
  writeFileSync(`${file}.${process.pid}.tmp`, JSON.stringify(report));
  renameSync(`${file}.${process.pid}.tmp`, file);
}

/** Codes a loaded machine can cause on its own: a report with one may be the machine's, not the module's. */
export const LOAD_CODES: ReadonlySet<string> = new Set(['E_TIMEOUT', 'E_TOO_SLOW', 'E_CRASHED', 'E_MEMORY']);

/**
 * The validator's report on `source` at a fixed validation seed and options, computed once per test run and read by
 * every other test, in any file, that judges the same validation (tests of the validation included): a build gives
 * one report for a module, seed and options (tests/golden-decisions.test.ts holds that byte for byte), so a test
 * asserts on the same report whoever computed it. Every caller gets the report as `validate --json` prints it (a JSON
 * copy). A report a load code stands in is returned to its caller only: the next caller validates again.
 */
export function judgedOnce(
  source: string,
  options: ValidateOptions & { validationSeed: number },
): Promise<ValidationReport> {
  return reportOnce(source, options, (report) => !clocked(report));
}

/** Whether a load code stands anywhere in the report (a problem, a stage's metrics), as bench/golden.ts judges it. */
function clocked(report: ValidationReport): boolean {
  const text = JSON.stringify(report);
  return [...LOAD_CODES].some((code) => text.includes(code));
}

/** The run folder's key of a validation: the source's hash and the options but the pool, in any key order. */
export function reportKey(source: string, options: ValidateOptions): string {
  const { pool: _pool, novelty, reviewer, ...rest } = options;
  if (novelty || reviewer)
    throw new Error('a novelty index or a reviewer is not part of a report key: validate directly');
  return `report-${createHash('sha256')
    .update(JSON.stringify([hashSource(source), canonical(rest)]))
    .digest('hex')
    .slice(0, 24)}`;
}

/** The value with every object's keys sorted: options written in another order give the same key. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, canonical(v)]),
  );
}

// Writes a trainer dataset (verl, OpenRLHF, TRL or plain JSONL) and its reward shim from the library.
// select.ts decides which rows; the sandbox generates them in chunks that stream to the format's writer;
// the files appear under their names only when all are done. Memory holds one chunk of prompts, at most
// ROW_GROUP_ROWS rows per split (parquet), and a 16-character prompt hash per row of the environment
// being exported (the duplicate check): about 60 MB per million rows of one environment.
import { identityString } from '../contract/identity.js';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../contract/errors.js';
import type { Library } from '../library/contract.js';
import { VERSION } from '../contract/version.js';
import { IncidentLog } from '../library/quarantine.js';
import { SandboxPool } from '../sandbox/pool.js';
import {
  EXPORT_SCHEME,
  ExportError,
  type ExportFormat,
  type ExportRow,
  type ShimEnv,
  type WrittenFile,
} from './contract.js';
import { generateChunk, type Found } from './generate.js';
import { episodicMeta } from '../kinds/episodic.js';
import { OutputFiles } from './files.js';
import { jsonText } from './encode.js';
import { kindOf } from '../kinds/registry.js';
import {
  assignRows,
  CHUNK_SLOTS,
  SplitSchedule,
  slotsOf,
  type CountOptions,
  type PlannedEnv,
  type SplitWeight,
} from './select.js';
import { selectEnvironments, SelectionError, type Selection, type SelectedEnv } from '../library/select.js';

export const MANIFEST_FILE = 'envforge-export.json';
export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:8787';

export interface ExportPlan {
  format: ExportFormat;
  out: string;
  selection: Selection;
  counts: CountOptions;
  splits: SplitWeight[];
  seed: number;
  serviceUrl: string;
}

export interface EnvSummary {
  name: string;
  version: number;
  hash: string;
  levels: [number, number];
  rows: Record<string, number>;
  /** Attempts whose prompt repeated an earlier row's and were redrawn. */
  redrawn: number;
  /** Attempts that failed in generate (or returned an invalid instance) and were redrawn. */
  failed: number;
  /** Rows left out after MAX_ATTEMPTS attempts. */
  dropped: number;
}

export interface ExportSummary {
  /** Environments left out because they are quarantined (before or during this export); absent when none. */
  quarantined?: Array<{ name: string; version: number; reason: string }>;
  /** Environments this format cannot carry (their kind, or a tool it cannot express), with why; absent when none. */
  unsupported?: Array<{ name: string; version: number; kind: string; reason: string }>;
  scheme: string;
  envforge: string;
  format: string;
  seed: number;
  serviceUrl: string;
  splits: Array<{ name: string; fraction: number }>;
  rows: Record<string, number>;
  total: number;
  envs: EnvSummary[];
  files: WrittenFile[];
}

export interface ExportProgress {
  env: string;
  done: number;
  total: number;
}

// ---------------------------------------------------------------- the pipeline

/** Runs one export into plan.out and returns its summary (also written there as envforge-export.json). */
export async function runExport(
  library: Library,
  pool: SandboxPool,
  plan: ExportPlan,
  onProgress?: (p: ExportProgress) => void,
): Promise<ExportSummary> {
  // The runtime defence: quarantined environments are left out, and one that misbehaves now is quarantined.
  const incidents = new IncidentLog(library.dir, 'export');
  incidents.refresh(await library.incidents({ open: true, responses: false }), await library.quarantines());
  const quarantined: NonNullable<ExportSummary['quarantined']> = [];
  const unsupported: NonNullable<ExportSummary['unsupported']> = [];
  const shims = new Map<string, ShimEnv>();
  const selected = await selectFor(library, plan.selection);
  for (const env of selected) {
    const kind = kindOf(env.record.meta);
    const shim = plan.format.kinds.includes(kind.name) ? await shimEnvOf(library, pool, env) : undefined;
    const reason = shim
      ? plan.format.refuses?.(shim)
      : `${kind.label} environments are not exported to ${plan.format.name}`;
    if (shim && !reason) shims.set(env.record.hash, shim);
    else
      unsupported.push({
        name: env.record.name,
        version: env.record.version,
        kind: kind.label,
        reason: reason as string,
      });
  }
  const usable = selected.filter((env) => {
    if (!shims.has(env.record.hash)) return false;
    const reason = incidents.quarantined(env.record.hash);
    if (reason) quarantined.push({ name: env.record.name, version: env.record.version, reason });
    return !reason;
  });
  const envs = assignRows(usable, plan.counts);
  const previous = prepareOutDir(plan.out);
  const splitNames = plan.splits.map((s) => s.name);
  const files = new OutputFiles(plan.out);
  try {
    const shimEnvs = envs.map((env) => shims.get(env.record.hash) as ShimEnv);
    const writer = await plan.format.begin({
      dir: plan.out,
      splits: splitNames,
      serviceUrl: plan.serviceUrl,
      envs: shimEnvs,
      files,
    });
    const schedule = new SplitSchedule(plan.splits);
    const nextIndex = splitNames.map(() => 0);
    const total = envs.reduce((a, e) => a + e.rows, 0);
    let done = 0;
    const summaries: EnvSummary[] = [];
    for (const env of envs) {
      const summary = emptySummary(env, splitNames);
      const source = await library.source(env.record);
      const seen = new Set<string>();
      const slots = slotsOf(env, schedule, splitNames.length);
      for (let chunk = take(slots, CHUNK_SLOTS); chunk.length > 0; chunk = take(slots, CHUNK_SLOTS)) {
        const found = await generateChunk(pool, env, source, chunk, plan.seed, seen, summary, incidents);
        const reason = incidents.quarantined(env.record.hash);
        if (reason) {
          quarantined.push({ name: env.record.name, version: env.record.version, reason });
          break; // rows written so far stay: they are instances that generated and validated
        }
        const rows = found.map((f) => toRow(env, splitNames, nextIndex, f));
        for (const row of rows) summary.rows[row.split] = (summary.rows[row.split] ?? 0) + 1;
        await writer.write(rows);
        done += chunk.length;
        onProgress?.({ env: env.record.name, done, total });
      }
      summaries.push(summary);
    }
    await writer.end();
    const summary: ExportSummary = {
      ...(quarantined.length ? { quarantined } : {}),
      ...(unsupported.length ? { unsupported } : {}),
      scheme: EXPORT_SCHEME,
      envforge: VERSION,
      format: plan.format.name,
      seed: plan.seed,
      serviceUrl: plan.serviceUrl,
      splits: plan.splits.map((s) => ({ name: s.name, fraction: s.weight / 1_000_000 })),
      rows: Object.fromEntries(splitNames.map((name, i) => [name, nextIndex[i] as number])),
      total: nextIndex.reduce((a, n) => a + n, 0),
      envs: summaries,
      files: files.describe(),
    };
    files.text(MANIFEST_FILE, `${jsonText(summary, 2)}\n`);
    files.commit();
    removeStale(plan.out, previous, files.list());
    return summary;
  } catch (error) {
    files.abort();
    throw error;
  } finally {
    await incidents.close();
  }
}

/** The flags' selection against the library; a selection it cannot satisfy is a usage error (exit 2). */
async function selectFor(library: Library, selection: Selection): Promise<SelectedEnv[]> {
  const records = await library.list({ status: 'all', allVersions: true });
  try {
    return selectEnvironments(records, selection, {
      labels: { env: '--env', skills: '--skills', levels: '--levels', selected: 'exported environments' },
      where: library.dir,
      short: 'refuse',
    });
  } catch (error) {
    if (error instanceof SelectionError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

function emptySummary(env: PlannedEnv, splits: string[]): EnvSummary {
  const { record, levels } = env;
  return {
    name: record.name,
    version: record.version,
    hash: record.hash,
    levels: [levels.lo, levels.hi],
    rows: Object.fromEntries(splits.map((s) => [s, 0])),
    redrawn: 0,
    failed: 0,
    dropped: 0,
  };
}

function toRow(env: PlannedEnv, splits: string[], nextIndex: number[], { slot, seed, prompt, task }: Found): ExportRow {
  const { name, version, meta } = env.record;
  const index = nextIndex[slot.split] as number;
  nextIndex[slot.split] = index + 1;
  const row: ExportRow = {
    env: name,
    version,
    seed,
    level: slot.level,
    split: splits[slot.split] as string,
    index,
    prompt,
    groundTruth: identityString({ env: name, version, seed, level: slot.level }),
    skills: meta.skills,
  };
  return task === undefined ? row : { ...row, task };
}

/**
 * What the shims know of an environment: its identity, and an episodic one's tools and turn limit (read from the
 * module).
 */
async function shimEnvOf(library: Library, pool: SandboxPool, env: SelectedEnv): Promise<ShimEnv> {
  const { name, version, hash, meta } = env.record;
  const kind = kindOf(meta);
  if (!kind.rollouts) return { name, version, hash, kind: kind.label };
  const episodic = await episodicMeta(pool, await library.source(env.record));
  if (!episodic) throw new ExportError(`${name}@${version}: its meta no longer matches contract v2 in the sandbox`);
  return { name, version, hash, kind: kind.label, episodic: { tools: episodic.tools, maxTurns: episodic.maxTurns } };
}

function take<T>(iterator: Iterator<T>, n: number): T[] {
  const out: T[] = [];
  while (out.length < n) {
    const r = iterator.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

// ---------------------------------------------------------------- the output folder

/** Checks --out and returns the files an earlier export left there (replaced by this one). */
function prepareOutDir(out: string): string[] {
  if (!existsSync(out)) {
    try {
      mkdirSync(out, { recursive: true });
    } catch (error) {
      throw new UsageError(
        `--out ${out}: cannot create the folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
        { cause: error },
      );
    }
    return [];
  }
  if (!statSync(out).isDirectory())
    throw new UsageError(`--out ${out} is a file; give a folder (it is created when missing)`);
  const entries = readdirSync(out).filter((f) => !f.endsWith('.partial'));
  if (entries.length === 0) return [];
  if (!entries.includes(MANIFEST_FILE))
    throw new UsageError(
      `--out ${out} is not empty and holds no envforge export (no ${MANIFEST_FILE}); choose a new or empty folder`,
    );
  try {
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST_FILE), 'utf8')) as {
      files?: Array<{ name?: unknown }>;
    };
    return (manifest.files ?? [])
      .map((f) => f.name)
      .filter((n): n is string => typeof n === 'string' && !/[/\\]/.test(n) && n !== '..');
  } catch (error) {
    throw new UsageError(
      `--out ${out}: ${MANIFEST_FILE} is unreadable (${(error as Error).message}); choose a new or empty folder`,
      { cause: error },
    );
  }
}

function removeStale(out: string, previous: string[], current: readonly string[]): void {
  for (const name of previous) if (!current.includes(name)) rmSync(join(out, name), { force: true });
}

/** --service-url: an http(s) base URL, written into shims and READMEs without a trailing slash. */
export function parseServiceUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--service-url needs an http(s) URL such as ${DEFAULT_SERVICE_URL}, got "${text}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash)
    throw new UsageError(`--service-url needs an http(s) base URL without query or fragment, got "${text}"`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

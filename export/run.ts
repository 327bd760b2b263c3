// Writes a trainer dataset (verl, OpenRLHF, TRL or plain JSONL) and its reward shim from the library.
// select.ts decides which rows; the sandbox generates them in chunks that stream to the format's writer;
// the files appear under their names only when all are done. Memory holds one chunk of prompts, at most
// ROW_GROUP_ROWS rows per split (parquet), and a 16-character prompt hash per row of the environment
// being exported (the duplicate check): about 60 MB per million rows of one environment.
import { identityString } from '../contract/identity.js';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../contract/errors.js';
import { InstanceSchema } from '../contract/schema.js';
import type { Library } from '../library/contract.js';
import { VERSION } from '../contract/version.js';
import { IncidentLog } from '../library/quarantine.js';
import { SandboxPool } from '../sandbox/pool.js';
import { checkVerdict } from '../sandbox/episodes.js';
import type { CallResult, RawVerdict } from '../sandbox/protocol.js';
import { EXPORT_SCHEME, ExportError, type ExportFormat, type ExportRow, type WrittenFile } from './contract.js';
import { OutputFiles } from './files.js';
import { kindOf } from '../kinds/registry.js';
import { assignRows, CHUNK_SLOTS, MAX_ATTEMPTS, seedFor, SplitSchedule, slotsOf, type CountOptions, type PlannedEnv, type Slot, type SplitWeight } from './select.js';
import { selectEnvironments, SelectionError, type Selection, type SelectedEnv } from '../library/select.js';

export const MANIFEST_FILE = 'envforge-export.json';
export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:8787';
/** Sandbox failures that say nothing about the seed (load, deadline, a dead worker): retried, never skipped. */
const TRANSIENT = new Set(['E_TIMEOUT', 'E_CRASHED', 'E_PROTOCOL']);
const TRANSIENT_RETRIES = 2;

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
  /** Environments of a kind trainer exports do not carry yet (episodic, contract v2); absent when none. */
  unsupported?: Array<{ name: string; version: number; kind: string }>;
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
export async function runExport(library: Library, pool: SandboxPool, plan: ExportPlan, onProgress?: (p: ExportProgress) => void): Promise<ExportSummary> {
  // The runtime defence: quarantined environments are left out, and one that misbehaves now is quarantined.
  const incidents = new IncidentLog(library.dir, 'export');
  incidents.refresh(await library.incidents({ open: true }));
  const quarantined: NonNullable<ExportSummary['quarantined']> = [];
  const unsupported: NonNullable<ExportSummary['unsupported']> = [];
  const usable = (await selectFor(library, plan.selection)).filter((env) => {
    const kind = kindOf(env.record.meta);
    if (!kind.exportable) {
      unsupported.push({ name: env.record.name, version: env.record.version, kind: kind.name });
      return false;
    }
    const reason = incidents.quarantined(env.record.hash);
    if (reason) quarantined.push({ name: env.record.name, version: env.record.version, reason });
    return !reason;
  });
  const envs = assignRows(usable, plan.counts);
  const previous = prepareOutDir(plan.out);
  const splitNames = plan.splits.map((s) => s.name);
  const files = new OutputFiles(plan.out);
  try {
    const shimEnvs = envs.map(({ record }) => ({ name: record.name, version: record.version, hash: record.hash }));
    const writer = await plan.format.begin({ dir: plan.out, splits: splitNames, serviceUrl: plan.serviceUrl, envs: shimEnvs, files });
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
        const rows = found.map(({ slot, seed, prompt }) => toRow(env, splitNames, nextIndex, slot, seed, prompt));
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
    files.text(MANIFEST_FILE, `${JSON.stringify(summary, null, 2)}\n`);
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
    return selectEnvironments(records, selection, { labels: { env: '--env', skills: '--skills', levels: '--levels', selected: 'exported environments' }, where: library.dir, short: 'refuse' });
  } catch (error) {
    if (error instanceof SelectionError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

function emptySummary(env: PlannedEnv, splits: string[]): EnvSummary {
  const { record, levels } = env;
  return { name: record.name, version: record.version, hash: record.hash, levels: [levels.lo, levels.hi], rows: Object.fromEntries(splits.map((s) => [s, 0])), redrawn: 0, failed: 0, dropped: 0 };
}

function toRow(env: PlannedEnv, splits: string[], nextIndex: number[], slot: Slot, seed: number, prompt: string): ExportRow {
  const { name, version, meta } = env.record;
  const index = nextIndex[slot.split] as number;
  nextIndex[slot.split] = index + 1;
  return { env: name, version, seed, level: slot.level, split: splits[slot.split] as string, index, prompt, groundTruth: identityString({ env: name, version, seed, level: slot.level }), skills: meta.skills };
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

interface Pending {
  slot: Slot;
  attempt: number;
  transient: number;
  /** The code its last failed attempt had (a repeat on the same seed confirms an incident). */
  lastCode?: string;
}

/**
 * Step 5 of the scheme: generates one chunk's prompts in rounds of one sandbox call each, redrawing
 * repeated prompts and failed attempts, and returns the rows found, in slot order.
 */
async function generateChunk(pool: SandboxPool, env: PlannedEnv, source: string, slots: Slot[], exportSeed: number, seen: Set<string>, summary: EnvSummary, incidents: IncidentLog): Promise<Array<{ slot: Slot; seed: number; prompt: string }>> {
  const { name, version } = env.record;
  const kind = kindOf(env.record.meta);
  const found: Array<{ slot: Slot; seed: number; prompt: string }> = [];
  let pending: Pending[] = slots.map((slot) => ({ slot, attempt: 0, transient: 0 }));
  while (pending.length > 0) {
    const seeds = pending.map((p) => seedFor(name, exportSeed, p.slot.k, p.attempt));
    const run = await pool.run({ source, calls: pending.map((p, i) => ({ op: 'episode' as const, seed: seeds[i] as number, level: p.slot.level })), parallel: true });
    if (!run.load.ok) throw new ExportError(`${name}@${version} does not load in the sandbox: ${run.load.code}: ${run.load.message}`);
    const next: Pending[] = [];
    for (const [i, p] of pending.entries()) await recordFailure(incidents, env, seeds[i] as number, p, run.results[i]);
    if (incidents.quarantined(env.record.hash)) return found;
    pending.forEach((p, i) => {
      const result = run.results[i];
      const seed = seeds[i] as number;
      if (result && !result.ok && TRANSIENT.has(result.code)) {
        if (++p.transient > TRANSIENT_RETRIES) {
          throw new ExportError(`${name}@${version} seed ${seed} level ${p.slot.level}: generate failed ${p.transient} times with ${result.code}: ${result.message} (an overloaded machine or a hanging environment; retry, or leave it out with --env)`);
        }
        next.push(p);
        return;
      }
      const instance = result?.ok ? InstanceSchema.safeParse((result.value as { instance?: unknown } | null)?.instance) : undefined;
      if (instance?.success) {
        const key = createHash('sha256').update(instance.data.prompt).digest('base64').slice(0, 16);
        if (!seen.has(key)) {
          seen.add(key);
          found.push({ slot: p.slot, seed, prompt: kind.exportView(instance.data).prompt });
          return;
        }
        summary.redrawn++;
      } else {
        summary.failed++;
      }
      p.attempt++;
      if (p.attempt < MAX_ATTEMPTS) next.push(p);
      else summary.dropped++;
    });
    pending = next;
  }
  return found.sort((a, b) => a.slot.k - b.slot.k);
}

/** A failed generation is an incident; one that failed the same way before on this seed is confirmed. */
async function recordFailure(incidents: IncidentLog, env: PlannedEnv, seed: number, p: Pending, result: CallResult | undefined): Promise<void> {
  const value = result?.ok ? (result.value as { instance?: unknown; verdicts?: RawVerdict[] } | null) : null;
  const raw = value?.verdicts?.[0];
  const reference = raw ? checkVerdict(raw) : null;
  const failure = !result
    ? null
    : !result.ok
      ? { code: result.code, message: result.message, fn: result.fn }
      : !InstanceSchema.safeParse(value?.instance).success
        ? { code: 'E_INSTANCE', message: 'generate returned an instance that breaks the contract', fn: 'generate' }
        : !reference?.ok || reference.score !== 1
          ? { code: 'E_UNSOLVED', message: "verify does not give this instance's reference a score of 1", fn: 'verify' }
          : null;
  if (!failure || !incidents.isIncident(failure.code)) return;
  await incidents.record({ record: env.record, seed, level: p.slot.level, ...failure }, p.transient > 0 && p.lastCode === failure.code);
  p.lastCode = failure.code;
}

// ---------------------------------------------------------------- the output folder

/** Checks --out and returns the files an earlier export left there (replaced by this one). */
function prepareOutDir(out: string): string[] {
  if (!existsSync(out)) {
    try {
      mkdirSync(out, { recursive: true });
    } catch (error) {
      throw new UsageError(`--out ${out}: cannot create the folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { cause: error });
    }
    return [];
  }
  if (!statSync(out).isDirectory()) throw new UsageError(`--out ${out} is a file; give a folder (it is created when missing)`);
  const entries = readdirSync(out).filter((f) => !f.endsWith('.partial'));
  if (entries.length === 0) return [];
  if (!entries.includes(MANIFEST_FILE)) throw new UsageError(`--out ${out} is not empty and holds no envforge export (no ${MANIFEST_FILE}); choose a new or empty folder`);
  try {
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST_FILE), 'utf8')) as { files?: Array<{ name?: unknown }> };
    return (manifest.files ?? []).map((f) => f.name).filter((n): n is string => typeof n === 'string' && !/[/\\]/.test(n) && n !== '..');
  } catch (error) {
    throw new UsageError(`--out ${out}: ${MANIFEST_FILE} is unreadable (${(error as Error).message}); choose a new or empty folder`, { cause: error });
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
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) throw new UsageError(`--service-url needs an http(s) base URL without query or fragment, got "${text}"`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

// Which instances an export holds: how many rows each selected environment gets (library/select.ts picks
// the environments), which split every row lands in and which seed it uses, by the envforge-export-v1
// scheme (docs/export-scheme.md), so the same command writes the same bytes. Also the export flags' parsers.
import { UsageError } from '../contract/errors.js';
import type { EnvRef, LevelRange, LevelSpec, SelectedEnv } from '../library/select.js';
import { CONTRACT_LIMITS } from '../contract/schema.js';
import { deriveRngState } from '../sandbox/rng.js';
import { loadPlainRuntime, type PlainRuntime } from '../sandbox/runtime.js';

export const CHUNK_SLOTS = 500;
export const MAX_ATTEMPTS = 8;
const SEED_MAX = 2 ** 31 - 1;
/** Rows one export may plan: keeps the split arithmetic exact in doubles (weight · g < 2^53). */
export const MAX_ROWS = 100_000_000;
export const DEFAULT_PER_ENV = 1_000;
export const DEFAULT_SPLIT = 'train:0.95,test:0.05';
const UNIT = 1_000_000;

export interface SplitWeight {
  name: string;
  /** Millionths; the weights of one --split sum to 10^6. */
  weight: number;
}

export type CountOptions = { perEnv: number; total?: undefined } | { total: number; perEnv?: undefined };

/** A selected environment with the rows it gets. */
export interface PlannedEnv extends SelectedEnv {
  rows: number;
}

/** One planned row: its position k in its environment, its split (an index into the splits) and level. */
export interface Slot {
  k: number;
  split: number;
  level: number;
}

// ---------------------------------------------------------------- flag parsers (each names its flag)

function items(flag: string, text: string): string[] {
  const parts = text.split(',').map((s) => s.trim());
  if (parts.length === 0 || parts.some((p) => p === ''))
    throw new UsageError(`${flag} needs a comma-separated list without empty items, got "${text}"`);
  return parts;
}

export function parseEnvRefs(text: string): EnvRef[] {
  const refs = items('--env', text).map((item): EnvRef => {
    const match = /^([a-z][a-z0-9-]*)(?:@(\d+))?$/.exec(item);
    if (!match) throw new UsageError(`--env: "${item}" is not an environment name (NAME or NAME@VERSION)`);
    return match[2] === undefined
      ? { name: match[1] as string }
      : { name: match[1] as string, version: Number(match[2]) };
  });
  const names = refs.map((r) => r.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new UsageError(`--env names "${twice}" twice`);
  return refs;
}

export function parseSkills(text: string): string[] {
  return items('--skills', text);
}

function parseRange(text: string): LevelRange | undefined {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text);
  if (!match) return undefined;
  const lo = Number(match[1]);
  const hi = match[2] === undefined ? lo : Number(match[2]);
  if (lo < 1 || hi < lo || hi > CONTRACT_LIMITS.maxLevels) return undefined;
  return { lo, hi };
}

/** `1-5`, `3`, `planted-sat:2-4`, or a mix: `1-5,planted-sat:2-4` (per-environment ranges win). */
export function parseLevels(text: string): LevelSpec {
  const spec: LevelSpec = { byEnv: new Map() };
  for (const item of items('--levels', text)) {
    const colon = item.indexOf(':');
    const name = colon < 0 ? undefined : item.slice(0, colon).trim();
    const range = parseRange(colon < 0 ? item : item.slice(colon + 1).trim());
    if (!range)
      throw new UsageError(
        `--levels: "${item}" is not a level range (LO-HI or L, from 1 to ${CONTRACT_LIMITS.maxLevels}` +
          `, optionally NAME:LO-HI)`,
      );
    if (name === undefined) {
      if (spec.all) throw new UsageError(`--levels gives more than one range for every environment ("${text}")`);
      spec.all = range;
    } else {
      if (spec.byEnv.has(name)) throw new UsageError(`--levels gives "${name}" two ranges`);
      spec.byEnv.set(name, range);
    }
  }
  return spec;
}

/** `train:0.95,test:0.05`: names (lowercase, used as file names) with fractions that sum to exactly 1. */
export function parseSplit(text: string): SplitWeight[] {
  const splits = items('--split', text).map((item): SplitWeight => {
    const match = /^([a-z][a-z0-9_-]{0,31}):(\d*(?:\.\d*)?)$/.exec(item);
    const fraction = match?.[2] ?? '';
    if (!match || !/^(\d+(\.\d{0,6})?|\.\d{1,6})$/.test(fraction)) {
      throw new UsageError(
        `--split: "${item}" is not NAME:FRACTION (a lowercase name and a fraction with at most 6 ` +
          `decimals, e.g. train:0.95)`,
      );
    }
    const [whole = '0', decimals = ''] = fraction.split('.');
    const weight = Number(whole || '0') * UNIT + Number(decimals.padEnd(6, '0'));
    if (weight <= 0) throw new UsageError(`--split: "${item}" has no share; leave the split out instead`);
    return { name: match[1] as string, weight };
  });
  const names = splits.map((s) => s.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new UsageError(`--split names "${twice}" twice`);
  const sum = splits.reduce((a, s) => a + s.weight, 0);
  if (sum !== UNIT) throw new UsageError(`--split fractions must sum to 1, got ${sum / UNIT} ("${text}")`);
  return splits;
}

/** Rows per environment (step 1 of the scheme). */
export function assignRows<T extends object>(envs: T[], counts: CountOptions): Array<T & { rows: number }> {
  const out = envs.map((env, i) => {
    if (counts.total === undefined) return { ...env, rows: counts.perEnv };
    const base = Math.floor(counts.total / envs.length);
    return { ...env, rows: base + (i < counts.total % envs.length ? 1 : 0) };
  });
  const planned = out.reduce((a, e) => a + e.rows, 0);
  if (planned > MAX_ROWS)
    throw new UsageError(
      `the export plans ${planned} rows, more than the ${MAX_ROWS} one export may hold: lower --per-env or --total`,
    );
  return out;
}

// ---------------------------------------------------------------- splits, levels, seeds

/** Step 2 of the scheme: one instance for the whole export, called once per row in export order. */
export class SplitSchedule {
  private readonly taken: number[];
  private g = 0;

  constructor(private readonly splits: readonly SplitWeight[]) {
    this.taken = splits.map(() => 0);
  }

  next(): number {
    this.g++;
    let best = 0;
    let bestDeficit = -Infinity;
    this.splits.forEach((split, s) => {
      const deficit = split.weight * this.g - (this.taken[s] as number) * UNIT;
      if (deficit > bestDeficit) {
        best = s;
        bestDeficit = deficit;
      }
    });
    this.taken[best] = (this.taken[best] as number) + 1;
    return best;
  }
}

/** Steps 2 and 3 for one environment: its rows in order k = 0 … rows − 1. */
export function* slotsOf(env: PlannedEnv, schedule: SplitSchedule, splitCount: number): Generator<Slot> {
  const span = env.levels.hi - env.levels.lo + 1;
  const perSplit = new Array<number>(splitCount).fill(0);
  for (let k = 0; k < env.rows; k++) {
    const split = schedule.next();
    const i = perSplit[split] as number;
    perSplit[split] = i + 1;
    yield { k, split, level: env.levels.lo + (i % span) };
  }
}

let runtime: PlainRuntime | undefined;

/** Step 4: the seed of row k of an environment at a given attempt. */
export function seedFor(env: string, exportSeed: number, k: number, attempt: number): number {
  runtime ??= loadPlainRuntime();
  const rng = runtime.makeRng(...deriveRngState(`export:${env}`, exportSeed, k));
  let seed = 0;
  for (let a = 0; a <= attempt; a++) seed = rng.int(0, SEED_MAX);
  return seed;
}

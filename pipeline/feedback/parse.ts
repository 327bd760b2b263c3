// Trainer feedback (`--feedback FILE`): parses JSONL/CSV pass-rate rows, aggregates them per skill and per environment, and picks the capability frontier the architect steers toward.
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { z } from 'zod';
import { SKILL_TAXONOMY, taxonomySkills, type SkillTaxonomy } from '../agents/spec.js';
import { UsageError } from '../contract/errors.js';
import { NAME_PATTERN } from '../contract/schema.js';
import type { EnvRecord } from '../library/contract.js';

/** One trainer evaluation: the pass rate over n attempts, of a skill, an environment (optionally one level), or both. */
export interface FeedbackRow {
  skill?: string;
  env?: string;
  level?: number;
  passRate: number;
  n: number;
}

export type FeedbackFormat = 'jsonl' | 'csv';

/** At most this many problems are listed in one error; the rest are counted. */
export const MAX_FEEDBACK_ERRORS = 10;

/** The column names (JSONL keys) of a feedback row, in the order problems are reported. */
export const FEEDBACK_FIELDS = ['skill', 'env', 'level', 'pass_rate', 'n'] as const;
type Field = (typeof FEEDBACK_FIELDS)[number];

const KEBAB_RULE = 'must be kebab-case (lowercase letters and digits in words joined by single hyphens, starting with a letter)';
const RULES: Record<Field, string> = {
  skill: KEBAB_RULE,
  env: KEBAB_RULE,
  level: 'must be a positive integer when present',
  pass_rate: 'must be a number in [0, 1]',
  n: 'must be a positive integer',
};

const kebab = z.string().max(64).regex(NAME_PATTERN);
const positiveInt = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

const RowSchema = z
  .object({
    skill: kebab.optional(),
    env: kebab.optional(),
    level: positiveInt.optional(),
    pass_rate: z.number().min(0).max(1),
    n: positiveInt,
  })
  .refine((row) => row.skill !== undefined || row.env !== undefined, { message: 'needs a skill or an env (or both)' });

/** A feedback file that breaks the format; `problems` lists each one as "<file> line <n>: <what>". */
export class FeedbackError extends UsageError {
  readonly problems: string[];
  constructor(problems: string[], omitted = 0) {
    const more = omitted > 0 ? `\n… and ${omitted} more problem${omitted === 1 ? '' : 's'}` : '';
    super(problems.join('\n') + more);
    this.problems = problems;
  }
}

class Problems {
  readonly list: string[] = [];
  omitted = 0;
  constructor(private readonly file: string) {}
  add(line: number, message: string): void {
    if (this.list.length < MAX_FEEDBACK_ERRORS) this.list.push(`${this.file} line ${line}: ${message}`);
    else this.omitted++;
  }
  throwIfAny(): void {
    if (this.list.length > 0) throw new FeedbackError(this.list, this.omitted);
  }
}

function show(value: unknown): string {
  const text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * Validates one row's fields (absent fields left out); reports every broken field in field order, quoting
 * `written` (the value as the file spells it, e.g. a CSV cell) when given, else the value itself.
 */
function validateRow(raw: Record<string, unknown>, line: number, problems: Problems, written: Partial<Record<Field, string>> = {}): FeedbackRow | undefined {
  const result = RowSchema.safeParse(raw);
  if (result.success) {
    const { skill, env, level, pass_rate: passRate, n } = result.data;
    return { ...(skill !== undefined && { skill }), ...(env !== undefined && { env }), ...(level !== undefined && { level }), passRate, n };
  }
  const broken = new Set<Field>();
  let needsTarget = false;
  for (const issue of result.error.issues) {
    const field = issue.path[0];
    if ((FEEDBACK_FIELDS as readonly unknown[]).includes(field)) broken.add(field as Field);
    else if (issue.path.length === 0) needsTarget = true;
  }
  for (const field of FEEDBACK_FIELDS) {
    if (!broken.has(field)) continue;
    const value = raw[field];
    problems.add(line, value === undefined ? `${field} is required (${RULES[field].replace(/^must be /, '')})` : `${field} ${RULES[field]}, got ${show(written[field] ?? value)}`);
  }
  // The refinement only runs when the fields parse; say it anyway when neither is given.
  if (needsTarget || (raw.skill === undefined && raw.env === undefined && !broken.has('skill') && !broken.has('env'))) {
    problems.add(line, 'needs a skill or an env (or both)');
  }
  return undefined;
}

/** Strips a UTF-8 byte-order mark. */
const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

function parseJsonl(text: string, problems: Problems): FeedbackRow[] {
  const rows: FeedbackRow[] = [];
  const lines = stripBom(text).split(/\r?\n/);
  lines.forEach((rawLine, index) => {
    const line = index + 1;
    const trimmed = rawLine.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      problems.add(line, `not valid JSON (${(error as Error).message}); expected one object per line like {"skill": "graphs", "pass_rate": 0.3, "n": 50}`);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.add(line, `expected a JSON object, got ${Array.isArray(value) ? 'an array' : show(value)}`);
      return;
    }
    const raw: Record<string, unknown> = {};
    for (const field of FEEDBACK_FIELDS) {
      const cell = (value as Record<string, unknown>)[field];
      // null (as pandas and friends write a missing value) means absent.
      if (cell !== undefined && cell !== null) raw[field] = cell;
      else if (cell === null && (field === 'pass_rate' || field === 'n')) raw[field] = null;
    }
    const row = validateRow(raw, line, problems);
    if (row) rows.push(row);
  });
  return rows;
}

export interface CsvRecord {
  /** 1-based line on which the record starts. */
  line: number;
  /** Unquoted cells are trimmed; quoted cells are kept verbatim. */
  cells: string[];
}

/**
 * RFC 4180 records: comma-separated, fields optionally in double quotes (commas, newlines and doubled
 * quotes inside), CRLF or LF line ends. Blank lines and lines starting with # are skipped.
 */
export function parseCsvRecords(text: string, file = '<csv>'): CsvRecord[] {
  const records: CsvRecord[] = [];
  const src = stripBom(text);
  let i = 0;
  let line = 1;
  while (i < src.length) {
    // At the start of a record: skip blank and comment lines.
    const end = src.indexOf('\n', i);
    const lineEnd = end === -1 ? src.length : end;
    const whole = src.slice(i, lineEnd).replace(/\r$/, '');
    if (whole.trim() === '' || whole.trimStart().startsWith('#')) {
      i = lineEnd + 1;
      line++;
      continue;
    }
    const record: CsvRecord = { line, cells: [] };
    let cell = '';
    let quoted = false;
    for (;;) {
      const ch = src[i];
      if (ch === '"' && cell.trim() === '' && !quoted) {
        // A quoted field: read to the closing quote.
        quoted = true;
        cell = '';
        const openLine = line;
        i++;
        for (;;) {
          if (i >= src.length) throw new FeedbackError([`${file} line ${openLine}: a quoted field is never closed (a " is missing)`]);
          const c = src[i] as string;
          if (c === '"') {
            if (src[i + 1] === '"') {
              cell += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          cell += c;
          i++;
        }
        // Only spaces may follow the closing quote before the separator.
        while (src[i] === ' ' || src[i] === '\t') i++;
        const next = src[i];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
          throw new FeedbackError([`${file} line ${line}: unexpected ${show(next)} after a closing quote (write a quote inside a quoted field as "")`]);
        }
        continue;
      }
      if (ch === undefined || ch === '\n' || (ch === '\r' && (src[i + 1] === '\n' || src[i + 1] === undefined))) {
        record.cells.push(quoted ? cell : cell.trim());
        if (ch === '\r') i++;
        if (ch !== undefined) {
          i++;
          line++;
        }
        break;
      }
      if (ch === ',') {
        record.cells.push(quoted ? cell : cell.trim());
        cell = '';
        quoted = false;
        i++;
        continue;
      }
      cell += ch;
      i++;
    }
    records.push(record);
  }
  return records;
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function parseCsv(text: string, file: string, problems: Problems): FeedbackRow[] {
  const records = parseCsvRecords(text, file);
  const header = records[0];
  if (!header) return [];
  const names = header.cells.map((c) => c.trim().toLowerCase());
  const columns = new Map<Field, number>();
  for (const [index, name] of names.entries()) {
    if (!(FEEDBACK_FIELDS as readonly string[]).includes(name)) continue;
    if (columns.has(name as Field)) problems.add(header.line, `the header names column "${name}" twice`);
    else columns.set(name as Field, index);
  }
  const missing = (['pass_rate', 'n'] as const).filter((f) => !columns.has(f));
  if (missing.length > 0) problems.add(header.line, `the header must name the columns pass_rate and n (missing: ${missing.join(', ')}); got ${show(header.cells.join(','))}`);
  if (!columns.has('skill') && !columns.has('env')) problems.add(header.line, 'the header must name a skill column, an env column, or both');
  problems.throwIfAny();

  const rows: FeedbackRow[] = [];
  for (const record of records.slice(1)) {
    if (record.cells.length !== names.length) {
      problems.add(record.line, `${record.cells.length} field${record.cells.length === 1 ? '' : 's'}, but the header has ${names.length} (quote fields that contain commas)`);
      continue;
    }
    const raw: Record<string, unknown> = {};
    const written: Partial<Record<Field, string>> = {};
    for (const [field, index] of columns) {
      const cell = record.cells[index] as string;
      if (cell.trim() === '') continue;
      const numeric = field === 'level' || field === 'pass_rate' || field === 'n';
      raw[field] = numeric && NUMBER.test(cell.trim()) ? Number(cell.trim()) : cell;
      written[field] = cell;
    }
    const row = validateRow(raw, record.line, problems, written);
    if (row) rows.push(row);
  }
  return rows;
}

/**
 * Parses trainer feedback. JSONL: one object per line with keys skill, env, level, pass_rate, n (other
 * keys ignored, null means absent). CSV: a header row naming those columns in any order (other columns
 * ignored). Blank lines and # comments are skipped. Throws a FeedbackError (a UsageError) listing up to
 * 10 problems, each naming the file, the line and the field.
 */
export function parseFeedback(text: string, format: FeedbackFormat, file = '<feedback>'): FeedbackRow[] {
  const problems = new Problems(file);
  const rows = format === 'csv' ? parseCsv(text, file, problems) : parseJsonl(text, problems);
  problems.throwIfAny();
  return rows;
}

const FORMATS: Record<string, FeedbackFormat> = { '.jsonl': 'jsonl', '.ndjson': 'jsonl', '.json': 'jsonl', '.csv': 'csv' };

/** The feedback format a file name's extension implies; a UsageError for any other extension. */
export function feedbackFormat(path: string): FeedbackFormat {
  const format = FORMATS[extname(path).toLowerCase()];
  if (!format) throw new UsageError(`feedback file ${path}: unsupported extension "${extname(path)}"; use .jsonl, .ndjson or .json (JSON Lines) or .csv`);
  return format;
}

/** Reads and parses a feedback file, the format from its extension. */
export async function readFeedbackFile(path: string): Promise<FeedbackRow[]> {
  const format = feedbackFormat(path);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'is not readable (permission denied)' : `cannot be read (${(error as Error).message})`;
    throw new UsageError(`feedback file ${path} ${why}`, { cause: error });
  }
  return parseFeedback(text, format, path);
}

/** The n-weighted pass rate of one skill or environment over the feedback rows that count toward it. */
export interface FeedbackStat {
  name: string;
  /** Σ pass_rate·n / Σ n. */
  passRate: number;
  /** Σ n. */
  n: number;
  /** How many feedback rows counted toward it. */
  rows: number;
}

export interface FeedbackSummary {
  /** Per skill, sorted by name. */
  skills: FeedbackStat[];
  /** Per environment, sorted by name. */
  envs: FeedbackStat[];
  /** Environments named by skill-less rows that envSkills does not know (their rows reach no skill). */
  unknownEnvs: string[];
  /** Skills named directly that are neither in the taxonomy nor any known environment's skills (typos?). */
  unknownSkills: string[];
}

/** Each environment's skills, from library records (the newest version of each name wins). */
export function envSkillsOf(envs: Iterable<Pick<EnvRecord, 'name' | 'version' | 'meta'>>): Map<string, string[]> {
  const newest = new Map<string, Pick<EnvRecord, 'name' | 'version' | 'meta'>>();
  for (const env of envs) {
    const seen = newest.get(env.name);
    if (!seen || env.version > seen.version) newest.set(env.name, env);
  }
  return new Map([...newest].map(([name, env]) => [name, [...env.meta.skills]]));
}

class Tally {
  private readonly sums = new Map<string, { weighted: number; n: number; rows: number }>();
  add(name: string, row: FeedbackRow): void {
    const sum = this.sums.get(name) ?? { weighted: 0, n: 0, rows: 0 };
    sum.weighted += row.passRate * row.n;
    sum.n += row.n;
    sum.rows++;
    this.sums.set(name, sum);
  }
  stats(): FeedbackStat[] {
    return [...this.sums]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, s]) => ({ name, passRate: Math.min(1, Math.max(0, s.weighted / s.n)), n: s.n, rows: s.rows }));
  }
}

/**
 * Aggregates feedback per skill and per environment. A row naming a skill counts toward that skill; a row
 * naming only an environment counts toward every skill of that environment (via envSkills), with its full
 * n; a row naming an environment counts toward the environment too. Levels are pooled.
 */
export function summariseFeedback(rows: readonly FeedbackRow[], envSkills: ReadonlyMap<string, readonly string[]>, taxonomy: SkillTaxonomy = SKILL_TAXONOMY): FeedbackSummary {
  const skills = new Tally();
  const envs = new Tally();
  const unknownEnvs = new Set<string>();
  const named = new Set<string>();
  for (const row of rows) {
    if (row.env !== undefined) envs.add(row.env, row);
    if (row.skill !== undefined) {
      skills.add(row.skill, row);
      named.add(row.skill);
    } else if (row.env !== undefined) {
      const envSkillList = envSkills.get(row.env);
      if (!envSkillList) unknownEnvs.add(row.env);
      for (const skill of new Set(envSkillList ?? [])) skills.add(skill, row);
    }
  }
  const known = new Set<string>(taxonomySkills(taxonomy));
  for (const list of envSkills.values()) for (const skill of list) known.add(skill);
  return {
    skills: skills.stats(),
    envs: envs.stats(),
    unknownEnvs: [...unknownEnvs].sort(),
    unknownSkills: [...named].filter((s) => !known.has(s)).sort(),
  };
}

export interface FrontierOptions {
  /** At or below this pass rate a skill is unreachable: it needs easier entry levels, not more of the same. Default 0.02. */
  low?: number;
  /** At or above this pass rate a skill is no longer weak. Default 0.5. */
  high?: number;
  /** At or above this pass rate a skill is saturated. Default 0.9. */
  saturatedAt?: number;
  /** Fewer attempts than this say too little to classify a skill. Default 20. */
  minN?: number;
}

export interface Frontier {
  /** The capability frontier: low < pass rate < high, by pass rate ascending then name. */
  weak: FeedbackStat[];
  /** pass rate ≤ low, same order. */
  unreachable: FeedbackStat[];
  /** pass rate ≥ saturatedAt, same order. */
  saturated: FeedbackStat[];
  /** n < minN: not classified, by name. */
  undersampled: FeedbackStat[];
  thresholds: Required<FrontierOptions>;
}

const byRateThenName = (a: FeedbackStat, b: FeedbackStat) => a.passRate - b.passRate || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Splits the skills of a summary into the frontier (weak), unreachable, saturated and undersampled ones. */
export function weakSkills(summary: Pick<FeedbackSummary, 'skills'>, options: FrontierOptions = {}): Frontier {
  const thresholds = { low: options.low ?? 0.02, high: options.high ?? 0.5, saturatedAt: options.saturatedAt ?? 0.9, minN: options.minN ?? 20 };
  const { low, high, saturatedAt, minN } = thresholds;
  for (const [key, value] of Object.entries({ low, high, saturatedAt })) {
    if (!Number.isFinite(value) || value < 0 || value > 1) throw new UsageError(`feedback ${key} threshold must be a number in [0, 1], got ${show(value)}`);
  }
  if (!(low < high)) throw new UsageError(`feedback thresholds: low (${low}) must be below high (${high})`);
  if (!(high <= saturatedAt)) throw new UsageError(`feedback thresholds: high (${high}) must not be above saturatedAt (${saturatedAt})`);
  if (!Number.isFinite(minN) || minN < 0) throw new UsageError(`feedback minN must be a non-negative number, got ${show(minN)}`);

  const frontier: Frontier = { weak: [], unreachable: [], saturated: [], undersampled: [], thresholds };
  for (const stat of summary.skills) {
    if (stat.n < minN) frontier.undersampled.push(stat);
    else if (stat.passRate <= low) frontier.unreachable.push(stat);
    else if (stat.passRate >= saturatedAt) frontier.saturated.push(stat);
    else if (stat.passRate < high) frontier.weak.push(stat);
  }
  frontier.weak.sort(byRateThenName);
  frontier.unreachable.sort(byRateThenName);
  frontier.saturated.sort(byRateThenName);
  frontier.undersampled.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return frontier;
}

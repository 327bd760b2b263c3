// Trainer feedback (`--feedback FILE`): JSONL or CSV pass-rate rows, checked field by field, with every
// problem reported as "<file> line <n>: <what>". frontier.ts aggregates them.
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../../contract/errors.js';
import { NAME_PATTERN } from '../../contract/schema.js';
import { parseCsvRecords } from './csv.js';
import { FeedbackError, show, stripBom } from './problems.js';

/**
 * One trainer evaluation: the pass rate over n attempts, of a skill, an environment (optionally one level), or both.
 */
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

const KEBAB_RULE =
  'must be kebab-case (lowercase letters and digits in words joined by single hyphens, starting with a letter)';
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

/**
 * Validates one row's fields (absent fields left out); reports every broken field in field order, quoting
 * `written` (the value as the file spells it, e.g. a CSV cell) when given, else the value itself.
 */
function validateRow(
  raw: Record<string, unknown>,
  line: number,
  problems: Problems,
  written: Partial<Record<Field, string>> = {},
): FeedbackRow | undefined {
  const result = RowSchema.safeParse(raw);
  if (result.success) {
    const { skill, env, level, pass_rate: passRate, n } = result.data;
    return {
      ...(skill !== undefined && { skill }),
      ...(env !== undefined && { env }),
      ...(level !== undefined && { level }),
      passRate,
      n,
    };
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
    problems.add(
      line,
      value === undefined
        ? `${field} is required (${RULES[field].replace(/^must be /, '')})`
        : `${field} ${RULES[field]}, got ${show(written[field] ?? value)}`,
    );
  }
  // The refinement only runs when the fields parse; say it anyway when neither is given.
  if (needsTarget || (raw.skill === undefined && raw.env === undefined && !broken.has('skill') && !broken.has('env'))) {
    problems.add(line, 'needs a skill or an env (or both)');
  }
  return undefined;
}

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
      problems.add(
        line,
        `not valid JSON (${(error as Error).message}); expected one object per line like {"skill": "graphs", ` +
          `"pass_rate": 0.3, "n": 50}`,
      );
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
  if (missing.length > 0)
    problems.add(
      header.line,
      `the header must name the columns pass_rate and n (missing: ${missing.join(', ')}); got ` +
        `${show(header.cells.join(','))}`,
    );
  if (!columns.has('skill') && !columns.has('env'))
    problems.add(header.line, 'the header must name a skill column, an env column, or both');
  problems.throwIfAny();

  const rows: FeedbackRow[] = [];
  for (const record of records.slice(1)) {
    if (record.cells.length !== names.length) {
      problems.add(
        record.line,
        `${record.cells.length} field${record.cells.length === 1 ? '' : 's'}, but the header has ` +
          `${names.length} (quote fields that contain commas)`,
      );
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

const FORMATS: Record<string, FeedbackFormat> = {
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.json': 'jsonl',
  '.csv': 'csv',
};

/** The feedback format a file name's extension implies; a UsageError for any other extension. */
export function feedbackFormat(path: string): FeedbackFormat {
  const format = FORMATS[extname(path).toLowerCase()];
  if (!format)
    throw new UsageError(
      `feedback file ${path}: unsupported extension "${extname(path)}"; use .jsonl, .ndjson or ` +
        `.json (JSON Lines) or .csv`,
    );
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
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EISDIR'
          ? 'is a directory'
          : code === 'EACCES'
            ? 'is not readable (permission denied)'
            : `cannot be read (${(error as Error).message})`;
    throw new UsageError(`feedback file ${path} ${why}`, { cause: error });
  }
  return parseFeedback(text, format, path);
}

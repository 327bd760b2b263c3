// The exporter contract, run on every format export/registry.ts registers (so a new format is tested the
// day it is added): its files are listed in the manifest with their true sizes and hashes, every split
// gets a data file, each data file holds exactly its split's rows, every row carries its identity as
// ground truth next to the very prompt the sandbox regenerates from it, all formats hold the same rows,
// and the same plan writes the same bytes. Format-specific layouts are checked in export.test.ts.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportFormat } from '../export/contract.js';
import { FORMAT_NAMES, FORMATS } from '../export/registry.js';
import { MANIFEST_FILE, runExport, type ExportSummary } from '../export/run.js';
import { parseSplit } from '../export/select.js';
import type { Library } from '../library/contract.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { runEpisodes } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import { fakeAdmission, sampleMeta, sampleSource } from './helpers/library-fixtures.js';

const tmp = mkdtempSync(join(tmpdir(), 'envforge-exporter-contract-'));
const SPLITS = 'train:0.75,test:0.25';
const PER_ENV = 8;

interface Row {
  split: string;
  groundTruth: string;
  prompt: string;
}

/** Every string inside a record, however the format nests it (messages, structs, lists). */
function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, out);
  return out;
}

/** A string that is an identity {"env","version","seed","level"}, as every row must carry one. */
function isIdentity(text: string): boolean {
  try {
    const id = JSON.parse(text) as Record<string, unknown>;
    return JSON.stringify(Object.keys(id)) === '["env","version","seed","level"]';
  } catch {
    return false;
  }
}

async function recordsOf(path: string): Promise<unknown[]> {
  if (path.endsWith('.jsonl'))
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as unknown);
  const bytes = readFileSync(path);
  return parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) });
}

/** The data files (JSONL or parquet) of an export, by split, read without knowing the format. */
async function dataFiles(dir: string, splits: string[]): Promise<Map<string, Row[][]>> {
  const out = new Map<string, Row[][]>(splits.map((s) => [s, []]));
  for (const file of readdirSync(dir).filter((f) => /\.(jsonl|parquet)$/.test(f))) {
    const split = splits.find((s) => file.startsWith(`${s}.`));
    expect(split, `${file} belongs to no split`).toBeDefined();
    const rows = (await recordsOf(join(dir, file))).map((record) => {
      const strings = stringsOf(record);
      const identities = strings.filter(isIdentity);
      expect(identities, `${file}: a row must carry exactly one identity`).toHaveLength(1);
      return { split: split as string, groundTruth: identities[0] as string, prompt: '', strings };
    });
    (out.get(split as string) as Row[][]).push(
      rows.map(({ strings, ...row }) => ({ ...row, prompt: strings.find((s) => s.startsWith('What is ')) ?? '' })),
    );
  }
  return out;
}

describe('the exporter contract, for every registered format', () => {
  let pool: SandboxPool;
  let library: Library;
  const summaries = new Map<string, ExportSummary>();
  const rowsByFormat = new Map<string, Row[]>();

  const exportTo = (format: ExportFormat, out: string) =>
    runExport(library, pool, {
      format,
      out,
      selection: {},
      counts: { perEnv: PER_ENV },
      splits: parseSplit(SPLITS),
      seed: 3,
      serviceUrl: 'http://127.0.0.1:9',
    });

  beforeAll(async () => {
    pool = new SandboxPool();
    const dir = join(tmp, 'library');
    const writable = SqliteLibrary.open(dir, { create: true });
    for (const name of ['contract-alpha', 'contract-beta'])
      await writable.admit(fakeAdmission(sampleSource(sampleMeta(name)), sampleMeta(name)));
    await writable.close();
    library = SqliteLibrary.open(dir, { readonly: true });
  });
  afterAll(async () => {
    await library.close();
    await pool.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('registers formats under their own names, each with a description', () => {
    expect(FORMAT_NAMES.length).toBeGreaterThan(0);
    for (const name of FORMAT_NAMES) {
      expect(FORMATS[name].name).toBe(name);
      expect(FORMATS[name].description.length).toBeGreaterThan(10);
    }
  });

  describe.each(FORMAT_NAMES)('%s', (name) => {
    const out = join(tmp, name);

    it(
      'lists every file it wrote in the manifest with its size and hash, a README among ' +
        'them, nothing half-written',
      async () => {
        const summary = await exportTo(FORMATS[name], out);
        summaries.set(name, summary);
        expect(summary).toMatchObject({ format: name, total: 2 * PER_ENV, rows: { train: 12, test: 4 } });
        const names = summary.files.map((f) => f.name);
        expect(names).toContain('README.md');
        expect(readdirSync(out).sort()).toEqual([...names, MANIFEST_FILE].sort());
        for (const file of summary.files) {
          const bytes = readFileSync(join(out, file.name));
          expect({
            name: file.name,
            bytes: bytes.length,
            sha256: createHash('sha256').update(bytes).digest('hex'),
          }).toEqual(file);
        }
        expect(JSON.parse(readFileSync(join(out, MANIFEST_FILE), 'utf8'))).toMatchObject({
          format: name,
          files: summary.files,
        });
      },
    );

    it(
      'holds each split in data files of its own, every row with its identity and the prompt ' +
        'that identity regenerates',
      async () => {
        const splits = ['train', 'test'];
        const files = await dataFiles(out, splits);
        const rows: Row[] = [];
        for (const split of splits) {
          const perFile = files.get(split) as Row[][];
          expect(perFile.length, `${name} writes no data file for ${split}`).toBeGreaterThan(0);
          for (const fileRows of perFile) {
            expect(fileRows).toHaveLength(summaries.get(name)?.rows[split] as number);
            // a format writing two files per split (jsonl + parquet) writes the same rows
            expect(fileRows).toEqual(perFile[0]);
          }
          rows.push(...(perFile[0] as Row[]));
        }
        for (const row of rows) {
          const id = JSON.parse(row.groundTruth) as { env: string; version: number; seed: number; level: number };
          const record = (await library.get(id.env, id.version)) as NonNullable<Awaited<ReturnType<Library['get']>>>;
          const { episodes } = await runEpisodes(pool, await library.source(record), [
            { seed: id.seed, level: id.level },
          ]);
          expect(episodes[0]?.ok && episodes[0].instance.prompt).toBe(row.prompt);
        }
        rowsByFormat.set(name, rows);
      },
    );

    it('holds the same rows as every other format', () => {
      const first = rowsByFormat.get(FORMAT_NAMES[0] as string);
      expect(rowsByFormat.get(name)).toEqual(first);
    });

    it('writes the same bytes for the same plan', async () => {
      const again = join(tmp, `${name}-again`);
      const summary = await exportTo(FORMATS[name], again);
      expect(summary.files).toEqual(summaries.get(name)?.files);
      expect(existsSync(join(again, MANIFEST_FILE))).toBe(true);
    });
  });
});

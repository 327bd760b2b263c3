// envforge export through the command line: every format's files and rows, the verl and TRL parquet read
// back by an independent reader (arrow-rs compiled to wasm, via the Arrow C data interface) and by
// hyparquet, byte-identical re-exports, the documented seed and split scheme, selection flags, identities
// that regenerate their prompts, and usage errors that name the flag.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMAT_NAMES } from '../export/registry.js';
import { DEFAULT_SPLIT, parseSplit, seedFor, slotsOf, SplitSchedule, type PlannedEnv } from '../export/select.js';
import type { EnvRecord } from '../library/contract.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { runEpisodes } from '../sandbox/episodes.js';
import { PYTHON } from './helpers/python.js';
import { describeColumns, readWithArrow } from './helpers/arrow-reader.js';
import { seededLibraryCopy } from './helpers/seeded-library.js';
import { SandboxPool } from '../sandbox/pool.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'envforge-export-'));
const LIB = join(tmp, 'library');
// The real binary, built by `npm test` before vitest runs.
const MAIN = join(ROOT, 'dist', 'cli', 'main.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
const execute = async (file: string, args: string[]): Promise<Run> => {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [file, ...args], {
      cwd: ROOT,
      maxBuffer: 256 * 2 ** 20,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
};
const envforge = (...args: string[]) => execute(MAIN, args);

let outs = 0;
const freshDir = (label: string) => join(tmp, `${label}-${++outs}`);

interface Summary {
  out: string;
  format: string;
  seed: number;
  rows: Record<string, number>;
  total: number;
  envs: Array<{
    name: string;
    version: number;
    hash: string;
    levels: [number, number];
    rows: Record<string, number>;
    redrawn: number;
    failed: number;
    dropped: number;
  }>;
  redrawn: number;
  dropped: number;
  files: Array<{ name: string; bytes: number }>;
}
/** Runs an export that must succeed and returns its --json summary. */
async function exportTo(out: string, ...args: string[]): Promise<Summary> {
  const result = await envforge('export', '--out', out, '--library', LIB, '--json', ...args);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Summary;
}

/** The canonical row every format must reproduce. */
interface Canonical {
  env: string;
  version: number;
  seed: number;
  level: number;
  split: string;
  index: number;
  prompt: string;
  ground_truth: string;
}
const jsonLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const num = (v: unknown) => (typeof v === 'bigint' ? Number(v) : (v as number));
const bytesOf = (path: string) => {
  const b = readFileSync(path);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
};
const hyparquetRows = async (path: string) =>
  (await parquetReadObjects({ file: bytesOf(path) })) as Array<Record<string, unknown>>;

// ---------------------------------------------------------------- the library and reference exports

let pool: SandboxPool;
let records: EnvRecord[];
const THREE = 'dice-probability,planted-sat,topological-order';
const COMMON = ['--env', THREE, '--per-env', '20', '--seed', '7'];
let canonical: Canonical[];
let canonicalDir: string;

beforeAll(async () => {
  pool = new SandboxPool();
  // The single-turn seeds, validated once per test run (tests/helpers/seeded-library.ts).
  const { outcomes } = await seededLibraryCopy('single', LIB);
  const library = SqliteLibrary.open(LIB);
  try {
    expect(outcomes.every((o) => o.status === 'admitted')).toBe(true);
    records = await library.list();
  } finally {
    await library.close();
  }
  canonicalDir = freshDir('canonical');
  await exportTo(canonicalDir, '--format', 'jsonl', ...COMMON);
  canonical = ['train', 'test'].flatMap((s) => jsonLines(join(canonicalDir, `${s}.jsonl`)) as unknown as Canonical[]);
}, 600_000); // the seeded library: the first file to ask makes it, the others wait (minutes under load)

afterAll(async () => {
  await pool?.close();
});

const recordOf = (name: string) => records.find((r) => r.name === name) as EnvRecord;

/** Every format's rows, mapped back to the canonical shape. */
const readers: Record<string, (dir: string) => Promise<Canonical[]>> = {
  jsonl: async (dir) => ['train', 'test'].flatMap((s) => jsonLines(join(dir, `${s}.jsonl`)) as unknown as Canonical[]),
  openrlhf: async (dir) =>
    ['train', 'test'].flatMap((split) =>
      jsonLines(join(dir, `${split}.jsonl`)).map((r, index) => {
        expect(Object.keys(r)).toEqual(['input', 'label']);
        const id = JSON.parse(r.label as string) as Canonical;
        return {
          env: id.env,
          version: id.version,
          seed: id.seed,
          level: id.level,
          split,
          index,
          prompt: r.input as string,
          ground_truth: r.label as string,
        };
      }),
    ),
  trl: async (dir) => {
    const out: Canonical[] = [];
    for (const split of ['train', 'test']) {
      const lines = jsonLines(join(dir, `${split}.jsonl`));
      const parquet = await hyparquetRows(join(dir, `${split}.parquet`));
      expect(parquet.map((r) => ({ ...r, version: num(r.version), seed: num(r.seed), level: num(r.level) }))).toEqual(
        lines,
      );
      lines.forEach((r, index) => {
        expect(Object.keys(r)).toEqual(['prompt', 'env', 'version', 'seed', 'level', 'ground_truth']);
        out.push({
          env: r.env,
          version: r.version,
          seed: r.seed,
          level: r.level,
          split,
          index,
          prompt: r.prompt,
          ground_truth: r.ground_truth,
        } as Canonical);
      });
    }
    return out;
  },
  verl: async (dir) => {
    const out: Canonical[] = [];
    for (const split of ['train', 'test']) {
      for (const r of readWithArrow(join(dir, `${split}.parquet`)).rows) {
        const info = r.extra_info as Record<string, number | string>;
        const prompt = r.prompt as Array<{ role: string; content: string }>;
        out.push({
          env: info.env,
          version: info.version,
          seed: info.seed,
          level: info.level,
          split: info.split,
          index: info.index,
          prompt: prompt[0]?.content,
          ground_truth: (r.reward_model as { ground_truth: string }).ground_truth,
        } as Canonical);
      }
    }
    return out;
  },
};

const FILES: Record<string, string[]> = {
  verl: [
    'train.parquet',
    'test.parquet',
    'envforge_client.py',
    'compute_score.py',
    'envforge.json',
    'README.md',
    'envforge-export.json',
  ],
  openrlhf: [
    'train.jsonl',
    'test.jsonl',
    'reward.txt',
    'envforge_client.py',
    'envforge.json',
    'README.md',
    'envforge-export.json',
  ],
  trl: [
    'train.jsonl',
    'test.jsonl',
    'train.parquet',
    'test.parquet',
    'envforge_client.py',
    'reward.py',
    'envforge.json',
    'README.md',
    'envforge-export.json',
  ],
  jsonl: ['train.jsonl', 'test.jsonl', 'envforge_client.py', 'envforge.json', 'README.md', 'envforge-export.json'],
};

// ---------------------------------------------------------------- the tests

describe('envforge export: every format', () => {
  it.each(FORMAT_NAMES)(
    '%s writes its files and a manifest, with the same rows as every other format',
    async (format) => {
      expect(FILES[format], 'list the files of a new format in FILES').toBeDefined();
      const dir = freshDir(format);
      const summary = await exportTo(dir, '--format', format, ...COMMON);
      expect(summary.files.map((f) => f.name)).toEqual(FILES[format]);
      expect(readdirSync(dir).sort()).toEqual([...(FILES[format] as string[])].sort());
      expect(summary).toMatchObject({ format, seed: 7, total: 60, rows: { train: 57, test: 3 } });
      expect(await (readers[format] as (d: string) => Promise<Canonical[]>)(dir)).toEqual(canonical);

      const manifest = JSON.parse(readFileSync(join(dir, 'envforge-export.json'), 'utf8'));
      expect(manifest).toMatchObject({
        scheme: 'envforge-export-v1',
        format,
        seed: 7,
        serviceUrl: 'http://127.0.0.1:8787',
        rows: { train: 57, test: 3 },
      });
      expect(
        manifest.envs.map((e: { name: string; version: number; hash: string }) => [e.name, e.version, e.hash]),
      ).toEqual(THREE.split(',').map((n) => [n, recordOf(n).version, recordOf(n).hash]));
      for (const file of manifest.files as Array<{ name: string; bytes: number; sha256: string }>) {
        const bytes = readFileSync(join(dir, file.name));
        expect(bytes.length).toBe(file.bytes);
        expect((await import('node:crypto')).createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
      }
    },
  );

  it('verl: arrow-rs reads exactly the expected schema and values, and hyparquet agrees', async () => {
    const dir = freshDir('verl-schema');
    await exportTo(dir, '--format', 'verl', ...COMMON);
    for (const split of ['train', 'test']) {
      const { schema, rows } = readWithArrow(join(dir, `${split}.parquet`));
      expect(describeColumns(schema)).toBe(
        'data_source:u?,prompt:+l?<element:+s?<role:u?,content:u?>>,ability:u?,' +
          'reward_model:+s?<style:u?,ground_truth:u?>,' +
          'extra_info:+s?<split:u?,index:l?,env:u?,version:l?,seed:l?,level:l?>',
      );
      const expected = canonical
        .filter((c) => c.split === split)
        .map((c) => ({
          data_source: `envforge/${c.env}`,
          prompt: [{ role: 'user', content: c.prompt }],
          ability: recordOf(c.env).meta.skills[0],
          reward_model: { style: 'rule', ground_truth: c.ground_truth },
          extra_info: { split, index: c.index, env: c.env, version: c.version, seed: c.seed, level: c.level },
        }));
      expect(rows).toEqual(expected);
      const viaHyparquet = (await hyparquetRows(join(dir, `${split}.parquet`))).map((r) => {
        const info = r.extra_info as Record<string, unknown>;
        return {
          ...r,
          extra_info: {
            ...info,
            index: num(info.index),
            version: num(info.version),
            seed: num(info.seed),
            level: num(info.level),
          },
        };
      });
      expect(viaHyparquet).toEqual(expected);
      for (const c of expected)
        expect(JSON.parse(c.reward_model.ground_truth)).toEqual({
          env: c.extra_info.env,
          version: c.extra_info.version,
          seed: c.extra_info.seed,
          level: c.extra_info.level,
        });
      expect(Object.keys(JSON.parse(expected[0]?.reward_model.ground_truth ?? '{}'))).toEqual([
        'env',
        'version',
        'seed',
        'level',
      ]);
    }
  });

  it('trl: arrow-rs reads a string prompt column and the identity columns', async () => {
    const dir = freshDir('trl-schema');
    await exportTo(dir, '--format', 'trl', ...COMMON);
    const { schema, rows } = readWithArrow(join(dir, 'test.parquet'));
    expect(describeColumns(schema)).toBe('prompt:u?,env:u?,version:l?,seed:l?,level:l?,ground_truth:u?');
    expect(rows).toEqual(
      canonical
        .filter((c) => c.split === 'test')
        .map((c) => ({
          prompt: c.prompt,
          env: c.env,
          version: c.version,
          seed: c.seed,
          level: c.level,
          ground_truth: c.ground_truth,
        })),
    );
  });

  it('streams: parquet gets a row group per 1,000 rows of a split, and every row arrives', async () => {
    const dir = freshDir('verl-big');
    const summary = await exportTo(
      dir,
      '--format',
      'verl',
      '--env',
      'knapsack-value,lru-cache-sim',
      '--per-env',
      '1100',
    );
    expect(summary.rows).toEqual({ train: 2090, test: 110 });
    const train = join(dir, 'train.parquet');
    expect(parquetMetadata(bytesOf(train)).row_groups.map((g) => Number(g.num_rows))).toEqual([1000, 1000, 90]);
    const rows = readWithArrow(train).rows;
    expect(rows).toHaveLength(2090);
    expect(rows.map((r) => (r.extra_info as { index: number }).index)).toEqual(
      Array.from({ length: 2090 }, (_, i) => i),
    );
  });
});

describe('envforge export: determinism and the scheme', () => {
  it('the same command and seed write the same bytes; another seed writes other rows', async () => {
    for (const format of ['verl', 'trl']) {
      const [a, b, c] = [freshDir(`${format}-a`), freshDir(`${format}-b`), freshDir(`${format}-c`)];
      await exportTo(a, '--format', format, ...COMMON);
      await exportTo(b, '--format', format, ...COMMON);
      await exportTo(c, '--format', format, '--env', THREE, '--per-env', '20', '--seed', '8');
      for (const name of FILES[format] as string[])
        expect(readFileSync(join(b, name)).equals(readFileSync(join(a, name))), `${format}/${name}`).toBe(true);
      expect(readFileSync(join(c, 'train.parquet')).equals(readFileSync(join(a, 'train.parquet')))).toBe(false);
      const seeds = async (dir: string) => (await readers[format]!(dir)).map((r) => r.seed);
      const [seedsA, seedsC] = [await seeds(a), await seeds(c)];
      expect(seedsA.filter((s, i) => s === seedsC[i]).length).toBeLessThan(3);
    }
  });

  it(
    'rows follow the documented scheme: split by largest deficit, levels round-robin per split, ' +
      'seeds from export:<env>',
    () => {
      const manifest = JSON.parse(readFileSync(join(canonicalDir, 'envforge-export.json'), 'utf8'));
      expect(manifest.envs.every((e: { redrawn: number; failed: number }) => e.redrawn === 0 && e.failed === 0)).toBe(
        true,
      );
      const splits = parseSplit(DEFAULT_SPLIT);
      const schedule = new SplitSchedule(splits);
      const expected: Array<Omit<Canonical, 'prompt' | 'ground_truth' | 'index'>> = [];
      for (const name of THREE.split(',')) {
        const record = recordOf(name);
        const env: PlannedEnv = { record, levels: { lo: 1, hi: record.meta.levels }, rows: 20 };
        for (const slot of slotsOf(env, schedule, splits.length)) {
          expected.push({
            env: name,
            version: record.version,
            seed: seedFor(name, 7, slot.k, 0),
            level: slot.level,
            split: splits[slot.split]!.name,
          });
        }
      }
      const bySplit = (split: string) => expected.filter((e) => e.split === split);
      expect(canonical.map(({ env, version, seed, level, split }) => ({ env, version, seed, level, split }))).toEqual([
        ...bySplit('train'),
        ...bySplit('test'),
      ]);
      expect(canonical.map((c) => c.ground_truth)).toEqual(
        canonical.map((c) => JSON.stringify({ env: c.env, version: c.version, seed: c.seed, level: c.level })),
      );
    },
  );

  it('identities regenerate their prompts, in the sandbox and through envforge sample', async () => {
    const library = SqliteLibrary.open(LIB, { readonly: true });
    try {
      for (const name of THREE.split(',')) {
        const rows = canonical.filter((c) => c.env === name);
        const { episodes } = await runEpisodes(
          pool,
          await library.source(recordOf(name)),
          rows.map((r) => ({ seed: r.seed, level: r.level })),
        );
        expect(episodes.map((e) => (e.ok ? e.instance.prompt : e.message))).toEqual(rows.map((r) => r.prompt));
      }
    } finally {
      await library.close();
    }
    for (const row of [canonical[0], canonical.at(-1)] as Canonical[]) {
      const sampled = await execute(MAIN, [
        'sample',
        row.env,
        '--seed',
        String(row.seed),
        '--level',
        String(row.level),
        '--json',
      ]);
      expect(sampled.code, sampled.stderr).toBe(0);
      expect(JSON.parse(sampled.stdout).prompt).toBe(row.prompt);
    }
  });

  it('repeated prompts are redrawn, so no prompt appears twice; a level too small to fill is reported', async () => {
    const dir = freshDir('dedup');
    const summary = await exportTo(
      dir,
      '--format',
      'jsonl',
      '--env',
      'dice-probability',
      '--levels',
      '1',
      '--per-env',
      '1200',
    );
    const rows = readers.jsonl ? await readers.jsonl(dir) : [];
    expect(rows.every((r) => r.level === 1)).toBe(true);
    expect(new Set(rows.map((r) => r.prompt)).size).toBe(rows.length);
    expect(summary.redrawn).toBeGreaterThan(0);
    expect(rows.length + summary.dropped).toBe(1200);
    expect(summary.total).toBe(rows.length);
  });
});

describe('envforge export: splits and selection', () => {
  it('splits hold the asked proportions in every environment, and each split covers the levels evenly', async () => {
    const dir = freshDir('splits');
    const summary = await exportTo(
      dir,
      '--format',
      'jsonl',
      '--env',
      THREE,
      '--per-env',
      '40',
      '--split',
      'train:0.8,val:0.15,test:0.05',
    );
    expect(summary.rows).toEqual({ train: 96, val: 18, test: 6 });
    for (const env of summary.envs) expect(env.rows).toEqual({ train: 32, val: 6, test: 2 });
    expect(
      readdirSync(dir)
        .filter((f) => f.endsWith('.jsonl'))
        .sort(),
    ).toEqual(['test.jsonl', 'train.jsonl', 'val.jsonl']);
    for (const split of ['train', 'val', 'test']) {
      const rows = jsonLines(join(dir, `${split}.jsonl`)) as unknown as Canonical[];
      expect(rows.map((r) => r.index)).toEqual(rows.map((_, i) => i));
      for (const name of THREE.split(',')) {
        const counts = new Map<number, number>();
        for (const r of rows.filter((x) => x.env === name)) counts.set(r.level, (counts.get(r.level) ?? 0) + 1);
        const values = [...counts.values()];
        expect(Math.max(...values) - Math.min(...values)).toBeLessThanOrEqual(1);
      }
    }
  });

  it('--total spreads rows evenly and keeps the global proportion even when environments are small', async () => {
    const summary = await exportTo(
      freshDir('total'),
      '--format',
      'jsonl',
      '--total',
      '100',
      '--split',
      'train:0.99,test:0.01',
    );
    expect(summary.envs.map((e) => e.name)).toEqual(records.map((r) => r.name).sort());
    const sizes = summary.envs.map((e) => (e.rows.train ?? 0) + (e.rows.test ?? 0));
    expect(sizes.reduce((a, n) => a + n, 0)).toBe(100);
    expect(sizes).toEqual(sizes.map((_, i) => (i < 100 % sizes.length ? 9 : 8)));
    expect(summary.rows).toEqual({ train: 99, test: 1 });
  });

  it('--skills, --levels (for all and per environment) and NAME@VERSION select what they say', async () => {
    const skill = recordOf('planted-sat').meta.skills[0] as string;
    const withSkill = records
      .filter((r) => r.meta.skills.includes(skill))
      .map((r) => r.name)
      .sort();
    const bySkill = await exportTo(freshDir('skills'), '--format', 'jsonl', '--skills', skill, '--per-env', '4');
    expect(bySkill.envs.map((e) => e.name)).toEqual(withSkill);

    const dir = freshDir('levels');
    const levels = await exportTo(
      dir,
      '--format',
      'jsonl',
      '--env',
      'planted-sat@1,topological-order',
      '--levels',
      '2-3,planted-sat:5',
      '--per-env',
      '10',
    );
    expect(levels.envs.map((e) => [e.name, e.levels])).toEqual([
      ['planted-sat', [5, 5]],
      ['topological-order', [2, 3]],
    ]);
    const rows = await readers.jsonl!(dir);
    expect(new Set(rows.filter((r) => r.env === 'planted-sat').map((r) => r.level))).toEqual(new Set([5]));
    expect(new Set(rows.filter((r) => r.env === 'topological-order').map((r) => r.level))).toEqual(new Set([2, 3]));
  });

  it('retired environments are left out, and naming one is a usage error', async () => {
    const copy = join(tmp, 'library-retired');
    cpSync(LIB, copy, { recursive: true });
    const library = SqliteLibrary.open(copy);
    await library.retire('knapsack-value', 'replaced in this test');
    await library.close();
    const result = await envforge(
      'export',
      '--format',
      'jsonl',
      '--out',
      freshDir('retired'),
      '--library',
      copy,
      '--per-env',
      '2',
      '--json',
    );
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as Summary).envs.map((e) => e.name)).not.toContain('knapsack-value');
    const named = await envforge(
      'export',
      '--format',
      'jsonl',
      '--out',
      freshDir('retired'),
      '--library',
      copy,
      '--env',
      'knapsack-value',
    );
    expect(named).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--env: knapsack-value is retired \(replaced in this test\)/),
    });
  });

  it('replacing an earlier export in the same folder removes the files it no longer writes', async () => {
    const dir = freshDir('replace');
    await exportTo(dir, '--format', 'jsonl', '--env', 'planted-sat', '--per-env', '4', '--split', 'train:0.5,val:0.5');
    expect(existsSync(join(dir, 'val.jsonl'))).toBe(true);
    const summary = await exportTo(
      dir,
      '--format',
      'openrlhf',
      '--env',
      'planted-sat',
      '--per-env',
      '4',
      '--split',
      'train:1',
    );
    expect(readdirSync(dir).sort()).toEqual([
      'README.md',
      'envforge-export.json',
      'envforge.json',
      'envforge_client.py',
      'reward.txt',
      'train.jsonl',
    ]);
    expect(summary.rows).toEqual({ train: 4 });
  });

  it('the shims and reward.txt carry --service-url, and the Python compiles', async () => {
    const url = 'http://reward.internal:9000/envforge/';
    const verlDir = freshDir('url-verl');
    const trlDir = freshDir('url-trl');
    const rlhfDir = freshDir('url-openrlhf');
    await exportTo(verlDir, '--format', 'verl', '--env', 'planted-sat', '--per-env', '2', '--service-url', url);
    await exportTo(trlDir, '--format', 'trl', '--env', 'planted-sat', '--per-env', '2', '--service-url', url);
    await exportTo(rlhfDir, '--format', 'openrlhf', '--env', 'planted-sat', '--per-env', '2', '--service-url', url);
    expect(readFileSync(join(rlhfDir, 'reward.txt'), 'utf8')).toBe('http://reward.internal:9000/envforge/get_reward\n');
    for (const dir of [verlDir, trlDir]) {
      expect(JSON.parse(readFileSync(join(dir, 'envforge.json'), 'utf8')).service_url).toBe(
        'http://reward.internal:9000/envforge',
      );
    }
    for (const file of [
      join(verlDir, 'compute_score.py'),
      join(trlDir, 'reward.py'),
      join(trlDir, 'envforge_client.py'),
    ]) {
      const compiled = await promisify(execFile)(PYTHON, ['-m', 'py_compile', file]).then(
        () => 0,
        (e: { stderr: string }) => e.stderr,
      );
      expect(compiled).toBe(0);
    }
  });
});

describe('envforge export: usage errors exit 2 and name the flag', () => {
  const file = join(tmp, 'a-file.txt');
  const busy = join(tmp, 'busy');
  writeFileSync(file, 'not a folder');
  mkdirSync(busy, { recursive: true });
  writeFileSync(join(busy, 'notes.txt'), "somebody else's");
  const base = (out: string) => ['export', '--format', 'jsonl', '--out', out, '--library', LIB, '--per-env', '2'];

  it.concurrent.each([
    [
      'an unknown format',
      ['export', '--format', 'csv', '--out', join(tmp, 'x'), '--library', LIB],
      /--format <format>' argument 'csv' is invalid.*verl, openrlhf, trl, jsonl/,
    ],
    ['a missing --out', ['export', '--format', 'verl', '--library', LIB], /required option '--out <dir>'/],
    [
      'a missing --format',
      ['export', '--out', join(tmp, 'x'), '--library', LIB],
      /required option '--format <format>'/,
    ],
    [
      'an unknown environment',
      [...base(join(tmp, 'e1')), '--env', 'no-such-env'],
      /--env: unknown environment "no-such-env" \(the library has: dice-probability/,
    ],
    [
      'a version that does not exist',
      [...base(join(tmp, 'e2')), '--env', 'planted-sat@9'],
      /--env: planted-sat@9 is not in the library \(planted-sat has versions 1-1\)/,
    ],
    [
      'an unknown skill',
      [...base(join(tmp, 'e3')), '--skills', 'no-such-skill'],
      /--skills no-such-skill: no active environment has any of these skills/,
    ],
    [
      'fractions over 1',
      [...base(join(tmp, 'e4')), '--split', 'train:0.9,test:0.2'],
      /--split.*fractions must sum to 1, got 1\.1/,
    ],
    [
      'fractions under 1',
      [...base(join(tmp, 'e5')), '--split', 'train:0.9'],
      /--split.*fractions must sum to 1, got 0\.9/,
    ],
    ['a malformed split', [...base(join(tmp, 'e6')), '--split', 'Train=1'], /--split.*"Train=1" is not NAME:FRACTION/],
    ['a split named twice', [...base(join(tmp, 'e7')), '--split', 'a:0.5,a:0.5'], /--split names "a" twice/],
    ['level 0', [...base(join(tmp, 'e8')), '--levels', '0-3'], /--levels.*"0-3" is not a level range/],
    [
      'levels past every environment',
      [...base(join(tmp, 'e9')), '--levels', '12-15'],
      /--levels 12-15: \S+ has only levels 1-10/,
    ],
    [
      'a per-environment range past its levels',
      [...base(join(tmp, 'e10')), '--env', 'planted-sat', '--levels', 'planted-sat:9-11'],
      /--levels planted-sat:9-11: planted-sat has levels 1-10/,
    ],
    [
      'levels for an environment not exported',
      [...base(join(tmp, 'e11')), '--env', 'planted-sat', '--levels', 'dice-probability:1-2'],
      /--levels names "dice-probability", which is not among the exported/,
    ],
    [
      '--per-env with --total',
      [...base(join(tmp, 'e12')), '--total', '10'],
      /option '--per-env <N>' cannot be used with option '--total <N>'/,
    ],
    [
      '--per-env 0',
      ['export', '--format', 'jsonl', '--out', join(tmp, 'e13'), '--library', LIB, '--per-env', '0'],
      /--per-env needs an integer from 1/,
    ],
    ['a negative seed', [...base(join(tmp, 'e14')), '--seed', '-1'], /--seed needs an integer from 0/],
    [
      'a service URL that is not http',
      [...base(join(tmp, 'e15')), '--service-url', 'ftp://host/x'],
      /--service-url needs an http\(s\) base URL/,
    ],
    ['--out pointing at a file', base(file), /--out .*a-file\.txt is a file; give a folder/],
    ['--out holding something else', base(busy), /--out .*busy is not empty and holds no envforge export/],
  ])('%s', async (_label, args, message) => {
    const result = await envforge(...(args as string[]));
    expect(result.stderr).toMatch(message as RegExp);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });

  it('leaves a refused folder untouched and creates nothing for a refused request', async () => {
    expect(readdirSync(busy)).toEqual(['notes.txt']);
    expect(readFileSync(file, 'utf8')).toBe('not a folder');
    for (const name of ['e1', 'e4', 'e9'])
      expect(existsSync(join(tmp, name)) ? readdirSync(join(tmp, name)) : []).toEqual([]);
  });
});

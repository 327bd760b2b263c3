// Exports of a code environment (contract v3): verl, TRL and OpenRLHF rows carry the host's prompt and an
// identity, never the hidden tests or the reference program, and the same reward shims score programs through
// the service: verl's compute_score.py and TRL's reward.py run by python3, and OpenRLHF's /get_reward.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMATS } from '../export/registry.js';
import { runExport } from '../export/run.js';
import { parseSplit } from '../export/select.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { fenceProgram } from '../sandbox/code/program.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { RunningServer } from '../serve/options.js';
import { startServer } from '../serve/server.js';
import { PYTHON } from './helpers/python.js';
import { validatedOnce } from './helpers/run-cache.js';

const SOURCE = readFileSync(new URL('../seeds/code/count-inversions.js', import.meta.url), 'utf8');
const SOLVED =
  'function countInversions(nums) { let c = 0; for (let i = 0; i < nums.length; i++) for (let j = i + 1; j < ' +
  'nums.length; j++) if (nums[i] > nums[j]) c++; return c; }';
const RESPONSES = [
  fenceProgram(SOLVED),
  fenceProgram('function countInversions(nums) { return nums.length; }'),
  fenceProgram('function countInversions() { for (;;) {} }'),
  'no program here',
];
const EXPECTED = [1, 0, 0, 0];

const tmp = mkdtempSync(join(tmpdir(), 'envforge-export-code-'));
const LIB = join(tmp, 'library');
const dirs = { verl: join(tmp, 'verl'), trl: join(tmp, 'trl'), openrlhf: join(tmp, 'openrlhf') };
type Row = Record<string, unknown>;

/** Scores every (row, response) pair through the exported verl and TRL shims; prints JSON. */
const DRIVER =
  `import importlib.util, json, os, sys
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
verl = load(os.environ["VERL_SHIM"], "envforge_verl_reward")
trl = load(os.environ["TRL_SHIM"], "envforge_trl_reward")
cases = json.load(open(sys.argv[1]))
print(json.dumps({
    "verl": [verl.compute_score(c["data_source"], c["response"], c["ground_truth"]) for c in cases],
    "trl": trl.envforge_reward(prompts=[c["prompt"] for c in cases], completions=[c["response"] for c in cases], ` +
  `ground_truth=[c["ground_truth"] for c in cases]),
}))
`;

let pool: SandboxPool;
let server: RunningServer;
const rows: Row[] = [];

beforeAll(async () => {
  pool = new SandboxPool({ workers: 2 });
  const writable = SqliteLibrary.open(LIB, { create: true });
  // Validated once per test run (tests/code-validator.test.ts tests this validation and shares its report).
  const report = await validatedOnce(SOURCE, { pool, validationSeed: 7 });
  expect(report.verdict).toBe('admit');
  await writable.admit({ source: SOURCE, report, lineage: { author: 'test' } });
  await writable.close();
  const library = SqliteLibrary.open(LIB, { readonly: true });
  try {
    for (const [name, out] of Object.entries(dirs)) {
      await runExport(library, pool, {
        format: FORMATS[name as keyof typeof dirs],
        out,
        selection: {},
        counts: { perEnv: 3 },
        splits: parseSplit('train:1'),
        seed: 5,
        serviceUrl: 'http://127.0.0.1:9',
      });
    }
  } finally {
    await library.close();
  }
  const bytes = readFileSync(join(dirs.verl, 'train.parquet'));
  rows.push(
    ...((await parquetReadObjects({
      file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    })) as Row[]),
  );
  server = await startServer({ libraryDir: LIB, port: 0, pool });
}, 240_000);
afterAll(async () => {
  await server?.close();
  await pool?.close();
});

const promptOf = (row: Row) => ((row.prompt as Array<{ content: string }>)[0]?.content ?? '') as string;
const truthOf = (row: Row) => (row.reward_model as { ground_truth: string }).ground_truth;

describe('exports of a code environment', () => {
  it("carry the host's prompt and an identity, never the hidden tests or the reference program", () => {
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(promptOf(row)).toContain('Write a JavaScript function `countInversions(nums)`');
      expect(JSON.parse(truthOf(row))).toEqual({
        env: 'count-inversions',
        version: 1,
        seed: expect.any(Number),
        level: expect.any(Number),
      });
      expect(JSON.stringify(row, (_, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))).not.toMatch(
        /"tests"|"reference"|function countInversions\(nums\) \{/,
      );
    }
  });

  it("score programs through the exported verl, TRL shims, OpenRLHF's /get_reward, as the service does", async () => {
    const cases = rows.flatMap((row) =>
      RESPONSES.map((response) => ({
        data_source: row.data_source,
        prompt: promptOf(row),
        ground_truth: truthOf(row),
        response,
      })),
    );
    const casesFile = join(tmp, 'cases.json');
    const driver = join(tmp, 'driver.py');
    writeFileSync(casesFile, JSON.stringify(cases));
    writeFileSync(driver, DRIVER);
    const { stdout } = await promisify(execFile)(PYTHON, [driver, casesFile], {
      env: {
        ...process.env,
        ENVFORGE_URL: server.url,
        VERL_SHIM: join(dirs.verl, 'compute_score.py'),
        TRL_SHIM: join(dirs.trl, 'reward.py'),
      },
    });
    const out = JSON.parse(stdout) as { verl: number[]; trl: number[] };
    const expected = rows.flatMap(() => EXPECTED);
    expect(out.verl).toEqual(expected);
    expect(out.trl).toEqual(expected);

    const labels = readFileSync(join(dirs.openrlhf, 'train.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { input: string; label: string });
    expect(new Set(labels.map((l) => l.label))).toEqual(new Set(rows.map(truthOf)));
    const items = labels.flatMap((l) =>
      RESPONSES.map((response) => ({ query: l.input + response, prompt: l.input, label: l.label })),
    );
    const answer = await fetch(`${server.url}/get_reward`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: items.map((i) => i.query),
        prompts: items.map((i) => i.prompt),
        labels: items.map((i) => i.label),
      }),
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { rewards: number[] }).rewards).toEqual(labels.flatMap(() => EXPECTED));
  }, 120_000);
});

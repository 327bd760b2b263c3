// The reward service on a code environment (contract v3): /v1/sample shows the host's prompt, /v1/verify
// runs JavaScript and TypeScript answers on the hidden tests (1 for a correct program, 0 for a wrong or
// missing one) and answers a Python program with the item error E_LANGUAGE instead of a score; hostile
// programs score 0 each without touching their neighbours or the service.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { fenceProgram } from '../sandbox/code/program.js';
import { SandboxPool } from '../sandbox/pool.js';
import { startServer } from '../serve/server.js';
import type { RunningServer } from '../serve/options.js';
import { validatedOnce } from './helpers/run-cache.js';

const SOURCE = readFileSync(new URL('../seeds/code/count-inversions.js', import.meta.url), 'utf8');
const SOLVED =
  'function countInversions(nums) { let c = 0; for (let i = 0; i < nums.length; i++) for (let j = i + 1; j < ' +
  'nums.length; j++) if (nums[i] > nums[j]) c++; return c; }';

let pool: SandboxPool;
let server: RunningServer;

async function post(path: string, body: unknown) {
  const response = await fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, body: (await response.json()) as any };
}

beforeAll(async () => {
  pool = new SandboxPool({ workers: 2 });
  const dir = mkdtempSync(join(tmpdir(), 'envforge-serve-code-'));
  const library = SqliteLibrary.open(dir, { create: true });
  // Validated once per test run (tests/code-validator.test.ts tests this validation and shares its report).
  const report = await validatedOnce(SOURCE, { pool, validationSeed: 7 });
  expect(report.verdict).toBe('admit');
  await library.admit({ source: SOURCE, report, lineage: { author: 'test' } });
  await library.close();
  server = await startServer({ libraryDir: dir, port: 0, pool });
}, 240_000);
afterAll(async () => {
  await server?.close();
  await pool?.close();
});

describe('envforge serve on a code environment', () => {
  it("samples the host's prompt; reveals the hidden tests and reference program only when asked", async () => {
    const { status, body } = await post('/v1/sample', { items: [{ env: 'count-inversions', seed: 3, level: 2 }] });
    expect(status).toBe(200);
    const [item] = body.items;
    expect(item.prompt).toContain('Write a JavaScript function `countInversions(nums)`');
    expect(item.hidden).toBeUndefined();
    expect(item.reference).toBeUndefined();
  });

  it(
    'scores JavaScript and TypeScript programs on the hidden tests; a wrong or missing program scores 0; ' +
      'Python is an item error',
    async () => {
      const ground_truth = JSON.stringify({ env: 'count-inversions', version: 1, seed: 3, level: 2 });
      const responses = [
        fenceProgram(SOLVED),
        fenceProgram(SOLVED.replace('(nums)', '(nums: number[]): number'), 'typescript'),
        fenceProgram('function countInversions(nums) { return nums.length; }'),
        'I would count the pairs.',
        '```python\ndef countInversions(nums):\n    return 0\n```',
      ];
      const { status, body } = await post('/v1/verify', {
        items: responses.map((response) => ({ ground_truth, response })),
      });
      expect(status).toBe(200);
      const results = body.results as Array<{ score: number; error?: { code: string } }>;
      expect(results.slice(0, 4).map((r) => r.score)).toEqual([1, 1, 0, 0]);
      expect(results.slice(0, 4).every((r) => r.error === undefined)).toBe(true);
      expect(results[4]?.error?.code).toBe('E_LANGUAGE');
    },
  );

  it('scores hostile programs 0 each in a batch beside correct ones, and keeps serving after them', async () => {
    const ground_truth = JSON.stringify({ env: 'count-inversions', version: 1, seed: 4, level: 3 });
    const hostile = [
      'function countInversions() { for (;;) {} }',
      'function countInversions() { const a = []; for (;;) a.push(new ArrayBuffer(1e8)); }',
      "function countInversions() { throw new Proxy({}, { get() { throw Symbol('x'); } }); }",
      'function countInversions() { return { get n() { for (;;) {} } }; }',
      "function countInversions() { return Function('return this')().process.exit(1); }",
    ];
    const items = hostile
      .flatMap((program) => [program, SOLVED])
      .map((program) => ({ ground_truth, response: fenceProgram(program) }));
    const first = await post('/v1/verify', { items });
    expect(first.status).toBe(200);
    expect((first.body.results as Array<{ score: number; error?: unknown }>).map((r) => [r.score, r.error])).toEqual(
      hostile.flatMap(() => [
        [0, undefined],
        [1, undefined],
      ]),
    );
    const after = await post('/v1/verify', { items: [{ ground_truth, response: fenceProgram(SOLVED) }] });
    expect(after.body.results[0].score).toBe(1);
  }, 120_000);
});

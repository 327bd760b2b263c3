// The code kind's answer path: a policy's program is found in its fenced block, run in the answer pool
// (its own processes and isolates, a fresh Compartment per answer, a fresh instance per test) and compared
// by the host's comparators; hostile programs fail only themselves, and nothing carries from test to test.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, outputsMatch } from '../contract/compare.js';
import { code } from '../kinds/code.js';
import { extractProgram, fenceProgram } from '../sandbox/code/program.js';
import { scoreOf, type Episode, type ScoredVerdict } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';

const INVERSIONS = readFileSync(new URL('../seeds/code/count-inversions.js', import.meta.url), 'utf8');
const SOLVED =
  'function countInversions(nums) {\n  let c = 0;\n  for (let i = 0; i < nums.length; i++) for (let j = i + ' +
  '1; j < nums.length; j++) if (nums[i] > nums[j]) c++;\n  return c;\n}';

describe('a program in a response', () => {
  it.each([
    ['```js\nf()\n```', 'javascript', 'f()'],
    ['Here it is:\n```typescript\nconst x: number = 1\n```\nDone.', 'typescript', 'const x: number = 1'],
    ['```\nbare()\n```', 'javascript', 'bare()'],
    ['~~~python\nprint(1)\n~~~', 'python', 'print(1)'],
    ['```js\nfirst()\n```\nthen\n```js\nsecond()\n```', 'javascript', 'second()'],
    ['```js\nunclosed()', 'javascript', 'unclosed()'],
  ])('is the last fenced block, with its language: %j', (response, language, program) => {
    expect(extractProgram(response)).toEqual({ ok: true, language, program });
  });

  it('is missing without a fence, and refused in a language the host does not know', () => {
    expect(extractProgram('function f() {}')).toMatchObject({ ok: false, reason: 'none' });
    expect(extractProgram('```rust\nfn main() {}\n```')).toMatchObject({ ok: false, reason: 'language' });
    expect(extractProgram(`\`\`\`js\n${'x'.repeat(70_000)}\n\`\`\``)).toMatchObject({ ok: false, reason: 'too-long' });
  });
});

describe('the host comparators', () => {
  it('exact never coerces: 3 is not "3", [1,2] is not [2,1], key order does not matter', () => {
    expect(outputsMatch('exact', 3, '3')).toBe(false);
    expect(outputsMatch('exact', [1, 2], [2, 1])).toBe(false);
    expect(outputsMatch('exact', { a: 1, b: [2] }, { b: [2], a: 1 })).toBe(true);
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).toBe('{"a":{"c":3,"d":2},"b":1}');
  });

  it('float allows 1e-6 relative, not 1e-3; unordered allows any order of the same items only', () => {
    expect(outputsMatch('float', [1.5, 1e6], [1.5000001, 1e6 + 0.5])).toBe(true);
    expect(outputsMatch('float', [1.5], [1.5015])).toBe(false);
    expect(outputsMatch('float', 2, '2')).toBe(false);
    expect(outputsMatch('unordered', [1, 2, 2], [2, 1, 2])).toBe(true);
    expect(outputsMatch('unordered', [1, 2, 2], [2, 1, 1])).toBe(false);
    expect(outputsMatch('unordered', [1, 2], [1, 2, 2])).toBe(false);
  });
});

describe('scoring programs in the answer pool', () => {
  let pool: SandboxPool;
  let episode: Episode;
  const score = async (...programs: string[]): Promise<ScoredVerdict[]> => {
    const run = await code.runEpisodes(pool, INVERSIONS, [
      { seed: 11, level: 3, responses: programs.map((p) => (p.startsWith('```') ? p : fenceProgram(p))) },
    ]);
    const e = run.episodes[0];
    if (!e?.ok) throw new Error(`episode failed: ${JSON.stringify(e)}`);
    episode = e;
    return e.verdicts;
  };

  beforeAll(() => {
    pool = new SandboxPool({ workers: 1 });
  });
  afterAll(() => pool.close());

  it('pays a correct program 1, in JavaScript, as a module, or in TypeScript; the reference scores 1', async () => {
    const verdicts = await score(
      SOLVED,
      `export ${SOLVED}`,
      fenceProgram(
        SOLVED.replace('(nums)', '(nums: number[]): number').replace('let c = 0', 'let c: number = 0'),
        'typescript',
      ),
    );
    expect(verdicts.map(scoreOf)).toEqual([1, 1, 1]);
    expect(scoreOf(episode.referenceVerdict)).toBe(1);
    expect(episode.instance.prompt).toContain('countInversions(nums)');
    expect(episode.instance.prompt).not.toContain(
      JSON.stringify((episode.instance as unknown as { tests: Array<{ input: unknown }> }).tests[5]?.input),
    );
  });

  it('pays nothing for wrong, broken or escaping programs, and each fails only itself', async () => {
    const hostile = [
      'function countInversions() { return 0; }',
      'function countInversions() { for (;;) {} }',
      'function countInversions() { throw { get message() { for (;;) {} } }; }',
      'function countInversions() { return process.env; }',
      "function countInversions() { return this.constructor.constructor('return process')().pid; }",
      'function countInversions() { return Math.random() + Date.now(); }',
      'function countInversions() { const a = []; for (;;) a.push(new Array(1e6).fill(1)); }',
      'function countInversions() { return new Promise(() => {}); }',
      "function countInversions() { return 'x'.repeat(1e6); }",
      "import fs from 'fs';\nfunction countInversions() { return 0; }",
      'function countInversions( {',
      'function somethingElse() { return 0; }',
      'function countInversions(n) { Object.prototype.toJSON = () => 0; return 1; }',
      "function countInversions(n) { JSON.stringify = () => '0'; return 1; }",
    ];
    const verdicts = await score(...hostile, SOLVED);
    expect(verdicts.map(scoreOf)).toEqual([...hostile.map(() => 0), 1]);
    expect(verdicts.at(-1)).toMatchObject({ ok: true, score: 1 });
  }, 60_000);

  it('keeps nothing from one test to the next: a counter on the global or in a module variable is new', async () => {
    // Every hidden test has an answer of its own; a program that counts its calls cannot pass two tests with the same
    // count.
    const counting =
      'let calls = 0;\nfunction countInversions(nums) { calls++; try { globalThis.seen = (globalThis.seen || ' +
      '0) + 1; } catch {} return calls === 1 && !globalThis.seen ? -1 : 1000 + calls; }';
    const [v] = await score(counting);
    expect(v).toMatchObject({ ok: true, score: 0 });
    const firstCall =
      'let calls = 0;\nfunction countInversions(nums) { calls++; if (calls > 1) throw new Error("state carried"); ' +
      SOLVED.slice(SOLVED.indexOf('{') + 1);
    expect((await score(firstCall)).map(scoreOf)).toEqual([1]);
  });

  it('names a Python answer as a language the host does not run, never a silent 0', async () => {
    const run = await code.runEpisodes(pool, INVERSIONS, [
      { seed: 1, level: 1, responses: ['```python\ndef countInversions(nums):\n    return 0\n```'] },
    ]);
    const e = run.episodes[0] as Episode;
    expect(e.verdicts[0]).toMatchObject({ ok: false, code: 'E_LANGUAGE' });
  });

  it('never tells a program what the hidden tests were in its feedback', async () => {
    const leaking = 'function countInversions(nums) { throw new Error("INPUT=" + JSON.stringify(nums)); }';
    const [v] = await score(leaking);
    expect(v).toMatchObject({ ok: true, score: 0 });
    expect((v as { feedback?: string }).feedback ?? '').not.toContain('INPUT=');
  });
});

describe('the reference program in the answer pool', () => {
  it('runs in an isolate of its own, never one a policy program ran in or runs in next', async () => {
    const { AnswerPool } = await import('../sandbox/code/answer-pool.js');
    const pool = new AnswerPool({ workers: 1 });
    try {
      const spec = {
        program: SOLVED,
        language: 'javascript' as const,
        entry: 'countInversions',
        compare: 'exact' as const,
        tests: [['[[2,1]]', '1'] as [string, string]],
      };
      const answers = [{ ...spec, ownIsolate: true }, spec, spec, { ...spec, ownIsolate: true }, spec, spec];
      const results = await pool.run(answers);
      expect(results.map((r) => r.tests)).toEqual(answers.map(() => [null]));
      const isolates = results.map((r) => r.isolate);
      const policies = new Set([isolates[1], isolates[2], isolates[4], isolates[5]]);
      for (const reference of [isolates[0], isolates[3]]) {
        expect(reference).toEqual(expect.any(String));
        expect(policies.has(reference)).toBe(false);
      }
      expect(isolates[0]).not.toBe(isolates[3]);
      expect(isolates[1]).toBe(isolates[2]); // policies still share one, as before: only the reference is set apart
      // The policies' isolate waits aside while a reference runs in its own, and serves the policies after it.
      expect(isolates[4]).toBe(isolates[2]);
    } finally {
      await pool.close();
    }
  });
});

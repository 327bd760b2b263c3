// Adversarial answers on the code kind's answer path: programs that loop, allocate without bound, throw
// values that are not Errors, return objects with getters, toJSON or Proxy traps, reach for the host, or
// plant state for the next answer, or nest their output past the host's depth limit each score 0 for
// themselves only; correct answers beside them score 1.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { code } from '../kinds/code.js';
import { AnswerPool } from '../sandbox/code/answer-pool.js';
import { fenceProgram } from '../sandbox/code/program.js';
import { scoreOf, type Episode } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';

const INVERSIONS = readFileSync(new URL('../seeds/code/count-inversions.js', import.meta.url), 'utf8');
const BODY =
  'let c = 0; for (let i = 0; i < nums.length; i++) for (let j = i + 1; j < nums.length; j++) if (nums[i] > ' +
  'nums[j]) c++; return c;';
const SOLVED = `function countInversions(nums) { ${BODY} }`;
const hostile = (body: string) => `function countInversions(nums) { ${body} }`;

/** Each family of attack, as programs that must score 0 without touching their neighbours. */
const ATTACKS: Record<string, string[]> = {
  'loops forever': [
    hostile('for (;;) {}'),
    hostile('while (true) { try { for (;;) {} } catch {} }'),
    hostile('const o = {}; o.o = o; for (const k in o) for (;;) {}'),
  ],
  'allocates without bound': [
    hostile('const a = []; for (;;) a.push(new Array(1e6).fill(nums));'),
    hostile('const a = []; for (;;) a.push(new ArrayBuffer(1e8));'),
    hostile('return new Uint8Array(4e9).length;'),
    hostile("let s = 'x'; for (;;) s += s;"),
    hostile('let o = []; for (let i = 0; i < 1e7; i++) o = [o]; return o;'),
  ],
  'throws what is not an Error': [
    hostile('throw 42;'),
    hostile('throw null;'),
    hostile('throw undefined;'),
    hostile("throw Symbol('s');"),
    hostile('throw () => 0;'),
    hostile('throw new Proxy({}, { get() { throw new Proxy({}, {}); }, getPrototypeOf() { for (;;) {} } });'),
    hostile('const r = Proxy.revocable({}, {}); r.revoke(); throw r.proxy;'),
    hostile('throw { toString() { for (;;) {} }, get message() { throw 1; } };'),
  ],
  'returns objects with getters, toJSON or Proxy traps': [
    hostile('return { get value() { for (;;) {} } };'),
    hostile("return { get value() { throw Symbol('x'); } };"),
    hostile('return { toJSON() { throw null; } };'),
    hostile(`return { toJSON() { ${BODY.replace('return c;', 'return String(c);')} } };`),
    hostile('return new Proxy({}, { ownKeys() { for (;;) {} } });'),
    hostile('return new Proxy([], { get(t, k) { return k === "length" ? 1e9 : 0; } });'),
    hostile('const r = Proxy.revocable({}, {}); r.revoke(); return r.proxy;'),
    hostile('const o = {}; o.o = o; return o;'),
    hostile('return new Map([[1, 2]]);'),
    hostile('return 10n;'),
  ],
  'reaches for the host': [
    hostile("return import('fs');"),
    hostile("return require('fs').readFileSync('/etc/hostname', 'utf8');"),
    hostile('return process.pid;'),
    hostile("return Function('return this')().process.env;"),
    hostile("return (async function () {}).constructor('return process')();"),
    hostile("return new Compartment().evaluate('globalThis.process.pid');"),
    hostile("return eval('process.pid');"),
    hostile('Error.prepareStackTrace = (e, s) => s.map((f) => f.getThis && f.getThis()); return new Error().stack;'),
    hostile('Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); return 0;'),
    hostile('return new WebAssembly.Memory({ initial: 65536 }).buffer.byteLength;'),
    hostile(
      'return globalThis.$0 ?? globalThis.ivm ?? globalThis.tests ?? globalThis.expected ?? arguments.callee.caller;',
    ),
  ],
};

let pool: SandboxPool;
beforeAll(() => {
  pool = new SandboxPool({ workers: 1 });
});
afterAll(() => pool.close());

/** Scores the programs as responses to one instance, in one batch (one answer worker runs them all). */
async function score(programs: string[]) {
  const run = await code.runEpisodes(pool, INVERSIONS, [
    { seed: 7, level: 3, responses: programs.map((p) => fenceProgram(p)) },
  ]);
  const episode = run.episodes[0];
  if (!episode?.ok) throw new Error(`the episode failed: ${JSON.stringify(episode)}`);
  return (episode as Episode).verdicts;
}

describe('an adversarial program scores 0 for itself only', () => {
  it.each(Object.entries(ATTACKS))(
    'when it %s, with a correct program after each one in the same batch',
    async (_family, attacks) => {
      const verdicts = await score(attacks.flatMap((attack) => [attack, SOLVED]));
      const scores = verdicts.map((v) => ({ ok: v.ok, score: scoreOf(v) }));
      expect(scores).toEqual(
        attacks.flatMap(() => [
          { ok: true, score: 0 },
          { ok: true, score: 1 },
        ]),
      );
    },
    120_000,
  );

  it('cannot leave anything for the next answer in its batch: shared intrinsics are frozen', async () => {
    const planter = hostile(
      'try { Array.prototype.planted = 1; } catch {} try { Object.prototype.toJSON = function () { return 0; ' +
        '}; } catch {} try { globalThis.planted = 1; } catch {} try { JSON.stringify = () => ' +
        "'0'; } catch {} return -1;",
    );
    const reader =
      `function countInversions(nums) { if ([].planted || globalThis.planted || ` + `({}).toJSON) return -1; ${BODY} }`;
    expect((await score([planter, reader, planter, reader])).map(scoreOf)).toEqual([0, 1, 0, 1]);
  });
});

describe('an output nested too deep for the host to compare', () => {
  it("fails E_TOO_LARGE, never E_CRASHED (the host's comparators would exhaust the worker's stack), and " +
    'the next answer is scored', async () => {
    const answerPool = new AnswerPool({ workers: 1 });
    try {
      const nested = (depth: number) =>
        `function f(x) { let o = []; for (let i = 0; i < ${depth}; i++) o = [o]; return o; }`;
      const [deep, alsoDeep, after] = (
        await answerPool.run([nested(4000), nested(65), 'function f(x) { return 2 * x; }'].map(doubling))
      ).map((r) => r.tests);
      expect([deep, alsoDeep, after]).toEqual([
        ['E_TOO_LARGE', 'E_TOO_LARGE'],
        ['E_TOO_LARGE', 'E_TOO_LARGE'],
        [null, null],
      ]);
    } finally {
      await answerPool.close();
    }
  }, 60_000);
});

describe('the answer pool when a worker dies mid-batch', () => {
  it('runs the batch again one answer at a time, so every answer gets its own result', async () => {
    const answers = doublingAnswers();
    // Four answers a job (the pool's default is one, where a worker's death takes only the answer it ran).
    const answerPool = new AnswerPool({ workers: 1, answersPerJob: 4 });
    try {
      const running = answerPool.run(answers);
      // Kill the worker once it holds the job (what a program that wedged or aborted its process does).
      const slots = (
        answerPool as unknown as { slots: Array<{ busy: boolean; child: { kill(s: string): boolean; pid?: number } }> }
      ).slots;
      for (let i = 0; i < 400 && !(slots[0]?.busy && slots[0].child.pid); i++)
        await new Promise((r) => setTimeout(r, 25));
      expect(slots[0]?.child.kill('SIGKILL')).toBe(true);
      const results = await running;
      expect(results.map((r) => r.tests)).toEqual([
        [null, null],
        ['E_TIMEOUT', 'E_TIMEOUT'],
        [null, null],
        ['E_WRONG', 'E_WRONG'],
      ]);
    } finally {
      await answerPool.close();
    }
  }, 120_000);
});

/** A program of f, to be run on two tests of doubling. */
function doubling(program: string) {
  return {
    program,
    language: 'javascript' as const,
    entry: 'f',
    compare: 'exact' as const,
    tests: [
      ['[1]', '2'],
      ['[2]', '4'],
    ] as Array<[string, string]>,
  };
}

function doublingAnswers() {
  return [
    'function f(x) { return 2 * x; }',
    'function f() { for (;;) {} }',
    'function f(x) { return x + x; }',
    'function f() { return 0; }',
  ].map(doubling);
}

// The sandbox contains hostile and broken environment code: every case ends as a typed result with a
// stable code, and the supervisor keeps serving afterwards.
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxPool } from '../sandbox/pool.js';
import type { Call, CallResult, EpisodeValue, SandboxLimits } from '../sandbox/protocol.js';
import { envSource } from './helpers/env-source.js';

// Short limits keep the suite fast; the deadline (kill) path still gets exercised.
const pool = new SandboxPool({
  workers: 2,
  graceMs: 500,
  limits: { callTimeoutMs: 400, loadTimeoutMs: 1_000, sliceMs: 50, memoryMb: 64 },
});
afterAll(() => pool.close());

const generateCalls = (levels: number[]): Call[] => levels.map((level) => ({ op: 'episode', seed: 7, level }));
/** The instance of an episode result (the call every user of the sandbox makes). */
const instanceOf = (r: CallResult | undefined) =>
  (r?.ok ? (r.value as EpisodeValue).instance : undefined) as { prompt: string; answer?: number } | undefined;

/**
 * One episode of a module whose generate is `body` (and whose solve returns a constant, so instances need no answer).
 */
async function generateWith(body: string, limits: Partial<SandboxLimits> = {}): Promise<CallResult> {
  const { results } = await pool.run({
    source: envSource({ generate: body, solve: "return '<answer>1</answer>';" }),
    calls: generateCalls([1]),
    limits,
  });
  const result = results[0] as CallResult;
  return result.ok ? { ...result, value: (result.value as EpisodeValue).instance } : result;
}

function failureOf(result: CallResult | undefined): { code: string; message: string } {
  expect(result?.ok, JSON.stringify(result)).toBe(false);
  const failure = result as Extract<CallResult, { ok: false }>;
  return { code: failure.code, message: failure.message };
}

async function expectServing(): Promise<void> {
  const { load, results } = await pool.run({ source: envSource(), calls: generateCalls([1, 2, 3]) });
  expect(load.ok).toBe(true);
  expect(results.every((r) => r.ok)).toBe(true);
}

describe('the sandbox runs a well-behaved environment', () => {
  it('loads meta and exports, and runs episodes: generate, solve, verify(reference), verify(responses)', async () => {
    const source = envSource();
    const { load, results } = await pool.run({
      source,
      calls: [...generateCalls([1, 2]), { op: 'episode', seed: 3, level: 2, responses: ['', '<answer>nope</answer>'] }],
    });
    expect(load).toMatchObject({
      ok: true,
      meta: { name: 'test-env', levels: 3 },
      exports: { generate: 'function', meta: 'object', solve: 'function', verify: 'function' },
    });
    const instance = instanceOf(results[0]);
    expect(instance?.prompt).toMatch(/^What is \d+ \+ 1\?/);
    const episode = (results[2] as { value: EpisodeValue }).value;
    expect(episode.reference).toBe(`<answer>${(episode.instance as { answer: number }).answer}</answer>`);
    expect(episode.verdicts.map((v) => (v.ok ? v.value : v.code))).toEqual([1, 0, 0]);
  });

  it('gives the same instance for the same (seed, level) in any worker and after a fresh start', async () => {
    const source = envSource();
    const a = await pool.run({ source, calls: generateCalls([1, 2, 3]) });
    const b = await pool.run({ source, calls: generateCalls([3, 2, 1]), fresh: true });
    expect(a.results.map((r) => JSON.stringify(instanceOf(r)))).toEqual(
      b.results.reverse().map((r) => JSON.stringify(instanceOf(r))),
    );
  });

  it('splits a large batch across workers when asked, keeping the order', async () => {
    const calls = generateCalls(Array.from({ length: 64 }, (_, i) => (i % 3) + 1));
    const serial = await pool.run({ source: envSource(), calls });
    const parallel = await pool.run({ source: envSource(), calls, parallel: true });
    expect(parallel.results.map(instanceOf)).toEqual(serial.results.map(instanceOf));
  });
});

describe('determinism is built in', () => {
  it('makes Math.random throw an error that points to rng', async () => {
    const { code, message } = failureOf(await generateWith('return { prompt: String(Math.random()) };'));
    expect(code).toBe('E_THROWN');
    expect(message).toMatch(/Math\.random is disabled.*rng/);
  });

  it('freezes the clock, also through Intl', async () => {
    const result = await generateWith(
      "return { prompt: [Date.now(), new Date().getTime(), new Intl.DateTimeFormat('en-US', { timeZone: " +
        "'UTC', year: 'numeric' }).format(), new Date(2020, 0, 2).getDate()].join(' ') };",
    );
    expect(result).toMatchObject({ ok: true, value: { prompt: '0 0 1970 2' } });
  });

  it('removes shared memory, WebAssembly and weak references: absent, and reading them trips a wire', async () => {
    for (const name of ['SharedArrayBuffer', 'Atomics', 'WebAssembly', 'WeakRef', 'FinalizationRegistry']) {
      const { code, message } = failureOf(
        await generateWith(
          `const absent = typeof ${name} === 'undefined'; if (!absent) throw new Error('present'); ` +
            `return { prompt: 'p' };`,
        ),
      );
      expect([code, message]).toEqual(['E_ESCAPE_ATTEMPT', expect.stringContaining(`a removed global (${name})`)]);
    }
  });

  it('offers the frozen kit', async () => {
    const result = await generateWith(
      "Reflect.set(kit, 'answer', null); return { prompt: kit.answer('x <answer> 42 </answer>') + ' ' + " +
        'Object.isFrozen(kit) };',
    );
    expect(result).toMatchObject({ ok: true, value: { prompt: '42 true' } });
  });
});

describe('hostile code is contained with a stable code', () => {
  const cases: Array<[string, string, string]> = [
    ['a synchronous infinite loop', 'for (;;) {}', 'E_TIMEOUT'],
    // Each link of the chain holds the next promise: isolated-vm 7 may hit the heap limit before the budget.
    [
      'an endless microtask chain',
      'const go = () => Promise.resolve().then(go); go(); return { prompt: "p" };',
      'E_TIMEOUT|E_MEMORY',
    ],
    ['a promise that never settles', 'return new Promise(() => {});', 'E_ASYNC'],
    ['deep recursion', 'const f = (n) => f(n + 1) + 1; return { prompt: String(f(0)) };', 'E_THROWN'],
    [
      'the Function constructor reaching for process',
      "return { prompt: String(Function('return this')().constructor.constructor('return process')().pid) };",
      'E_ESCAPE_ATTEMPT',
    ],
    [
      'a constructor-chain escape',
      "return { prompt: String(({}).constructor.constructor('return this')().process.mainModule) };",
      'E_ESCAPE_ATTEMPT',
    ],
    ['require', "return { prompt: require('fs').readFileSync('/etc/passwd', 'utf8') };", 'E_THROWN'],
    ['dynamic import', "return import('node:fs');", 'E_ESCAPE_ATTEMPT'],
    [
      'Atomics.wait',
      'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); return { prompt: "p" };',
      'E_ESCAPE_ATTEMPT',
    ],
    ['a huge string', "return { prompt: 'x'.repeat(2 ** 29) };", 'E_THROWN'],
    ['a prompt over the size limit', "return { prompt: 'x'.repeat(3 * 2 ** 20) };", 'E_TOO_LARGE'],
    [
      'deeply nested values',
      'let v = []; for (let i = 0; i < 10000; i++) v = [v]; return { prompt: "p", v };',
      'E_TOO_LARGE',
    ],
    ['a proxy whose traps loop', 'return new Proxy({}, { ownKeys() { for (;;) {} } });', 'E_TIMEOUT'],
    ['a looping getter', "return { prompt: 'p', get answer() { for (;;) {} } };", 'E_TIMEOUT'],
    ['a looping toJSON', "return { prompt: 'p', toJSON() { for (;;) {} } };", 'E_NOT_JSON'],
    ['a thrown object with a looping getter', 'throw { get message() { for (;;) {} } };', 'E_TIMEOUT'],
    [
      'a thrown object that forges a code',
      "const e = new Error('x'); e.envforgeCode = 'E_MEMORY'; throw e;",
      'E_THROWN',
    ],
    ['a cyclic instance', "const o = { prompt: 'p' }; o.self = o; return o;", 'E_TOO_LARGE'],
    ['undefined in an instance', "return { prompt: 'p', answer: undefined };", 'E_NOT_JSON'],
    ['NaN in an instance', "return { prompt: 'p', answer: NaN };", 'E_NOT_JSON'],
    ['a BigInt in an instance', "return { prompt: 'p', answer: 10n };", 'E_NOT_JSON'],
    ['a Map in an instance', "return { prompt: 'p', answer: new Map() };", 'E_NOT_JSON'],
    ['a function in an instance', "return { prompt: 'p', answer: () => 1 };", 'E_NOT_JSON'],
    ['a gradual memory leak', 'const a = []; for (;;) a.push(new Array(1e5).fill(1)); ', 'E_MEMORY|E_TIMEOUT'],
  ];
  it.each(cases)('%s', async (_name, body, code) => {
    const { code: actual } = failureOf(await generateWith(body));
    expect(actual).toMatch(new RegExp(`^(${code})$`));
    await expectServing();
  });

  it('kills a worker wedged in BigInt parsing at the deadline (E_TIMEOUT) and replaces it', async () => {
    const before = pool.workerPids();
    const { code, message } = failureOf(await generateWith("return { prompt: String(BigInt('9'.repeat(3e7))) };"));
    expect(code).toBe('E_TIMEOUT');
    expect(message).toMatch(/killed/);
    expect(pool.workerPids()).not.toEqual(before);
    await expectServing();
  });

  it('turns a memory bomb into E_MEMORY for that candidate only', async () => {
    // 8 MB arrays reach the isolate's limit in about a second, well inside the call budget even on a loaded
    // machine (a single 2e8-element fill took ~8 s of one core and timed out under load); on isolated-vm 5 it aborted
    // the process.
    const { code } = failureOf(
      await generateWith('const hoard = []; for (;;) hoard.push(new Array(1e6).fill(1.5));', { callTimeoutMs: 30_000 }),
    );
    expect(code).toBe('E_MEMORY');
    await expectServing();
  });

  it('times out a verifier with catastrophic regex backtracking on a long response, per call', async () => {
    const source = envSource({ verify: 'return /^(a+)+$/.test(response) ? 1 : 0;' });
    const calls: Call[] = ['aaaa', `${'a'.repeat(40)}!`, 'b'].map((response) => ({
      op: 'episode',
      seed: 1,
      level: 1,
      responses: [response],
    }));
    const { results } = await pool.run({ source, calls });
    expect(
      results.map((r) => (r.ok ? ((r.value as EpisodeValue).verdicts[1] as { value: number }).value : r.code)),
    ).toEqual([1, 'E_TIMEOUT', 0]);
  });

  it('keeps the results before and after a hanging call in the same batch', async () => {
    const source = envSource({ generate: "if (level === 2) for (;;) {} return { prompt: 'level ' + level };" });
    const { results } = await pool.run({ source, calls: generateCalls([1, 2, 3, 1]) });
    expect(results.map((r) => instanceOf(r)?.prompt ?? (r as { code: string }).code)).toEqual([
      'level 1',
      'E_TIMEOUT',
      'level 3',
      'level 1',
    ]);
  });
});

describe('modules that cannot load fail every call with the load problem', () => {
  const cases: Array<[string, string, string]> = [
    ['a syntax error', 'export const meta = {;', 'E_SYNTAX'],
    ['an import statement', "import fs from 'node:fs';\n" + envSource(), 'E_IMPORT'],
    ['top-level await that never settles', 'await new Promise(() => {});\n' + envSource(), 'E_ASYNC'],
    [
      'top-level await that settles at once',
      'const table = await Promise.resolve([1, 2, 3]);\n' + envSource(),
      'E_ASYNC',
    ],
    ['a top-level infinite loop', 'for (;;) {}\n' + envSource(), 'E_TIMEOUT'],
    ['a top-level throw', "throw new Error('boom');\n" + envSource(), 'E_THROWN'],
    [
      'reaching for the runtime by its old global name',
      '__envforge.bind({ generate() { return { prompt: "fake" }; } });\n' + envSource(),
      'E_THROWN',
    ],
  ];
  it.each(cases)('%s', async (_name, source, code) => {
    const { load, results } = await pool.run({ source, calls: generateCalls([1]) });
    expect(load).toMatchObject({ ok: false, code });
    expect(results[0]).toMatchObject({ ok: false, code, fn: 'load' });
  });

  it('reports a missing export as a call failure and meta getters that throw as a meta error', async () => {
    const source =
      "export const meta = { get name() { throw new Error('no'); } }; export function generate() { " +
      "return { prompt: 'p' }; }";
    const { load, results } = await pool.run({ source, calls: generateCalls([1]) });
    expect(load).toMatchObject({ ok: true, metaError: { code: 'E_THROWN' } });
    expect(results[0]).toMatchObject({ ok: false, code: 'E_MISSING_EXPORT', fn: 'solve' });
  });
});

describe('the supervisor stays bounded', () => {
  it('serves thousands of hostile calls without growing its own memory or its worker count', async () => {
    const hostile = [
      envSource({ generate: "throw { get message() { return 'x'.repeat(1e5); } };" }),
      envSource({ generate: "return { prompt: 'p', f: () => 1 };" }),
      envSource({ generate: 'const f = (n) => f(n + 1); return f(0);' }),
      envSource({ generate: "return { prompt: 'x'.repeat(2 ** 21) };" }),
    ];
    const calls = generateCalls(Array.from({ length: 100 }, (_, i) => (i % 3) + 1));
    const sample = async () => {
      for (let round = 0; round < 5; round++) {
        const runs = await Promise.all(hostile.map((source, i) => pool.run({ source, calls, fresh: i % 2 === 0 })));
        for (const run of runs) expect(run.results.every((r) => !r.ok)).toBe(true);
      }
    };
    await sample(); // warm up
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    await sample();
    await sample();
    global.gc?.();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 2 ** 20);
    expect(pool.workerPids().length).toBeLessThanOrEqual(2);
    await expectServing();
  }, 180_000); // 15 rounds of 600 hostile calls: ~15 s alone, 60 s seen with another test file beside it under load 13
});

describe('a job that cannot be serialised', () => {
  it('fails with E_TOO_LARGE (a value 20,000 levels deep overflows IPC) and the pool keeps serving', async () => {
    const deep: unknown = JSON.parse(`${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    const calls = [{ op: 'episode', seed: 1, level: 1, responses: [deep] }] as unknown as Call[];
    const { results } = await pool.run({ source: envSource(), calls });
    expect(results[0]).toMatchObject({
      ok: false,
      code: 'E_TOO_LARGE',
      message: expect.stringMatching(/could not be sent to the sandbox/),
    });
    await expectServing();
  });
});

describe('plain JSON values pass the check untouched', () => {
  it('accepts null, nested arrays and objects, empty containers, names the path of the first bad value', async () => {
    const ok = await generateWith(
      "return { prompt: 'p', a: null, b: [1, [2, null, { c: [] }], {}], d: { e: { f: 'g' } }, t: true };",
    );
    expect(ok).toMatchObject({ ok: true, value: { a: null, b: [1, [2, null, { c: [] }], {}] } });
    const { message } = failureOf(await generateWith("return { prompt: 'p', b: [1, [2, { c: [undefined] }]] };"));
    expect(message).toContain('$.b[1][1].c[0] is undefined');
  });
});

describe('slow failures are bounded', () => {
  it('stops a batch after a few calls time out, failing the rest unrun', async () => {
    const source = envSource({ generate: 'for (;;) {}' });
    const { results } = await pool.run({ source, calls: generateCalls(Array.from({ length: 40 }, () => 1)) });
    expect(results.every((r) => !r.ok && r.code === 'E_TIMEOUT')).toBe(true);
    expect((results[39] as { message: string }).message).toMatch(/not run: 3 earlier calls/);
    // 3 timeouts of 400 ms, not 40: the breaker spares the rest, unrun.
    expect(results.filter((r) => !r.ok && r.message.startsWith('not run:'))).toHaveLength(37);
  });

  it('accounts for results lost to promise jobs that run past the budget after a call returned', async () => {
    // The flood keeps no chain alive (each job returns undefined), so it runs out of time, not memory.
    const source = envSource({
      generate:
        'if (level === 2) { const go = () => { Promise.resolve().then(go); }; go(); } return { ' +
        "prompt: 'level ' + level };",
    });
    const { results } = await pool.run({ source, calls: generateCalls([1, 2, 3, 1]) });
    expect(results).toHaveLength(4);
    expect(results.map((r) => instanceOf(r)?.prompt ?? (r as { code: string }).code)).toEqual([
      'level 1',
      'E_TIMEOUT',
      'level 3',
      'level 1',
    ]);
  });

  it('reports a non-finite score as E_SCORE', async () => {
    const source = envSource({ verify: 'return { score: NaN };' });
    const { results } = await pool.run({ source, calls: generateCalls([1]) });
    expect((results[0] as { value: EpisodeValue }).value.verdicts[0]).toMatchObject({ ok: false, code: 'E_SCORE' });
  });
});

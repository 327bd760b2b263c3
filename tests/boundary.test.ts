// The sandbox boundary under hostile modules written for these tests: SES hardening in every isolate,
// stack traces out of reach, no global that reaches the runtime, failure codes made only by the host, and
// results matched to calls by id, including under a seeded fuzz of hostile values through the trampoline.
import { afterAll, describe, expect, it } from 'vitest';
import { CONTRACT_LIMITS } from '../contract/schema.js';
import { SandboxPool } from '../sandbox/pool.js';
import { DEFAULT_LIMITS, GUEST_CODES, type Call, type CallResult, type EpisodeValue } from '../sandbox/protocol.js';
import { ResultSlots } from '../sandbox/results.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import { envSource } from './helpers/env-source.js';

const pool = new SandboxPool({
  workers: 2,
  graceMs: 500,
  limits: { callTimeoutMs: 300, loadTimeoutMs: 1_000, sliceMs: 50 },
});
afterAll(() => pool.close());

/** The prompt a module's generate produced for one episode, or the failure. */
async function promptOf(generate: string, prelude = ''): Promise<string> {
  const { results } = await pool.run({
    source: envSource({ prelude, generate, solve: "return '<answer>1</answer>';" }),
    calls: [{ op: 'episode', seed: 1, level: 1 }],
  });
  const r = results[0] as CallResult;
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  return ((r.value as EpisodeValue).instance as { prompt: string }).prompt;
}

describe('every isolate runs under SES lockdown', () => {
  it.each([
    ['polluting Object.prototype.toJSON', 'Object.prototype.toJSON = function () { return { deep: [[[[1]]]] }; };'],
    [
      'a getter on Object.prototype.solve',
      "Object.defineProperty(Object.prototype, 'solve', { get() { return false; } });",
    ],
    [
      'replacing Array.prototype.join (the old trampoline used it)',
      'Array.prototype.join = function () { return \'{"ok":false,"code":"E_TIMEOUT"}\'; };',
    ],
    ['replacing JSON.stringify', 'JSON.stringify = () => "{}";'],
  ])('%s fails at load (frozen intrinsics)', async (_name, prelude) => {
    const { load } = await pool.run({ source: envSource({ prelude }), calls: [] });
    expect(load).toMatchObject({ ok: false, code: 'E_THROWN' });
  });

  it('hides stack traces from every route a module could take to its caller', async () => {
    const prompt = await promptOf(
      `
      const out = [];
      try { null.f(); } catch (e) { out.push(e.stack); }
      out.push(new Error('x').stack);
      const o = {}; Error.captureStackTrace(o); out.push(o.stack);
      try { Error.prepareStackTrace = (e, frames) => frames.map(String).join(); out.push(new Error('y').stack); } ` +
        `catch (e) { out.push('blocked'); }
      return { prompt: JSON.stringify(out) };`,
    );
    const routes = JSON.parse(prompt) as unknown[];
    // Assigning Error.prepareStackTrace is accepted and ignored (SES's compartment Error), so no route reads a frame.
    // SES's getStackString and a new Compartment are tripwires now (tests/tripwires.test.ts): reaching for them
    // rejects.
    expect(routes).toEqual(['', '', '', '']);
  });

  it(
    'leaves the guest only standard globals plus kit, harden, assert and console; the other ' +
      'names it sees are tripwires',
    async () => {
      const names = (await promptOf("return { prompt: Reflect.ownKeys(globalThis).map(String).join(' ') };")).split(
        ' ',
      );
      const extra = names.filter((n) => !/^[A-Z]/.test(n) && !STANDARD_LOWERCASE.has(n));
      // SES's privileged helpers keep their names as tripwires (sandbox/tripwires.js): calling one records the attempt.
      expect(extra.sort()).toEqual([
        'assert',
        'console',
        'getStackString',
        'harden',
        'hardenIntrinsics',
        'kit',
        'lockdown',
        'repairIntrinsics',
      ]);
      // Compartment is a tripwire too, and the removed globals are accessors that record a read and give undefined.
      const nonStandardCtors = names.filter((n) => /^[A-Z]/.test(n) && !(n in globalThis) && n !== 'Compartment');
      expect(nonStandardCtors).toEqual([]);
      expect(names).not.toContain('__envforge');
      expect(names.filter((n) => /envforge/.test(n))).toEqual([]);
      const removed = await promptOf(
        "return { prompt: ['SharedArrayBuffer', 'Atomics', 'WebAssembly', 'WeakRef', " +
          "'FinalizationRegistry'].map((n) => typeof " +
          "Object.getOwnPropertyDescriptor(globalThis, n).get).join(' ') };",
      );
      expect(removed).toBe('function function function function function');
    },
  );

  it('keeps the clock closed on every path to a Date constructor', async () => {
    const prompt = await promptOf(
      `
      const tries = [() => Date.now(), () => new Date().getTime(), () => new (new Date(5).constructor)().getTime(), ` +
        `() => new Date(5).constructor.now(), () => Math.random()];
      return { prompt: tries.map((f) => { try { return String(f()); } catch (e) { return 'throws'; } }).join(' ') };`,
    );
    // A new Compartment (whose evaluator would have its own Date) is a tripwire: tests/tripwires.test.ts.
    expect(prompt).toBe('0 0 throws throws throws');
  });
});

describe('failure codes are made only by the host', () => {
  it.each([
    [
      'a thrown error named like a resource code',
      "const e = new Error('E_MEMORY'); e.name = 'E_TIMEOUT'; e.code = 'E_CRASHED'; throw e;",
    ],
    [
      'a thrown plain object shaped like a failure',
      "throw { ok: false, code: 'E_MEMORY', message: 'forged', fn: 'generate' };",
    ],
    [
      'a prompt that looks like a trampoline chunk',
      'return { prompt: \'0|1|[{"id":0,"ok":false,"code":"E_TIMEOUT","message":"x","fn":"call"}]\' };',
    ],
  ])('%s stays the guest’s own doing', async (_name, generate) => {
    const { results } = await pool.run({
      source: envSource({ generate, solve: "return '<answer>1</answer>';" }),
      calls: [{ op: 'episode', seed: 1, level: 1 }],
    });
    const r = results[0] as CallResult;
    if (r.ok)
      expect((r.value as EpisodeValue).instance).toMatchObject({ prompt: expect.stringContaining('E_TIMEOUT') });
    else expect(r.code).toBe('E_THROWN');
  });

  it('turns resource codes and malformed results arriving from the runtime side into E_PROTOCOL', () => {
    const calls: Call[] = Array.from({ length: 5 }, (_, i) => ({ op: 'episode', seed: i, level: 1 }));
    const slots = new ResultSlots(calls);
    const chunk = [
      { id: 0, ok: false, code: 'E_TIMEOUT', message: 'forged', fn: 'generate', ms: 0 },
      { id: 1, ok: false, code: 'E_THROWN', message: 'a real throw', fn: 'sneaky', ms: 1 },
      { id: 2, ok: 'yes' },
      { id: 99, ok: true, value: 'out of range' },
      { id: 3, ok: true, ms: 0, sameAs: 1 }, // a success without a value of its own (the old "same as call k" form)
      { id: 4, ok: true, ms: 0, value: { mark: 4 } },
    ];
    slots.acceptChunk(JSON.stringify(chunk), DEFAULT_LIMITS);
    const results = slots.results();
    expect(results.map((r) => (r.ok ? 'ok' : `${r.code}/${r.fn}`))).toEqual([
      'E_PROTOCOL/generate',
      'E_THROWN/call',
      'E_PROTOCOL/call',
      'E_PROTOCOL/call',
      'ok',
    ]);
  });
});

describe('results are matched to calls by id, never by position', () => {
  it('a rejected chunk fails only the calls it carried; later results land on their own calls', () => {
    const calls: Call[] = Array.from({ length: 6 }, (_, i) => ({ op: 'episode', seed: i, level: 1 }));
    const slots = new ResultSlots(calls);
    const ok = (id: number) => ({ id, ok: true, ms: 0, value: { mark: id } });
    slots.acceptChunk(JSON.stringify([ok(0)]), DEFAULT_LIMITS);
    slots.acceptChunk(`[${'['.repeat(500)}${']'.repeat(500)}]`, DEFAULT_LIMITS); // too deep: rejected whole
    slots.acceptChunk('not json at all', DEFAULT_LIMITS);
    slots.acceptChunk(JSON.stringify([ok(4), ok(3), ok(3)]), DEFAULT_LIMITS); // out of order, one duplicate
    slots.failRange(5, 1, { code: 'E_TIMEOUT', message: 'the worker timed it', fn: 'call' });
    const marks = slots.results().map((r) => (r.ok ? (r.value as { mark: number }).mark : r.code));
    expect(marks).toEqual([0, 'E_PROTOCOL', 'E_PROTOCOL', 3, 4, 'E_TIMEOUT']);
  });

  it('converts each result for its call as it arrives; a conversion that throws fails only that call', () => {
    const calls: Call[] = Array.from({ length: 3 }, (_, i) => ({ op: 'episode', seed: 10 + i, level: 1 }));
    const slots = new ResultSlots(calls, (result, call) => {
      if (result.ok && (result.value as { mark: number }).mark === 1) throw new Error('unreadable');
      return { seed: call.seed, outcome: result.ok ? (result.value as { mark: number }).mark : result.code };
    });
    slots.acceptChunk(
      JSON.stringify([2, 1, 0].map((id) => ({ id, ok: true, ms: 0, value: { mark: id } }))),
      DEFAULT_LIMITS,
    );
    expect(slots.results()).toEqual([
      { seed: 10, outcome: 0 },
      { seed: 11, outcome: 'E_PROTOCOL' },
      { seed: 12, outcome: 2 },
    ]);
  });

  it('survives a seeded fuzz of hostile values through generate, solve and verify (bounded time)', async () => {
    const rng = loadPlainRuntime().makeRng(12, 34, 56, 78);
    for (let round = 0; round < 12; round++) {
      // Per level, a behaviour: well-behaved (prompt names the level) or one hostile value in one function.
      const table = Array.from({ length: 8 }, () =>
        rng.float() < 0.4
          ? null
          : { fn: rng.pick(['generate', 'solve', 'verify'] as const), value: rng.pick(HOSTILE_VALUES) },
      );
      const source = fuzzModule(table);
      const calls: Call[] = Array.from({ length: 16 }, (_, i) => ({
        op: 'episode',
        seed: i,
        level: rng.int(1, 8),
        responses: ['<answer>1</answer>'],
      }));
      const { results } = await pool.run({ source, calls });
      results.forEach((r, i) => {
        const level = (calls[i] as Call).level;
        const behaviour = table[level - 1];
        const where =
          `round ${round}, call ${i}, level ${level}, ` +
          `${behaviour ? `${behaviour.fn} returns ${behaviour.value}` : 'well-behaved'}: ` +
          `${JSON.stringify(r).slice(0, 300)}`;
        if (!r.ok) {
          // The breaker: after a few timeouts, the job's remaining calls fail unrun, honest or not.
          if (!r.message.startsWith('not run:')) expect(behaviour, where).not.toBeNull();
          expect([...GUEST_CODES, 'E_TIMEOUT', 'E_MEMORY'], where).toContain(r.code);
          return;
        }
        const value = r.value as EpisodeValue;
        // A result that came back is this call's own: its prompt names its level (unless generate was the hostile one).
        if (behaviour?.fn !== 'generate')
          expect((value.instance as { prompt: string }).prompt, where).toBe(`level ${level}`);
        for (const v of value.verdicts) if (!v.ok) expect([...GUEST_CODES], where).toContain(v.code);
        if (behaviour === null)
          expect(
            value.verdicts.map((v) => v.ok && v.value),
            where,
          ).toEqual([1, 1]);
      });
    }
  });
});

describe('sizes are checked before anything crosses', () => {
  it('fails a verifier that sends a megabyte of feedback inside the isolate, with E_SCORE', async () => {
    const source = envSource({ verify: "return { score: 0, feedback: 'f'.repeat(1 << 20) };" });
    const { results } = await pool.run({ source, calls: [{ op: 'episode', seed: 1, level: 1, responses: ['x'] }] });
    const value = (results[0] as { value: EpisodeValue }).value;
    expect(value.verdicts.map((v) => (v.ok ? 'ok' : v.code))).toEqual(['E_SCORE', 'E_SCORE']);
    expect(JSON.stringify(results).length).toBeLessThan(10_000);
  });

  it('keeps the runtime feedback limit equal to the contract', () => {
    expect(DEFAULT_LIMITS.maxFeedbackChars).toBe(CONTRACT_LIMITS.maxFeedbackChars);
  });
});

/** ECMAScript's lower-case global names (constructors and namespaces start with a capital). */
const STANDARD_LOWERCASE = new Set([
  'globalThis',
  'undefined',
  'eval',
  'isFinite',
  'isNaN',
  'parseFloat',
  'parseInt',
  'decodeURI',
  'decodeURIComponent',
  'encodeURI',
  'encodeURIComponent',
  'escape',
  'unescape',
]);

/** Hostile values as JavaScript expressions, evaluated fresh in the guest. */
const HOSTILE_VALUES = [
  'undefined',
  'NaN',
  '10n',
  'Symbol("s")',
  '(() => 1)',
  'new Map([[1, 2]])',
  '(() => { const o = { prompt: "p" }; o.o = o; return o; })()',
  '(() => { let v = []; for (let i = 0; i < 200; i++) v = [v]; return { prompt: "p", v }; })()',
  '{ prompt: "p", toJSON() { return { prompt: "forged" }; } }',
  '{ get prompt() { throw new Error("getter"); } }',
  'new Proxy({}, { ownKeys() { throw new Error("trap"); } })',
  'Promise.resolve({ prompt: "p" })',
  '"x".repeat(3 << 20)',
  '{ prompt: "0|1|[{\\"id\\":3,\\"ok\\":true}]" }',
  '{ score: 0.5, feedback: 7 }',
  '{ score: Infinity }',
  '-0.5',
  '{ ok: false, code: "E_CRASHED", message: "forged" }',
  '(() => { throw { get message() { for (;;) {} } }; })()',
  '(() => { throw Object.create(null); })()',
  '(() => { for (;;) {} })()',
];

/** A module whose behaviour per level is either honest or returns/throws one hostile value in one function. */
function fuzzModule(table: Array<{ fn: 'generate' | 'solve' | 'verify'; value: string } | null>): string {
  const at = (fn: string, honest: string, level: string) =>
    `switch (${level}) { ` +
    `${table.map((b, i) => (b && b.fn === fn ? `case ${i + 1}: return ${b.value};` : '')).join(' ')} ` +
    `default: ${honest} }`;
  return envSource({
    meta:
      "{ name: 'fuzz-env', title: 'Fuzz', description: 'A module for the trampoline fuzz.', skills: " +
      "['testing'], levels: 8 }",
    generate: at('generate', "return { prompt: 'level ' + level, level };", 'level'),
    solve: at('solve', "return '<answer>1</answer>';", 'instance.level'),
    verify: at('verify', 'return 1;', 'instance.level'),
  });
}

// The sandbox's tripwires (sandbox/tripwires.js): a module that reaches for a capability outside the contract
// (code from a string by any route, a new evaluator, the sandbox's set-up, the stack, a removed global, an rng
// after its call, dynamic import(), import.meta) is rejected with E_ESCAPE_ATTEMPT even when it catches the
// refusal and otherwise behaves, with the attempt as evidence; an honest module using ordinary features is admitted;
// an export quarantines a module that trips (the reward service's case: tests/serve-roles.test.ts).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashSource } from '../contract/hash.js';
import { jsonl } from '../export/formats/jsonl.js';
import { runExport } from '../export/run.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { runEpisodes } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import { validateCandidate } from '../validators/validate.js';
import { fakeAdmission, sampleMeta } from './helpers/library-fixtures.js';

const HONEST = readFileSync(new URL('./fixtures/tripwires/honest-ordinary-features.js', import.meta.url), 'utf8');
const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());

/** Each escape class: a name, an expression that reaches for the capability, and what the evidence names. */
const ATTEMPTS: Array<[string, string, RegExp]> = [
  [
    'a constructor chain to the Function constructor',
    "(() => {}).constructor('return this')()",
    /Function constructor/,
  ],
  [
    'the same chain through Reflect, with the name computed at run time',
    "Reflect.get(Reflect.getPrototypeOf(() => {}), ['con', 'struc', 'tor'].join(''))('return 1')",
    /Function constructor/,
  ],
  ['an object constructor chain', "({}).constructor.constructor('return globalThis')()", /Function constructor/],
  ['the async function constructor', "(async () => {}).constructor('return 1')", /AsyncFunction constructor/],
  [
    'the generator function constructor',
    "new (Object.getPrototypeOf(function* () {}).constructor)('yield 1')",
    /GeneratorFunction constructor/,
  ],
  [
    'the async generator function constructor',
    "(async function* () {}).constructor('yield 1')",
    /AsyncGeneratorFunction constructor/,
  ],
  [
    'the global Function, constructed through Reflect',
    "Reflect.construct(Function, ['return 1'])",
    /Function constructor/,
  ],
  ['direct eval', "eval('1 + 1')", /eval/],
  ['indirect eval under a computed name', "(0, globalThis['ev' + 'al'])('1 + 1')", /eval/],
  ['a new Compartment (an evaluator SES leaves open)', "new Compartment().evaluate('1 + 1')", /Compartment/],
  ["re-entering the sandbox's set-up", 'lockdown()', /set-up \(lockdown\)/],
  ["SES's stack helper", "getStackString(new Error('where am I'))", /set-up \(getStackString\)/],
  ['walking the stack toward the runtime', '(function f() { return f.caller; })()', /the stack/],
  ['a removed global', "globalThis['Web' + 'Assembly'].Memory", /removed global \(WebAssembly\)/],
];

/** The honest module with `code` run first in `fn`, its failure caught and ignored. */
function withAttempt(fn: 'generate' | 'verify', code: string, guard = 'true'): string {
  const head = `export function ${fn}(`;
  const at = HONEST.indexOf(head);
  const body = HONEST.indexOf('{', at) + 1;
  return (
    `${HONEST.slice(0, body)}\n  if (${guard}) { try { ${code}; } catch (refused) { /* behave as if nothing ` +
    `happened */ } }${HONEST.slice(body)}`
  );
}

const QUICK = { options: { seedsPerLevel: 4, minSamples: 0 } };

describe('tripwires in the sandbox', () => {
  it.each(ATTEMPTS)(
    '%s: the call fails with E_ESCAPE_ATTEMPT though the module caught the refusal, and the pool remembers the module',
    async (_name, code, names) => {
      const source = withAttempt('generate', code);
      const run = await runEpisodes(pool, source, [
        { seed: 1, level: 1 },
        { seed: 2, level: 2 },
      ]);
      expect(run.episodes.map((e) => (e.ok ? 'ok' : e.code))).toEqual(['E_ESCAPE_ATTEMPT', 'E_ESCAPE_ATTEMPT']);
      expect(run.episodes[0]).toMatchObject({ fn: 'generate', message: expect.stringMatching(names) });
      expect(pool.trips.of(hashSource(source)).join('\n')).toMatch(names);
    },
  );

  it('the same module without the attempt runs, and the pool has nothing against it', async () => {
    const run = await runEpisodes(pool, HONEST, [{ seed: 1, level: 1 }]);
    expect(run.episodes[0]).toMatchObject({ ok: true });
    expect(pool.trips.of(hashSource(HONEST))).toEqual([]);
  });

  it('an rng kept past its call and drawn from by work the call left behind trips a wire', async () => {
    const source = withAttempt(
      'generate',
      'Promise.resolve().then(() => { try { rng.int(1, 2); } catch (late) { /* caught */ } })',
    );
    const run = await runEpisodes(pool, source, [{ seed: 1, level: 1 }]);
    expect(run.episodes[0]).toMatchObject({
      ok: false,
      code: 'E_ESCAPE_ATTEMPT',
      message: expect.stringMatching(/rng of a call that had returned/),
    });
  });

  it('a trip in work left behind fails the calls of its crossing, though each had returned a result', async () => {
    const source = withAttempt(
      'generate',
      "Promise.resolve().then(() => { try { Function('x'); } catch (late) { /* caught */ } })",
    );
    const run = await runEpisodes(
      pool,
      source,
      Array.from({ length: 4 }, (_, i) => ({ seed: i, level: 1 })),
    );
    expect(run.episodes.every((e) => !e.ok && e.code === 'E_ESCAPE_ATTEMPT')).toBe(true);
  });

  it.each([
    ['dynamic import()', "const later = () => import('node:fs');\n", /dynamic import\(\) \(line 1\)/],
    ['import.meta', 'const where = import.meta;\n', /import\.meta \(line 1\)/],
    [
      'a top level that reaches for eval and catches it',
      "try { eval('1'); } catch (refused) { /* caught */ }\n",
      /eval/,
    ],
  ])('%s fails the load, so every call fails', async (_name, head, names) => {
    const load = await pool.load(head + HONEST);
    expect(load).toMatchObject({ ok: false, code: 'E_ESCAPE_ATTEMPT', message: expect.stringMatching(names) });
  });

  it('import() and import.meta written in comments or strings are not reaches: the parse reads tokens', async () => {
    const load = await pool.load(
      `// import('node:fs') and import.meta in a comment\nconst note = "import('x') import.meta";\n${HONEST}`,
    );
    expect(load).toMatchObject({ ok: true });
  });
});

describe('the validator rejects every escape class with E_ESCAPE_ATTEMPT and admits the honest module', () => {
  it('admits the honest module that uses classes, constructors, Reflect, Proxy, getters, generators, JSON ' +
    'and regular expressions', async () => {
    const report = await validateCandidate(HONEST, { pool, ...QUICK });
    expect(report.problems).toEqual([]);
    expect(report.verdict).toBe('admit');
  }, 180_000);

  it.each(ATTEMPTS)(
    '%s in generate: rejected with the attempt as evidence',
    async (_name, code, names) => {
      const report = await validateCandidate(withAttempt('generate', code), { pool, ...QUICK });
      expect(report.verdict).toBe('reject');
      expect(
        report.problems
          .filter((p) => p.code === 'E_ESCAPE_ATTEMPT')
          .map((p) => p.message)
          .join('\n'),
      ).toMatch(names);
    },
    60_000,
  );

  it('an attempt in verify that only very long responses reach (the hack probes), caught, ' +
    'still rejects the module', async () => {
    const report = await validateCandidate(
      withAttempt('verify', "Function('return globalThis')()", 'response.length > 5000'),
      { pool, ...QUICK },
    );
    expect(report.verdict).toBe('reject');
    expect(report.problems).toContainEqual(
      expect.objectContaining({ code: 'E_ESCAPE_ATTEMPT', message: expect.stringMatching(/Function constructor/) }),
    );
  }, 180_000);
});

describe('in production', () => {
  it('an export quarantines a module that trips a wire on one instance in eight, and leaves it out; the ' +
    'tripwire is its own incident', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'envforge-trip-export-')), 'lib');
    const library = SqliteLibrary.open(dir, { create: true });
    try {
      // Admitted on a test report, as a module that slipped past an older validator would be.
      const tripping = withAttempt('generate', "(0, eval)('1')", 'rng.int(1, 8) === 1');
      await library.admit(
        fakeAdmission(
          tripping,
          sampleMeta('gcd-pair-total-features', { levels: 10, skills: ['number-theory', 'combinatorics'] }),
        ),
      );
      const summary = await runExport(library, pool, {
        format: jsonl,
        out: join(dir, '..', 'out'),
        selection: {},
        counts: { perEnv: 40 },
        splits: [{ name: 'train', weight: 1 }],
        seed: 5,
        serviceUrl: 'http://127.0.0.1:1',
      });
      expect(summary.quarantined).toEqual([
        {
          name: 'gcd-pair-total-features',
          version: 1,
          reason: expect.stringMatching(/reached for a capability outside the contract \(E_ESCAPE_ATTEMPT/),
        },
      ]);
      expect((await library.incidents({ open: true })).map((i) => [i.code, i.origin])).toContainEqual([
        'E_ESCAPE_ATTEMPT',
        'export',
      ]);
    } finally {
      await library.close();
    }
  }, 60_000);
});

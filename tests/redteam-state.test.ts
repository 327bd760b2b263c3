// The red team's second round against episode isolation (after FINDINGS D1/D4 were fixed with fresh module
// instances): modules that try to carry state from one call to the next through what every instance of a
// realm shares (the global object and global scope, prototypes and intrinsics, RegExp statics,
// Error.stackTraceLimit, promise jobs, the instance factory's own scope), and a module that buys a shared
// instance with a costly top level.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runEpisodes, scoreOf, type Episode } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';

const DIR = new URL('./fixtures/redteam/', import.meta.url);
const source = (file: string) => readFileSync(new URL(file, DIR), 'utf8');
const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());

const CHANNELS = [
  'state-shared-prototypes.js',
  'state-regexp-statics.js',
  'state-stack-trace-limit.js',
  'state-microtask-carry.js',
];
// Channels that reach for a capability outside the contract (eval and the Function constructors, import.meta):
// the attempt itself trips a wire (sandbox/tripwires.js), so no call of theirs returns a result at all.
const TRIPPING = ['state-global-lexical-eval.js', 'state-factory-scope.js'];

describe('state across calls through what a realm shares', () => {
  for (const file of CHANNELS) {
    it(`${file}: every call reads a count of 1 and no wrong answer pays, over jobs and workers`, async () => {
      const wrong = ['<answer>-1</answer>', '<answer>-2</answer>', '<answer>-3</answer>'];
      const counts = new Set<string>();
      const paid: number[] = [];
      // Three jobs in a row (the same cached realm), one with GRPO-sized groups.
      for (const responses of [wrong, wrong, Array.from({ length: 8 }, (_, k) => `<answer>-${k + 1}</answer>`)]) {
        const run = await runEpisodes(
          pool,
          source(file),
          Array.from({ length: 60 }, (_, i) => ({ seed: i, level: 1 + (i % 3), responses })),
        );
        expect(run.load).toMatchObject({ ok: true, instancing: 'episode' });
        for (const e of run.episodes) {
          expect(e.ok).toBe(true);
          counts.add(/\(call (\d+)\)/.exec((e as Episode).instance.prompt)?.[1] ?? 'none');
          paid.push(...(e as Episode).verdicts.map(scoreOf).filter((s) => s > 0));
          expect(scoreOf((e as Episode).referenceVerdict)).toBe(1);
        }
      }
      expect([...counts]).toEqual(['1']);
      expect(paid).toEqual([]);
    });
  }

  for (const file of TRIPPING) {
    it(
      `${file}: reaching for the evaluators or import.meta fails every call with E_ESCAPE_ATTEMPT, so nothing ` +
        `carries and nothing pays`,
      async () => {
        const run = await runEpisodes(
          pool,
          source(file),
          Array.from({ length: 12 }, (_, i) => ({ seed: i, level: 1 + (i % 3), responses: ['<answer>-1</answer>'] })),
        );
        expect(run.episodes.map((e) => (e.ok ? 'ok' : e.code))).toEqual(Array(12).fill('E_ESCAPE_ATTEMPT'));
      },
    );
  }

  it('eval and the Function constructors are disabled and trip a wire; the global object is frozen', async () => {
    const probe = (tries: string) =>
      `export const meta = { name: 'probe', title: 'Probe', description: 'Probes the realm.', skills: ` +
      `['testing'], levels: 3 };
      const tries = { ${tries} };
      export function generate() { const out = []; for (const [k, f] of Object.entries(tries)) { try { f(); ` +
      `out.push(k + ':ran'); } catch { out.push(k + ':refused'); } } return { prompt: out.join(' ') }; }
      export function solve() { return '<answer>1</answer>'; }
      export function verify() { return 1; }`;
    const frozen = await runEpisodes(pool, probe('global: () => { globalThis.x = 1; return globalThis.x; }'), [
      { seed: 1, level: 1 },
    ]);
    expect((frozen.episodes[0] as Episode).instance.prompt).toBe('global:refused');
    for (const tries of ["eval: () => (0, eval)('1')", "Function: () => Function('return 1')()"]) {
      const run = await runEpisodes(pool, probe(tries), [{ seed: 1, level: 1 }]);
      expect(run.episodes[0]).toMatchObject({ ok: false, code: 'E_ESCAPE_ATTEMPT' });
    }
  });
});

describe('a costly top level buys no shared instance', () => {
  const GROUPS = async (file: string) => {
    const scores: number[] = [];
    for (let prompt = 0; prompt < 6; prompt++) {
      // -1: never a residue (0 can be, e.g. an even base modulo 128).
      const run = await runEpisodes(pool, source(file), [
        { seed: 300 + prompt, level: 3, responses: Array.from({ length: 8 }, () => '<answer>-1</answer>') },
      ]);
      expect(scoreOf((run.episodes[0] as Episode).referenceVerdict)).toBe(1);
      scores.push(...(run.episodes[0] as Episode).verdicts.map(scoreOf));
    }
    return scores;
  };
  it('hostile-slow-top-level-gate.js: its calls still get new instances (the top level is paid per call)', async () => {
    const load = await pool.load(source('hostile-slow-top-level-gate.js'));
    expect(load).toMatchObject({ ok: true, instancing: 'episode' });
    // The top level does cost: the module was once given a shared instance for it.
    expect((load as { loadMs: number }).loadMs).toBeGreaterThan(2);
  });
  // Was a known gap while costly modules shared one instance per realm: the verify counter survived between
  // episodes and opened on GRPO-sized groups, which the validator's lifetime run never formed.
  it('hostile-slow-top-level-gate.js: wrong rollouts in GRPO-sized groups keep scoring 0', async () => {
    expect(Math.max(...(await GROUPS('hostile-slow-top-level-gate.js')))).toBe(0);
  });
});

// The offline author: its DSL is typed (every operation does what its type says, ill-typed programs are
// refused, no ill-typed program is ever emitted), it is deterministic in its seed, its modules pass the real
// validator, and a whole batch runs on it with no LLM.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CostLedger } from '../agents/llm/cost.js';
import { createOfflineAuthor, offlineSkills, type OfflineSpec } from '../agents/offline/author.js';
import { DslTypeError, jsOf, OPS, typeOf, instantiate, opById, type Ty } from '../agents/offline/dsl.js';
import { FAMILIES } from '../agents/offline/design.js';
import { authorRng, drawDesign, SHAPES, workType } from '../agents/offline/synth.js';
import type { ArchitectInput } from '../agents/prompts.js';
import { taxonomySkills } from '../agents/spec.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { DEFAULT_BATCH_OPTIONS, runBatch } from '../pipeline/batch.js';
import { SandboxPool } from '../sandbox/pool.js';
import { NoveltyIndex } from '../validators/novelty/lsh.js';
import { validateCandidate } from '../validators/validate.js';

const pool = new SandboxPool();
afterAll(() => pool.close());

/** Whether a runtime value has the DSL type. */
function hasType(value: unknown, ty: Ty): boolean {
  if (ty === 'int') return Number.isSafeInteger(value);
  if (ty === 'list') return Array.isArray(value) && value.every((x) => Number.isSafeInteger(x));
  if (ty === 'str') return typeof value === 'string' && /^[a-z]*$/.test(value);
  return typeof value === 'string' && /^[UDLR]*$/.test(value);
}

function sampleValue(ty: Ty, rng: ReturnType<typeof authorRng>): unknown {
  const n = rng.int(0, 9);
  if (ty === 'int') return rng.int(10, 99_999);
  if (ty === 'list') return Array.from({ length: n }, () => rng.int(-20, 40));
  if (ty === 'str') return Array.from({ length: n }, () => rng.pick([...'abcdefghijklmnopqrstuvwxyz'])).join('');
  return Array.from({ length: n }, () => rng.pick(['U', 'D', 'L', 'R'])).join('');
}

const compile = (js: string) => new Function(`return ${js};`)() as (v: unknown) => unknown;
const emptyStats = {
  environments: 0,
  versions: 0,
  byStatus: {},
  bySkill: {},
  byAuthor: {},
  levels: null,
  rejections: 0,
};

describe('the offline DSL', () => {
  it(
    'gives every operation a value of its declared output type, for random parameters and ' +
      'inputs of its input type',
    () => {
      const rng = authorRng(1, 'ops');
      for (const op of OPS) {
        for (let i = 0; i < 40; i++) {
          const step = instantiate(op, rng);
          const input = sampleValue(op.in, rng);
          // int-domain operations see non-negative values in programs, and words only lowercase letters.
          const out = compile(jsOf(step))(op.in === 'int' ? Math.abs(input as number) : input);
          expect(
            hasType(out, op.out),
            `${op.id}${JSON.stringify(step.params)} on ${JSON.stringify(input)} gave ${JSON.stringify(out)}`,
          ).toBe(true);
        }
      }
    },
  );

  it('refuses ill-typed programs and names the step', () => {
    expect(() => typeOf('list', [{ op: 'str-reverse', params: {} }])).toThrow(DslTypeError);
    expect(() =>
      typeOf('list', [
        { op: 'list-sort-up', params: {} },
        { op: 'list-sum', params: {} },
        { op: 'list-reverse', params: {} },
      ]),
    ).toThrow(/step 3 \(list-reverse\) takes list but receives int/);
    expect(() => typeOf('int', [{ op: 'no-such-op', params: {} }])).toThrow(/unknown operation/);
    expect(() => typeOf('list', [{ op: 'list-mod', params: {} }])).toThrow(/needs parameters \[m\]/);
    expect(() => typeOf('str', [{ op: 'str-replace', params: { a: "x'); throw 1; ('", b: 'y' } }])).toThrow(
      /one lowercase letter/,
    );
    expect(
      typeOf('int', [
        { op: 'int-digits', params: {} },
        { op: 'list-sort-up', params: {} },
        { op: 'list-sum', params: {} },
      ]),
    ).toBe('int');
  });

  it('only uses skills of the taxonomy', () => {
    const taxonomy = new Set(taxonomySkills());
    for (const op of OPS) for (const skill of op.skills) expect(taxonomy.has(skill), `${op.id}: ${skill}`).toBe(true);
    expect(offlineSkills().length).toBeGreaterThan(20);
  });

  it(
    'never draws an ill-typed program: every level of every drawn design type-checks and runs ' +
      'with the declared types',
    () => {
      const rng = authorRng(2, 'designs');
      for (const family of FAMILIES) {
        for (const shape of SHAPES) {
          for (let i = 0; i < 15; i++) {
            const design = drawDesign(rng, { family, shape });
            const work = workType(shape);
            for (const knobs of design.levels) {
              const program = [...design.steps.slice(0, knobs.steps), design.finish];
              expect(() => typeOf(design.domain, program)).not.toThrow();
              let value = sampleValue(design.domain, rng);
              if (design.domain === 'int') value = Math.abs(value as number);
              for (const step of program) {
                expect(hasType(value, opById(step.op).in)).toBe(true);
                value = compile(jsOf(step))(value);
                expect(hasType(value, opById(step.op).out), `${step.op} gave ${JSON.stringify(value)}`).toBe(true);
              }
            }
            for (const alt of design.alternatives) expect(typeOf(work, [alt])).toBe(work);
          }
        }
      }
    },
  );
});

describe('the offline author', () => {
  const input: ArchitectInput = { stats: emptyStats, n: 6, environments: [] };

  it('is deterministic in its seed: the same seed gives the same specs and modules, another seed others', async () => {
    const specsOf = async (seed: number) => {
      const author = createOfflineAuthor({ seed });
      const { specs } = await author.propose(input);
      const sources = await Promise.all(specs.map(async (s) => (await author.write(s)).source));
      return { names: specs.map((s) => s.name), sources };
    };
    const a = await specsOf(11);
    const b = await specsOf(11);
    const c = await specsOf(12);
    expect(a.names).toHaveLength(6);
    expect(b).toEqual(a);
    expect(c.names.filter((n) => a.names.includes(n))).toEqual([]);
    expect(a.sources.every((s) => typeof s === 'string' && s.includes('seed 11'))).toBe(true);
  });

  it('aims at the weak skills first, then at skills the library lacks', async () => {
    const author = createOfflineAuthor({ seed: 3 });
    const bySkill = Object.fromEntries(
      offlineSkills()
        .filter((s) => s !== 'bit-manipulation')
        .map((s) => [s, 5]),
    );
    const { specs } = await author.propose({
      stats: { ...emptyStats, bySkill },
      n: 3,
      environments: [],
      weakSkills: [{ skill: 'encoding', passRate: 0.1, n: 50 }],
    });
    expect(specs[0]?.skills).toContain('encoding');
    expect(specs[1]?.skills).toContain('bit-manipulation');
    expect(specs[0]?.whyNew).toMatch(/trainer is weak/);
  });

  it('refuses skills it cannot train, with the list of those it can', async () => {
    const author = createOfflineAuthor({ seed: 3 });
    await expect(author.propose({ ...input, taxonomy: { requested: ['network-flow'] } })).rejects.toThrow(
      /cannot train any of the requested skills \(network-flow\); it covers: .*program-tracing/,
    );
  });

  it('writes modules the real validator admits, mutually novel, across all four families', async () => {
    const author = createOfflineAuthor({ seed: 5 });
    const { specs } = await author.propose({ ...input, n: 8 });
    expect(new Set(specs.map((s) => (s as OfflineSpec).offline.design.family)).size).toBe(4);
    const novelty = new NoveltyIndex();
    const verdicts: string[] = [];
    for (const spec of specs) {
      const { source } = await author.write(spec);
      const report = await validateCandidate(source as string, { pool, novelty });
      verdicts.push(`${spec.name}: ${report.verdict} ${report.problems.map((p) => p.code).join(',')}`);
      if (report.verdict === 'admit') novelty.add(spec.name, report.fingerprint!);
    }
    expect(verdicts.filter((v) => v.includes(': admit')).length, verdicts.join('\n')).toBeGreaterThanOrEqual(6);
  });

  it('repairs by drawing a new program for the same target, named after that program (not the first one)', async () => {
    const author = createOfflineAuthor({ seed: 5 });
    const [spec] = (await author.propose({ ...input, n: 1 })).specs;
    const first = await author.write(spec!);
    const repaired = await author.repair(
      spec!,
      first.source!,
      { problems: [{ code: 'E_DUPLICATE_BEHAVIOUR' }] } as never,
      1,
    );
    expect(repaired.source).not.toBe(first.source);
    const name = /"name": "([^"]+)"/.exec(repaired.source!)?.[1];
    expect(name).not.toBe(spec!.name);
    expect(name).toMatch(/-[0-9a-f]{6}$/); // its own tag words and design hash
  });
});

describe('a batch with the offline author', () => {
  it('admits new environments with no LLM and records the author, its version and seed in the lineage', async () => {
    const runOnce = async () => {
      const library = SqliteLibrary.open(join(mkdtempSync(join(tmpdir(), 'envforge-offline-')), 'library'), {
        create: true,
      });
      const ledger = new CostLedger({ batchId: 'nightly' });
      const report = await runBatch(
        { library, pool, author: createOfflineAuthor({ seed: 21 }), ledger },
        { ...DEFAULT_BATCH_OPTIONS, batchId: 'nightly', target: 4, maxCandidates: 12, concurrency: 1, review: false },
      );
      const envs = await library.list();
      await library.close();
      return { report, envs };
    };
    const first = await runOnce();
    expect(first.report.admitted.length).toBeGreaterThanOrEqual(4);
    expect(first.report.cost.totalUsd).toBe(0);
    for (const env of first.envs) {
      expect(env.lineage.author).toBe('offline');
      expect(env.lineage.notes).toMatchObject({ version: '1', seed: 21 });
    }
    // Same seed, same (empty) library, one candidate at a time: the same environments, byte for byte.
    const second = await runOnce();
    expect(second.envs.map((e) => [e.name, e.hash])).toEqual(first.envs.map((e) => [e.name, e.hash]));
  }, 120_000);
});

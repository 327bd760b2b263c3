// Prompts and observations carry no template or source residue: code that leaked into a string, unfilled
// placeholders, values JavaScript prints for a bug. Judged against the module's own source, so a task about
// JavaScript keeps its code, and over the generated text of many instances (the offline author's too).
import { afterAll, describe, expect, it } from 'vitest';
import { createOfflineAuthor } from '../agents/offline/author.js';
import type { ArchitectInput } from '../agents/prompts.js';
import { parseEpisodicMeta } from '../contract/episodic.js';
import { SandboxPool } from '../sandbox/pool.js';
import { runRollouts } from '../sandbox/rollouts.js';
import { sourceParts } from '../sandbox/source-parts.js';
import { residueIn, residueProblems } from '../validators/residue.js';
import { validateCandidate } from '../validators/validate.js';
import { envSource } from './helpers/env-source.js';

const pool = new SandboxPool();
afterAll(() => pool.close());

const GRID_SOURCE =
  `const THEME = { place: 'a walled orchard', cell: 'plot' };
export function reset(rng, level) {
  const w = { size: 3 + level };
  return { state: {}, prompt: \`You explore \${THEME.place}, a square of \${w.size} by \${w.size} " + THEME.cell + ` +
  `"s numbered from (0,0).\` };
}`;

const found = (text: string, source: string) => residueIn(text, sourceParts(source)).map((f) => f.fragment);

describe('template and source residue', () => {
  it(
    "finds code the module left in its text, even inside a template's text part, and " + 'member paths of its own code',
    () => {
      expect(
        found('You explore a walled orchard, a square of 4 by 4 " + THEME.cell + "s numbered from (0,0).', GRID_SOURCE),
      ).toEqual(['" + THEME.cell + "']);
      expect(found('The board has w.size rows.', GRID_SOURCE)).toEqual(['w.size']);
      expect(found('Add the numbers: function (a, b) { return a + b; }', 'export const f = 1;')).toContain(
        'function (',
      );
    },
  );

  it("finds unfilled placeholders: ${x}, {{x}}, and {name} when name is one of the module's identifiers", () => {
    const source =
      'const count = 3; const greeting = "Hello {{user}}"; export function generate(rng, level) { ' +
      'return { prompt: "x" }; }';
    expect(found('You have ${count} apples.', source)).toEqual(['${count}']);
    expect(found('Dear {{ user_name }}, pick one.', source)).toEqual(['{{ user_name }}']);
    expect(found('Take {count} steps.', source)).toEqual(['{count}']);
    expect(found('Is 3 in the set {x}?', source)).toEqual([]); // not a name of the module: set notation
  });

  it('finds values JavaScript prints for a bug: undefined, NaN, [object Object]', () => {
    const source = 'export const meta = {};';
    expect(found('Your budget is NaN dollars for undefined items: [object Object].', source)).toEqual([
      'NaN',
      'undefined',
      '[object Object]',
    ]);
  });

  it('keeps an honest task about JavaScript: code and words the module writes as string content are its own', () => {
    const source =
      `const SNIPPETS = ['[1, 2, 3].map(x => x * 2)', 'typeof undefined', 'const f = ` +
      `function (a) { return a; }'];
      export function generate(rng) { const s = rng.pick(SNIPPETS); return { prompt: 'What does this JavaScript ` +
      `evaluate to? ' + s, answer: 1 }; }`;
    expect(found('What does this JavaScript evaluate to? [1, 2, 3].map(x => x * 2)', source)).toEqual([]);
    expect(found('What does this JavaScript evaluate to? typeof undefined', source)).toEqual([]);
    expect(found('What does this JavaScript evaluate to? const f = function (a) { return a; }', source)).toEqual([]);
  });

  it("reports how many sampled texts carry residue, with the first one's seed, level and place", () => {
    const texts = [
      { seed: 1, level: 1, where: 'prompt', text: 'fine' },
      { seed: 2, level: 3, where: 'observation 4', text: 'You see undefined.' },
    ];
    const [problem] = residueProblems('export const meta = {};', texts);
    expect(problem).toMatchObject({
      code: 'E_TEXT_RESIDUE',
      message: expect.stringMatching(
        new RegExp(
          '^1 of 2 sampled texts .* the observation 4 of seed 2 level 3 shows a value JavaScript ' +
            String.raw`prints for a bug \("undefined"\)`,
        ),
      ),
    });
  });

  it('the validator rejects a single-turn module whose prompt carries residue, at the execution stage', {
    timeout: 60_000,
  }, async () => {
    const generate =
      'const a = rng.int(2, 9 * level), b = rng.int(2, 9 * level); const sum = { value: a + b }; return { ' +
      "prompt: 'Add ' + a + ' and ' + b + ' (hint: ' + sum + '). Answer as " +
      "<answer>N</answer>.', answer: a + b };";
    const report = await validateCandidate(envSource({ generate }), { pool });
    expect(report.verdict).toBe('reject');
    expect(report.problems.find((p) => p.code === 'E_TEXT_RESIDUE')).toMatchObject({
      stage: 'execution',
      message: expect.stringContaining('[object Object]'),
    });
  });

  it("the offline author's episodic modules (grid worlds included) carry no residue in their " +
    'prompts and observations', {
    timeout: 120_000,
  }, async () => {
    const stats = {
      environments: 0,
      versions: 0,
      byStatus: {},
      bySkill: {},
      byAuthor: {},
      byKind: { single: 0, episodic: 0 },
      levels: null,
      rejections: 0,
    };
    const input: ArchitectInput = { stats, n: 6, kind: 'episodic', environments: [] };
    let grids = 0;
    for (const seed of [1, 2]) {
      const author = createOfflineAuthor({ seed });
      for (const spec of (await author.propose(input)).specs) {
        const { source } = await author.write(spec);
        if (!source) continue;
        if (source.includes('THEME.cell')) grids++;
        const load = await pool.load(source);
        const meta = load.ok ? parseEpisodicMeta(load.meta) : null;
        if (!meta) throw new Error(`${spec.name} does not load`);
        const requests = [1, 2, meta.levels].flatMap((level) =>
          [11, 12].map((seed) => ({ seed, level, policy: { type: 'act' as const }, observations: true })),
        );
        const { rollouts } = await runRollouts(pool, source, meta, requests);
        const texts = rollouts.flatMap((r) =>
          r.ok
            ? [
                { seed: r.seed, level: r.level, where: 'prompt', text: r.prompt ?? '' },
                ...(r.observations ?? []).map((text, i) => ({
                  seed: r.seed,
                  level: r.level,
                  where: `observation ${i + 1}`,
                  text,
                })),
              ]
            : [],
        );
        expect(residueProblems(source, texts), spec.name).toEqual([]);
      }
    }
    expect(grids).toBeGreaterThan(0);
  });
});

// The offline author's pick-the-input family draws its options alike and picks the right one among them
// afterwards, so no feature of the options singles it out: the validator's options reader, fitted on half of
// many instances, finds the right option no more often than 1/K on the other half. A program that keeps a
// running maximum once made the right input the alphabetically last option at a level (a wrong option was
// drawn on the condition that its output differed from the truth's, and late first letters collide).
import { describe, expect, it } from 'vitest';
import type { Design } from '../agents/offline/design.js';
import { emitModule } from '../agents/offline/emit.js';
import { deriveRngState } from '../sandbox/rng.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import { choiceRates } from '../validators/screen.js';
import { DEFAULT_VALIDATOR_OPTIONS as O } from '../validators/options.js';
import { lowerBound } from '../validators/stats.js';

const design: Design = {
  family: 'pick-input',
  domain: 'str',
  steps: [
    { op: 'str-positions', params: {} },
    { op: 'list-pointer-walk', params: {} },
    { op: 'list-add-position', params: { c: 3 } },
    { op: 'list-running-max', params: {} },
    { op: 'list-affine', params: { a: 2, b: -1 } },
    { op: 'list-squash-repeats', params: {} },
  ],
  core: 1,
  finish: { op: 'list-output', params: {} },
  alternatives: [],
  levels: [
    { steps: 2, size: 5, hi: 9, options: 4, examples: 3 },
    { steps: 3, size: 6, hi: 12, options: 4, examples: 3 },
    { steps: 4, size: 7, hi: 15, options: 5, examples: 4 },
    { steps: 4, size: 8, hi: 20, options: 5, examples: 4 },
    { steps: 5, size: 9, hi: 25, options: 6, examples: 5 },
    { steps: 6, size: 10, hi: 30, options: 6, examples: 5 },
  ],
  alphabet: 'dginor',
};

describe('the offline pick-input family', () => {
  it(
    'gives no option rule an edge over 1/K at any level (600 instances a level, judged ' + "by the validator's rule)",
    () => {
      const name = 'pick-input-running-max';
      const source = emitModule(design, {
        name,
        title: 'Pick the input',
        description: 'Pick the input behind an output.',
        skills: ['search'],
        provenance: 'test',
      });
      const runtime = loadPlainRuntime();
      const mod = new Function(
        'kit',
        `"use strict";\n${source.replace(/^export (const|function) /gm, '$1 ')}\nreturn { generate, solve };`,
      )(runtime.kit) as {
        generate(rng: unknown, level: number): { prompt: string };
        solve(instance: unknown): string;
      };
      const samples = design.levels.flatMap((_, i) =>
        Array.from({ length: 600 }, (_, seed) => {
          const instance = mod.generate(runtime.makeRng(...deriveRngState(name, seed, i + 1)), i + 1);
          return { seed, level: i + 1, reference: mod.solve(instance), instance: { prompt: instance.prompt } };
        }),
      );
      // Judged as the validator judges an options rule: its lower bound at guessZ, beyond 1/K by the tolerance.
      const edges = choiceRates(samples)
        .filter((r) => r.level !== null)
        .map((r) => ({
          level: r.level,
          rule: r.rules[0],
          edge: Number((lowerBound(r.rate, r.n, O.guessZ) - r.chance).toFixed(3)),
        }));
      expect(edges).toHaveLength(6);
      expect(edges.filter((e) => e.edge > O.choiceGuessTolerance)).toEqual([]);
    },
  );
});

// The validator's plan: stages declare what they read and produce, and the order is derived from that
// (validators/order.ts, validators/plan.ts), with clear errors for a plan that cannot be ordered.
import { describe, expect, it } from 'vitest';
import { KINDS } from '../kinds/registry.js';
import { orderWaves, PlanError } from '../validators/order.js';
import { planFor } from '../validators/plan.js';

const step = (name: string, reads: string[], produces: string[] = []) => ({ name, reads, produces });
const names = (waves: Array<Array<{ name: string }>>) => waves.map((wave) => wave.map((s) => s.name));

describe('the derived stage order', () => {
  it('puts each step in the wave after the last producer of its reads, in declaration order within one', () => {
    const waves = orderWaves([
      step('review', ['a', 'c']),
      step('b', ['a'], ['b']),
      step('first', [], ['a']),
      step('c', ['b'], ['c']),
      step('side', ['a']),
    ]);
    expect(names(waves)).toEqual([['first'], ['b', 'side'], ['c'], ['review']]);
  });

  it('refuses a step that reads a fact no step produces, naming both', () => {
    expect(() => orderWaves([step('static', [], ['meta']), step('difficulty', ['meta', 'baselines'])])).toThrow(
      new PlanError('validator plan: difficulty reads baselines, which no step produces'),
    );
  });

  it('refuses a cycle, naming the steps around it', () => {
    expect(() => orderWaves([step('a', ['y'], ['x']), step('b', ['x'], ['y'])])).toThrow(
      /validator plan: a cycle, a → b → a/,
    );
    expect(() => orderWaves([step('self', ['x'], ['x'])])).toThrow(/a cycle, self → self/);
  });

  it('refuses a fact produced by two steps', () => {
    expect(() => orderWaves([step('hack', [], ['baselines']), step('baselines', [], ['baselines'])])).toThrow(
      /baselines is produced by both hack and baselines/,
    );
  });
});

describe("each kind's plan", () => {
  it(
    'runs a single-turn candidate through static, execution, the sampling stages, the ' +
      'baselines, difficulty and review',
    () => {
      expect(names(planFor(KINDS.single))).toEqual([
        ['static'],
        ['execution'],
        ['determinism', 'solvability', 'hack', 'diversity', 'novelty'],
        ['baselines'],
        ['difficulty'],
        ['review'],
      ]);
    },
  );

  it('gives episodic difficulty the hack stage’s random-policy floor and no text baselines', () => {
    expect(names(planFor(KINDS.episodic))).toEqual([
      ['static'],
      ['execution'],
      ['determinism', 'solvability', 'hack', 'diversity', 'novelty'],
      ['difficulty'],
      ['review'],
    ]);
  });

  it('lets code difficulty run beside the hack stage, as it reads only the episodes', () => {
    expect(names(planFor(KINDS.code))).toEqual([
      ['static'],
      ['execution'],
      ['determinism', 'solvability', 'hack', 'diversity', 'difficulty', 'novelty'],
      ['review'],
    ]);
  });
});

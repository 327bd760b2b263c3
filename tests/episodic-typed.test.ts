// "Type the reference" (validators/episodic/typed.ts): the precision a text states, numbers as a model types
// them, and the replay built only where typing changes something.
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { Rollout } from '../sandbox/rollouts.js';
import { judgeFindings } from '../validators/checks/rules.js';
import { judgeTyped, statedPlaces, typedActions, typedNumber } from '../validators/episodic/typed.js';

const meta = {
  name: 'm',
  title: 't',
  description: 'Pay each trip.',
  skills: ['x'],
  levels: 2,
  kind: 'episodic',
  maxTurns: 10,
  tools: [
    {
      name: 'pay',
      description: 'Pay an amount in dollars (two decimals).',
      parameters: { type: 'object', properties: { id: { type: 'string' }, amount: { type: 'number' } } },
    },
    {
      name: 'note',
      description: 'Record a reading.',
      parameters: { type: 'object', properties: { value: { type: 'number' } } },
    },
    { name: 'done', description: 'Finish.', parameters: { type: 'object', properties: {} } },
  ],
} as unknown as EpisodicMeta;
const rollout = (actions: unknown[], prompt = 'Pay every trip.', observations: string[] = []): Rollout =>
  ({ seed: 1, level: 1, score: 1, end: 'done', actions, prompt, observations }) as unknown as Rollout;

describe('statedPlaces', () => {
  it('reads the fraction digits a text asks for, the most any phrase allows', () => {
    expect(statedPlaces('Pay it in dollars and cents.')).toBe(2);
    expect(statedPlaces('Give it to 3 decimal places.')).toBe(3);
    expect(statedPlaces('an amount (two decimals)')).toBe(2);
    expect(statedPlaces('round to the nearest tenth')).toBe(1);
    expect(statedPlaces('a whole number of units, or to the nearest hundredth')).toBe(2);
    expect(statedPlaces('Round to the nearest integer.')).toBe(0);
    expect(statedPlaces('Pay every trip.')).toBeNull();
  });
});

describe('typedNumber', () => {
  it('keeps integers and values the agent was shown; rounds the rest to the stated places, else to 4', () => {
    expect(typedNumber(80.56500000000001, 2, new Set())).toBe(80.57);
    expect(typedNumber(80.56500000000001, null, new Set())).toBe(80.565);
    expect(typedNumber(0.1 + 0.2, null, new Set())).toBe(0.3);
    expect(typedNumber(3.14159265, 2, new Set([3.14159265]))).toBe(3.14159265);
    expect(typedNumber(42, 2, new Set())).toBe(42);
  });
});

describe('typedActions', () => {
  it("types each argument at its tool's stated precision, trims strings, copies values shown before the call", () => {
    const r = rollout(
      [
        { tool: 'note', args: { value: 2.718281828 } },
        { tool: 'pay', args: { id: ' T1 ', amount: 12.345000001 } },
        { tool: 'note', args: { value: 1.23456789 } },
        { tool: 'done', args: {} },
      ],
      'Pay every trip.',
      ['noted', 'reading 1.23456789', 'ok'],
    );
    expect(typedActions(meta, r)).toEqual([
      { tool: 'note', args: { value: 2.7183 } },
      { tool: 'pay', args: { id: 'T1', amount: 12.35 } },
      { tool: 'note', args: { value: 1.23456789 } },
      { tool: 'done', args: {} },
    ]);
  });
  it('is null where typing changes nothing', () => {
    expect(
      typedActions(
        meta,
        rollout([
          { tool: 'pay', args: { id: 'T1', amount: 12.5 } },
          { tool: 'done', args: {} },
        ]),
      ),
    ).toBeNull();
  });
});

describe('judgeTyped', () => {
  const ref = rollout([]);
  it('rejects when a quarter of the typed replays lose the score, and not for one edge case', () => {
    expect(
      judgeFindings(
        judgeTyped(
          [
            { ref, score: 0, actions: [] },
            { ref, score: 0, actions: [] },
            { ref, score: 1, actions: [] },
          ],
          0.25,
        ).findings,
      )[0]?.code,
    ).toBe('E_UNTYPEABLE_REFERENCE');
    expect(
      judgeFindings(
        judgeTyped(
          [{ ref, score: 0, actions: [] }, ...Array.from({ length: 7 }, () => ({ ref, score: 1, actions: [] }))],
          0.25,
        ).findings,
      ),
    ).toEqual([]);
  });
});

// The learned observation readers as pure functions (validators/episodic/readers.ts): a field mapped one-to-one
// onto a decision is learned on half the episodes and read on the other half, free text whose words vary is
// not; the reply that marks the right value of every question asked is learned, a reply that marks nothing is
// not; chance is the pick against other decisions' values.
import { describe, expect, it } from 'vitest';
import { askTrials, type AskSample } from '../validators/episodic/asks.js';
import { fieldTrials, type FieldSample } from '../validators/episodic/readers.js';

const QUEUES = ['billing', 'shipping', 'technical', 'accounts'];
const rate = (trials: Array<{ win: number }>) => trials.reduce((a, t) => a + t.win, 0) / trials.length;
const chance = (trials: Array<{ chance: number }>) => trials.reduce((a, t) => a + t.chance, 0) / trials.length;

describe('field readers', () => {
  const samples = (code: (queue: string, i: number) => string): FieldSample[] =>
    Array.from({ length: 80 }, (_, i) => {
      const value = QUEUES[((i * 37 + 11) % 13) % 4] as string;
      return {
        level: 1 + (i % 4),
        value,
        fields: new Set([`the word 2 after the id: ${code(value, i)}`, `the word 3 after the id: n${i}`]),
      };
    });
  it('reads a code that maps one-to-one onto the decision, far above chance', () => {
    const t = fieldTrials(samples((q) => `k${QUEUES.indexOf(q)}`));
    expect(rate(t.pooled)).toBe(1);
    expect(chance(t.pooled)).toBeLessThan(0.5);
    expect(t.rules[0]).toMatch(/the word 2 after the id: k\d → /);
  });
  it('reads nothing where each decision value goes with many words (free text) or the words are random', () => {
    expect(rate(fieldTrials(samples((q, i) => `${q.slice(0, 2)}${i % 5}`)).pooled)).toBe(0);
    expect(rate(fieldTrials(samples((_q, i) => `k${(i * 13) % 4}`)).pooled)).toBeLessThan(0.5);
  });
});

describe('the oracle policy', () => {
  const VALUES = ['pay', 'deny', 'refer'];
  const asked = (reply: (value: string, right: string) => string): AskSample[] =>
    Array.from({ length: 60 }, (_, i) => {
      const right = VALUES[((i * 37 + 11) % 13) % 3] as string;
      return { level: 1 + (i % 3), value: right, replies: new Map(VALUES.map((v) => [v, reply(v, right)] as const)) };
    });
  it('learns the reply that marks the right value and follows it', () => {
    const t = askTrials(asked((v, right) => (v === right ? 'Supervisor: yes, § CL#.' : 'Supervisor: no.')));
    expect([rate(t.pooled), t.marks[0]]).toEqual([1, 'Supervisor: yes, § CL#.']);
    expect(chance(t.pooled)).toBeLessThan(0.5);
  });
  it('learns nothing from a reply that acknowledges every value alike', () => {
    expect(rate(askTrials(asked(() => 'Supervisor: noted, § CL#.')).pooled)).toBe(0);
  });
});

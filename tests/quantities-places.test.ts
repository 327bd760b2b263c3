// The quantities check's judgement at fixed places (validators/checks/quantities.ts, redteam-s17 F4): a run that pays
// beyond its control at one place on every instance is the question restated; a paying run that moves with the answer
// among K runs earns what a pick among them earns (1/K), the task; a lone run that pays is a restatement (no choice).
import { describe, expect, it } from 'vitest';
import { runPlaces } from '../validators/checks/quantities.js';
import { judgeReaders, type ReaderSample } from '../validators/readers.js';

/** Sixty instances over three levels, each with its runs' excesses over their controls. */
function judged(excesses: (i: number) => number[]) {
  const all = Array.from({ length: 60 }, (_, i) => excesses(i));
  const samples: ReaderSample[] = all.map((_, i) => ({
    seed: i,
    level: 1 + (i % 3),
    reference: '<answer>1</answer>',
    instance: { prompt: '' },
  }));
  const [j] = judgeReaders(samples, [{ name: 'runs', code: 'E_ACCEPTS_RESTATED', prepare: () => runPlaces(all) }]);
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  return { win: mean(j?.pooled.map((t) => t.win) ?? []), chance: mean(j?.pooled.map((t) => t.chance) ?? []) };
}

describe('runs judged at fixed places', () => {
  it('finds a run paid at the same place on every instance, against 1/K', () => {
    const fixed = judged((i) => [1, ...Array.from({ length: 1 + (i % 3) }, () => 0)]);
    expect(fixed.win).toBe(1);
    expect(fixed.chance).toBeLessThan(0.5);
    const lone = judged(() => [1]);
    expect(lone.win - lone.chance).toBe(1);
  });

  it('finds nothing beyond chance where the paying run moves with the answer (a choice among K)', () => {
    const k = (i: number) => 2 + (i % 3);
    const moving = judged((i) => Array.from({ length: k(i) }, (_, p) => (p === (i * 7) % k(i) && i % 3 !== 1 ? 1 : 0)));
    expect(moving.win).toBeLessThanOrEqual(moving.chance + 0.05);
  });
});

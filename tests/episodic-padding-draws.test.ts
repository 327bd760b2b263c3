// The kept subset of decisions searched, not only enumerated (redteam-trust7 I1): subsets drawn with p = 1/2 from a
// seeded stream (the same validation seed, the same draws), the periodic subsets and family (redteam-trust9 R5), a
// descent that drops a random half of a paid kept set, and the reached states that carry them. Pure builders; the
// verdicts are in redteam-trust4.test.ts.
import { describe, expect, it } from 'vitest';
import { keptState, reachedStates } from '../validators/episodic/padding.js';
import {
  descended,
  drawnSubsets,
  periodicFamily,
  periodicShare,
  periodicSubsets,
} from '../validators/episodic/subsets.js';
import { DEFAULT_EPISODIC_OPTIONS } from '../validators/options-episodic.js';

const A = (tool: string, args: Record<string, unknown> = {}) => ({ tool, args });
const plan = (n: number) => [
  ...Array.from({ length: n }, (_, i) => [A('read', { id: `T${i + 1}` }), A('route', { id: `T${i + 1}` })]).flat(),
  A('close'),
];
const range = (m: number) => Array.from({ length: m }, (_, i) => i);
/** The I1 shape: two or more waiting calls, none beside another waiting one (each flanked by decided ones). */
const flanked = (m: number, kept: number[]) => {
  const waiting = range(m).filter((i) => !kept.includes(i));
  return waiting.length >= 2 && waiting.every((i) => !waiting.includes(i + 1));
};
/** The lengths of the runs of waiting calls between the kept ones (and the ends). */
const waitingRuns = (m: number, kept: number[]) =>
  range(m)
    .map((i) => (kept.includes(i) ? '|' : '.'))
    .join('')
    .split('|')
    .filter((r) => r.length > 0)
    .map((r) => r.length);
/** The R5 shape: three or more runs of exactly `w` waiting calls, and no other waiting call. */
const runsOf = (w: number) => (m: number, kept: number[]) => {
  const runs = waitingRuns(m, kept);
  return runs.length >= 3 && runs.every((r) => r === w);
};

describe('subsets drawn with p = 1/2', () => {
  it('are the same for the same key and differ for another', () => {
    expect(drawnSubsets(range(8), 'seed 11|42', 4)).toEqual(drawnSubsets(range(8), 'seed 11|42', 4));
    expect(drawnSubsets(range(8), 'seed 11|42', 4)).not.toEqual(drawnSubsets(range(8), 'seed 22|42', 4));
  });
  it('are distinct proper subsets, none empty, none already seen', () => {
    const seen = new Set(['1,3,5,7', '0,2,4,6']);
    for (let k = 0; k < 50; k++) {
      const sets = drawnSubsets(range(8), `k${k}`, 3, seen);
      expect(sets).toHaveLength(3);
      expect(new Set(sets.map((s) => s.join())).size).toBe(3);
      for (const s of sets) expect(s.length > 0 && s.length < 8 && !seen.has(s.join()), s.join()).toBe(true);
    }
    // Two calls have two proper subsets: a third is not invented.
    expect(drawnSubsets(range(2), 'k', 5)).toHaveLength(2);
    expect(drawnSubsets(range(1), 'k', 2)).toEqual([]);
  });
  it('keep each call about half the time, and meet the flanked shape with the odds of its share', () => {
    const draws = range(400).flatMap((k) => drawnSubsets(range(8), `v${k}`, 1));
    const share = draws.flat().length / (8 * draws.length);
    expect(share).toBeGreaterThan(0.45);
    expect(share).toBeLessThan(0.55);
    // 46 of the 256 subsets of 8 calls leave two or more waiting calls each flanked by decided ones (~0.18).
    const hits = draws.filter((s) => flanked(8, s)).length / draws.length;
    expect(hits).toBeGreaterThan(0.12);
    expect(hits).toBeLessThan(0.32);
  });
});

describe('the periodic subsets and the descent', () => {
  it('keep every other call and every third, whose waiting ones are flanked by decided ones', () => {
    expect(periodicSubsets(7)).toEqual([
      [1, 3, 5],
      [0, 2, 4, 6],
      [2, 5],
      [0, 3, 6],
      [1, 4],
    ]);
    expect(flanked(7, periodicSubsets(7)[0] as number[])).toBe(true);
  });
  it('are a family: every k-th kept for each period up to m / 2 and each phase, the ragged ends decided or not', () => {
    const family = periodicFamily(14);
    for (const s of periodicSubsets(14)) expect(family).toContainEqual(s);
    expect(family).toContainEqual([0, 4, 8, 12]);
    expect(family).toContainEqual([3, 7, 11, 12, 13]);
    expect(family).toContainEqual([0, 6, 12]);
    expect(new Set(family.map((s) => s.join())).size).toBe(family.length);
    for (const s of family) expect(s.length > 0 && s.length < 14, s.join()).toBe(true);
    expect(periodicFamily(14, 7)).toEqual(family.slice(0, 7));
  });
  it('leave three or more runs of exactly w waiting calls wherever they fit (redteam-trust9 R5: triples)', () => {
    for (const m of range(15).map((i) => i + 5))
      for (const w of range(m).filter((w) => w >= 1 && 3 * w + 2 <= m))
        expect(
          periodicFamily(m).some((s) => runsOf(w)(m, s)),
          `${m} calls, runs of ${w}`,
        ).toBe(true);
    // Under the default bound, at the hack's 12-17 decisions.
    for (const m of range(6).map((i) => i + 12))
      expect(periodicFamily(m, DEFAULT_EPISODIC_OPTIONS.composedPeriodicPerEpisode).some((s) => runsOf(3)(m, s))).toBe(
        true,
      );
  });
  it('try every period at every number of calls within the cap, shared or not (redteam-trust11 H5: sextets)', () => {
    const count = DEFAULT_EPISODIC_OPTIONS.composedPeriodicPerEpisode;
    for (const m of range(38).map((i) => i + 3))
      for (const turns of [1, 2, 3]) {
        const tried = range(turns).flatMap((t) => periodicShare(m, count, t, turns));
        expect(tried.length, `${m} calls`).toBeLessThanOrEqual(turns * Math.max(count, Math.ceil((m / 2 - 1) / turns)));
        for (const k of range(Math.floor(m / 2) + 1).filter((k) => k >= 2))
          expect(
            tried.some((s) => waitingRuns(m, s).every((r) => r === k - 1)),
            `${m} calls in ${turns} shares: every waiting run of ${k - 1}`,
          ).toBe(true);
      }
    // The hack's 21-31 decisions, one episode alone: three runs of exactly six, nothing else waiting.
    for (const m of range(11).map((i) => i + 21))
      expect(periodicShare(m, count).some((s) => runsOf(6)(m, s))).toBe(true);
    // A share skips what was tried already, and a zero count tries nothing.
    const first = periodicShare(20, 3);
    expect(periodicShare(20, 3, 0, 1, new Set([first[0]?.join() ?? '']))).not.toContainEqual(first[0]);
    expect(periodicShare(20, 0)).toEqual([]);
  });
  it('drops a random half of a kept set: a proper, non-empty part of it, the same for the same key', () => {
    const kept = [0, 2, 3, 5, 7];
    const child = descended(kept, 'd1') ?? [];
    expect(child.length > 0 && child.length < kept.length && child.every((i) => kept.includes(i))).toBe(true);
    expect(descended(kept, 'd1')).toEqual(child);
    expect(descended([4], 'd1')).toBeNull();
    expect(descended([1, 2], 'd1', new Set(['1', '2']))).toBeNull();
  });
});

describe('the reached states with draws', () => {
  const log = plan(6);
  it('keep every read and only the kept decisions of a tool', () => {
    const s = keptState(log, 'route', [1, 3]);
    expect(s.actions.filter((a) => a.tool === 'read')).toHaveLength(6);
    expect(s.actions.flatMap((a) => (a.tool === 'route' ? [a.args.id] : []))).toEqual(['T2', 'T4']);
    expect(s.actions.at(-1)?.tool).toBe('close');
    expect([s.how, s.m]).toEqual(['only route calls 2, 4 of 6 kept', 6]);
  });
  it('add the drawn subsets of the last-called deciding tool after the family, none repeating a chosen one', () => {
    const plain = reachedStates(log, ['read', 'route'], 3, 0);
    const drawn = reachedStates(log, ['read', 'route'], 3, 0, { count: 2, key: 'seed 11|7' });
    expect(drawn.slice(0, 3)).toEqual(plain);
    expect(drawn.slice(3).map((s) => [s.tool, s.how.startsWith('drawn: only route calls')])).toEqual([
      ['route', true],
      ['route', true],
    ]);
    const keys = drawn.map((s) => s.actions.map((a) => JSON.stringify(a)).join());
    expect(new Set(keys).size).toBe(keys.length);
    expect(reachedStates(log, ['read', 'route'], 3, 0, { count: 2, key: 'seed 11|7' })).toEqual(drawn);
  });
  it("add the last-called deciding tool's periodic family before the draws: waiting triples at 14 decisions", () => {
    const long = plan(14);
    const states = reachedStates(long, ['read', 'route'], 3, 0, {
      count: 2,
      key: 'seed 11|7',
      periodic: { count: 40, turn: 0, turns: 1 },
    });
    const periodic = states.filter((s) => s.how.startsWith('periodic: only route calls'));
    expect(periodic.length).toBeGreaterThan(20);
    expect(states.slice(3, 3 + periodic.length)).toEqual(periodic);
    const routed = (s: (typeof states)[number]) => s.actions.flatMap((a) => (a.tool === 'route' ? [a.args.id] : []));
    expect(periodic.map(routed)).toContainEqual(['T4', 'T8', 'T12', 'T13', 'T14']);
    expect(periodic.some((s) => runsOf(3)(14, s.kept ?? []))).toBe(true);
    for (const s of periodic) expect(s.actions.filter((a) => a.tool === 'read')).toHaveLength(14);
    const keys = states.map((s) => s.actions.map((a) => JSON.stringify(a)).join());
    expect(new Set(keys).size).toBe(keys.length);
  });
  it('share the periodic family out: two episodes of as many decisions replay its members once between them', () => {
    const long = plan(14);
    const share = (turn: number) =>
      reachedStates(long, ['read', 'route'], 1, 0, { count: 0, key: '', periodic: { count: 99, turn, turns: 2 } })
        .slice(1)
        .map((s) => s.kept?.join());
    const [a, b] = [share(0), share(1)];
    expect(a.filter((k) => b.includes(k))).toEqual([]);
    expect(new Set([...a, ...b]).size).toBe(periodicFamily(14).length);
  });
});

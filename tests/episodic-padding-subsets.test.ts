// Which decisions a padded state keeps, not how many (redteam-trust6 H2 and its hold-out): the shrink family's subsets
// of a deciding tool's calls (periodic, a prefix, a suffix, one alone, one left out between kept ones), each with every
// read kept, taken in turn across the adversary episodes under one cap, then subsets drawn (redteam-trust7 I1). Pure
// log builders; the verdicts are in redteam-trust4.test.ts.
import { describe, expect, it } from 'vitest';
import { keptSubsets, reachedStates } from '../validators/episodic/padding.js';

const A = (tool: string, args: Record<string, unknown> = {}) => ({ tool, args });
const plan = (n: number) => [
  ...Array.from({ length: n }, (_, i) => [A('read', { id: `T${i + 1}` }), A('route', { id: `T${i + 1}` })]).flat(),
  A('close'),
];
const routed = (log: Array<{ tool: string; args: Record<string, unknown> }>) =>
  log.flatMap((a) => (a.tool === 'route' ? [a.args.id] : [])).join(' ');

describe('the subsets of decisions a reached state keeps', () => {
  it('hold none, every other and every third, all but the last, the last alone, a gap, the first, the median…', () => {
    expect(keptSubsets(6)).toEqual([
      [],
      [1, 3, 5],
      [0, 2, 4],
      [2, 5],
      [0, 3],
      [1, 4],
      [0, 1, 2, 3, 4],
      [5],
      [0, 1, 3, 4, 5],
      [0],
      [2],
      [1, 2, 3, 4, 5],
      [0, 1, 2],
      [3, 4, 5],
      [0, 1],
      [2, 3],
      [4, 5],
      [2, 3, 4, 5],
      [0, 1, 4, 5],
      [0, 1, 2, 3],
    ]);
  });
  it('are proper subsets, none repeated, for any number of decisions', () => {
    for (let m = 1; m <= 12; m++) {
      const sets = keptSubsets(m);
      expect(new Set(sets.map((k) => k.join())).size, `m=${m}`).toBe(sets.length);
      for (const k of sets) expect(k.length < m && k.every((i) => i >= 0 && i < m), `m=${m}: ${k}`).toBe(true);
    }
    expect(keptSubsets(1)).toEqual([[]]);
    expect(keptSubsets(2)).toEqual([[], [1], [0]]);
  });
});

describe('the reached states of a plan that reads then decides each entity', () => {
  const all = reachedStates(plan(4), ['read', 'route'], 99);
  it('keep every read beside the subset of decisions, so a newer entity can be decided while older ones wait', () => {
    const lastAlone = all.find((s) => s.how === 'only route calls 4 of 4 kept');
    expect(lastAlone?.actions.filter((a) => a.tool === 'read')).toHaveLength(4);
    expect(routed(lastAlone?.actions ?? [])).toBe('T4');
    const gap = all.find((s) => s.how === 'only route calls 1, 3-4 of 4 kept');
    expect(routed(gap?.actions ?? [])).toBe('T1 T3 T4');
  });
  it('always hold all the reads with no decision first, then the rest in turn from where the episode starts', () => {
    const capped = (from: number) => reachedStates(plan(4), ['read', 'route'], 4, from);
    expect(capped(0).map((s) => s.how)).toEqual(all.slice(0, 4).map((s) => s.how));
    expect(capped(3).map((s) => s.how)).toEqual([all[0], ...all.slice(4, 7)].map((s) => s?.how));
    expect(capped(3 * (all.length - 1)).map((s) => s.how)).toEqual(capped(0).map((s) => s.how));
    expect(capped(1)[0]?.how).toBe('every route call removed');
    // Across the episodes' turns the whole family is covered under the same cap.
    const seen = new Set(Array.from({ length: all.length }, (_, k) => capped(3 * k).map((s) => s.how)).flat());
    expect(seen.size).toBe(all.length);
  });
});

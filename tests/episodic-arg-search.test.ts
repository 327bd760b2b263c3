// The search of an unconfirmed argument (redteam-trust21 R1, R2): each value tried in a replay of its own, so a world
// that locks after wrong tries cannot hide the right one, and the values the texts make plausible first, whatever
// the schema's range.
import { describe, expect, it } from 'vitest';
import { searchOpen } from '../validators/episodic/arg-search.js';
import { PLAUSIBLE, plausibleValues } from '../validators/episodic/plausible.js';
import type { Rollout, RolloutRequest, RolloutResult } from '../sandbox/rollouts.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

const id = { type: 'string', maxLength: 12 };
const read = 'G2: check-in 2026-03-04; prepaid $850 with a $250 deposit at $120 a night; passport expired.';
const metaOf = (maximum: number) =>
  metaWith([tool('book', { guest_id: id, nights: { type: 'integer', minimum: 1, maximum } })]);

/** A desk that books G2 only at 5 nights and locks the file after `lockAfter` refused bookings, in each replay. */
const desk =
  (lockAfter: number) =>
  async (requests: RolloutRequest[]): Promise<RolloutResult[]> =>
    requests.map((r) => {
      let refused = 0;
      const actions = (r.policy as { actions: { tool: string; args: { nights?: number } }[] }).actions;
      const changes = actions.map((a) => {
        if (a.tool !== 'book' || refused >= lockAfter) return [];
        if (a.args.nights === 5) return ['bookings.G2'];
        refused++;
        return refused >= lockAfter ? ['refused.G2', 'locked.G2'] : ['refused.G2'];
      });
      return { ok: true, changes } as unknown as RolloutResult;
    });

const ask = (hints?: number[]) => ({
  ref: { seed: 1, level: 1 } as Rollout,
  before: [A('read_guest', { guest_id: 'G2' })],
  call: A('book', { guest_id: 'G2', nights: 7 }),
  open: ['nights'],
  ...(hints ? { hints: { nights: hints } } : {}),
});

describe('plausible values', () => {
  it('holds the given values first, then the shown numbers combined, only whole ones in range', () => {
    const values = plausibleValues([read], [7, 3], 1, 90);
    expect(values.slice(0, 2)).toEqual([7, 3]);
    expect(values).toContain(5); // (850 - 250) / 120
    expect(values.every((v) => Number.isInteger(v) && v >= 1 && v <= 90)).toBe(true);
    expect(values.length).toBeLessThanOrEqual(PLAUSIBLE);
    expect(new Set(values).size).toBe(values.length);
    expect(plausibleValues(['nothing shown'], [], 1, 90)).toEqual([]);
  });
});

describe('an open argument searched on the world', () => {
  it('tries each value of a narrow range in a replay of its own: a lock after wrong tries hides nothing', async () => {
    for (const lockAfter of [1, 3]) {
      const { found } = await searchOpen(metaOf(30), [ask()], desk(lockAfter));
      expect(found).toEqual([{ name: 'nights', value: 5 }]);
    }
  });

  it('searches a wide range at the plausible values, and the rest only where they find nothing', async () => {
    const hints = plausibleValues([read], [7], 1, 500);
    const wide = await searchOpen(metaOf(500), [ask(hints)], desk(3));
    expect(wide.found).toEqual([{ name: 'nights', value: 5 }]);
    expect(wide.rollouts).toBe(hints.length);
    // No plausible value and a range too wide to search: nothing is tried, nothing found (the call stays unconfirmed).
    expect(await searchOpen(metaOf(500), [ask()], desk(3))).toEqual({ found: [null], rollouts: 0 });
    // Plausible values that miss, in a narrow range: the rest of the range is tried too.
    const narrow = await searchOpen(metaOf(30), [ask([8, 9, 10])], desk(3));
    expect(narrow.found).toEqual([{ name: 'nights', value: 5 }]);
    expect(narrow.rollouts).toBe(30);
  });
});

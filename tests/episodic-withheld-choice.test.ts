// The caps of episodic-withheld (redteam-trust16 Q7, Q8): entities ranked by the world's answer to the call itself,
// ties and the tools a cap cuts chosen by the seed and the episode, never by position.
import { describe, expect, it } from 'vitest';
import {
  chooseEntities,
  rotatedTools,
  SCREENED_ENTITIES,
  screenedEntities,
  screeningCalls,
  screenRanks,
  seededOrder,
} from '../validators/episodic/withheld-choice.js';
import { A } from './helpers/episodic-meta.js';

const roster = ['G100', 'G201', 'G302', 'G403', 'G504', 'G999'];

describe('withheld choice', () => {
  it('ranks entities by the call itself: taken first, refused last, decoys at the ends spend no try (Q7)', () => {
    const calls = screeningCalls(A('book', { guest_id: 'G1', nights: 2 }), 'guest_id', ['G100', 'G201', 'G999']);
    expect(calls.map((c) => c.args)).toEqual([
      { guest_id: 'G100', nights: 2 },
      { guest_id: 'G201', nights: 2 },
      { guest_id: 'G999', nights: 2 },
    ]);
    // After a plan of 2 calls: G100 changes only bookkeeping (a refusal logged), G201 is booked, G999 host-refused.
    const run = { ok: true, turns: 5, rejected: [5], changes: [['$.a'], ['$.a'], ['$.events'], ['$.bookings.G201']] };
    const rank = screenRanks(['G100', 'G201', 'G999', 'G302'], run, 2, new Set(['$.events']));
    expect([...rank]).toEqual([
      ['G100', 2],
      ['G201', 0],
      ['G999', 2],
      ['G302', 1],
    ]);
    // The checked-out guests at both ends are refused: the taken one, then the unscreened one, are tried first.
    const chosen = chooseEntities([['G100', 'G201', 'G302', 'G999']], 2, rank, 'seed 11');
    expect(chosen).toEqual(['G201', 'G302']);
    // A replay that failed says nothing: every entity unscreened, chosen by the seed.
    expect([...screenRanks(['G100'], { ok: false }, 2, new Set()).values()]).toEqual([1]);
  });

  it('chooses ties by the seed: different seeds try different entities, shapes interleaved', () => {
    const picks = new Set([11, 22, 33, 44, 55, 66].map((s) => chooseEntities([roster], 2, new Map(), `${s}`).join()));
    expect(picks.size).toBeGreaterThan(1);
    const mixed = chooseEntities([roster, ['GC-1', 'GC-2']], 2, new Map(), '11');
    expect(mixed.filter((e) => e.startsWith('GC')).length).toBe(1);
    expect(seededOrder(roster, (t) => t, 'x').sort()).toEqual([...roster].sort());
  });

  it('screens within the room and the cap, a drawn share over the shapes', () => {
    expect(screenedEntities([roster, ['GC-1']], 3, '11')).toHaveLength(3);
    expect(screenedEntities([roster, ['GC-1']], 3, '11')).toContain('GC-1');
    const many = Array.from({ length: 40 }, (_, k) => `G${100 + k}`);
    expect(screenedEntities([many], 100, '11')).toHaveLength(SCREENED_ENTITIES);
    expect(screenedEntities([many], 0, '11')).toEqual([]);
  });

  it('rotates the tools a cap cuts by the seed and the episode, so each is tried somewhere (Q8)', () => {
    const tools = ['upgrade', 'add_breakfast', 'book'];
    expect(rotatedTools(tools, 2, '11', 0)).toHaveLength(2);
    const covered = new Set([0, 1, 2].flatMap((k) => rotatedTools(tools, 2, '11', k)));
    expect([...covered].sort()).toEqual([...tools].sort());
    // Under the cap: all, in the plan's order.
    expect(rotatedTools(tools, 3, '11', 5)).toEqual(tools);
  });
});

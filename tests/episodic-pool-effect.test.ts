// Pooled options judged by effect (validators/episodic/pool-effect.ts, redteam-trust17-pool): the world with two
// entities' places swapped, and whether the reference played there hands the values out by turn or by entity.
import { describe, expect, it } from 'vitest';
import { handedByTurn, swapPlaces } from '../validators/episodic/pool-effect.js';
import { A } from './helpers/episodic-meta.js';

const world = {
  copies: [
    { barcode: '31111', isbn: '978-4346', slip: 1 },
    { barcode: '30000', isbn: '978-1111' },
    { barcode: '32222', isbn: '978-4346', slip: 2 },
  ],
  holds: { '978-4346': [{ card: 'P100' }, { card: 'P200' }] },
  seen: { copies: ['31111', '32222'] },
};
const a = { ids: ['31111'], value: 'P100', at: 4 };
const b = { ids: ['32222'], value: 'P200', at: 5 };
const checkIn = (barcode: string, card: string) =>
  A('check_in', { barcode, destination: 'hold_shelf', hold_card: card });

describe('the two entities swapped in the world', () => {
  it("trades their records (each entity's own, its slip with it) in every list holding both", () => {
    const swapped = swapPlaces(world, a.ids, b.ids) as typeof world;
    expect(swapped.copies.map((c) => c.barcode)).toEqual(['32222', '30000', '31111']);
    expect(swapped.copies[0]?.slip).toBe(2);
    expect(swapped.seen.copies).toEqual(['32222', '31111']);
    expect(swapped.holds).toEqual(world.holds);
    expect(world.copies[0]?.barcode).toBe('31111');
  });

  it('has no place to swap where no list holds both (a map keyed by id) or one element holds both', () => {
    expect(swapPlaces({ copies: { '31111': { isbn: 'x' }, '32222': { isbn: 'x' } } }, a.ids, b.ids)).toBeNull();
    expect(swapPlaces({ pair: [{ one: '31111', two: '32222' }] }, a.ids, b.ids)).toBeNull();
  });
});

describe('the reference played in the swapped world', () => {
  it('hands the values out by turn where the other entity, now decided first, takes the first value', () => {
    const log = [A('list'), checkIn('32222', 'P100'), checkIn('31111', 'P200'), A('close')];
    expect(handedByTurn(log, 'check_in', 'hold_card', a, b)).toBe(true);
  });

  it('hands them out by entity where each keeps its value or the reference still decides the same one first', () => {
    // The value is the entity's own (a reservation stamp): the copy decided second keeps its hold.
    expect(handedByTurn([checkIn('32222', 'P200'), checkIn('31111', 'P100')], 'check_in', 'hold_card', a, b)).toBe(
      false,
    );
    // The reference orders the copies by what they are (their slips): the swap moves nothing.
    expect(handedByTurn([checkIn('31111', 'P100'), checkIn('32222', 'P200')], 'check_in', 'hold_card', a, b)).toBe(
      false,
    );
    // An entity left undecided, or both given one value.
    expect(handedByTurn([checkIn('32222', 'P100')], 'check_in', 'hold_card', a, b)).toBe(false);
    expect(handedByTurn([checkIn('32222', 'P100'), checkIn('31111', 'P100')], 'check_in', 'hold_card', a, b)).toBe(
      false,
    );
  });
});

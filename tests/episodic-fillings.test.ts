// Fillings checked on an allowed entity (redteam-trust18 R1, R6): an added call's argument comes from a source that
// gives the reference's own value on another entity it decided, read from every text that shows the entity.
import { describe, expect, it } from 'vitest';
import { ROUNDINGS, relationsOf } from '../validators/episodic/derived.js';
import { checkedCall, controlsOf, readEntities, rowOf } from '../validators/episodic/fillings.js';
import { shapeOf } from '../validators/episodic/structure.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

const id = { type: 'string', maxLength: 12 };
const desk = metaWith([
  tool('read_guest', { guest_id: id }),
  tool('book', { guest_id: id, date: id, nights: { type: 'integer', minimum: 1 } }),
  tool('submit', {}),
]);
const guests: Record<string, string> = {
  G101: 'G101: check-in 2026-03-01; prepaid $750 at $150 a night; passport valid.',
  G202: 'G202: check-in 2026-04-10; prepaid $360 at $120 a night; passport valid.',
  G303: 'G303: check-in 2026-05-20; prepaid $1400 at $200 a night; passport expired.',
};
const booked = [
  A('book', { guest_id: 'G101', date: '2026-03-01', nights: 5 }),
  A('book', { guest_id: 'G202', date: '2026-04-10', nights: 3 }),
];
const reads = (e: string) => (guests[e] ? [guests[e] as string] : []);

const returns = metaWith([
  tool('read_order', { order_id: id }),
  tool('refund', { order_id: id, amount: { type: 'number' } }),
  tool('close', {}),
]);
const listing = 'Returns: O-1234 ($12), GC-482913 ($5), O-5678 ($40).';
const refunds = [A('refund', { order_id: 'O-1234', amount: 12 }), A('refund', { order_id: 'O-5678', amount: 40 })];
const orders: Record<string, string> = {
  'O-1234': 'O-1234: a desk lamp, price $12.',
  'O-5678': 'O-5678: a kettle, price $40.',
  'GC-482913': 'No order GC-482913.',
};

describe('fillings checked on an allowed entity', () => {
  it('finds quotients and percentages only where asked, relationOf unchanged', () => {
    const values = new Map([
      ['n0.0', 750],
      ['n0.1', 150],
    ]);
    expect(relationsOf(5, values, false, ['-', '+', '*'], 4)).toEqual([]);
    expect(relationsOf(5, values, false, ['-', '+', '*', '/'], 4)).toEqual([{ op: '/', a: 'n0.0', b: 'n0.1' }]);
    expect(relationsOf(1125, values, false, ['%'], 4)).toEqual([{ op: '%', a: 'n0.0', b: 'n0.1' }]);
  });

  it('fills a quotient the control confirms (the nights a prepaid amount covers at the rate)', () => {
    const filled = checkedCall(desk, booked[0] as never, 'guest_id', 'G303', booked, { reads, shown: [] });
    expect(filled.call.args).toEqual({ guest_id: 'G303', date: '2026-05-20', nights: 7 });
    expect(filled.unconfirmed).toEqual([]);
  });

  it('fills a rounded quotient the control confirms (the whole nights a prepaid amount covers)', () => {
    const rough: Record<string, string> = {
      G101: 'G101: check-in 2026-03-01; prepaid $800 at $150 a night.',
      G202: 'G202: check-in 2026-04-10; prepaid $380 at $120 a night.',
      G303: 'G303: check-in 2026-05-20; prepaid $1450 at $200 a night.',
    };
    const seen = { reads: (e: string) => [rough[e] ?? ''], shown: [] };
    expect(checkedCall(desk, booked[0] as never, 'guest_id', 'G303', booked, seen).call.args.nights).toBe(7);
    expect(
      relationsOf(
        5,
        new Map([
          ['n0.0', 800],
          ['n0.1', 150],
        ]),
        false,
        ['/'],
        4,
        ROUNDINGS,
      )[0],
    ).toEqual({
      op: '/',
      a: 'n0.0',
      b: 'n0.1',
      round: { digits: 0, how: 'round' },
    });
  });

  it("fills from the entity's listing row where its own read shows nothing", () => {
    const seen = { reads: (e: string) => [orders[e] ?? ''], shown: [listing] };
    const filled = checkedCall(returns, refunds[0] as never, 'order_id', 'GC-482913', refunds, seen);
    expect(filled.call.args).toEqual({ order_id: 'GC-482913', amount: 5 });
  });

  it('keeps the reads-only filling, unconfirmed, where no source gives a control its own value', () => {
    // The second refund is a free amount no text shows: nothing the template's amount comes from gives it.
    const free = [refunds[0] as never, A('refund', { order_id: 'O-5678', amount: 7 })];
    const seen = { reads: (e: string) => [orders[e] ?? ''], shown: [listing] };
    const filled = checkedCall(returns, free[0] as never, 'order_id', 'GC-482913', free, seen);
    expect(filled.call.args).toEqual({ order_id: 'GC-482913', amount: 12 });
    expect(filled.unconfirmed).toEqual(['amount']);
  });

  it('has no control where the reference decided one entity, and fills as the reads say', () => {
    const one = [booked[0] as never];
    expect(controlsOf(one, 'book', 'guest_id', 'G101')).toEqual([]);
    const filled = checkedCall(desk, booked[0] as never, 'guest_id', 'G303', one, { reads, shown: [] });
    expect(filled.call.args).toEqual({ guest_id: 'G303', date: '2026-05-20', nights: 5 });
    expect(filled.unconfirmed).toEqual([]);
  });

  it("cuts a listing's row at the next entity and reads the controls' entities too", () => {
    const shapes = new Set(['O-1234', 'GC-482913'].map(shapeOf));
    expect(rowOf(listing, 'gc-482913', shapes)).toBe('GC-482913 5');
    expect(rowOf(listing, 'O-1234', shapes)).toBe('O-1234 12');
    expect(rowOf(listing, 'O-9999', shapes)).toBeUndefined();
    const trial = { template: refunds[0] as never, arg: 'order_id' };
    expect(readEntities(refunds, trial, ['GC-482913'])).toEqual(['O-1234', 'O-5678', 'GC-482913']);
  });
});

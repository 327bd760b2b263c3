// The world's state as a source of an added call's values (redteam-trust20 T2, T3): the records that name an entity,
// labelled by where they live, and fillings confirmed on them; sources that agree on the controls but differ on the
// entity tried are each a call of its own; an argument no source gives is searched on the world (arg-search.ts).
import { describe, expect, it } from 'vitest';
import { checkedCall } from '../validators/episodic/fillings.js';
import { oddOneOut } from '../validators/episodic/arg-search.js';
import { recordsOf } from '../validators/episodic/state-records.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

const id = { type: 'string', maxLength: 12 };

describe('state records', () => {
  const state = {
    guests: [
      { id: 'G101', from: 60, to: 65, rate: 150 },
      { id: 'G303', from: 140, to: 147, rate: 200 },
    ],
    bookings: { G101: { from: 60, n: 5 } },
    done: false,
  };

  it('finds the record holding the id and the record kept under it, with labels that do not name the entity', () => {
    expect([...recordsOf(state, 'G101')]).toEqual([
      ['st:.guests[]', 'id G101; from 60; to 65; rate 150'],
      ['st:.bookings.*', 'from 60; n 5'],
    ]);
    expect([...recordsOf(state, 'g303')]).toEqual([['st:.guests[]', 'id G303; from 140; to 147; rate 200']]);
    expect(recordsOf(state, 'G999').size).toBe(0);
    expect(recordsOf('not an object', 'G101').size).toBe(0);
  });

  it('fills a value the replies never show from a relation of the record (T3: the nights, to - from)', () => {
    const desk = metaWith([
      tool('read_guest', { guest_id: id }),
      tool('book', { guest_id: id, nights: { type: 'integer', minimum: 1 } }),
    ]);
    const guests = [
      { id: 'G1', paid: 650, deposit: 150, rate: 100, from: 10, to: 15 },
      { id: 'G2', paid: 490, deposit: 130, rate: 120, from: 30, to: 33 },
      { id: 'G3', paid: 1650, deposit: 250, rate: 200, from: 50, to: 57 },
    ];
    const booked = [A('book', { guest_id: 'G1', nights: 5 }), A('book', { guest_id: 'G2', nights: 3 })];
    const reads = (e: string) => {
      const g = guests.find((x) => x.id === e);
      return g ? [`${g.id}: prepaid $${g.paid} with a $${g.deposit} deposit at $${g.rate} a night.`] : [];
    };
    // Three operands (a deposit above the rate, so no rounded quotient gives them): no reply confirms the nights.
    const without = checkedCall(desk, booked[0] as never, 'guest_id', 'G3', booked, { reads, shown: [] });
    expect(without.unconfirmed).toEqual(['nights']);
    const records = (e: string) => recordsOf({ guests }, e);
    const filled = checkedCall(desk, booked[0] as never, 'guest_id', 'G3', booked, { reads, shown: [], records });
    expect(filled.unconfirmed).toEqual([]);
    expect(filled.call.args).toEqual({ guest_id: 'G3', nights: 7 });
  });

  it('tries each value of sources the controls all confirm where they differ on the entity (T2)', () => {
    const returns = metaWith([
      tool('read_order', { order_id: id }),
      tool('refund', { order_id: id, amount: { type: 'number' } }),
    ]);
    const orders: Record<string, string> = {
      'O-1': 'O-1: lamp, price $40, refundable $40.',
      'O-2': 'O-2: kettle, price $25, refundable $25.',
      'O-3': 'O-3: gift card, price $50, refundable $47.',
    };
    const refunds = [A('refund', { order_id: 'O-1', amount: 40 }), A('refund', { order_id: 'O-2', amount: 25 })];
    const seen = { reads: (e: string) => (orders[e] ? [orders[e] as string] : []), shown: [] };
    const filled = checkedCall(returns, refunds[0] as never, 'order_id', 'O-3', refunds, seen);
    expect(filled.call.args).toEqual({ order_id: 'O-3', amount: 50 });
    expect(filled.alternatives.map((a) => a.args)).toEqual([{ order_id: 'O-3', amount: 47 }]);
    // Where the sources agree on the entity too, there is nothing else to try.
    orders['O-3'] = 'O-3: gift card, price $50, refundable $50.';
    expect(checkedCall(returns, refunds[0] as never, 'order_id', 'O-3', refunds, seen).alternatives).toEqual([]);
  });

  it('tries every place a receipt spells the value, the fourth amount too (redteam-trust21 R11)', () => {
    const returns = metaWith([
      tool('read_order', { order_id: id }),
      tool('refund', { order_id: id, amount: { type: 'integer', minimum: 1, maximum: 500 } }),
    ]);
    const row = (o: string, item: string, v: number[]) =>
      `${o}: ${item}, list $${v[0]}, price $${v[1]}, paid $${v[2]}, net $${v[3]}, refundable $${v[4]}.`;
    const orders: Record<string, string> = {
      'O-1': row('O-1', 'lamp', [40, 40, 40, 40, 40]),
      'O-2': row('O-2', 'kettle', [25, 25, 25, 25, 25]),
      'O-3': row('O-3', 'gift card', [55, 50, 49, 52, 47]),
    };
    const refunds = [A('refund', { order_id: 'O-1', amount: 40 }), A('refund', { order_id: 'O-2', amount: 25 })];
    const seen = { reads: (e: string) => (orders[e] ? [orders[e] as string] : []), shown: [] };
    const filled = checkedCall(returns, refunds[0] as never, 'order_id', 'O-3', refunds, seen);
    const tried = [filled.call, ...filled.alternatives].map((a) => a.args.amount);
    expect(tried).toEqual([55, 50, 49, 52, 47]);
    expect(filled.unconfirmed).toEqual([]);
  });
});

describe('an open argument searched on the world', () => {
  it('takes the one try the world treats unlike all the others', () => {
    expect(oddOneOut([[], [], ['bookings.G3'], [], []])).toBe(2);
    // Two accepted, or none, or a refusal that changes paths of its own beside one acceptance: nothing is found.
    expect(oddOneOut([[], ['a'], ['a'], []])).toBe(-1);
    expect(oddOneOut([[], [], []])).toBe(-1);
    expect(oddOneOut([['log'], ['log'], ['log', 'bookings.G3'], ['log']])).toBe(2);
    expect(oddOneOut([['log'], ['bookings.G3']])).toBe(-1);
  });
});

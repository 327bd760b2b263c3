// The two dimensions redteam-trust5 G1 and G2 showed the earlier builders enumerated: time after every state the
// reference reaches with decisions left undone (ablation composed with cuts, then padded), and the quantity a call
// covers (an interval, a list, a count in a string) cut into adjacent parts. Pure log builders here; the fixtures'
// verdicts are in redteam-trust4.test.ts.
import { describe, expect, it } from 'vitest';
import { reachedStates } from '../validators/episodic/padding.js';
import { quantitiesOf, quantityOf } from '../validators/episodic/quantities.js';
import { reshapings } from '../validators/episodic/reshape.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

const META = metaWith([
  tool('book', { guest: { type: 'string' }, check_in: { type: 'string' }, check_out: { type: 'string' } }),
  tool('hold', { row: { type: 'string' }, first: { type: 'integer' }, last: { type: 'integer' } }),
  tool('room', { room: { type: 'string' }, start: { type: 'string' }, end: { type: 'string' } }),
  tool('ship', { order: { type: 'string' }, items: { type: 'array' } }),
  tool('dispense', { patient: { type: 'string' }, quantity: { type: 'string' } }),
  tool('stay', {
    guest: { type: 'string' },
    rate_from: { type: 'string' },
    rate_to: { type: 'string' },
    check_in: { type: 'string' },
    check_out: { type: 'string' },
  }),
  tool('pay', { invoice: { type: 'string' }, deposit: { type: 'integer' }, price: { type: 'integer' } }),
  tool('submit', {}),
]);
const brief = (log: Array<{ tool: string; args: Record<string, unknown> }>) =>
  log.map((a) => `${a.tool}${a.args.id ?? ''}`).join(' ');

describe('the states the reference reaches with decisions left undone', () => {
  const ref = [
    A('read', { id: 'T1' }),
    A('route', { id: 'T1' }),
    A('read', { id: 'T2' }),
    A('route', { id: 'T2' }),
    A('read', { id: 'T3' }),
    A('route', { id: 'T3' }),
    A('close'),
  ];
  it('are all reads and no decision, then every read with a subset of the decisions kept, then k entities read', () => {
    const states = reachedStates(ref, ['read', 'route'], 10);
    expect(states.map((s) => [s.how, brief(s.actions)])).toEqual([
      ['every route call removed', 'readT1 readT2 readT3 close'],
      ['only route calls 2 of 3 kept', 'readT1 readT2 routeT2 readT3 close'],
      ['only route calls 1, 3 of 3 kept', 'readT1 routeT1 readT2 readT3 routeT3 close'],
      ['only route calls 3 of 3 kept', 'readT1 readT2 readT3 routeT3 close'],
      ['only the first 1 of 3 route calls kept', 'readT1 routeT1 readT2 readT3 close'],
      ['only the first 2 of 3 route calls kept', 'readT1 routeT1 readT2 routeT2 readT3 close'],
      ['only route calls 2-3 of 3 kept', 'readT1 readT2 routeT2 readT3 routeT3 close'],
      ['cut before route call 2 of 3, every route call removed', 'readT1 readT2 close'],
      ['every read call removed', 'routeT1 routeT2 routeT3 close'],
      ['only read calls 2 of 3 kept', 'routeT1 readT2 routeT2 routeT3 close'],
    ]);
  });
  it('are capped, never repeat a log, and leave out the finish alone (the padded empty plan covers it)', () => {
    expect(reachedStates(ref, ['route', 'read'], 3)).toHaveLength(3);
    expect(reachedStates([A('route', { id: 'T1' }), A('close')], ['route'], 8)).toEqual([]);
    expect(reachedStates(ref, [], 8)).toEqual([]);
  });
});

describe('the quantity a call covers, cut into adjacent parts', () => {
  it('cuts a date interval into back-to-back stays that cover the same nights', () => {
    const q = quantityOf(META, A('book', { guest: 'G1', check_in: '2026-02-25', check_out: '2026-03-07' }), 'interval');
    expect(q?.parts(3)?.map((a) => [a.args.check_in, a.args.check_out])).toEqual([
      ['2026-02-25', '2026-02-28'],
      ['2026-02-28', '2026-03-03'],
      ['2026-03-03', '2026-03-07'],
    ]);
    expect(q?.parts(20)).toHaveLength(10);
  });
  it('cuts a range of integers with its end counted in it, so no seat is held twice', () => {
    const q = quantityOf(META, A('hold', { row: 'C', first: 10, last: 20 }), 'interval');
    expect(q?.parts(3, true)?.map((a) => [a.args.first, a.args.last])).toEqual([
      [10, 12],
      [13, 16],
      [17, 20],
    ]);
    expect(q?.parts(2)?.map((a) => [a.args.first, a.args.last])).toEqual([
      [10, 15],
      [15, 20],
    ]);
  });
  it('cuts hours on the hour, and leaves a call with no ordered pair alone', () => {
    const q = quantityOf(META, A('room', { room: 'R2', start: '09:00', end: '15:00' }), 'interval');
    expect(q?.parts(3)?.map((a) => `${a.args.start}-${a.args.end}`)).toEqual([
      '09:00-11:00',
      '11:00-13:00',
      '13:00-15:00',
    ]);
    expect(quantityOf(META, A('room', { room: 'R2', start: '09:00', end: '09:00' }), 'interval')).toBeNull();
    expect(quantityOf(META, A('book', { guest: 'G1', check_in: '2026-02-25' }), 'interval')).toBeNull();
  });
  it('cuts a list into sub-lists, and a count inside a string like an amount, never the digits of an id', () => {
    const list = quantityOf(META, A('ship', { order: 'O1', items: ['a', 'b', 'c'] }), 'list');
    expect(list?.parts(2)?.map((a) => a.args.items)).toEqual([['a'], ['b', 'c']]);
    const count = quantityOf(META, A('dispense', { patient: 'P7', quantity: '12 tablets' }), 'count');
    expect(count?.parts(3)?.map((a) => a.args.quantity)).toEqual(['4 tablets', '4 tablets', '4 tablets']);
    expect(quantityOf(META, A('dispense', { patient: 'P7', quantity: 'TK-4821' }), 'count')).toBeNull();
    expect(quantityOf(META, A('dispense', { patient: 'P7', quantity: '2026-03-01' }), 'count')).toBeNull();
  });
  it('reshapes a log by every kind of quantity its calls cover, and merges calls that cover adjacent parts', () => {
    const log = [
      A('book', { guest: 'G1', check_in: '2026-03-01', check_out: '2026-03-04' }),
      A('book', { guest: 'G1', check_in: '2026-03-04', check_out: '2026-03-09' }),
      A('submit'),
    ];
    const hows = reshapings(META, log, 12).map((r) => r.how);
    expect(hows).toEqual([
      'each interval split into 5 parts',
      'each interval split into 5 parts, interleaved',
      'each interval split into 5 parts, its end counted in it',
      'calls differing only in their interval merged',
    ]);
    const merged = reshapings(META, log, 12).at(-1)?.actions;
    expect(merged).toEqual([A('book', { guest: 'G1', check_in: '2026-03-01', check_out: '2026-03-09' }), A('submit')]);
  });
});

describe('every quantity of a call is a candidate, not the first of a kind (redteam-trust6 H6)', () => {
  const stay = A('stay', {
    guest: 'G1',
    rate_from: '2026-01-01',
    rate_to: '2026-12-31',
    check_in: '2026-03-01',
    check_out: '2026-03-11',
  });
  it('takes each ordered pair of points of one form, the pairs adjacent in the schema first', () => {
    expect(quantitiesOf(META, stay, 'interval').map((q) => q.key)).toEqual([
      'rate_from–rate_to',
      'rate_to–check_in',
      'check_in–check_out',
      'rate_from–check_in',
      'rate_to–check_out',
      'rate_from–check_out',
    ]);
    const nights = quantityOf(META, stay, 'interval', 'check_in–check_out');
    expect(nights?.parts(2)?.map((a) => [a.args.rate_from, a.args.check_in, a.args.check_out])).toEqual([
      ['2026-01-01', '2026-03-01', '2026-03-06'],
      ['2026-01-01', '2026-03-06', '2026-03-11'],
    ]);
  });
  it('takes every amount: the price beside a deposit, the deposit kept in each part', () => {
    const pay = A('pay', { invoice: 'I1', deposit: 50, price: 3000 });
    expect(quantitiesOf(META, pay, 'amount').map((q) => q.key)).toEqual(['deposit', 'price']);
    expect(
      quantityOf(META, pay, 'amount', 'price')
        ?.parts(3)
        ?.map((a) => [a.args.deposit, a.args.price]),
    ).toEqual([
      [50, 1000],
      [50, 1000],
      [50, 1000],
    ]);
  });
  it('reshapes a log by each candidate within the cap, naming it, and never plays one log twice', () => {
    const log = [stay, A('submit')];
    const hows = reshapings(META, log, 40, 8, 6).map((r) => r.how);
    expect(hows).toContain('each interval (check_in–check_out) split into 8 parts');
    expect(hows).toContain('each interval (rate_from–rate_to) split into 8 parts');
    expect(reshapings(META, log, 40, 8, 1).map((r) => r.how)).not.toContain(
      'each interval (check_in–check_out) split into 8 parts',
    );
    const logs = reshapings(META, log, 40, 8, 6).map((r) => JSON.stringify(r.actions));
    expect(new Set(logs).size).toBe(logs.length);
  });
  it('tries first, under the cap, the quantities that vary across the calls (not a deposit every call quotes)', () => {
    const log = [
      A('pay', { invoice: 'I1', deposit: 50, price: 3000 }),
      A('pay', { invoice: 'I2', deposit: 50, price: 1800 }),
      A('submit'),
    ];
    const amounts = reshapings(META, log, 40, 8, 1).filter((r) => r.how.includes('amount'));
    expect(amounts.map((r) => r.how)).toEqual([
      'each amount split into 8 parts',
      'each amount split into 8 parts, interleaved',
    ]);
    expect(amounts[0]?.actions.slice(0, 2)).toEqual([
      A('pay', { invoice: 'I1', deposit: 50, price: 375 }),
      A('pay', { invoice: 'I1', deposit: 50, price: 375 }),
    ]);
  });
});

// The withheld-decision family (rt12 W3): which argument names a decision's entity, which entities the episode shows
// that the reference left alone, how an added call is filled from the entity's own reads, and which tools are routes.
import { describe, expect, it } from 'vitest';
import {
  afterLead,
  entitiesToTry,
  entityArgOf,
  filledCall,
  knownAt,
  placesOnRoute,
  plansAt,
  ROUTE_PLACES,
  takesTurnOf,
  readsOf,
  reliesOnItself,
  withheldEntities,
  withCallsAt,
  withoutFirstCall,
} from '../validators/episodic/withheld.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

const id = { type: 'string', maxLength: 12 };
const meta = metaWith([
  tool('list_guests', {}),
  tool('read_guest', { guest_id: id }),
  tool('book', { date: id, guest_id: id, nights: { type: 'integer', minimum: 1 } }),
  tool('submit', {}),
]);
const listing = 'Guests: G101, G202, G303';
const plan = [
  A('book', { date: '2026-03-04', guest_id: 'G101', nights: 5 }),
  A('book', { date: '2026-05-10', guest_id: 'G303', nights: 2 }),
];

describe('withheld decisions', () => {
  it("names the entity by the argument a shown text holds, the one another tool's call sends first", () => {
    // Both the date and the guest are shown (a read prints the dates): the guest is read by another call.
    const shown = [listing, 'G101: check-in 2026-03-04', 'G303: check-in 2026-05-10'];
    expect(entityArgOf(meta, plan, 'book', shown, [[A('read_guest', { guest_id: 'G101' }), ...plan]])).toBe('guest_id');
    expect(entityArgOf(meta, plan, 'book', ['G101: check-in 2026-03-04, G303: 2026-05-10'], [plan])).toBe('date');
    // Nothing shown: no entity (a value the agent made up names nothing the episode shows).
    expect(entityArgOf(meta, plan, 'book', ['Welcome.'])).toBeNull();
  });

  it('finds the entities shown beside a sent one, of its shape, never sent themselves', () => {
    expect(withheldEntities([listing], ['G101', 'G303'])).toEqual(['G202']);
    // A text that names no sent entity is no listing of them; another shape is another kind of thing.
    expect(withheldEntities(['Rooms: G404, R12', `${listing}, R77`], ['g101'])).toEqual(['G202', 'G303']);
    expect(withheldEntities([listing], ['G101', 'G202', 'G303'])).toEqual([]);
    expect(entitiesToTry(['Guests: G1, G2, G3, G4, G5, G6'], ['G1']).length).toBe(2);
  });

  it("fills the added call from the entity's own read, where the reference's value stands in its own", () => {
    const mine = ['G101: check-in 2026-03-04, check-out 2026-03-09; total $42.50.'];
    const theirs = ['G202: check-in 2026-07-01, check-out 2026-07-03; total $18.00.'];
    const call = filledCall(meta, plan[0] as never, 'guest_id', 'G202', mine, theirs);
    // The date is the first of its shape in both reads; the 5 nights stand nowhere but run between its two dates, so
    // the entity's nights are the days between its own (redteam-trust17 R4).
    expect(call).toEqual(A('book', { date: '2026-07-01', guest_id: 'G202', nights: 2 }));
    const refund = metaWith([tool('refund', { order_id: id, amount: { type: 'number' } })]);
    expect(
      filledCall(refund, A('refund', { order_id: 'G101', amount: 42.5 }), 'order_id', 'G202', mine, theirs),
    ).toEqual(A('refund', { order_id: 'G202', amount: 18 }));
    // No read of the entity: the reference's values.
    expect(filledCall(meta, plan[0] as never, 'guest_id', 'G202', mine, []).args.date).toBe('2026-03-04');
  });

  it('reads an entity with each tool its argument alone fills, the decisive tools and the finish aside', () => {
    expect(readsOf(meta, 'guest_id', 'G202', new Set(['book', 'submit']))).toEqual([
      A('read_guest', { guest_id: 'G202' }),
    ]);
  });

  it('takes a tool whose later calls fail once its first call is gone for a route (a walk), not a decision', () => {
    const walk = [A('go_to', { room: 'hall' }), A('take', { item: 'vase' }), A('go_to', { room: 'crypt' })];
    expect(withoutFirstCall(walk, 'go_to')).toEqual([walk[1], walk[2]]);
    expect(withoutFirstCall(walk, 'take')).toBeNull();
    const reference = { turns: 3, rejected: [], changes: [['$.at'], ['$.items.*.at'], ['$.at']] };
    // Without the first step the crypt is no longer next door: the last call changes nothing.
    expect(reliesOnItself(walk, 'go_to', reference, { turns: 2, rejected: [], changes: [[], []] })).toBe(true);
    expect(reliesOnItself(walk, 'go_to', reference, { turns: 2, rejected: [2], changes: [[], ['$.at']] })).toBe(true);
    expect(reliesOnItself(walk, 'go_to', reference, { turns: 1, rejected: [], changes: [[]] })).toBe(true);
    // Two refunds: the second holds without the first.
    const refunds = [A('refund', { order: 'O1' }), A('refund', { order: 'O2' })];
    const paid = { turns: 2, rejected: [], changes: [['$.orders.*.refunded'], ['$.orders.*.refunded']] };
    expect(
      reliesOnItself(refunds, 'refund', paid, { turns: 1, rejected: [], changes: [['$.orders.*.refunded']] }),
    ).toBe(false);
  });

  it("tries a route's added call before each deciding call, those naming the entity first, argument-free too", () => {
    // A queue (redteam-trust14 Y8): the expired guest's booking is tried first where the reference turned it away.
    const queue = [
      A('read_guest', { guest_id: 'G202' }),
      A('book', { guest_id: 'G101' }),
      A('turn_away', { guest_id: 'g202' }),
      A('book', { guest_id: 'G303' }),
    ];
    const decides = (j: number) => queue[j]?.tool !== 'read_guest';
    // A read names the entity early (redteam-trust15 Z7): it is no deciding call, so no place.
    expect(placesOnRoute(queue, 'G202', decides)).toEqual([2, 1, 3]);
    // A turn-away that names nobody (Z6) is a place like any deciding call; plan order where none names the entity.
    const headless = [A('book', { guest_id: 'G101' }), A('turn_away', {}), A('book', { guest_id: 'G303' })];
    expect(placesOnRoute(headless, 'G202', () => true)).toEqual([0, 1, 2]);
    // Bounded: at most ROUTE_PLACES places.
    const long = Array.from({ length: 20 }, () => A('next', {}));
    expect(placesOnRoute(long, 'G202', () => true)).toHaveLength(ROUTE_PLACES);
    expect(placesOnRoute(headless, 'G202', () => false)).toEqual([]);
  });

  it("lets a route's added call take the turn of a call on its entity or naming nobody, never of another's", () => {
    const headless = [A('book', { guest_id: 'G101' }), A('turn_away', {}), A('book', { guest_id: 'G303' })];
    expect(plansAt(headless, 1, 'G202', true)).toEqual([headless, [headless[0], headless[2]]]);
    expect(plansAt(headless, 0, 'G202', true)).toEqual([headless]);
    expect(plansAt([A('turn_away', { guest_id: 'g202' })], 0, 'G202', true)).toHaveLength(2);
    // A decision that is no route goes before the finish, the plan kept.
    expect(plansAt(headless, 3, 'G202', false)).toEqual([headless]);
    expect(takesTurnOf(A('turn_away', { count: 1 }), 'G202')).toBe(true);
    expect(takesTurnOf(A('go_to', { room: 'hall' }), 'attic')).toBe(false);
  });

  it('reads a route probe after the listings put ahead of it as the plan alone', () => {
    const run = { turns: 3, rejected: [1, 3], changes: [[], ['$.used'], []] };
    expect(afterLead(run, 1)).toEqual({ turns: 2, rejected: [2], changes: [['$.used'], []] });
  });

  it('places an added call where its entity is first known: after the reply that names it, else first', () => {
    const ref = { prompt: 'Desk 12: refund the returns.', observations: ['O-1: $5 refunded.', 'O-2 is a gift card.'] };
    expect(knownAt(ref as never, 'o-2')).toBe(2);
    expect(knownAt(ref as never, 'O-9')).toBe(0);
    expect(knownAt({ ...ref, prompt: 'Returns O-2, O-1.' } as never, 'O-2')).toBe(0);
    const plan = [A('refund', { id: 'O-1' }), A('refund', { id: 'O-3' })];
    const added = [A('read', { id: 'O-2' }), A('refund', { id: 'O-2' })];
    expect(withCallsAt(plan, 1, added, A('close', {})).map((a) => a.tool)).toEqual([
      'refund',
      'read',
      'refund',
      'refund',
      'close',
    ]);
  });
});

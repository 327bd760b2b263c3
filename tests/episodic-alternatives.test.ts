// Decisions outside the reference's vocabulary (validators/episodic/alternatives.ts): which tools take each other's
// calls, which arguments are claims, how a claim is changed alone, refilled from the entity's reads, and composed with
// a rule's ablation.
import { describe, expect, it } from 'vitest';
import {
  claimChanges,
  claimedAblations,
  claimEntityArg,
  compatible,
  refilledCall,
  replaced,
  segmentOf,
  shownOf,
  swappedCalls,
} from '../validators/episodic/alternatives.js';
import { claimsOf } from '../validators/episodic/claims.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

const id = { type: 'string', maxLength: 12 };
const whole = { type: 'integer', minimum: 1 };
const required = (t: ReturnType<typeof tool>, names: string[]) => ({
  ...t,
  parameters: { ...t.parameters, required: names },
});
const meta = metaWith([
  tool('list_orders', {}),
  required(tool('read_order', { order_id: id }), ['order_id']),
  required(tool('refund', { order_id: id, amount: whole, opened: { type: 'boolean' } }), ['order_id', 'amount']),
  required(tool('store_credit', { order_id: id, amount: whole }), ['order_id', 'amount']),
  required(tool('hold', { order_id: id, amount: { type: 'string' } }), ['order_id', 'amount']),
  required(tool('note', { order_id: id, amount: whole, text: { type: 'string' } }), ['order_id', 'amount', 'text']),
  tool('close_desk', {}),
]);

describe('tool swaps', () => {
  it('pairs tools with the same required arguments of the same types, never a tool with itself', () => {
    expect(compatible(meta, 'refund', 'store_credit')).toBe(true);
    expect(compatible(meta, 'store_credit', 'refund')).toBe(true);
    expect(compatible(meta, 'refund', 'refund')).toBe(false);
    // Another type, another required argument, nothing required: no call of one is a call of the other.
    expect(compatible(meta, 'refund', 'hold')).toBe(false);
    expect(compatible(meta, 'refund', 'note')).toBe(false);
    expect(compatible(meta, 'refund', 'read_order')).toBe(false);
    expect(compatible(meta, 'list_orders', 'close_desk')).toBe(false);
  });

  it("sends a couple of each tool's calls through the other, with the arguments the other declares", () => {
    const body = [
      A('refund', { order_id: 'OR1', amount: 10, opened: true }),
      A('store_credit', { order_id: 'OR2', amount: 20 }),
      A('refund', { order_id: 'OR3', amount: 30, opened: false }),
      A('refund', { order_id: 'OR4', amount: 40, opened: false }),
    ];
    const swaps = swappedCalls(meta, body, ['refund', 'store_credit']);
    expect(swaps.map((s) => [s.index, s.how])).toEqual([
      [0, 'refund sent through store_credit'],
      [3, 'refund sent through store_credit'],
      [1, 'store_credit sent through refund'],
    ]);
    expect(swaps[0]?.call).toEqual(A('store_credit', { order_id: 'OR1', amount: 10 }));
    expect(swappedCalls(meta, body, ['refund'])).toEqual([]);
  });
});

describe('claims', () => {
  const body = [
    A('read_order', { order_id: 'OR1' }),
    A('refund', { order_id: 'OR1', amount: 90, opened: true }),
    A('refund', { order_id: 'OR2', amount: 50, opened: false }),
  ];

  it('takes a boolean or enum argument the plan sends with two values or more, never a constant one', () => {
    expect(claimsOf(meta, body, 'refund')).toEqual(['opened']);
    expect(claimsOf(meta, body.slice(0, 2), 'refund')).toEqual([]);
  });

  it('names the entity by the argument a read takes alone, else by the first string another in each call', () => {
    expect(claimEntityArg(meta, body, 'refund', new Set(['refund']))).toBe('order_id');
    expect(claimEntityArg(meta, body, 'refund', new Set(['read_order']))).toBe('order_id');
    const same = [
      A('refund', { order_id: 'OR1', amount: 9, opened: true }),
      A('refund', { order_id: 'OR1', amount: 9 }),
    ];
    expect(claimEntityArg(meta, same, 'refund', new Set())).toBeNull();
  });

  it('cuts a shared text to what it says of each entity, in the same order for every entity', () => {
    const listing = 'Orders: OR1 $100 opened; OR22 $80 unopened; OR3 $60 opened.';
    expect(segmentOf(listing, 'OR1')).toBe('OR1 $100 opened; ');
    expect(segmentOf(listing, 'or3')).toBe('OR3 $60 opened.');
    expect(segmentOf(listing, 'OR9')).toBe('');
    expect(shownOf(['OR1: read'], [listing, 'Welcome.'], 'OR1')).toEqual(['OR1: read', 'OR1 $100 opened; ', '']);
  });

  it('changes one call to each other value sent, refilled from its reads as the template read its own', () => {
    const changes = claimChanges(meta, body, 'refund', 'order_id');
    expect(changes.map((c) => [c.index, c.entity, c.templateEntity])).toEqual([
      [2, 'OR2', 'OR1'],
      [1, 'OR1', 'OR2'],
    ]);
    const toFull = changes[1];
    expect(toFull?.alone).toEqual(A('refund', { order_id: 'OR1', amount: 90, opened: false }));
    const mine = ['OR2: price $50, item unopened.'];
    const theirs = ['OR1: price $100, item opened.'];
    // The claim and the amount together: the price the entity's read shows, where the template's stands in its own.
    expect(toFull && refilledCall(meta, toFull, mine, theirs)).toEqual(
      A('refund', { order_id: 'OR1', amount: 100, opened: false }),
    );
    expect(replaced(body, 1, A('x'))).toEqual([body[0], A('x'), body[2]]);
    // No read: the listing's part for each entity refills the call all the same.
    const listing = 'Orders: OR1 $100 opened; OR2 $50 unopened.';
    const shown = (e: string) => shownOf([], [listing], e);
    expect(toFull && refilledCall(meta, toFull, shown('OR2'), shown('OR1'))).toEqual(
      A('refund', { order_id: 'OR1', amount: 100, opened: false }),
    );
  });

  it("composes a rule's ablation with every call sending one value of the claim, the finish kept", () => {
    const ablated = [...body, A('close_desk')];
    const logs = claimedAblations(meta, ablated);
    expect(logs.map((l) => l.how)).toEqual(['every refund.opened sent true', 'every refund.opened sent false']);
    expect(logs[1]?.actions.map((a) => a.args.opened)).toEqual([undefined, false, false, undefined]);
    expect(logs[1]?.actions.at(-1)).toEqual(A('close_desk'));
    expect(
      claimedAblations(meta, [A('refund', { order_id: 'OR1', amount: 9, opened: true }), A('close_desk')]),
    ).toEqual([]);
  });
});

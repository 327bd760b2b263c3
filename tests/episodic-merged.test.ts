// A tool's calls on one entity merged past a number stated about the tool, judged where the number accumulates
// (validators/episodic/merged.ts, redteam-s18e E5).
import { describe, expect, it } from 'vitest';
import type { Rollout, RolloutRequest, RolloutResult } from '../sandbox/rollouts.js';
import type { Action } from '../validators/episodic/adversaries.js';
import { boundUnits, equatedUnits, perOwnUnit, unitsIn, wordsOf } from '../validators/episodic/cap-units.js';
import { statedCaps } from '../validators/episodic/caps.js';
import { tokensOf } from '../validators/episodic/probes.js';
import { accumulating, heldAt, mergedCalls, movedBy, type MergedLog } from '../validators/episodic/merged.js';

const refund = (order_id: string, amount: number) => ({ tool: 'refund', args: { order_id, amount } });
const body = [
  refund('O-1', 200),
  refund('O-1', 140),
  { tool: 'read_order', args: { order_id: 'O-2' } },
  refund('O-2', 90),
];

describe('mergedCalls', () => {
  it("merges one entity's parts into their sum where a stated number lies between a part and the sum", () => {
    const merged = mergedCalls(body, 'refund', 'No single refund may be over $200.');
    expect(merged?.actions).toEqual([refund('O-1', 340), body[2], refund('O-2', 90)]);
    expect(merged?.sentence).toBe('No single refund may be over $200.');
    expect(merged?.groups).toEqual([{ at: [0, 1], arg: 'amount', to: 0 }]);
  });
  it('merges nothing where no stated number separates the parts from their sum, or each entity has one call', () => {
    expect(mergedCalls(body, 'refund', 'Refund every order in parts of at most 500.')).toBe(null);
    expect(mergedCalls(body, 'refund', 'Parts of 100 at most.')).toBe(null);
    expect(mergedCalls([refund('O-1', 200), refund('O-2', 140)], 'refund', 'At most 200 a refund.')).toBe(null);
  });
  it("reads no list's label as a stated number", () => {
    const pages = [1, 2].map((page) => ({ tool: 'list_items', args: { page } }));
    expect(mergedCalls(pages, 'list_items', '1. Read every page.\n2) Then order.')).toBe(null);
    expect(mergedCalls(pages, 'list_items', 'Read at most 2 pages.')?.actions).toEqual([
      { tool: 'list_items', args: { page: 3 } },
    ]);
  });
  it('leaves calls differing in two numbers (not parts of one quantity) alone', () => {
    const two = [
      { tool: 'pick', args: { sku: 'A', units: 10, bin: 3 } },
      { tool: 'pick', args: { sku: 'A', units: 5, bin: 4 } },
    ];
    expect(mergedCalls(two, 'pick', 'At most 12 units a pick.')).toBe(null);
    const one = two.map((a) => ({ ...a, args: { ...a.args, bin: 3 } }));
    expect(mergedCalls(one, 'pick', 'At most 12 units a pick.')?.actions).toEqual([
      { tool: 'pick', args: { sku: 'A', units: 15, bin: 3 } },
    ]);
  });
});

describe('statedCaps', () => {
  const tools = ['deposit_check', 'withdraw', 'refund'];
  const capsOf = (text: string, tool: string) => statedCaps(text, tool, tools).map((c) => c.n);
  it('binds a number to the tool its clause names, and none to a tool a clause exempts (redteam-s20e S6)', () => {
    const both =
      'Deposit checks of any size, but no single withdrawal may be over $300: pay a larger request in parts.';
    expect(capsOf(both, 'deposit_check')).toEqual([]);
    expect(capsOf(both, 'withdraw')).toEqual([300]);
    const own = 'deposit_check: no limit, unlike a withdrawal (at most $300 each).';
    expect(capsOf(own, 'deposit_check')).toEqual([]);
    expect(capsOf('withdraw: Pay out cash, at most $300 a call.', 'withdraw')).toEqual([300]);
  });
  it('reads an upper bound on one call, not a threshold', () => {
    expect(capsOf('Refund each order its price, no part over $200, then close.', 'refund')).toEqual([200]);
    expect(capsOf('Never refund more than $250 in one go.', 'refund')).toEqual([250]);
    expect(capsOf('Refunds of $120 or less each.', 'refund')).toEqual([120]);
    expect(capsOf('Parts of 100 at most.', 'refund')).toEqual([100]);
    expect(capsOf('Refund only orders whose lines total $150 or more.', 'refund')).toEqual([]);
    expect(capsOf('Refund orders over $150 after a manager signs.', 'refund')).toEqual([]);
  });
  it("reads a comparison of the tool's own value, a superlative, no other unit's bound (redteam-s21e T1, T6)", () => {
    expect(capsOf('Refunds larger than $200 must be split into several refunds.', 'refund')).toEqual([200]);
    expect(capsOf('A refund above $200 is not allowed: refund a larger price in parts.', 'refund')).toEqual([200]);
    expect(capsOf('Any refund amount greater than $200 will be flagged.', 'refund')).toEqual([200]);
    expect(capsOf('The largest refund the till allows is $200.', 'refund')).toEqual([200]);
    expect(capsOf('A single refund may be $200 at the very most.', 'refund')).toEqual([200]);
    // A limit per item, per day, per order bounds another unit than the call.
    expect(capsOf('Refund each item its price, but at most $200 per item.', 'refund')).toEqual([]);
    expect(capsOf('Refund each item what it cost, to a limit of $200 for each item.', 'refund')).toEqual([]);
    expect(capsOf('Refund at most $200 a day.', 'refund')).toEqual([]);
    expect(capsOf('Refund at most $200 per refund.', 'refund')).toEqual([200]);
    expect(capsOf('withdraw: at most $300 a withdrawal.', 'withdraw')).toEqual([300]);
  });
  it('reads the unit a bound is per wherever its clause names it, against what the world shows (s22e U4, U8)', () => {
    const items = {
      own: wordsOf('refund order_id amount Refund an amount on an order, sent as one bank transfer.'),
      shown: wordsOf('read_order Show one order: its lines (item and price) and its total.'),
    };
    const caps = (text: string) => statedCaps(text, 'refund', tools, items).map((c) => c.n);
    // A unit the world shows apart from the call (an order's items), before or after the number: no cap on a call.
    expect(caps("No item is refunded more than $200 (the store's return limit).")).toEqual([]);
    expect(caps('Each returned item may be refunded at most $200.')).toEqual([]);
    expect(caps('Refund each item its price, no more than $200 on any one item.')).toEqual([]);
    expect(caps('Refund at most $500 a day.')).toEqual([]);
    // The call's own medium (its texts' "transfer"), a unit the world never shows, or a coarser entity: a cap.
    expect(caps('Refunds go out by bank transfer, capped at $200 per transfer.')).toEqual([200]);
    expect(caps('Refunds are paid by cheque, at most $200 per cheque.')).toEqual([200]);
    expect(caps('No single refund may be over $200 on any order.')).toEqual([200]);
    expect(caps('Refunds top out at $200: refund a larger price in parts.')).toEqual([200]);
    expect(caps('The most a single refund can be is $200.')).toEqual([200]);
    expect(unitsIn('takes at most 20 kg per parcel, no more than two a day')).toEqual(['parcel', 'day']);
    expect(
      perOwnUnit('The courier takes at most 20 kg per parcel.', 'ship_parcel', ['read_order', 'ship_parcel']),
    ).toBe(true);
    expect(perOwnUnit('At most 20 kg per order.', 'ship_parcel', ['read_order', 'ship_parcel'])).toBe(false);
  });
  it('reads the unit the amount is FOR, the subject, then the occasion, not a kind ranking (s23e V3, V5, V9)', () => {
    const items = {
      own: wordsOf('refund order_id amount Refund an amount (whole dollars) on an order.'),
      shown: wordsOf('read_order Show one order: its lines (item and price) and its total.'),
    };
    const caps = (text: string) => statedCaps(text, 'refund', tools, items).map((c) => c.n);
    // A time only saying when a bound on each call holds: the call is the subject (V5).
    expect(caps('No refund may be over $200 on any day of the week: refund a larger price in parts.')).toEqual([200]);
    expect(caps('During any shift, each refund is capped at $200.')).toEqual([200]);
    expect(boundUnits('No more than $500 in refunds on any one day')).toEqual({ role: 'at', units: ['day'] });
    expect(caps('No more than $500 in refunds on any one day.')).toEqual([]);
    // The amount said FOR a unit the world shows, whatever the subject (V9).
    expect(caps('Refund each returned item its price: no refund may be over $200 for any one item.')).toEqual([]);
    expect(caps('Refund each item its price, capped at $200 a refund for each item.')).toEqual([]);
    expect(caps('A refund may not exceed $200 per item.')).toEqual([]);
    // 'Per' as 'according to' names no unit (redteam-s24e W3): after 'as', before a determiner, a possessive or rules.
    const refund = { role: 'of', units: ['refund'] };
    expect(boundUnits('No refund may be over $200 as per store policy')).toEqual(refund);
    expect(boundUnits("No refund may be over $200 (per the bank's rules)")).toEqual(refund);
    expect(boundUnits('No refund may be over $200 per card terms')).toEqual(refund);
    expect(boundUnits('No refund may be over $200 per store')).toEqual({ role: 'for', units: ['store'] });
    const stores = { own: items.own, shown: wordsOf('list_orders The store, its bank and card terms and policy.') };
    const atStore = (text: string) => statedCaps(text, 'refund', tools, stores).map((c) => c.n);
    expect(atStore('No refund may be over $200 as per store policy: refund a larger price in parts.')).toEqual([200]);
    expect(atStore("No refund may be over $200 per the bank's terms; refund a larger price in parts.")).toEqual([200]);
    expect(atStore('No refund may be over $200 per store: refund a larger price in parts.')).toEqual([]);
    // A unit the texts make one call (V3): "one pallet", "in several transfers"; not "any one item".
    const move =
      'Stock comes down on pallets: each move_stock call brings down one pallet, and a pallet holds at most 40.';
    expect([...equatedUnits([move], 'move_stock')]).toEqual(['pallet']);
    expect([
      ...equatedUnits(['Refund in several transfers.', 'Refund at most $200 for any one item.'], 'refund'),
    ]).toEqual(['transfer']);
    const pallets = { own: wordsOf('move_stock request_id units'), shown: wordsOf('reserve: 7 pallets') };
    const onPallet = (world: object) => statedCaps(move, 'move_stock', ['move_stock'], world as typeof pallets);
    expect(onPallet(pallets).map((c) => c.n)).toEqual([]);
    expect(onPallet({ ...pallets, equated: new Set(['pallet']) }).map((c) => c.n)).toEqual([40]);
  });
  it('reads a number with thousands separators as one (redteam-s21e T2)', () => {
    expect(capsOf('No single refund may exceed $1,000: refund a larger price in parts.', 'refund')).toEqual([1000]);
    expect(capsOf('Refunds of $1,250.50 or less, each.', 'refund')).toEqual([1250.5]);
    expect(tokensOf('Refundable: $1,250; 2,000,000 units; pick 1,2,3.')).toEqual([
      'Refundable',
      '1250',
      '2000000',
      'units',
      'pick',
      '1',
      '2',
      '3',
    ]);
  });
});

describe('movedBy', () => {
  it('finds the leaves that moved by the number, up or down, present before and after', () => {
    expect([...movedBy({ a: { paid: 200, n: 1 } }, { a: { paid: 340, n: 2 } }, 140)]).toEqual(['$.a.paid']);
    expect([...movedBy({ balance: 900 }, { balance: 600 }, 300)]).toEqual(['$.balance']);
    expect([...movedBy({ seen: [1] }, { seen: [1, 2] }, 2)]).toEqual([]);
    expect([...movedBy({ x: 5 }, { x: 5 }, 0)]).toEqual([]);
  });
});

/** A replay of `actions` on a small world (refund adds to an order; list_items records the pages seen). */
function world(capped: boolean) {
  return (requests: RolloutRequest[]): Promise<RolloutResult[]> =>
    Promise.resolve(
      requests.map((q) => {
        const state = {
          orders: { 'O-1': { refunded: 0 } } as Record<string, { refunded: number }>,
          pages: [] as number[],
        };
        for (const a of (q.policy as { actions: Action[] }).actions) {
          const order = state.orders[a.args.order_id as string];
          if (a.tool === 'refund' && order && !(capped && (a.args.amount as number) > 200))
            order.refunded += a.args.amount as number;
          if (a.tool === 'list_items') state.pages.push(a.args.page as number);
        }
        return { ok: true, state } as unknown as Rollout;
      }),
    );
}

describe('accumulating', () => {
  const ref = (actions: Action[]) => ({ ok: true, seed: 1, level: 1, actions }) as unknown as Rollout;
  const logOf = (actions: Action[], tool: string, text: string): MergedLog => {
    const m = mergedCalls(actions, tool, text);
    if (!m) throw new Error('nothing merged');
    return { tool, ...m };
  };
  it('holds for an amount added to the state or pushed onto a ledger (S1), not for a merged call refused', async () => {
    const refunds = [refund('O-1', 200), refund('O-1', 140)];
    const cases = [{ ref: ref(refunds), merged: logOf(refunds, 'refund', 'At most 200 a refund.') }];
    expect(await accumulating(cases, world(false))).toEqual([true]);
    expect(await accumulating(cases, world(true))).toEqual([false]);
    // Each part an entry pushed onto a list (a new leaf, no leaf moved): the world still took it.
    const pages = [3, 4].map((page) => ({ tool: 'list_items', args: { page } }));
    const listed = { ref: ref(pages), merged: logOf(pages, 'list_items', 'Read at most 5 pages a call.') };
    expect(await accumulating([listed], world(false))).toEqual([true]);
    expect([...heldAt({ o: { parts: [200] } }, { o: { parts: [200, 140] } }, 140)]).toEqual(['$.o.parts.1']);
    expect([...heldAt({ o: { parts: [200] } }, { o: { parts: [200] } }, 200)]).toEqual([]);
  });

  it('reads a cap from the text, whatever the split (redteam-s19 E1, redteam-s20e S7)', () => {
    // No number a text bounds from above: a threshold on a total, a page's size.
    const pages = [1, 2, 3].map((page) => ({ tool: 'list_items', args: { page } }));
    expect(mergedCalls(pages, 'list_items', '5 per page.')).toBeNull();
    const lines = [refund('O-1', 80), refund('O-1', 90)];
    expect(mergedCalls(lines, 'refund', 'Refund only the orders whose lines total $150 or more.')).toBeNull();
    // A cap the references split finer than (line by line, more calls than the sum needs): still merged.
    const cap = 'No single refund may be over $200.';
    const three = [refund('O-1', 60), refund('O-1', 50), refund('O-1', 120)];
    expect(mergedCalls(three, 'refund', cap, [[refund('O-2', 150), refund('O-2', 30)]])?.actions).toEqual([
      refund('O-1', 230),
    ]);
    // A reference part over the number: the reading is wrong, nothing merged.
    expect(mergedCalls(lines, 'refund', 'At most 150 a refund.', [[refund('O-2', 180)]])).toBeNull();
  });
});

// A tool's calls on one entity merged past a number stated about the tool, judged where the number accumulates
// (validators/episodic/merged.ts, redteam-s18e E5).
import { describe, expect, it } from 'vitest';
import type { Rollout, RolloutRequest, RolloutResult } from '../sandbox/rollouts.js';
import type { Action } from '../validators/episodic/adversaries.js';
import { accumulating, mergedCalls, movedBy, type MergedLog } from '../validators/episodic/merged.js';

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
  it('holds for an amount added to the state, not for a page the state lists, nor a merged call refused', async () => {
    const refunds = [refund('O-1', 200), refund('O-1', 140)];
    // Pages 3 and 4 under "5 per page" look like a cap obeyed (no part over 5, no more calls than the sum needs).
    const pages = [3, 4].map((page) => ({ tool: 'list_items', args: { page } }));
    const cases = [
      { ref: ref(refunds), merged: logOf(refunds, 'refund', 'At most 200 a refund.') },
      { ref: ref(pages), merged: logOf(pages, 'list_items', '5 per page.') },
    ];
    expect(await accumulating(cases, world(false))).toEqual([true, false]);
    expect(await accumulating(cases.slice(0, 1), world(true))).toEqual([false]);
  });

  it('merges only past a number the references obey as a cap on every entity (redteam-s19 E1)', () => {
    // Three pages make more calls than a sum of 6 needs under 5: no cap's split.
    const pages = [1, 2, 3].map((page) => ({ tool: 'list_items', args: { page } }));
    expect(mergedCalls(pages, 'list_items', '5 per page.')).toBeNull();
    // Refunds by line past a $150 threshold: another reference refunds one line of $180, over the number.
    const lines = [refund('O-1', 80), refund('O-1', 90)];
    const text = 'Refund only the orders whose lines total $150 or more.';
    expect(mergedCalls(lines, 'refund', text)).not.toBeNull();
    expect(mergedCalls(lines, 'refund', text, [[refund('O-2', 180)]])).toBeNull();
    expect(mergedCalls(lines, 'refund', text, [[refund('O-3', 60), refund('O-3', 50), refund('O-3', 70)]])).toBeNull();
    // A cap the other references obey too: still merged.
    expect(
      mergedCalls(lines, 'refund', 'At most 150 a refund.', [[refund('O-2', 150), refund('O-2', 30)]]),
    ).not.toBeNull();
  });
});

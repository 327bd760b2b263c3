// Settlements a text allows side by side (validators/episodic/settlements.ts: redteam-s17 F6), as pure functions: two
// tools joined by "or" are alternatives, a negation denies both, and a withheld log that drops the reference's
// decision for an allowed alternative is read as the other settlement unless a text forbids the call.
import { describe, expect, it } from 'vitest';
import type { Action } from '../validators/episodic/adversaries.js';
import { replacesAllowed, settlementsOf } from '../validators/episodic/settlements.js';

const TOOLS = ['list_orders', 'read_order', 'verify_order', 'refund', 'ship', 'store_credit'];
const alternativesOf = (text: string, tool: string) => [...(settlementsOf(text, TOOLS).alternatives.get(tool) ?? [])];

describe('settlements a text allows (F6)', () => {
  it.each([
    'A delayed order is either shipped now or refunded exactly its price; the customer accepts both.',
    'Settle a delayed order by shipping it now or with a refund of exactly its price (the customer takes either).',
  ])('reads two tools joined by "or" as alternatives: %s', (text) => {
    expect(alternativesOf(text, 'refund')).toEqual(['ship']);
    expect(alternativesOf(text, 'ship')).toEqual(['refund']);
  });

  it('reads no alternative in a prohibition of both, an order, or "whether or not"', () => {
    expect(alternativesOf('Do not ship or refund a damaged order.', 'refund')).toEqual([]);
    expect(alternativesOf('Verify each order with verify_order, then refund it or ship it.', 'verify_order')).toEqual(
      [],
    );
    expect(alternativesOf('Refund every order whether or not verify_order has run.', 'refund')).toEqual([]);
    expect(settlementsOf('Refund every order whether or not verify_order has run.', TOOLS).forbidden.size).toBe(0);
  });

  const body: Action[] = [
    { tool: 'read_order', args: { order_id: 'O-1' } },
    { tool: 'ship', args: { order_id: 'O-1' } },
    { tool: 'refund', args: { order_id: 'O-2', amount: 12 } },
  ];
  const refund = { tool: 'refund', args: { order_id: 'O-1', amount: 30 } };
  const replaced = { tool: 'refund', entity: 'O-1', actions: [body[0], refund, body[2]] as Action[] };
  const beside = { tool: 'refund', entity: 'O-1', actions: [...body, refund] };

  it('reads a log that swaps the decision for an alternative as the other settlement, one beside as a trial', () => {
    const s = settlementsOf('A delayed order is either shipped or refunded.', TOOLS);
    expect(replacesAllowed(s, body, replaced)).toBe(true);
    expect(replacesAllowed(s, body, beside)).toBe(false);
    expect(replacesAllowed(settlementsOf('A delayed order is shipped.', TOOLS), body, replaced)).toBe(false);
  });

  it('judges the replacement where a text forbids the call (a prohibition outranks a permission)', () => {
    const s = settlementsOf('A delayed order is either shipped or refunded. Never refund a gift card.', TOOLS);
    expect(replacesAllowed(s, body, replaced)).toBe(false);
  });
});

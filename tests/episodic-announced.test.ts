// Whether the texts direct sending a figure as its tool shows it (validators/episodic/announced.ts): a sending
// sentence naming the figure by its own words and its source as what shows it (redteam-s23e V7, redteam-s24e W1, W4).
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { Rollout } from '../sandbox/rollouts.js';
import { announcedCopy } from '../validators/episodic/announced.js';

const call = (tool: string, args: Record<string, unknown> = {}) => ({ tool, args });
const tool = (name: string, description: string) => ({ name, description, parameters: { type: 'object' } });

describe('announcedCopy', () => {
  const invoices = (prompt: string) => {
    const meta = {
      description: 'Pay the approved invoices.',
      tools: [
        tool('read_invoice', 'Show one invoice: vendor, subtotal and total with tax.'),
        tool('pay_invoice', 'Pay an invoice an amount in whole dollars.'),
      ],
    } as unknown as EpisodicMeta;
    const actions = [
      call('read_invoice', { invoice_id: 'INV-1' }),
      call('pay_invoice', { invoice_id: 'INV-1', amount: 540 }),
    ];
    const observations = ['INV-1: Acme Supply, subtotal $500, total with tax $540.', 'INV-1: $540 paid.'];
    const r = { ok: true, seed: 1, level: 1, prompt, actions, observations } as unknown as Rollout;
    return announcedCopy([r], { tool: 'pay_invoice', arg: 'amount', from: 'read_invoice', fromEnd: 0 }, meta);
  };
  it('reads a sending sentence naming the figure and its source as showing it, by name or object (V7, W4)', () => {
    expect(invoices('Pay every approved invoice its total, as read_invoice shows it (subtotal plus 8% tax).')).toBe(
      true,
    );
    expect(invoices('Pay every approved invoice its total with tax, as printed on the invoice (plus 8% tax).')).toBe(
      true,
    );
    expect(invoices('Pay every approved invoice the total with tax that the invoice lists (plus 8% tax).')).toBe(true);
  });
  it('needs the sending, the source showing it, and a word of the figure no other number is printed by', () => {
    // No sentence sends it: the texts describe what the tool shows.
    expect(invoices('read_invoice shows each invoice: its subtotal and total. Add the 8% tax and pay it.')).toBe(false);
    // Sent, but not as shown: the rule is the direction.
    expect(invoices('Pay every approved invoice its total: the subtotal plus 8% tax.')).toBe(false);
    // Sent as shown, but named by the subtotal's word.
    expect(invoices('Pay every approved invoice its subtotal, as the invoice shows it, plus 8% tax.')).toBe(false);
  });
  it("reads no word the texts give the figure's input as the figure's (W1: 'Net price after the fee')", () => {
    const meta = {
      description: 'Refund each returned order its price, then close the desk.',
      tools: [
        tool('read_order', 'Show one order: its item and price.'),
        tool('refund', 'Refund an amount on an order.'),
      ],
    } as unknown as EpisodicMeta;
    const prompt =
      'read_order shows each order: its item, whether it was opened, and its price.\n' +
      'An unopened item is refunded its full price. For an opened item the store keeps a $15 restocking fee.';
    const actions = [call('read_order', { order_id: 'O-1' }), call('refund', { order_id: 'O-1', amount: 72 })];
    const rule = { tool: 'refund', arg: 'amount', from: 'read_order', fromEnd: 0 };
    for (const label of ['Net price after the fee', 'Refund due on this item', 'Price to refund, fee taken']) {
      const observations = [`O-1: kettle (opened), $87. ${label}: $72.`, 'O-1: $72 refunded.'];
      const r = { ok: true, seed: 1, level: 1, prompt, actions, observations } as unknown as Rollout;
      expect(announcedCopy([r], rule, meta)).toBe(false);
    }
  });
});

// The texts a policy is shown that state rules (validators/episodic/tool-texts.ts: redteam-trust21 R9): a rule in a
// parameter's description binds like one in the tool's own description.
import { describe, expect, it } from 'vitest';
import { schemaTexts, toolTexts } from '../validators/episodic/tool-texts.js';
import { statedRules } from '../validators/episodic/stated-rules.js';

const refund = (order: Record<string, unknown>, amount: Record<string, unknown> = {}) => ({
  name: 'refund',
  description: 'Refund an amount (whole dollars) on an order.',
  parameters: {
    type: 'object',
    properties: { order_id: { type: 'string', ...order }, amount: { type: 'integer', ...amount } },
  },
});

describe('tool texts (R9)', () => {
  it('reads a rule stated in a parameter description, a nested one too', () => {
    const tool = refund({ description: 'An order that verify_order must have cleared first.' });
    expect(statedRules(toolTexts(tool), ['verify_order']).map((r) => r.tool)).toEqual(['verify_order']);
    const nested = refund({}, { title: 'Amount', items: { description: 'Only once verify_order has passed it.' } });
    expect(schemaTexts(nested.parameters)).toEqual(['Amount', 'Only once verify_order has passed it.']);
  });

  it('reads no rule where the parameters state none', () => {
    expect(statedRules(toolTexts(refund({ description: 'The order id.' })), ['verify_order'])).toEqual([]);
  });
});

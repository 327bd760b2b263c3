// A tool's calls on one entity merged past a number stated about the tool (validators/episodic/merged.ts, E5).
import { describe, expect, it } from 'vitest';
import { mergedCalls } from '../validators/episodic/merged.js';

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
  });
  it('merges nothing where no stated number separates the parts from their sum, or each entity has one call', () => {
    expect(mergedCalls(body, 'refund', 'Refund every order in parts of at most 500.')).toBe(null);
    expect(mergedCalls(body, 'refund', 'Parts of 100 at most.')).toBe(null);
    expect(mergedCalls([refund('O-1', 200), refund('O-2', 140)], 'refund', 'At most 200 a refund.')).toBe(null);
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

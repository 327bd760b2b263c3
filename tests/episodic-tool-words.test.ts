// A sentence names a tool by what its description says it does (validators/episodic/tool-words.ts, rt21 R10).
import { describe, expect, it } from 'vitest';
import type { Tool } from '../contract/episodic.js';
import { statedRules } from '../validators/episodic/stated-rules.js';
import { deedWords, lemma, namedTools } from '../validators/episodic/tool-words.js';

const tool = (name: string, description: string) =>
  ({ name, description, parameters: { type: 'object', properties: {} } }) as unknown as Tool;
const desk = [
  tool('list_orders', 'List the returned orders waiting for a refund.'),
  tool('read_order', 'Show one order: its item and price.'),
  tool('verify_order', 'Check a returned order against the warehouse scan.'),
  tool('refund', 'Refund an amount (whole dollars) on an order.'),
  tool('close_desk', 'Close the returns desk; ends the task.'),
];
const names = desk.map((t) => t.name);

describe('lemma', () => {
  it('takes plural, past, gerund and possessive endings off', () => {
    expect(['scans', 'scanned', 'scanning', 'scan'].map(lemma)).toEqual(['scan', 'scan', 'scan', 'scan']);
    expect(['checked', 'checks', 'warehouses', "warehouse's"].map(lemma)).toEqual([
      'check',
      'check',
      'warehous',
      'warehous',
    ]);
    expect(lemma('refuses')).not.toBe(lemma('refund'));
  });
});

describe('namedTools', () => {
  it('reads what a tool does in its description, less what other tools share and what a read shows', () => {
    const words = deedWords(desk);
    expect(words.get('verify_order')).toEqual(['check', 'warehouse', 'scan']);
    expect(words.get('read_order')).toEqual([]);
    expect(words.get('list_orders')).toEqual([]);
  });
  it('names a tool where a sentence says what it does, and the rule readers read it bound', () => {
    const text = 'Every order must be inspected against the warehouse scan before it is refunded.';
    expect(statedRules(text, names).map((r) => r.tool)).not.toContain('verify_order');
    const rules = statedRules(namedTools(text, desk), names);
    expect(rules.map((r) => [r.tool, r.before])).toContainEqual(['verify_order', ['refund']]);
    const checked = 'Refunds must wait until each order has been checked at the warehouse.';
    expect(namedTools(checked, desk)).toContain('verify_order');
  });
  it('names none by one of its words, nor by words far apart, nor where the name is already there', () => {
    expect(namedTools('Every order must be inspected at the warehouse before it is refunded.', desk)).not.toContain(
      'verify_order',
    );
    expect(namedTools('Scan nothing twice; the desk closes at five near the old warehouse.', desk)).not.toContain(
      'verify_order',
    );
    const named = 'Every order must pass verify_order against the warehouse scan.';
    expect(namedTools(named, desk)).toBe(named);
  });
});

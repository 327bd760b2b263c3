// Rules that span sentences (validators/episodic/rule-lists.ts: redteam-trust21 R3, R4), as pure functions: a
// question and the answer that opens on it, a list or table under a heading that binds or orders.
import { describe, expect, it } from 'vitest';
import { answerAt, joinedLists } from '../validators/episodic/rule-lists.js';
import { statedRules } from '../validators/episodic/stated-rules.js';

const TOOLS = ['list_orders', 'read_order', 'verify_order', 'refund'];
const desk = (text: string) => statedRules(text, TOOLS).map((r) => [r.tool, r.before]);
const rules = (text: string) => statedRules(text, TOOLS).map((r) => r.tool);

describe('a question and its answer (R3)', () => {
  it.each([
    'Has the order been through verify_order? If not, it cannot be refunded.',
    'Was the order checked with verify_order? No refund otherwise.',
    'Is the order verified (verify_order)? If it is not, do not refund it.',
    "Did verify_order clear the order? If it didn't, never refund it.",
    'Has verify_order cleared the order? If so, you may refund it.',
  ])('binds the question step where the answer binds: %s', (text) => {
    expect(rules(text)).toContain('verify_order');
  });

  it.each([
    'Has verify_order run? If not, you may refund anyway.',
    'Does the order need verify_order? No.',
    'Verify each order with verify_order. If not, it cannot be refunded.',
  ])('reads no rule where the answer lifts, or nothing asks: %s', (text) => {
    expect(rules(text)).not.toContain('verify_order');
  });

  it('answers only a sentence that asks', () => {
    expect(answerAt('Has verify_order run?', 'If not, it cannot be refunded.')).toBe(0);
    expect(answerAt('verify_order runs nightly.', 'If not, it cannot be refunded.')).toBe(-1);
  });
});

describe('a list or table under a heading (R4)', () => {
  it.each([
    'Each order must go through these steps, in this order:\n1. verify_order\n2. refund',
    'For each order, in this order:\n1. verify_order\n2. refund',
    'Each order must go through:\n1) Check it with verify_order.\n2) Refund it.',
    'Process each order in this order:\n| step | tool |\n|---|---|\n| 1 | verify_order |\n| 2 | refund |',
    'For every order, in this order:\n- verify_order\n- refund',
  ])('reads ordered items as an order rule, item k before item k+1: %s', (text) => {
    expect(desk(text)).toContainEqual(['verify_order', ['refund']]);
  });

  it.each([
    'Every order must end with exactly one of these:\n1. refund when it is verified\n2. verify_order when unchecked',
    'Each order needs one (and only one) of the following:\n1) verify_order - the note says new\n2) refund - ok',
    'Each order must be handled:\n1. verify_order if it is new\n2. refund if it was checked\n3. read_order when unsure',
    'Depending on the note, you must use:\n1. verify_order\n2. refund',
    'Each order must be handled as follows:\n1. verify_order\n2. refund',
    'In order to clear the desk, give each order:\n- verify_order\n- refund',
    'For each order, in order of its date:\n- verify_order\n- refund',
  ])('reads numbered alternatives, or bare numbers, as no order (redteam-s18e E1): %s', (text) => {
    expect(desk(text)).not.toContainEqual(['verify_order', ['refund']]);
  });

  it('reads items that open on what comes before as steps, numbered or not', () => {
    expect(desk('Each order must be handled:\n- verify_order\n- then refund')).toContainEqual([
      'verify_order',
      ['refund'],
    ]);
  });

  it('leaves a list under a heading that neither binds nor orders as it was', () => {
    const text = 'Tools you have:\n1. verify_order\n2. refund';
    expect(joinedLists(text)).toBe(text);
    expect(desk(text)).toEqual([]);
  });
});

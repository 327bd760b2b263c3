// Scoped obligations and lifted dependences (validators/episodic/scoped-rules.ts, rule-clauses.ts: redteam-trust21
// R5, R7, R8), as pure functions: a negated dependence or barrier lifts its step, an exemption scopes the step the
// sentence before ordered, and a prohibition or a plain obligation stays a rule.
import { describe, expect, it } from 'vitest';
import { exemptSteps, forbiddenSteps, scopedSteps } from '../validators/episodic/scoped-rules.js';
import { statedRules } from '../validators/episodic/stated-rules.js';

const TOOLS = ['list_orders', 'read_order', 'verify_order', 'refund'];
const ruled = (text: string) => statedRules(text, TOOLS).map((r) => r.tool);

describe('lifted dependences (R5)', () => {
  it.each([
    'Refunds do not depend on verify_order.',
    'Do not wait for verify_order before refunding.',
    'Nothing stops you from refunding before verify_order.',
    'Refunds never wait on verify_order.',
    "A refund doesn't hinge on verify_order.",
    'Gift cards need no verify_order before a refund.',
  ])('reads a negated dependence or barrier as no rule on its step: %s', (text) => {
    expect(ruled(text)).not.toContain('verify_order');
  });

  it('reads no lift into "X or not" (an entity described, "booked or not"), and keeps a question as a question', () => {
    const desk = ['book', 'notify'];
    const text = 'Book only the nights asked for, and notify every guest once their stay is settled (booked or not).';
    expect(scopedSteps(text, desk).size).toBe(0);
    // A binding word in the clause keeps the step: "whether the order is valid or not" only asks a question.
    expect(ruled('Always run verify_order to see whether the order is valid or not before refunding.')).toContain(
      'verify_order',
    );
  });

  it('lifts by "needs no" only the step named right after it, never the sentence\'s other steps', () => {
    const pool = ['drain_server', 'patch_server'];
    expect(
      scopedSteps('Drain each server before you patch it, and never drain a server that needs no patch.', pool).size,
    ).toBe(0);
  });

  it('keeps a dependence stated plainly, and a negated call, as rules', () => {
    expect(ruled('Refunds must wait for verify_order.')).toContain('verify_order');
    expect(ruled('Never refund an order before verify_order has checked it.')).toContain('verify_order');
    expect(ruled('Do not refund an order until verify_order has cleared it.')).toContain('verify_order');
  });
});

describe('scoped steps (R7, R8)', () => {
  it.each([
    'Orders over $100 must be checked with verify_order before a refund; cheaper orders need no check.',
    'Orders over $100 must be checked with verify_order before a refund. Below that, no check is required.',
    'Orders over $100 must go through verify_order before a refund. Gift cards need no verify_order.',
  ])('scopes the step an exemption lifts: %s', (text) => {
    expect([...scopedSteps(text, TOOLS)]).toEqual(['verify_order']);
  });

  it('scopes nothing where nothing is lifted, nor a prohibition the sentence before states', () => {
    expect(scopedSteps('Orders must be checked with verify_order before a refund.', TOOLS).size).toBe(0);
    expect(scopedSteps('Never refund a gift card; other orders need no approval.', TOOLS).size).toBe(0);
    expect(scopedSteps('Never refund a gift card. Merchandise needs no check.', TOOLS).size).toBe(0);
  });
});

describe('a lift frees one step, and never outranks a prohibition (redteam-s17 F5)', () => {
  it.each([
    'Refunds do not depend on verify_order: the scan only feeds the warehouse records.',
    'verify_order is not needed for a refund.',
    'No verify_order is required before a refund.',
    'Nothing keeps you from refunding an order ahead of verify_order.',
    "verify_order doesn't need to run before a refund.",
    'verify_order does not block a refund.',
    'You are not required to run verify_order before a refund.',
  ])('lifts the step freed, never the step whose precondition it was: %s', (text) => {
    expect([...scopedSteps(text, TOOLS)]).toEqual(['verify_order']);
  });

  it('reads a negation right before a tool as a prohibition, a lifted dependence as none', () => {
    expect([...forbiddenSteps('Gift card orders are final sale: never refund one.', TOOLS)]).toEqual(['refund']);
    expect([...forbiddenSteps('Gift cards are not refundable.', TOOLS)]).toEqual(['refund']);
    expect(forbiddenSteps('Refunds do not depend on verify_order.', TOOLS).size).toBe(0);
    expect(forbiddenSteps('Refund every order, then close the desk.', TOOLS).size).toBe(0);
  });

  it('keeps a forbidden tool out of the exemptions whatever another sentence lifts', () => {
    const text = 'Gift card orders are final sale: never refund one. A refund is not required for gift card orders.';
    expect([...scopedSteps(text, TOOLS)]).toContain('refund');
    expect(exemptSteps(text, TOOLS).has('refund')).toBe(false);
    const lifted = 'Never refund a gift card. Refunds do not depend on verify_order.';
    expect([...exemptSteps(lifted, TOOLS)]).toEqual(['verify_order']);
  });
});

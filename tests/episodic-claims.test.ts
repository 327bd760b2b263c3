// A call's claims known by their values (validators/episodic/claims.ts, redteam-trust15 Z9): which arguments are
// claims whatever their schema type, at any depth, and the values each is tried with.
import { describe, expect, it } from 'vitest';
import { claimChanges, claimedAblations, refilledCall } from '../validators/episodic/alternatives.js';
import { claimsOf, claimValues, namedValues, setAt, valuesAt } from '../validators/episodic/claims.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

const id = { type: 'string', maxLength: 12 };
const text = { type: 'string', maxLength: 60 };
const whole = { type: 'integer', minimum: 0 };
const meta = metaWith([
  tool('read_order', { order_id: id }),
  tool('read_queue', { queue: text }),
  tool('refund', { order_id: id, amount: whole, condition: text, note: text, code: whole }),
  tool('route', { order_id: id, queue: text }),
  tool('return_item', { order_id: id, amount: whole, item: { type: 'object', properties: { condition: text } } }),
  tool('return_lines', {
    order_id: id,
    lines: { type: 'array', items: { type: 'object', properties: { sku: id, condition: text } } },
  }),
  tool('close_desk', {}),
]);
const refund = (order_id: string, amount: number, condition: string, more: Record<string, unknown> = {}) =>
  A('refund', { order_id, amount, condition, ...more });
const PROMPT = 'Refund with condition: opened for an opened item, condition: unopened otherwise.';

describe('claims known by their values', () => {
  it('takes a string argument whose few values are each sent for several entities, never the id or the amount', () => {
    const body = [refund('OR1', 90, 'opened'), refund('OR2', 50, 'unopened'), refund('OR3', 50, 'unopened')];
    expect(claimsOf(meta, body, 'refund')).toEqual(['condition']);
  });

  it('takes values sent once each where each is a word of the prompt, else not', () => {
    const body = [refund('OR1', 90, 'opened'), refund('OR2', 50, 'unopened')];
    expect(claimsOf(meta, body, 'refund')).toEqual([]);
    expect(claimsOf(meta, body, 'refund', PROMPT)).toEqual(['condition']);
    // Names the prompt lists, one a call, are the calls' entities, not a claim.
    const named = [A('route', { order_id: 'Alice', queue: 'x' }), A('route', { order_id: 'Bob', queue: 'y' })];
    expect(claimsOf(meta, named, 'route', 'Guests: Alice, Bob.')).toEqual(['order_id']);
    expect(claimsOf(meta, named, 'route', 'Guests: Alice, Bob.', 'order_id')).toEqual([]);
  });

  it('completes a claim sent with one value by the values the prompt writes after its name', () => {
    const body = [refund('OR1', 100, 'unopened'), refund('OR2', 50, 'unopened')];
    expect(namedValues(PROMPT, 'condition')).toEqual(['opened', 'unopened']);
    expect(claimsOf(meta, body, 'refund')).toEqual([]);
    expect(claimsOf(meta, body, 'refund', PROMPT)).toEqual(['condition']);
    expect(claimValues(meta, body, 'refund', 'condition', PROMPT)).toEqual(['unopened', 'opened']);
    // No call claims "opened": nothing to refill a changed call from; the rules' ablations send it all the same.
    expect(claimChanges(meta, body, 'refund', 'order_id', PROMPT)).toEqual([]);
    const logs = claimedAblations(meta, [...body, A('close_desk')], PROMPT);
    expect(logs.map((l) => l.how)).toEqual([
      'every refund.condition sent "unopened"',
      'every refund.condition sent "opened"',
    ]);
    expect(logs[1]?.actions.map((a) => a.args.condition)).toEqual(['opened', 'opened', undefined]);
  });

  it('takes a small whole number used as a code, never amounts that happen to repeat', () => {
    const body = [
      refund('OR1', 200, 'x', { code: 1 }),
      refund('OR2', 200, 'y', { code: 0 }),
      refund('OR3', 90, 'z', { code: 0 }),
    ];
    expect(claimsOf(meta, body, 'refund')).toEqual(['code']);
  });

  it('leaves free text, ids, too many values and values that name an entity', () => {
    const notes = ['Customer says the box arrived damaged', 'Item returned unused', 'Item returned unused'];
    const noted = notes.map((note, k) => refund(`OR${k}`, 50, `c${k}`, { note }));
    expect(claimsOf(meta, noted, 'refund')).toEqual([]);
    const ids = ['OR7', 'OR7', 'OR8'].map((o, k) => refund(o, 10 * k + 10, `A${k}`));
    expect(claimsOf(meta, ids, 'refund')).toEqual([]);
    const many = ['a', 'b', 'c', 'd', 'e', 'a'].map((c, k) => refund(`OR${k}`, 10, c));
    expect(claimsOf(meta, many, 'refund')).toEqual([]);
    // The queue is an entity: a call reads it alone.
    const routed = [
      A('read_queue', { queue: 'billing' }),
      A('route', { order_id: 'OR1', queue: 'billing' }),
      A('route', { order_id: 'OR2', queue: 'billing' }),
      A('route', { order_id: 'OR3', queue: 'returns' }),
    ];
    expect(claimsOf(meta, routed, 'route')).toEqual([]);
    expect(claimsOf(meta, routed.slice(1), 'route')).toEqual(['queue']);
  });

  it('finds a claim inside an object or every item of an array, and changes it there', () => {
    const items = [
      A('return_item', { order_id: 'OR1', amount: 90, item: { condition: 'opened' } }),
      A('return_item', { order_id: 'OR2', amount: 50, item: { condition: 'unopened' } }),
      A('return_item', { order_id: 'OR3', amount: 40, item: { condition: 'unopened' } }),
    ];
    expect(claimsOf(meta, items, 'return_item')).toEqual(['item.condition']);
    const line = (sku: string, condition: string) => ({ sku, condition });
    const lines = [
      A('return_lines', { order_id: 'OR1', lines: [line('S1', 'opened'), line('S2', 'opened')] }),
      A('return_lines', { order_id: 'OR2', lines: [line('S3', 'unopened')] }),
    ];
    expect(claimsOf(meta, lines, 'return_lines')).toEqual(['lines.[].condition']);
    const changes = claimChanges(meta, lines, 'return_lines', 'order_id');
    expect(changes.map((c) => [c.index, c.value])).toEqual([
      [1, 'opened'],
      [0, 'unopened'],
    ]);
    expect(changes[1]?.alone.args.lines).toEqual([line('S1', 'unopened'), line('S2', 'unopened')]);
  });

  it('keeps the changed claim in the refilled call, where the reads would give the entity its own word back', () => {
    const body = [refund('OR1', 90, 'opened'), refund('OR2', 50, 'unopened'), refund('OR3', 40, 'unopened')];
    const change = claimChanges(meta, body, 'refund', 'order_id').find((c) => c.value === 'unopened');
    expect(change?.index).toBe(0);
    const mine = ['OR2: price $50, item unopened.'];
    const theirs = ['OR1: price $100, item opened.'];
    expect(change && refilledCall(meta, change, mine, theirs)).toEqual(refund('OR1', 100, 'unopened'));
  });
});

describe('claim places', () => {
  const args = { a: 1, item: { c: 'x' }, lines: [{ c: 'y' }, { c: 'z' }] };

  it('reads the values at a place, every item of an array', () => {
    expect(valuesAt(args, 'a')).toEqual([1]);
    expect(valuesAt(args, 'item.c')).toEqual(['x']);
    expect(valuesAt(args, 'lines.[].c')).toEqual(['y', 'z']);
    expect(valuesAt(args, 'b')).toEqual([]);
  });

  it('sets every value at a place, a top-level argument even where the call omits it', () => {
    expect(setAt(args, 'lines.[].c', 'w').lines).toEqual([{ c: 'w' }, { c: 'w' }]);
    expect(setAt(args, 'item.c', 'w').item).toEqual({ c: 'w' });
    expect(setAt(args, 'b', true)).toEqual({ ...args, b: true });
    expect(setAt(args, 'missing.c', 'w')).toEqual(args);
  });
});

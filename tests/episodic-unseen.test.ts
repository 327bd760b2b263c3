// Entities no text showed (redteam-trust18 R4): the state is where they are found when the reference names one unseen.
import { describe, expect, it } from 'vitest';
import { entitiesFrom, namedUnseen } from '../validators/episodic/unseen.js';
import { openingOf } from '../validators/episodic/looks.js';
import { withheldEntities } from '../validators/episodic/withheld.js';

const prompt = 'Returns desk 412, today 2026-03-15: 3 orders came back yesterday. Refund each one its price.';
const refund = (order_id: string) => ({ tool: 'refund', args: { order_id, amount: 10 } });
const state = JSON.stringify({
  day: '2026-03-14',
  orders: [{ id: 'O-1234' }, { id: 'O-5678' }, { id: 'O-9012', card: true }],
});
const body = [refund('O-1234'), refund('O-5678')];
const replies = ['O-1234: $10 refunded.', 'O-5678: $10 refunded.'];

describe('namedUnseen', () => {
  it('holds where a decision names an id no text before it shows (its own reply aside)', () => {
    const empty = 'No returns on 2026-03-15.';
    expect(namedUnseen(body, replies, [prompt, empty], 'refund', 'order_id')).toBe(true);
    // The same desk whose listing the validator could make: every id was shown before its call.
    const listed = 'Returns on 2026-03-15: O-1234 ($10), O-5678 ($10), O-9012 ($25).';
    expect(namedUnseen(body, replies, [prompt, listed], 'refund', 'order_id')).toBe(false);
  });

  it('reads an id shown by an earlier reply as seen, a longer token holding it as not', () => {
    const read = [{ tool: 'find', args: { name: 'Ana' } }, refund('O-1234')];
    expect(namedUnseen(read, ['Ana: order O-1234.', 'ok'], [prompt], 'refund', 'order_id')).toBe(false);
    expect(namedUnseen(read, ['Ana: order O-12345.', 'ok'], [prompt], 'refund', 'order_id')).toBe(true);
  });

  it('asks only ids: a free word or a number the plan sends is no entity', () => {
    const noted = [{ tool: 'note', args: { text: 'approved' } }];
    expect(namedUnseen(noted, ['Noted.'], [prompt], 'note', 'text')).toBe(false);
  });
});

describe('entitiesFrom', () => {
  const calls = { body, replies, tool: 'refund' };
  // The entity argument as withheld.ts finds it: one whose every value the texts hold.
  const argOf = (plan: typeof body) => (texts: readonly string[]) =>
    plan.every((a) => texts.some((t) => t.includes(a.args.order_id))) ? 'order_id' : null;

  it("adds the state's text where the plan names an entity unseen, so its other entities are tried", () => {
    const shown = [prompt, ...replies];
    const from = entitiesFrom(shown, { opening: [prompt], state }, calls, argOf(body));
    expect(from).toEqual({ arg: 'order_id', texts: [...shown, state] });
    expect(withheldEntities(from?.texts ?? [], ['O-1234', 'O-5678'])).toEqual(['O-9012']);
    // The shown texts alone hold no other order: the gift card is never tried.
    expect(withheldEntities(shown, ['O-1234', 'O-5678'])).toEqual([]);
  });

  it('finds an argument only the state holds where replies never repeat the ids', () => {
    const silent = ['Refunded $10.', 'Refunded $10.'];
    const quiet = { ...calls, replies: silent };
    expect(entitiesFrom([prompt, ...silent], { opening: [prompt], state }, quiet, argOf(body))?.arg).toBe('order_id');
    expect(entitiesFrom([prompt, ...silent], undefined, quiet, argOf(body))).toBeNull();
  });

  it('keeps the shown texts where every id was shown first, or no state came back', () => {
    const listed = 'Returns on 2026-03-14: O-1234, O-5678.';
    const shown = [prompt, listed, ...replies];
    const seen = { arg: 'order_id', texts: shown };
    expect(entitiesFrom(shown, { opening: [prompt, listed], state }, calls, argOf(body))).toEqual(seen);
    expect(entitiesFrom(shown, { opening: [prompt], state: '' }, calls, argOf(body))).toEqual(seen);
  });

  it('takes no argument only the state holds whose values are no ids (a word stored, never shown)', () => {
    const plan = [refund('billing')];
    const stored = JSON.stringify({ queue: 'billing', other: 'O-1' });
    const from = entitiesFrom([prompt], { opening: [prompt], state: stored }, { ...calls, body: plan }, argOf(plan));
    expect(from).toBeNull();
  });
});

describe('openingOf', () => {
  it('gives the prompt and the replies of the looks played before the plan, never the later ones', () => {
    const look = { tool: 'list_returns', args: { date: '2026-03-15' } };
    const played = { seed: 1, level: 1, policy: { type: 'replay' as const, actions: [look, ...body, look] } };
    const observations = ['No returns on 2026-03-15.', ...replies, 'No returns on 2026-03-15.'];
    const answered = { ok: true, observations } as unknown as Parameters<typeof openingOf>[3];
    expect(openingOf(prompt, played, body.length, answered)).toEqual([prompt, 'No returns on 2026-03-15.']);
    expect(openingOf(prompt, played, body.length, undefined)).toEqual([prompt]);
  });
});

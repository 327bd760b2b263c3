// Entities no text showed (redteam-trust18 R4): the state is where they are found when the reference names one unseen.
import { describe, expect, it } from 'vitest';
import { entityTexts, namedUnseen } from '../validators/episodic/unseen.js';
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

describe('entityTexts', () => {
  const call = { body, replies, tool: 'refund', arg: 'order_id' };

  it("adds the state's text where the plan names an entity unseen, so its other entities are tried", () => {
    const shown = [prompt, ...replies];
    const texts = entityTexts(shown, { opening: [prompt], state }, call);
    expect(texts).toEqual([...shown, state]);
    expect(withheldEntities(texts, ['O-1234', 'O-5678'])).toEqual(['O-9012']);
    // The shown texts alone hold no other order: the gift card is never tried.
    expect(withheldEntities(shown, ['O-1234', 'O-5678'])).toEqual([]);
  });

  it('keeps the shown texts where every id was shown first, or no state came back', () => {
    const listed = 'Returns on 2026-03-14: O-1234, O-5678.';
    expect(entityTexts([prompt], { opening: [prompt, listed], state }, call)).toEqual([prompt]);
    expect(entityTexts([prompt], { opening: [prompt], state: '' }, call)).toEqual([prompt]);
    expect(entityTexts([prompt], undefined, call)).toEqual([prompt]);
  });
});

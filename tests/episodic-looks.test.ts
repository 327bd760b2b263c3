// The looks (redteam-trust16 Q5): every call naming no entity is played, a paged or filtered listing included.
import { describe, expect, it } from 'vitest';
import { choicesOf, listingsOf, looksOf } from '../validators/episodic/looks.js';

const tool = (name: string, properties: object, required: string[] = []) => ({
  name,
  parameters: { type: 'object', properties, required },
});
const tools = [
  tool('list_returns', { page: { type: 'integer', minimum: 1, maximum: 9 } }),
  tool('list_by', { status: { enum: ['open', 'closed'] }, late: { type: 'boolean' } }, ['status']),
  tool('read_order', { order_id: { type: 'string' } }, ['order_id']),
  tool('search', { q: { type: 'string' }, page: { type: 'integer', minimum: 2 } }),
  tool('close_desk', {}),
];

describe('looksOf', () => {
  it('plays a listing with its optional page left out, then pages 1 to 3', () => {
    const pages = looksOf(tools, 'close_desk').filter((a) => a.tool === 'list_returns');
    expect(pages.map((a) => a.args)).toEqual([{}, { page: 1 }, { page: 2 }, { page: 3 }]);
  });
  it('plays a tool whose required argument is an enum with each value, the others at their first', () => {
    const by = looksOf(tools, 'close_desk').filter((a) => a.tool === 'list_by');
    expect(by.map((a) => a.args)).toEqual([
      { status: 'open' },
      { status: 'closed' },
      { status: 'open', late: true },
      { status: 'open', late: false },
    ]);
  });
  it('never plays a tool that names an entity, and leaves free text out', () => {
    const looks = looksOf(tools, 'close_desk');
    expect(looks.some((a) => a.tool === 'read_order' || a.tool === 'close_desk')).toBe(false);
    expect(looks.filter((a) => a.tool === 'search').map((a) => a.args)).toEqual([{}, { page: 2 }, { page: 3 }]);
  });
  it('keeps the bare calls first within the budget', () => {
    expect(looksOf(tools, 'close_desk', 3).map((a) => a.tool)).toEqual(['list_returns', 'list_by', 'search']);
  });
  it('takes no value from a string or an unbounded range outside 1..3', () => {
    expect(choicesOf({ type: 'string' })).toBeNull();
    expect(choicesOf({ type: 'integer', minimum: 10 })).toBeNull();
    expect(choicesOf({ type: ['integer', 'null'], maximum: 2 })).toEqual([1, 2]);
  });
  it('listingsOf keeps only the tools with no parameter', () => {
    expect(listingsOf(tools, 'close_desk')).toEqual([]);
    expect(listingsOf(tools, 'x').map((a) => a.tool)).toEqual(['close_desk']);
  });
});

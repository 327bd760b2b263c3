// Entities of every shape (redteam-trust14 Y4): shown tokens of other shapes grouped, screened by the world's answer,
// several tokens a shape (redteam-trust16 Q3).
import { describe, expect, it } from 'vitest';
import {
  answeredTokens,
  fitsArg,
  heardIn,
  keptTokens,
  otherShapes,
  screenOf,
} from '../validators/episodic/entities.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

const meta = metaWith([
  tool('read_order', { order_id: { type: 'string', maxLength: 12 } }),
  tool('refund', { order_id: { type: 'string', maxLength: 12 }, amount: { type: 'number' } }),
]);
const listing = 'Returns: O-1234 ($50), GC-482913 ($25), O-5678 ($99), GC:7781 ($100).';

describe('entities of every shape', () => {
  it('groups the shown tokens of other shapes by shape, texts naming a sent id first, never a sent one', () => {
    const groups = otherShapes(['Desk K7.', listing], ['O-1234'], fitsArg(meta, 'refund', 'order_id'));
    // The listing first: prices, the gift cards (an id with another separator too), then the prompt's desk.
    expect(groups.flat()).toContain('GC-482913');
    expect(groups.flat()).toContain('GC:7781');
    expect(groups.flat()).not.toContain('O-5678');
    expect(groups.findIndex((g) => g.includes('GC-482913'))).toBeLessThan(groups.findIndex((g) => g.includes('K7')));
    // Too long for the argument: never a candidate.
    expect(otherShapes(['O-1 and LONG-ID-0123456789'], ['O-1'], fitsArg(meta, 'refund', 'order_id'))).toEqual([]);
  });

  it('keeps the tokens the world answers otherwise than an id nobody has', () => {
    const screen = screenOf(meta, A('read_order', { order_id: 'x' }), 'order_id', [['50', '25'], ['GC-482913']]);
    expect(screen.calls.map((c) => c.args.order_id)).toEqual(['ZZ-00000', '50', 'GC-482913', '25']);
    const replies = ['No order ZZ-00000.', 'No order 50.', 'GC-482913: a gift card, price $25.', 'No order 25.'];
    expect([...answeredTokens(screen, replies)]).toEqual(['GC-482913']);
    // A call the host refused (undefined) answers nothing.
    expect([...answeredTokens(screen, [replies[0], undefined, undefined, undefined])]).toEqual([]);
  });

  it('screens several tokens a shape and drops a token the world does not answer, never its shape (rt16 Q3)', () => {
    // A batch number of the gift cards' shape shown first: the shape's last token is asked about too.
    const groups = [['RB-204711', 'GC-482913', 'GC-771234', 'GC-112233'], ['K7']];
    const screen = screenOf(meta, A('read_order', { order_id: 'x' }), 'order_id', groups);
    expect(screen.tokens).toEqual(['RB-204711', 'K7', 'GC-112233', 'GC-771234']);
    const replies = ['No order ZZ-00000.', 'No order RB-204711.', 'No order K7.', 'GC-112233: a gift card.', 'x'];
    const answered = answeredTokens(screen, replies);
    expect([...answered].sort()).toEqual(['GC-112233', 'GC-771234']);
    // The batch number goes, its shape stays (with the token not asked about); K7, asked and unanswered, goes.
    expect(keptTokens(groups, screen, answered)).toEqual([['GC-482913', 'GC-771234', 'GC-112233']]);
    // Within the room: every shape's first before any shape's second.
    expect(screenOf(meta, A('read_order', { order_id: 'x' }), 'order_id', groups, 3).tokens).toEqual([
      'RB-204711',
      'K7',
    ]);
  });

  it("hears a token the decision's own call takes where a read disowns it, by words or by effect (rt17 R5)", () => {
    const groups = [['GC-482913', 'GC-771234']];
    const read = screenOf(meta, A('read_order', { order_id: 'x' }), 'order_id', groups);
    const own = screenOf(meta, A('refund', { order_id: 'x', amount: 50 }), 'order_id', groups);
    expect(own.tokens).toEqual(read.tokens);
    // The merchandise lookup knows no gift card; the refund takes one in words, the other only in the state.
    const plan = ['O-1234: $50 refunded.'];
    const reads = {
      ok: true,
      turns: 4,
      observations: [...plan, 'No order ZZ-00000.', 'No order GC-482913.', 'No order GC-771234.'],
    };
    const refunds = {
      ok: true,
      turns: 4,
      rejected: [],
      observations: [...plan, 'No order ZZ-00000.', 'GC-482913: $50 refunded.', 'No order GC-771234.'],
      changes: [['$.orders.*.refunded'], [], ['$.orders.*.refunded'], ['$.orders.*.refunded']],
    };
    expect([...(heardIn(reads, 1, [read])[0] as Set<string>)]).toEqual([]);
    expect([...(heardIn(refunds, 1, [own])[0] as Set<string>)]).toEqual(['GC-482913', 'GC-771234']);
    // A path every call writes (a log) tells nothing; a failed or short replay hears nothing.
    const logged = { ...refunds, changes: [['$.log'], ['$.log'], ['$.log'], ['$.log']] };
    expect([...(heardIn(logged, 1, [own])[0] as Set<string>)]).toEqual(['GC-482913']);
    expect(heardIn({ ok: false }, 1, [own])[0]?.size).toBe(0);
    expect([...(heardIn({ ...refunds, turns: 3 }, 1, [own])[0] as Set<string>)]).toEqual(['GC-482913']);
    expect([...answeredTokens(own, ['No order ZZ-00000.', 'No order GC-482913.', 'No order GC-771234.'])]).toEqual([]);
  });
});

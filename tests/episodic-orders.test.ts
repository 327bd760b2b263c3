// A stated order among one tool's entities (validators/episodic/orders.ts, redteam-trust12 W5): which sentences rank
// or mark a tool's entities, the reference's calls of that tool permuted with their reads, whether the entities
// contest something the world holds (order-contests.ts); a hack rejected, priorities over a scarce stock admitted.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxPool } from '../sandbox/pool.js';
import { contested, contestsOf, describedAlike } from '../validators/episodic/order-contests.js';
import { orderRulesOf, permutationsOf } from '../validators/episodic/orders.js';
import { validateCandidate } from '../validators/validate.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

const S = { type: 'string' };
const DESK = metaWith([
  tool('list_tickets', {}),
  tool('read_ticket', { ticket_id: S }),
  tool('route', { ticket_id: S, queue: { type: 'string', enum: ['billing', 'shipping'] } }),
  tool('close_desk', {}),
]);
// Urgent TK1 read and routed first, then the ordinary TK2 and TK3, as the reference does.
const LOG = [
  A('list_tickets'),
  A('read_ticket', { ticket_id: 'TK1' }),
  A('route', { ticket_id: 'TK1', queue: 'billing' }),
  A('read_ticket', { ticket_id: 'TK2' }),
  A('route', { ticket_id: 'TK2', queue: 'shipping' }),
  A('read_ticket', { ticket_id: 'TK3' }),
  A('route', { ticket_id: 'TK3', queue: 'billing' }),
  A('close_desk'),
];
const HEARD = [
  'Open tickets: TK2, TK1, TK3.',
  'TK1 (urgent): "I was charged twice."',
  'TK1 routed to billing.',
  'TK2 (ordinary): "My parcel has not arrived; I cannot open the tracking page."',
  'TK2 routed to shipping.',
  'TK3 (ordinary): "Refund the late fee."',
  'TK3 routed to billing.',
  'Desk closed.',
];
const OPEN = 'Open each ticket before routing it, and route it by what its text is about.';
const URGENT = `${OPEN}\nRoute every urgent ticket before any ordinary ticket; read_ticket shows which are urgent.`;
const order = (actions: Array<{ tool: string; args: Record<string, unknown> }>) =>
  actions.map((a) => `${a.tool}${a.args.ticket_id ? ` ${a.args.ticket_id}` : ''}`).join(', ');

describe('order rules among one tool’s entities', () => {
  it('reads "urgent ticket before any ordinary ticket" as an order among the route calls, marked by the reads', () => {
    const rules = orderRulesOf(DESK, URGENT, LOG, HEARD);
    expect(rules.map((r) => [r.tool, r.arg, r.marks, r.ranked])).toEqual([
      ['route', 'ticket_id', ['urgent', 'ordinary'], true],
    ]);
    expect(rules[0]?.sentence).toMatch(/^Route every urgent/);
  });

  it('reads no order among entities in an order between tools, nor in a word every read shows or none does', () => {
    // "Open each ticket": the verb, not a qualifier of the noun (TK2's text says "open" too).
    expect(orderRulesOf(DESK, OPEN, LOG, HEARD)).toEqual([]);
    expect(orderRulesOf(DESK, 'Route every billing ticket before any other ticket.', LOG, HEARD)).toEqual([]);
    expect(orderRulesOf(DESK, 'Route every VIP ticket before the others.', LOG, HEARD)).toEqual([]);
  });

  it('binds a ranking to the named tool nearest it, and a sentence naming none to the entity’s only tool', () => {
    const ledger = metaWith([
      tool('read_invoice', { invoice_id: S }),
      tool('pay_invoice', { invoice_id: S, amount: { type: 'number' } }),
      tool('close_books', {}),
    ]);
    const log = [
      A('read_invoice', { invoice_id: 'I1' }),
      A('read_invoice', { invoice_id: 'I2' }),
      A('pay_invoice', { invoice_id: 'I2', amount: 5 }),
      A('pay_invoice', { invoice_id: 'I1', amount: 7 }),
      A('close_books'),
    ];
    const ranked = 'Pay the invoices in due-date order, the earliest first, as read_invoice shows the dates.';
    expect(orderRulesOf(ledger, ranked, log).map((r) => r.tool)).toEqual(['pay_invoice']);
    // The ranking in another clause than the tool named ("pay it" names no tool): nothing bound.
    const clause = 'Read each invoice with read_invoice, pay it in due-date order (the earliest first), then close.';
    expect(orderRulesOf(ledger, clause, log)).toEqual([]);
    expect(orderRulesOf(ledger, 'Settle the oldest invoices first.', log).map((r) => r.tool)).toEqual([]);
    const clinic = metaWith([
      tool('book', { request_id: S, slot: S }),
      tool('flag_request', { request_id: S }),
      tool('publish', {}),
    ]);
    const booked = [
      A('book', { request_id: 'R1', slot: 'x' }),
      A('book', { request_id: 'R2', slot: 'y' }),
      A('publish'),
    ];
    // Two tools handle a request (book or flag): the order of one of them is not the order of handling.
    expect(orderRulesOf(clinic, 'Handle the oldest requests first.', booked)).toEqual([]);
    const alone = metaWith([tool('book', { request_id: S, slot: S }), tool('publish', {})]);
    expect(orderRulesOf(alone, 'Handle the oldest requests first.', booked).map((r) => r.tool)).toEqual(['book']);
  });

  it('permutes the tool’s calls with their reads: reversed, the marked entities moved last (not the reference)', () => {
    const [rule] = orderRulesOf(DESK, URGENT, LOG, HEARD);
    const logs = permutationsOf(DESK, rule as NonNullable<typeof rule>, LOG, HEARD);
    expect(logs.map((p) => [p.how, order(p.actions)])).toEqual([
      [
        'route: its calls reversed across their entities',
        'list_tickets, read_ticket TK3, route TK3, read_ticket TK2, route TK2, read_ticket TK1, route TK1, close_desk',
      ],
      [
        'route: the urgent entities moved last',
        'list_tickets, read_ticket TK2, route TK2, read_ticket TK3, route TK3, read_ticket TK1, route TK1, close_desk',
      ],
    ]);
  });

  it('keeps a read of several entities in place and moves only a call’s own reads with it', () => {
    const log = [
      A('read_ticket', { ticket_id: 'TK1' }),
      A('read_ticket', { ticket_id: 'TK2' }),
      A('route', { ticket_id: 'TK1', queue: 'billing' }),
      A('route', { ticket_id: 'TK2', queue: 'shipping' }),
      A('close_desk'),
    ];
    const [rule] = orderRulesOf(DESK, 'Route the oldest tickets first.', log);
    const logs = permutationsOf(DESK, rule as NonNullable<typeof rule>, log);
    expect(logs.map((p) => order(p.actions))).toEqual([
      'read_ticket TK2, route TK2, read_ticket TK1, route TK1, close_desk',
    ]);
  });
});

describe('contests among the ordered entities', () => {
  const [rule] = orderRulesOf(DESK, URGENT, LOG, HEARD);
  const contests = contestsOf(DESK, rule as NonNullable<typeof rule>, LOG, HEARD, undefined, 4);

  it('moves the entities handled last first, each re-decided with the other values of its decision', () => {
    expect(contests.map((c) => [c.entity, c.at, order(c.base.actions)])).toEqual([
      [
        'TK3',
        2,
        'list_tickets, read_ticket TK3, route TK3, read_ticket TK1, route TK1, read_ticket TK2, route TK2, close_desk',
      ],
      [
        'TK2',
        2,
        'list_tickets, read_ticket TK2, route TK2, read_ticket TK1, route TK1, read_ticket TK3, route TK3, close_desk',
      ],
    ]);
    expect(contests.map((c) => c.flipped.map((f) => f.actions[c.at]?.args))).toEqual([
      [{ ticket_id: 'TK3', queue: 'shipping' }],
      [{ ticket_id: 'TK2', queue: 'billing' }],
    ]);
  });

  it('re-decides a number with the most another entity was given', () => {
    const bank = metaWith([tool('give', { family_id: S, parcels: { type: 'integer' } }), tool('close_day', {})]);
    const log = [
      A('give', { family_id: 'F1', parcels: 3 }),
      A('give', { family_id: 'F2', parcels: 1 }),
      A('close_day'),
    ];
    const [given] = orderRulesOf(bank, 'Call give in need order, the neediest first.', log);
    const [c] = contestsOf(bank, given as NonNullable<typeof given>, log, [], undefined, 4);
    expect(c?.flipped.map((f) => order(f.actions) + JSON.stringify(f.actions[0]?.args))).toEqual([
      'give, give, close_day{"family_id":"F2","parcels":3}',
    ]);
  });

  // The desk's final states: the moved TK3 routed first, the others as the reference routed them.
  const desk = (routed: Record<string, string | null>, extra: Record<string, unknown> = {}) => ({
    tickets: Object.entries(routed).map(([id, queue]) => ({ id, opened: true, routed: queue })),
    ...extra,
  });
  const REF = { TK1: 'billing', TK2: 'shipping', TK3: 'billing' };

  it('finds a contest where another entity’s decision is recorded otherwise, not in a status nor the moved one', () => {
    const c = contests[0] as NonNullable<(typeof contests)[0]>;
    const base = { state: desk(REF, { board: 'Queues in use: billing, shipping.' }), score: 1 };
    const play = (state: unknown) => ({ state, score: 0 });
    const refused = play(desk({ ...REF, TK3: 'shipping', TK2: null }));
    const moved = play(desk({ ...REF, TK3: 'shipping' }));
    // A line naming another entity by id, in the state's root or in the board: no entity's record.
    const board = play(
      desk({ ...REF, TK3: 'shipping' }, { board: 'Queues in use: shipping. Next: TK1.', last: 'TK1' }),
    );
    // A status copied into another entity's record: no value its own call sent.
    const noted = play({
      tickets: desk({ ...REF, TK3: 'shipping' }).tickets.map((t) => ({ ...t, note: 'Queues in use: shipping.' })),
    });
    expect([refused, moved, board, noted].map((f) => contested(c, base, [f], [null], 1))).toEqual([
      true,
      false,
      false,
      false,
    ]);
    // A decision kept under the entity's id as a key: a refused call records nothing there.
    const keyed = (d: Record<string, string>) => ({ state: { decided: d }, score: 1 });
    const kept = keyed({ TK3: 'shipping', TK1: 'billing', TK2: 'shipping' });
    expect(contested(c, keyed(REF), [kept], [null], 1)).toBe(false);
    expect(contested(c, keyed(REF), [keyed({ TK3: 'shipping', TK1: 'billing' })], [null], 1)).toBe(true);
  });

  it('plays an exchange only between entities described alike, and finds a contest where it costs the score', () => {
    // The desk's tickets say different things: no exchange to play.
    expect(contests.flatMap((c) => c.exchanged)).toEqual([null, null]);
    const desk3 = metaWith([
      tool('list_requests', {}),
      tool('decide', { request_id: S, decision: { type: 'string', enum: ['enroll', 'waitlist'] } }),
      tool('finalize', {}),
    ]);
    const log = [
      A('list_requests'),
      A('decide', { request_id: 'Q101', decision: 'enroll' }),
      A('decide', { request_id: 'Q105', decision: 'waitlist' }),
      A('finalize'),
    ];
    const heard = [
      'Q101 student S120004 PHYS310\nQ105 student S733110 PHYS310',
      'Q101: enrolled.',
      'Q105: waitlisted.',
      '',
    ];
    const [rule] = orderRulesOf(desk3, 'Process requests by student class year, highest year first.', log, heard);
    const [c] = contestsOf(desk3, rule as NonNullable<typeof rule>, log, heard, undefined, 4);
    expect(c?.exchanged.map((e) => e?.actions.slice(1, 3).map((a) => a.args))).toEqual([
      [
        { request_id: 'Q105', decision: 'enroll' },
        { request_id: 'Q101', decision: 'waitlist' },
      ],
    ]);
    const x = c as NonNullable<typeof c>;
    const paid = { state: {}, score: 1 };
    const lost = { state: {}, score: 0 };
    expect([paid, lost].map((e) => contested(x, paid, [lost], [e], 1))).toEqual([false, true]);
    // Where the move alone already costs the score, the exchange tells nothing.
    expect(contested(x, lost, [lost], [lost], 1)).toBe(false);
  });

  it('tells entities apart by their own words, numbers and marks masked, and by decisions read off them', () => {
    const texts = [
      'I1: Acme, 12.00 USD, due 2026-03-01.\nI2: Acme, 7.50 USD, due 2026-02-01.',
      'TK1 (urgent): "Refund me."',
    ];
    const ids = ['I1', 'I2', 'TK1', 'TK2'];
    const r = { ...(rule as NonNullable<typeof rule>) };
    // Alike but for numbers; the amounts each shows are what each is paid: read off their own words.
    expect(describedAlike(texts, r, ids, ['I1', 12], ['I2', 7.5])).toBe(false);
    expect(describedAlike(texts, r, ids, ['I1', 'paid'], ['I2', 'held'])).toBe(true);
    const marked = [...texts, 'TK2 (ordinary): "Refund me."'];
    expect(describedAlike(marked, r, ids, ['TK1', 'billing'], ['TK2', 'shipping'])).toBe(true);
    expect(describedAlike([...marked, 'TK2: "and the fee"'], r, ids, ['TK1', 'x'], ['TK2', 'y'])).toBe(false);
  });
});

describe('episodic-orders in a validation', () => {
  const pool = new SandboxPool({ workers: 2 });
  afterAll(() => pool.close());
  const fixture = (path: string) => readFileSync(new URL(`./fixtures/${path}`, import.meta.url), 'utf8');
  const codes = (r: { problems: Array<{ code: string; evidence?: unknown }> }) =>
    r.problems.filter((p) => JSON.stringify(p.evidence ?? null).includes('"episodic-orders"')).map((p) => p.code);

  // hack-queue-mates: a reply naming other entities by id that changes with the moved one's decision is no contest.
  it.each(['redteam-trust12/hack-urgent-first.js', 'episodic-orders/hack-queue-mates.js'])(
    'rejects a stated order nobody enforces (%s) at 11',
    async (path) => {
      const report = await validateCandidate(fixture(path), { pool, validationSeed: 11 });
      expect(codes(report)).toEqual(['E_RULE_IGNORED']);
    },
    240_000,
  );

  // Every reordered log of these keeps the reference's decisions and state (session 10 rejected both): the seats and
  // the parcels a low-priority entity takes first are refused to another, or silently not given (good-silent-stock).
  it.each([
    ['episodic/good-course-enrollment.js', 178382163472559],
    ['episodic-orders/good-food-bank.js', 11],
    ['episodic-orders/good-course-flags.js', 11],
    ['episodic-orders/good-silent-stock.js', 11],
  ])(
    'admits a priority over a scarce stock, checked through the decisions (%s at %d)',
    async (path, seed) => {
      const report = await validateCandidate(fixture(path), { pool, validationSeed: seed });
      expect(report.problems.map((p) => p.code)).toEqual([]);
      const checks = report.stages.find((s) => s.stage === 'hack')?.metrics.checks as Record<
        string,
        { contested: number }
      >;
      expect(checks['episodic-orders']?.contested).toBeGreaterThan(0);
    },
    240_000,
  );
});

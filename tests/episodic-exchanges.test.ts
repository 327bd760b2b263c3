// Decisions exchanged between entities (validators/episodic/exchanges.ts, rt12 W2): which logs the probe plays, and
// when two entities count as interchangeable.
import { describe, expect, it } from 'vitest';
import type { Rollout } from '../sandbox/rollouts.js';
import {
  EXCHANGES,
  type Exchange,
  exchangeLogs,
  interchangeable,
  pooledPairs,
  surveyOf,
} from '../validators/episodic/exchanges.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

const meta = metaWith([
  tool('list_tickets', {}),
  tool('read_ticket', { ticket_id: { type: 'string' } }),
  tool('route', {
    ticket_id: { type: 'string' },
    queue: { type: 'string', enum: ['billing', 'shipping', 'technical'] },
    hours: { type: 'integer' },
  }),
  tool('close', {}),
]);
const rollout = (actions: ReturnType<typeof A>[], prompt = 'Route each ticket.') =>
  ({ ok: true, seed: 1, level: 1, prompt, actions }) as unknown as Rollout;
const ids = ['T1', 'T2', 'T3', 'T4'];
const queues = ['billing', 'shipping', 'billing', 'technical'];
const log = [
  A('list_tickets'),
  ...ids.map((t) => A('read_ticket', { ticket_id: t })),
  ...ids.map((t, k) => A('route', { ticket_id: t, queue: queues[k], hours: 2 })),
  A('close'),
];
const at = (t: string) => log.findIndex((a) => a.tool === 'route' && a.args.ticket_id === t);

describe('exchanged decisions', () => {
  it('swaps two calls holding different values, the most frequent first, then shifts the values over all calls', () => {
    const xs = exchangeLogs(meta, rollout(log), 'route');
    // The ticket ids name entities (read_ticket sends them); hours is the same on every call: only queue is exchanged.
    expect(new Set(xs.map((x) => x.arg))).toEqual(new Set(['queue']));
    const swaps = xs.filter((x) => x.kind === 'swap');
    expect(swaps).toHaveLength(EXCHANGES.pairs);
    expect(swaps[0]?.moves).toEqual([
      [at('T1'), at('T2')],
      [at('T2'), at('T1')],
    ]);
    expect(swaps[1]?.moves).toEqual([
      [at('T1'), at('T4')],
      [at('T4'), at('T1')],
    ]);
    const swapped = swaps[0]?.actions ?? [];
    expect(swapped[at('T1')]?.args).toEqual({ ticket_id: 'T1', queue: 'shipping', hours: 2 });
    expect(swapped[at('T2')]?.args).toEqual({ ticket_id: 'T2', queue: 'billing', hours: 2 });
    // The rest of the plan kept; the tally of the values kept.
    expect(swapped.filter((_, i) => i !== at('T1') && i !== at('T2'))).toEqual(
      log.filter((_, i) => i !== at('T1') && i !== at('T2')),
    );
    // The controls: each move alone (one decision duplicated, the tally changed).
    expect(swaps[0]?.controls.map((c) => c.map((a) => a.args.queue))).toEqual([
      [
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        'shipping',
        'shipping',
        'billing',
        'technical',
        undefined,
      ],
      [undefined, undefined, undefined, undefined, undefined, 'billing', 'billing', 'billing', 'technical', undefined],
    ]);
    const shift = xs.find((x) => x.kind === 'shift');
    expect(ids.map((t) => shift?.actions[at(t)]?.args.queue)).toEqual(['technical', 'billing', 'shipping', 'billing']);
  });

  it('exchanges numbers too, and nothing where the values agree or the calls name one entity', () => {
    const hours = log.map((a, i) =>
      a.tool === 'route' ? { ...a, args: { ...a.args, queue: 'billing', hours: i } } : a,
    );
    const xs = exchangeLogs(meta, rollout(hours), 'route');
    expect(xs.map((x) => `${x.arg} ${x.kind}`)).toEqual(['hours swap', 'hours swap', 'hours shift']);
    const same = log.map((a) => (a.tool === 'route' ? { ...a, args: { ...a.args, queue: 'billing' } } : a));
    expect(exchangeLogs(meta, rollout(same), 'route')).toEqual([]);
    const one = [A('route', { ticket_id: 'T1', queue: 'billing' }), A('route', { ticket_id: 'T1', queue: 'shipping' })];
    expect(exchangeLogs(meta, rollout([...one, A('close')]), 'route')).toEqual([]);
  });

  it('exchanges one of two ids where every argument names an entity (a ticket given to an agent)', () => {
    const desk = metaWith([
      tool('read_agent', { agent_id: { type: 'string' } }),
      tool('read_ticket', { ticket_id: { type: 'string' } }),
      tool('assign', { ticket_id: { type: 'string' }, agent_id: { type: 'string' } }),
      tool('close', {}),
    ]);
    const agents = ['A1', 'A2', 'A1'];
    const assigned = [
      ...['A1', 'A2'].map((a) => A('read_agent', { agent_id: a })),
      ...['T1', 'T2', 'T3'].map((t) => A('read_ticket', { ticket_id: t })),
      ...['T1', 'T2', 'T3'].map((t, k) => A('assign', { ticket_id: t, agent_id: agents[k] })),
      A('close'),
    ];
    const xs = exchangeLogs(desk, rollout(assigned), 'assign');
    expect(xs.map((x) => `${x.arg} ${x.kind}`)).toEqual(['agent_id swap', 'agent_id shift']);
    expect(xs[0]?.actions.slice(5, 8).map((a) => a.args.agent_id)).toEqual(['A2', 'A1', 'A1']);
  });

  it('exchanges every argument that varies, not the first ones the schema lists (rt14 Y6)', () => {
    const desk = metaWith([
      tool('read_ticket', { ticket_id: { type: 'string' } }),
      tool('route', {
        ticket_id: { type: 'string' },
        account: { type: 'integer' },
        received: { type: 'string' },
        note: { type: 'string' },
        queue: { type: 'string', enum: ['billing', 'shipping', 'technical'] },
      }),
      tool('close', {}),
    ]);
    const routed = [
      ...ids.map((t) => A('read_ticket', { ticket_id: t })),
      ...ids.map((t, k) =>
        A('route', { ticket_id: t, account: 10000 + k, received: `0${k}:00`, note: 'as read', queue: queues[k] }),
      ),
      A('close'),
    ];
    const xs = exchangeLogs(desk, rollout(routed), 'route');
    // The note is the same on every call: nothing to exchange; the queue, last in the schema, is exchanged.
    expect([...new Set(xs.map((x) => x.arg))]).toEqual(['account', 'received', 'queue']);
    expect(xs.filter((x) => x.arg === 'queue').map((x) => x.kind)).toEqual(['swap', 'swap', 'shift']);
  });

  it('calls entities interchangeable only where the prompt and the other replies describe them alike', () => {
    const xs = exchangeLogs(meta, rollout(log), 'route');
    const replies = (texts: string[]) =>
      log.map((a, i) => (a.tool === 'read_ticket' ? `${a.args.ticket_id}: ${texts[i - 1]}` : 'ok'));
    const swap = xs[0] as (typeof xs)[number];
    expect(interchangeable(rollout(log), replies(['late parcel', 'charged twice', 'refund', 'crash']), swap)).toBe(
      false,
    );
    expect(interchangeable(rollout(log), replies(['a ticket', 'a ticket', 'x', 'y']), swap)).toBe(true);
    // The text before each id belongs to it (rt14 Y5): a reply that quotes the ticket first tells them apart.
    const quoted = log.map((a, i) =>
      a.tool === 'read_ticket' ? `"${['late', 'charged', 'x', 'y'][i - 1]}" (${a.args.ticket_id})` : 'ok',
    );
    expect(interchangeable(rollout(log), quoted, swap)).toBe(false);
    // The replies of the exchanged tool itself (they echo the decision) are not read.
    const echoed = log.map((a) => (a.tool === 'route' ? `${a.args.ticket_id} routed to ${a.args.queue}` : 'ok'));
    expect(interchangeable(rollout(log), echoed, swap)).toBe(true);
  });

  it('reads what any agent can look at too: the tools without arguments, played from the start (rt14 Y5)', () => {
    expect(surveyOf(meta, rollout(log))).toEqual([A('list_tickets')]);
    const swap = exchangeLogs(meta, rollout(log), 'route')[0] as Exchange;
    const silent = log.map(() => 'ok');
    // The reference never lists; the listing gives each ticket's text before its id.
    const listing = { ...A('list_tickets'), reply: '"late" (T1); "charged twice" (T2); "refund" (T3); "crash" (T4)' };
    expect(interchangeable(rollout(log), silent, swap)).toBe(true);
    expect(interchangeable(rollout(log), silent, swap, [listing])).toBe(false);
  });
});

describe('entities offered the same options (seeds/episodic/library-loans)', () => {
  const desk = metaWith([
    tool('get_copy', { barcode: { type: 'string' } }),
    tool('get_holds', { isbn: { type: 'string' } }),
    tool('check_in', { barcode: { type: 'string' }, destination: { type: 'string' }, hold_card: { type: 'string' } }),
    tool('close', {}),
  ]);
  const copies = ['31111', '32222'];
  const cards = ['P100', 'P200'];
  const loans = [
    ...copies.map((b) => A('get_copy', { barcode: b })),
    A('get_holds', { isbn: '978-4346' }),
    ...copies.map((b, k) => A('check_in', { barcode: b, destination: 'hold_shelf', hold_card: cards[k] })),
    A('close'),
  ];
  const copy = [
    'borrowed by card P555, due 1 Dec, condition good',
    'borrowed by card P777, due 14 Oct, condition good',
  ];
  const replies = (holds: string, said = copy) => [
    ...copies.map((b, k) => `${b}: "The Hollow Year" (ISBN 978-4346), ${said[k]}.`),
    holds,
    'ok',
    'ok',
    'Desk closed.',
  ];
  const swap = exchangeLogs(desk, rollout(loans), 'check_in').find((x) => x.arg === 'hold_card') as Exchange;
  const queue = 'Holds on ISBN 978-4346, oldest first: 1. card P100 (active); 2. card P200 (active).';

  it('trades the hold cards of two copies of one title, both listed alike by its hold queue', () => {
    expect(swap.moves).toHaveLength(2);
    // The copies are described apart (their borrowers and due dates), yet the title's queue holds both cards.
    expect(interchangeable(rollout(loans), replies(queue), swap)).toBe(true);
    // Pooled by the listing only: the pair goes on to the replay by effect (pool-effect.ts), the copy checked in first
    // as `a`; entities described alike need none.
    const [pair, ...more] = pooledPairs(rollout(loans), replies(queue), swap) ?? [];
    expect(more).toEqual([]);
    expect([pair?.[0].ids, pair?.[0].value, pair?.[1].ids, pair?.[1].value]).toEqual([
      ['31111'],
      'P100',
      ['32222'],
      'P200',
    ]);
    expect(pooledPairs(rollout(loans), replies(queue, [copy[0] as string, copy[0] as string]), swap)).toEqual([]);
  });

  it("pairs a shift's moved call with a moved call that held the value it receives (one patron, two titles)", () => {
    // Another title's copy, checked in first, for P200 too: the shift moves P200 to 31111 and P100 to 32222 only.
    const other = [
      A('get_copy', { barcode: '30000' }),
      A('get_holds', { isbn: '978-1111' }),
      A('check_in', { barcode: '30000', destination: 'hold_shelf', hold_card: 'P200' }),
    ];
    const three = [...other.slice(0, 2), ...loans.slice(0, 3), other[2], ...loans.slice(3)] as typeof loans;
    const says = [
      '30000: "Ironwood" (ISBN 978-1111), borrowed by card P999, due 3 Nov, condition good.',
      'Holds on ISBN 978-1111, oldest first: 1. card P200 (active).',
      ...replies(queue).slice(0, 3),
      'ok',
      ...replies(queue).slice(3),
    ];
    const shift = exchangeLogs(desk, rollout(three), 'check_in').find((x) => x.kind === 'shift') as Exchange;
    expect(shift.moves).toHaveLength(2);
    const pairs = pooledPairs(rollout(three), says, shift);
    expect(pairs?.map(([a, b]) => [a.ids, b.ids])).toEqual([[['31111'], ['32222']]]);
  });

  it('binds values told apart, said of an entity, handed out of order, given twice or shared by nothing', () => {
    // Handed out against the listed order (the copy checked in first took the second hold): not first come first.
    const reversed = 'Holds on ISBN 978-4346, oldest first: 1. card P200 (active); 2. card P100 (active).';
    expect(interchangeable(rollout(loans), replies(reversed), swap)).toBe(false);
    const told = 'Holds on ISBN 978-4346: P100 wants large print; P200 wants any copy.';
    expect(interchangeable(rollout(loans), replies(told), swap)).toBe(false);
    const own = [copy[0] as string, `${copy[1]}, reserved for P200`];
    expect(interchangeable(rollout(loans), replies(queue, own), swap)).toBe(false);
    // A listing of both values asked for no fact both copies show (another title's ISBN): no shared options.
    const other = loans.map((a) => (a.tool === 'get_holds' ? A('get_holds', { isbn: '978-9999' }) : a));
    expect(interchangeable(rollout(other), replies(queue.replace('978-4346', '978-9999')), swap)).toBe(false);
    // The prompt reserves one copy for one card: that value is the copy's own.
    expect(interchangeable(rollout(loans, 'Copy 32222 is reserved for P200.'), replies(queue), swap)).toBe(false);
    // A third copy of the title given the first card again: a tally, no slots (one copy fills one hold).
    const third = [
      ...loans.slice(0, -1),
      A('get_copy', { barcode: '33333' }),
      A('check_in', { barcode: '33333', destination: 'hold_shelf', hold_card: 'P100' }),
      A('close'),
    ];
    const thirdSays = [...replies(queue).slice(0, -1), `33333: "The Hollow Year" (ISBN 978-4346), due 2 Oct.`, 'ok'];
    const tally = exchangeLogs(desk, rollout(third), 'check_in').find((x) => x.kind === 'swap') as Exchange;
    expect(interchangeable(rollout(third), [...thirdSays, 'Desk closed.'], tally)).toBe(false);
    // A categorical decision the prompt's enum gives (rt12 W2): no read lists it for a shared fact.
    const tickets = exchangeLogs(meta, rollout(log), 'route')[0] as Exchange;
    const texts = log.map((a, i) => (a.tool === 'read_ticket' ? `${a.args.ticket_id}: text ${i}` : 'ok'));
    expect(interchangeable(rollout(log), texts, tickets)).toBe(false);
  });
});

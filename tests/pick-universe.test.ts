// The universe of a pick (validators/episodic/pick-universe.ts): a listed entity the picking tool refuses wherever and
// however a policy could ask, its state unchanged, is no candidate (redteam-trust6 honest-idshape-queue's "TK0000
// queue" beside its tickets); one the tool acts on at some moment or with some argument (redteam-s20e S4's gift-card
// order, refundable and penalised; rt28e U1, U2) stays a candidate.
import { describe, expect, it } from 'vitest';
import type { Rollout, RolloutRequest, RolloutResult } from '../sandbox/rollouts.js';
import { knownPicks } from '../validators/episodic/pick-universe.js';
import type { PickSample } from '../validators/episodic/selection.js';

type Action = { tool: string; args: Record<string, unknown> };
/** A world's answer to one call (of `route`, unless named): its reply and whether it changed the state. */
type World = (id: string, seen: number, args: Record<string, unknown>, tool: string) => [string, boolean];

const ids = ['TK4821', 'TK5310', 'TK0000'];
const sample: PickSample = {
  level: 1,
  value: '',
  candidates: ids.map((i) => i.toLowerCase()),
  chosen: new Set(['tk4821', 'tk5310']),
  fields: new Map(),
  of: 0,
  tool: 'route',
  arg: 'ticket_id',
  printed: new Map(ids.map((i) => [i.toLowerCase(), i])),
  listed: new Map(ids.map((i) => [i.toLowerCase(), new Set(["list_tickets's reply"])])),
};

/** The reference (routes both tickets) and a replay runner over `world`. */
const routes: Action[] = [
  { tool: 'route', args: { ticket_id: 'TK4821', queue: 'billing', amount: 40 } },
  { tool: 'route', args: { ticket_id: 'TK5310', queue: 'shipping', amount: 30 } },
  { tool: 'close', args: {} },
];
function setUp(world: World, actions: Action[] = routes) {
  const play = (log: readonly Action[]) => log.map((a, k) => world(String(a.args.ticket_id), k, a.args, a.tool));
  const replies = play(actions);
  const ref = {
    ok: true,
    seed: 1,
    level: 1,
    prompt: 'Route every ticket.',
    actions,
    observations: replies.map(([o]) => o),
  } as unknown as Rollout;
  const sent: RolloutRequest[] = [];
  const run = async (requests: RolloutRequest[]): Promise<RolloutResult[]> => {
    sent.push(...requests);
    return requests.map((q) => {
      const out = play((q.policy as { actions: Action[] }).actions);
      return {
        ok: true,
        observations: out.map(([o]) => o),
        changes: out.map(([, c]) => (c ? ['$.x'] : [])),
      } as Rollout;
    });
  };
  return { ref, run, sent };
}

const known = new Set(['TK4821', 'TK5310']);
const kept = async (world: World, s: PickSample = sample, actions: Action[] = routes) => {
  const { ref, run, sent } = setUp(world, actions);
  const out = await knownPicks(new Map([['route.ticket_id', [s]]]), [ref], run);
  return { candidates: out.get('route.ticket_id')?.[0]?.candidates, sent };
};

describe('the entities a pick chooses among', () => {
  it('leaves out a listed id the tool answers as an unknown one: routing every ticket is no pick', async () => {
    const r = await kept((id) => (known.has(id) ? [`${id} routed.`, true] : [`No ticket ${id}.`, false]));
    expect(r.candidates).toBeUndefined();
    // The probe sends the unknown id before the listed one, each with the reference's other arguments, then the
    // reference's own call.
    // First with the reference's arguments at its first pick; refused there, with every set at both picks.
    expect((r.sent[0]?.policy as { actions: Action[] }).actions.map((a) => a.args.ticket_id)).toEqual([
      'TK9999',
      'TK0000',
      'TK4821',
    ]);
    const log = (r.sent[1]?.policy as { actions: Action[] }).actions;
    // ... the unknown id, then the listed one, with the reference's amount, the least it sends and 1 (an answer the
    // unknown id gets with the same arguments is no answer about the entity: rt29e V6); then again at its last pick
    // call, and after it (the state the reference leaves: rt29e V4), where no call of the reference follows.
    const [u, l] = ['TK9999', 'TK0000'];
    expect(log.map((a) => a.args.ticket_id)).toEqual([u, u, u, l, l, l, 'TK4821']);
    expect(log.slice(0, 6).map((a) => a.args.amount)).toEqual([40, 30, 1, 40, 30, 1]);
    expect(log[3]?.args.queue).toBe('billing');
    expect((r.sent[2]?.policy as { actions: Action[] }).actions.at(-1)?.args.ticket_id).toBe('TK5310');
    const after = (r.sent[3]?.policy as { actions: Action[] }).actions;
    expect(after.slice(0, 3).map((a) => a.args.ticket_id)).toEqual(['TK4821', 'TK5310', 'TK9999']);
    expect(after.at(-1)?.args.ticket_id).toBe('TK0000');
  });

  it('keeps one the tool acts on or answers otherwise (a forbidden refund, a refusal with a reason)', async () => {
    const acts = await kept((id) => (id === 'TK9999' ? ['No ticket TK9999.', false] : [`${id} routed.`, true]));
    expect(acts.candidates).toEqual(['tk4821', 'tk5310', 'tk0000']);
    // A refusal with a reason, where the tool changes nothing for the picks either (a read): the probe tells nothing.
    const reason = await kept((id) =>
      known.has(id)
        ? [`${id} shown.`, false]
        : id === 'TK0000'
          ? ['TK0000 is a gift card.', false]
          : ['No such.', false],
    );
    expect(reason.candidates).toHaveLength(3);
    // Refused at the first pick only: after the reference's picks it is routed (rt28e U1, a turn order, not a kind).
    const later = await kept((id, seen) =>
      known.has(id) || (id === 'TK0000' && seen > 1) ? [`${id} routed.`, true] : [`No ticket ${id}.`, false],
    );
    expect(later.candidates).toHaveLength(3);
    // Refused for the borrowed amount as the unknown id is, routed with the amount its listing shows (rt28e U2).
    const withAmount = { ...sample, cells: new Map([['tk0000', 'TK4821 ($40), TK0000 ($7)']]) };
    const byValue = await kept(
      (id, _seen, args) =>
        known.has(id) || (id === 'TK0000' && Number(args.amount) <= 7)
          ? [`${id} routed.`, true]
          : [`No ticket ${id} for $${args.amount}.`, false],
      withAmount,
    );
    expect(byValue.candidates).toHaveLength(3);
  });

  it('leaves out one the tool refuses with a reason where it acts on each pick (rt28e U9: what it does)', async () => {
    const reason = await kept((id) =>
      known.has(id)
        ? [`${id} routed.`, true]
        : id === 'TK0000'
          ? ['TK0000 is a gift card.', false]
          : ['No such.', false],
    );
    expect(reason.candidates).toBeUndefined();
  });

  it('keeps one answered as unknown whose call changes the state (a world that records the try)', async () => {
    const r = await kept((id) => (known.has(id) ? [`${id} routed.`, true] : [`No ticket ${id}.`, id === 'TK0000']));
    expect(r.candidates).toHaveLength(3);
  });

  it('refuses nothing where the tool answers a known id as an unknown one (the probe tells nothing)', async () => {
    const r = await kept(() => ['List the tickets first.', false]);
    expect(r.candidates).toHaveLength(3);
  });

  // redteam-s21e T4: two listings, ids of one shape; the tool names the other kind ('K452 is a technician').
  const agents = ['AG1000', 'AG2000'];
  const twoKinds: PickSample = {
    ...sample,
    candidates: [...sample.candidates.slice(0, 2), ...agents.map((a) => a.toLowerCase())],
    printed: new Map([...sample.printed, ...agents.map((a): [string, string] => [a.toLowerCase(), a])]),
    listed: new Map([
      ...sample.listed,
      ...agents.map((a): [string, Set<string>] => [a.toLowerCase(), new Set(['agents'])]),
    ]),
  };
  const kindOf = (id: string): [string, boolean] =>
    known.has(id)
      ? [`${id} routed.`, true]
      : id.startsWith('AG')
        ? [`${id} is an agent, not a ticket.`, false]
        : [`No ticket ${id}.`, false];

  it('leaves out listed ids of another kind the tool answers alike, as no chosen one, unchanged', async () => {
    expect((await kept(kindOf, twoKinds)).candidates).toBeUndefined();
  });

  it('keeps them where one is answered otherwise, listed beside the picks, or the last call so (a lock)', async () => {
    // One acted on (assigned) stays; the other, refused, goes whatever its words.
    const one = await kept((id) => (id === 'AG2000' ? ['AG2000 assigned.', true] : kindOf(id)), twoKinds);
    expect(one.candidates).toEqual(['tk4821', 'tk5310', 'ag2000']);
    // Listed beside the picks (one board, rt28e U5), they are still refused by what the tool does.
    const beside = new Map([...twoKinds.listed].map(([c, s]): [string, Set<string>] => [c, new Set([...s, 'agents'])]));
    expect((await kept(kindOf, { ...twoKinds, listed: beside })).candidates).toBeUndefined();
    // A world that locks after an unknown id answers the reference's own call, replayed last, as the others.
    let unknownAt = Number.POSITIVE_INFINITY;
    const lock: World = (id, seen) => {
      if (seen === 0) unknownAt = Number.POSITIVE_INFINITY;
      if (seen > unknownAt) return ['Desk locked.', false];
      if (!known.has(id) && !id.startsWith('AG')) unknownAt = seen;
      return kindOf(id);
    };
    const locked = await kept(lock, twoKinds);
    expect(locked.candidates).toHaveLength(4);
  });

  it('probes every candidate, in as many replays as the turns need (rt28e U6)', async () => {
    const many = Array.from({ length: 20 }, (_, k) => `AG${1000 + k}`);
    const roster: PickSample = {
      ...sample,
      candidates: [...sample.candidates.slice(0, 2), ...many.map((a) => a.toLowerCase())],
      printed: new Map([...sample.printed, ...many.map((a): [string, string] => [a.toLowerCase(), a])]),
      turns: 8,
    };
    const r = await kept(kindOf, roster);
    expect(r.candidates).toBeUndefined();
    expect(r.sent.every((q) => (q.policy as { actions: Action[] }).actions.length <= 8)).toBe(true);
  });

  it("probes with the reference's arguments first, the other sets only for those refused there", async () => {
    const many = Array.from({ length: 12 }, (_, k) => `TK${6000 + k}`);
    const roster: PickSample = {
      ...sample,
      candidates: [...sample.candidates.slice(0, 2), ...many.map((a) => a.toLowerCase())],
      printed: new Map([...sample.printed, ...many.map((a): [string, string] => [a.toLowerCase(), a])]),
      turns: 8,
    };
    const probes = (sent: RolloutRequest[]) =>
      sent.flatMap((q) =>
        (q.policy as { actions: Action[] }).actions.filter((a) => many.includes(String(a.args.ticket_id))),
      );
    // Every one routed: one call each at the first pick, with the reference's amount (not 3 sets at 2 moments each).
    const all = await kept((id) => (id === 'TK9999' ? ['No ticket TK9999.', false] : [`${id} routed.`, true]), roster);
    expect(all.candidates).toHaveLength(14);
    expect(probes(all.sent)).toHaveLength(12);
    expect(probes(all.sent).every((a) => a.args.amount === 40)).toBe(true);
    // One refused for the borrowed amount and routed for 1: sent the other sets, and kept (the decision unchanged).
    const one = await kept(
      (id, _seen, args) =>
        id === 'TK9999' || (id === 'TK6003' && Number(args.amount) > 1)
          ? [`No ticket ${id}.`, false]
          : [`${id} routed.`, true],
      roster,
    );
    expect(one.candidates).toHaveLength(14);
    expect(
      probes(one.sent)
        .filter((a) => a.args.ticket_id === 'TK6003')
        .map((a) => a.args.amount),
    ).toContain(1);
    expect(probes(one.sent).filter((a) => a.args.ticket_id === 'TK6004')).toHaveLength(1);
    // Refused at the first pick only (routed after the reference's picks, rt28e U1): probed at the last, kept.
    const later = await kept(
      (id, seen) =>
        id === 'TK9999' || (id === 'TK6003' && seen < 3) ? [`No ticket ${id}.`, false] : [`${id} routed.`, true],
      roster,
    );
    expect(later.candidates).toHaveLength(14);
  });
  it('keeps one refused until the reference has made its last pick (rt29e V4: the state it leaves)', async () => {
    const routed = new Set<string>();
    const settled: World = (id, seen) => {
      if (seen === 0) routed.clear();
      if (known.has(id)) return routed.add(id) && [`${id} routed.`, true];
      return id === 'TK0000' && routed.size === 2 ? ['TK0000 routed.', true] : [`No ticket ${id}.`, false];
    };
    expect((await kept(settled)).candidates).toHaveLength(3);
    // After the last pick, a refusal with a reason it was not given before is no refusal either; the same one is.
    const reason =
      (after: string): World =>
      (id, seen) => {
        if (seen === 0) routed.clear();
        if (known.has(id)) return routed.add(id) && [`${id} routed.`, true];
        return id === 'TK0000' ? [routed.size === 2 ? after : 'TK0000 is a gift card.', false] : ['No such.', false];
      };
    expect((await kept(reason('TK0000 is a gift card.'))).candidates).toBeUndefined();
    expect((await kept(reason('TK0000 is a gift card: ask a manager.'))).candidates).toHaveLength(3);
  });

  // rt29e V6: the first-listed entity's cell opens with the listing's header, whose numbers are no values of it.
  const tools = [
    {
      name: 'route',
      description: 'Route a ticket.',
      parameters: {
        type: 'object',
        properties: {
          ticket_id: { type: 'string' },
          queue: { type: 'string' },
          amount: { type: 'number', minimum: 0, maximum: 1000 },
          code: { type: 'string' },
        },
        required: ['ticket_id'],
        additionalProperties: false,
      },
    },
  ] as unknown as PickSample['tools'];
  const unknownAlways: World = (id) => (known.has(id) ? [`${id} routed.`, true] : [`No ticket ${id}.`, false]);

  it("sends an entity its own cell's values the schema admits, never the header's (rt29e V6)", async () => {
    const dated = { ...sample, tools, cells: new Map([['tk0000', 'Tickets on 2026-10-23: TK0000 ($7), ']]) };
    const r = await kept(unknownAlways, dated);
    expect(r.candidates).toBeUndefined();
    const amounts = r.sent.flatMap((q) => (q.policy as { actions: Action[] }).actions.map((a) => a.args.amount));
    expect(amounts).toContain(7);
    expect(amounts.filter((a) => typeof a === 'number' && (a > 1000 || a === 2026 || a === 23))).toEqual([]);
    // Wherever it is listed, an argument the tool refuses for any id (the unknown one alike) tells nothing of it.
    const limit: World = (id, _seen, args) =>
      Number(args.amount) > 100 ? ['Amounts over $100 need a manager.', false] : unknownAlways(id, 0, args, 'route');
    const big = { ...sample, tools, cells: new Map([['tk0000', 'TK4821 ($40), TK0000 ($700)']]) };
    expect((await kept(limit, big)).candidates).toBeUndefined();
  });

  // rt29e V8: route takes each ticket's own code (its read prints it) and answers a wrong one as an unknown ticket.
  const CODES: Record<string, string> = { TK4821: 'RX-11111', TK5310: 'RX-22222', TK0000: 'RX-30303' };
  const coded =
    (lifted: boolean): World =>
    (id, _seen, args, tool) => {
      if (tool === 'read') return [`${id}: a ticket, code ${CODES[id] ?? '?'}.`, false];
      if (tool !== 'route') return ['Closed.', true];
      const own = CODES[id] !== undefined && args.code === CODES[id];
      return own && (known.has(id) || lifted)
        ? [`${id} routed.`, true]
        : [`No ticket ${id} with code ${args.code}.`, false];
    };
  const readFirst = (ids: string[]): Action[] => [
    ...ids.flatMap((id) => [
      { tool: 'read', args: { ticket_id: id } },
      ...(known.has(id)
        ? [{ tool: 'route', args: { ticket_id: id, queue: 'billing', amount: 40, code: CODES[id] } }]
        : []),
    ]),
    { tool: 'close', args: {} },
  ];

  it("sends an entity the strings the world shows of it, not another's (rt29e V8)", async () => {
    const all = readFirst(['TK4821', 'TK5310', 'TK0000']);
    const r = await kept(coded(true), { ...sample, tools }, all);
    expect(r.candidates).toHaveLength(3);
    const sentCodes = r.sent.flatMap((q) =>
      (q.policy as { actions: Action[] }).actions.filter((a) => a.args.ticket_id === 'TK0000').map((a) => a.args.code),
    );
    expect(sentCodes).toContain('RX-30303');
    // Refused with its own code too, as the unknown id is: no candidate.
    expect((await kept(coded(false), { ...sample, tools }, all)).candidates).toBeUndefined();
    // Never shown its own code (the reference never reads it): never asked with it, it stays a candidate.
    const unread = await kept(coded(false), { ...sample, tools }, readFirst(['TK4821', 'TK5310']));
    expect(unread.candidates).toHaveLength(3);
  });
});

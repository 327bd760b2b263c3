// The universe of a pick (validators/episodic/pick-universe.ts): a listed entity the picking tool answers as an unknown
// id, its state unchanged, is no candidate (redteam-trust6 honest-idshape-queue's "TK0000 queue" beside its tickets);
// one the tool acts on (redteam-s20e S4's gift-card order, refundable and penalised) stays a candidate.
import { describe, expect, it } from 'vitest';
import type { Rollout, RolloutRequest, RolloutResult } from '../sandbox/rollouts.js';
import { knownPicks } from '../validators/episodic/pick-universe.js';
import type { PickSample } from '../validators/episodic/selection.js';

type Action = { tool: string; args: Record<string, unknown> };
/** A world's answer to one call of `route`: its reply and whether it changed the state. */
type World = (id: string, seen: number) => [string, boolean];

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
function setUp(world: World) {
  const actions: Action[] = [
    { tool: 'route', args: { ticket_id: 'TK4821', queue: 'billing' } },
    { tool: 'route', args: { ticket_id: 'TK5310', queue: 'shipping' } },
    { tool: 'close', args: {} },
  ];
  const play = (log: readonly Action[]) => log.map((a, k) => world(String(a.args.ticket_id), k));
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
const kept = async (world: World, s: PickSample = sample) => {
  const { ref, run, sent } = setUp(world);
  const out = await knownPicks(new Map([['route.ticket_id', [s]]]), [ref], run);
  return { candidates: out.get('route.ticket_id')?.[0]?.candidates, sent };
};

describe('the entities a pick chooses among', () => {
  it('leaves out a listed id the tool answers as an unknown one: routing every ticket is no pick', async () => {
    const r = await kept((id) => (known.has(id) ? [`${id} routed.`, true] : [`No ticket ${id}.`, false]));
    expect(r.candidates).toBeUndefined();
    // The probe sends the unknown id before the listed one, each with the reference's other arguments, then the
    // reference's own call.
    const log = (r.sent[0]?.policy as { actions: Action[] }).actions;
    expect(log.map((a) => a.args.ticket_id)).toEqual(['TK9999', 'TK0000', 'TK4821']);
    expect(log[1]?.args.queue).toBe('billing');
  });

  it('keeps one the tool acts on or answers otherwise (a forbidden refund, a refusal with a reason)', async () => {
    const acts = await kept((id) => (id === 'TK9999' ? ['No ticket TK9999.', false] : [`${id} routed.`, true]));
    expect(acts.candidates).toEqual(['tk4821', 'tk5310', 'tk0000']);
    const reason = await kept((id) =>
      known.has(id)
        ? [`${id} routed.`, true]
        : id === 'TK0000'
          ? ['TK0000 is a gift card.', false]
          : ['No such.', false],
    );
    expect(reason.candidates).toHaveLength(3);
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
    const one = await kept((id) => (id === 'AG2000' ? ['AG2000 is on leave.', false] : kindOf(id)), twoKinds);
    expect(one.candidates).toHaveLength(4);
    // Listed beside the picks, they are of their kind: a refusal alike ('at most $10' for two gift cards) is a rule.
    const beside = new Map([...twoKinds.listed].map(([c, s]): [string, Set<string>] => [c, new Set([...s, 'agents'])]));
    expect((await kept(kindOf, { ...twoKinds, listed: beside })).candidates).toHaveLength(4);
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
});

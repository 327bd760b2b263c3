import { describe, expect, it } from 'vitest';
import type { Rollout, RolloutRequest } from '../sandbox/rollouts.js';
import type { Action } from '../validators/episodic/adversaries.js';
import { changingCalls, endsOf, examplesByEffect, type ExampleAsk, kindsOf } from '../validators/episodic/examples.js';

const call = (tool: string, guest_id: string): Action => ({ tool, args: { guest_id } });
const submit: Action = { tool: 'submit', args: {} };

/**
 * A desk in words, every call a daybook line. `left`: guests who left, refused in the words an unknown guest is
 * (redteam-trust17-trace b), whose refusal submit still needs as their line. `walkIn`: a manager who approves any name
 * (the neutral call taken too, redteam-trust16 walk-in), `declined` answered otherwise and needed by nothing.
 */
const desk = (how: { left?: string[]; walkIn?: boolean; declined?: string[]; needed: string[] }) => {
  const reply = (a: Action, lined: Set<string>): string => {
    const id = String(a.args.guest_id ?? '');
    if (a.tool === 'submit') return 'Submitted.';
    if (how.walkIn) {
      if (how.declined?.includes(id)) return `Declined ${id}.`;
      lined.add(id);
      return `Approved ${id}.`;
    }
    if (how.left?.includes(id)) {
      lined.add(id);
      return `Refused book: no guest ${id} in house.`;
    }
    if (!how.needed.includes(id)) return `Refused book: no guest ${id} in house.`;
    lined.add(id);
    return `${id} booked 4 nights from 2026-07-01`;
  };
  return async (requests: RolloutRequest[]): Promise<Rollout[]> =>
    requests.map((r) => {
      const acts = (r.policy as { actions: Action[] }).actions;
      const lined = new Set<string>();
      const observations = acts.map((a) => reply(a, lined));
      const done = acts.at(-1)?.tool === 'submit';
      const score = done && [...how.needed, ...(how.left ?? [])].every((g) => lined.has(g)) ? 1 : 0;
      const changes = acts.map(() => ['$.events']);
      const state = { events: observations };
      return { ok: true, seed: 1, level: 1, rejected: [], observations, changes, state, score } as unknown as Rollout;
    });
};

const askOf = async (world: ReturnType<typeof desk>, actions: Action[], tool: string): Promise<ExampleAsk> => {
  const [replay] = await world([{ seed: 1, level: 1, policy: { type: 'replay', actions } }]);
  return { ref: replay as Rollout, actions, replay, tool, readsOf: (c) => [call('read', String(c.args.guest_id))] };
};
const ats = (examples: { at: number }[]) => examples.map((e) => e.at);

describe("the reference's accepted examples of a tool, by effect (redteam-trust17-trace b)", () => {
  it('takes the bookings, not the refusals a roster opens and closes with, though submit needs both', async () => {
    const world = desk({ left: ['L1', 'L2'], needed: ['G1', 'G2'] });
    const plan = ['L1', 'G1', 'G2', 'L2'].map((g) => call('book', g));
    const ask = await askOf(world, [...plan, submit], 'book');
    expect(kindsOf(ask)).toHaveLength(2);
    expect(ats(endsOf(ask.actions, changingCalls(ask.actions, ask.replay, 'book')))).toEqual([0, 3]);
    const [examples] = await examplesByEffect([ask], world);
    expect(ats(examples ?? [])).toEqual([1, 2]);
  });

  it('keeps accepted calls like a neutral call the world takes too, not a declined call unlike it', async () => {
    const world = desk({ walkIn: true, declined: ['G0'], needed: ['G1', 'G2', 'G3'] });
    const plan = ['G0', 'G1', 'G2', 'G3'].map((g) => call('approve', g));
    const ask = await askOf(world, [...plan, submit], 'approve');
    const [examples] = await examplesByEffect([ask], world);
    expect(ats(examples ?? [])).toEqual([1, 3]);
  });

  it('replays nothing where every call is of one kind: the first and the last', async () => {
    const world = desk({ needed: ['G1', 'G2', 'G3'] });
    const ask = await askOf(world, [...['G1', 'G2', 'G3'].map((g) => call('book', g)), submit], 'book');
    const sent: RolloutRequest[] = [];
    const [examples] = await examplesByEffect([ask, ask], async (r) => {
      sent.push(...r);
      return world(r);
    });
    expect(sent).toEqual([]);
    expect(ats(examples ?? [])).toEqual([0, 2]);
  });

  it('falls back to the calls at the ends where no kind shows an effect', async () => {
    const world = desk({ walkIn: true, declined: ['G0'], needed: [] });
    const ask = await askOf(world, [...['G0', 'G1', 'G2'].map((g) => call('approve', g)), submit], 'approve');
    const [examples] = await examplesByEffect([ask], world);
    expect(ats(examples ?? [])).toEqual([0, 2]);
  });
});

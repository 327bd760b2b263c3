// The read-back oracle of the episodic hack stage (validators/episodic/adversaries-progress.ts, FINDINGS-rt4
// R20) as pure functions: which tools it reads after each try, the sweep logs, the choices their replies give
// (a progress count singles out a value; an echo of the values or a per-value tally does not), the retry log.
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { Rollout } from '../sandbox/rollouts.js';
import {
  readBackLog,
  readsOf,
  sweepChoices,
  sweepLogs,
  type Sweep,
} from '../validators/episodic/adversaries-progress.js';
import { decisionsOf, type Axis } from '../validators/episodic/adversaries-values.js';

const QUEUES = ['billing', 'shipping', 'technical'];
/** A tool's declaration: its properties (a string id unless given) and the ones it requires. */
const tool = (name: string, props: Record<string, object> = {}, required = Object.keys(props)) => ({
  name,
  description: name,
  parameters: { type: 'object', properties: props, required },
});
const ticket = { ticket_id: { type: 'string' } };
const meta = {
  name: 'desk',
  levels: 2,
  maxTurns: 40,
  tools: [
    tool('read', ticket),
    tool('progress'),
    tool('search', { query: { type: 'string' } }),
    tool('pay', { ...ticket, amount: { type: 'number' } }),
    tool('route', { ...ticket, queue: { type: 'string', enum: QUEUES } }),
    tool('close'),
  ],
} as unknown as EpisodicMeta;
const close = { tool: 'close', args: {} };
const ref: Rollout = {
  ok: true,
  seed: 11,
  level: 1,
  prompt: 'Route every ticket.',
  rejected: [],
  end: 'done',
  turns: 5,
  errors: 0,
  score: 1,
  maxStateChars: 10,
  ms: [0, 0, 0, 0],
  actions: [
    { tool: 'read', args: { ticket_id: 'T1' } },
    { tool: 'route', args: { ticket_id: 'T1', queue: 'shipping' } },
    { tool: 'read', args: { ticket_id: 'T2' } },
    { tool: 'route', args: { ticket_id: 'T2', queue: 'technical' } },
    close,
  ],
};
const axis: Axis = { tool: 'route', arg: 'queue', values: QUEUES };
const decisions = decisionsOf(ref, axis);
const progress = { tool: 'progress', names: [] };

/** Replies to a sweep's log from a desk whose read tool says `reply(queues routed so far)`. */
function replies(sweep: Sweep, reply: (routed: Map<string, string>) => string): string[] {
  const routed = new Map<string, string>();
  return sweep.actions.map((a) =>
    a.tool === 'route'
      ? (routed.set(String(a.args.ticket_id), String(a.args.queue)), 'ok')
      : a.tool === 'progress'
        ? reply(routed)
        : 'T: a ticket',
  );
}
const truth = new Map([
  ['T1', 'shipping'],
  ['T2', 'technical'],
]);
const right = (routed: Map<string, string>) => [...routed].filter(([t, q]) => truth.get(t) === q).length;

describe('read-back oracle: a read after each try', () => {
  it(
    "reads: no-argument tools first, then tools keyed by the decision's entity; never the decision, the " +
      'finish or a tool needing more',
    () => {
      expect(readsOf(meta, ref, axis, decisions)).toEqual([progress, { tool: 'read', names: ['ticket_id'] }]);
    },
  );

  it('sweeps: each decision sent every value with the read after each try, grouped to fit the turn limit', () => {
    const [one] = sweepLogs(ref, axis, decisions, progress, 40);
    expect(one?.actions.slice(1, 7)).toEqual(
      QUEUES.flatMap((queue) => [
        { tool: 'route', args: { ticket_id: 'T1', queue } },
        { tool: 'progress', args: {} },
      ]),
    );
    expect(one?.at.get(1)?.map((i) => one.actions[i]?.tool)).toEqual(['progress', 'progress', 'progress']);
    expect(one?.actions.some((a) => a.tool === 'close')).toBe(false);
    // Ten turns: one decision a log; four turns: none fits.
    expect(sweepLogs(ref, axis, decisions, progress, 10).map((s) => [...s.at.keys()])).toEqual([[0], [1]]);
    expect(sweepLogs(ref, axis, decisions, progress, 4)).toEqual([]);
  });

  it(
    "choices: a count of right decisions singles out the reference's values; an echo of the values or a " +
      'tally per value does not',
    () => {
      const sweeps = sweepLogs(ref, axis, decisions, progress, 10);
      const chosen = (reply: (routed: Map<string, string>) => string) =>
        sweepChoices(
          axis,
          decisions,
          sweeps.map((sweep) => ({ sweep, observations: replies(sweep, reply) })),
        );
      expect(chosen((routed) => `${right(routed)} of 2 tickets are in the right queue.`)).toEqual([
        'shipping',
        'technical',
      ]);
      expect(chosen((routed) => [...routed].map(([t, q]) => `${t} is in ${q}`).join('; '))).toEqual([null, null]);
      expect(
        chosen((routed) => QUEUES.map((q) => `${q}: ${[...routed.values()].filter((x) => x === q).length}`).join(', ')),
      ).toEqual([null, null]);
      expect(chosen(() => 'Nothing to report.')).toEqual([null, null]);
      expect(sweepChoices(axis, decisions, [])).toEqual([null, null]);
    },
  );

  it(
    'the retry log: values in order up to the choice, the read after each try but the last value, the ' +
      "reference's reads and finish kept",
    () => {
      const log = readBackLog(ref, axis, decisions, progress, ['shipping', 'technical']);
      expect(log).toEqual([
        ref.actions[0],
        { tool: 'route', args: { ticket_id: 'T1', queue: 'billing' } },
        { tool: 'progress', args: {} },
        { tool: 'route', args: { ticket_id: 'T1', queue: 'shipping' } },
        { tool: 'progress', args: {} },
        ref.actions[2],
        { tool: 'route', args: { ticket_id: 'T2', queue: 'billing' } },
        { tool: 'progress', args: {} },
        { tool: 'route', args: { ticket_id: 'T2', queue: 'shipping' } },
        { tool: 'progress', args: {} },
        { tool: 'route', args: { ticket_id: 'T2', queue: 'technical' } },
        close,
      ]);
    },
  );
});

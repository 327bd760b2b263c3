// The rt4 adversaries of the episodic hack stage (validators/episodic/adversaries-cuts.ts, adversaries-values.ts)
// as pure functions: the logs they build from a reference episode and how they read replies. End-to-end
// verdicts on the red team's modules are in tests/redteam-rt4.test.ts.
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { Rollout } from '../sandbox/rollouts.js';
import { stopCuts, transferLogs } from '../validators/episodic/adversaries-cuts.js';
import {
  axesOf,
  blanketValue,
  playable,
  copyLog,
  decisionsOf,
  injectionLogs,
  maskReply,
  oracleChoices,
  oracleLog,
  predictions,
  readerCalls,
  truthKeys,
  type Axis,
} from '../validators/episodic/adversaries-values.js';

const id = { type: 'string', minLength: 1, maxLength: 12 };
const QUEUES = ['billing', 'shipping', 'technical'];
const meta = {
  name: 'desk',
  levels: 2,
  maxTurns: 40,
  tools: [
    { name: 'list', description: 'List ids.', parameters: { type: 'object', properties: {} } },
    {
      name: 'read',
      description: 'Show one.',
      parameters: { type: 'object', properties: { ticket_id: id }, required: ['ticket_id'] },
    },
    {
      name: 'history',
      description: 'Log of one.',
      parameters: { type: 'object', properties: { ticket_id: id }, required: ['ticket_id'] },
    },
    {
      name: 'search',
      description: 'Search.',
      parameters: { type: 'object', properties: { query: { type: 'string', maxLength: 40 } }, required: ['query'] },
    },
    {
      name: 'update',
      description: 'Set a field.',
      parameters: {
        type: 'object',
        properties: { ticket_id: id, field: { type: 'string' }, value: { type: 'string' } },
        required: ['ticket_id', 'field', 'value'],
      },
    },
    {
      name: 'route',
      description: 'Route one.',
      parameters: {
        type: 'object',
        properties: { ticket_id: id, queue: { type: 'string', enum: QUEUES } },
        required: ['ticket_id', 'queue'],
      },
    },
    {
      name: 'pay',
      description: 'Pay one.',
      parameters: {
        type: 'object',
        properties: { ticket_id: id, amount: { type: 'number', minimum: 0, maximum: 1000 } },
        required: ['ticket_id', 'amount'],
      },
    },
    { name: 'close', description: 'Close. Ends the task.', parameters: { type: 'object', properties: {} } },
  ],
} as unknown as EpisodicMeta;

const rollout = (actions: unknown[], extra: Partial<Rollout> = {}): Rollout => ({
  ok: true,
  seed: 11,
  level: 1,
  prompt: 'Route every ticket.',
  actions,
  rejected: [],
  end: 'done',
  turns: actions.length,
  errors: 0,
  score: 1,
  maxStateChars: 10,
  ms: [0, 0, 0, 0],
  ...extra,
});
const ref = rollout([
  { tool: 'read', args: { ticket_id: 'T1' } },
  { tool: 'route', args: { ticket_id: 'T1', queue: 'shipping' } },
  { tool: 'read', args: { ticket_id: 'T2' } },
  { tool: 'route', args: { ticket_id: 'T2', queue: 'technical' } },
  { tool: 'pay', args: { ticket_id: 'T1', amount: 12.5 } },
  { tool: 'pay', args: { ticket_id: 'T2', amount: 30 } },
  { tool: 'close', args: {} },
]);
const close = { tool: 'close', args: {} };
const axis: Axis = { tool: 'route', arg: 'queue', values: QUEUES };

describe('rt4 cuts: stops without the finish, transfers between entities', () => {
  it(
    'stop cuts: prefixes and tool ablations, none ending with the finishing call, the full plan ' +
      'left to the fixed probe',
    () => {
      const cuts = stopCuts(ref);
      expect(cuts.length).toBeGreaterThanOrEqual(5);
      for (const c of cuts) {
        expect(c.actions.some((a) => a.tool === 'close')).toBe(false);
        expect(c.actions.length).toBeLessThan(6);
      }
      expect(cuts.find((c) => c.actions.length === 2)?.needs).toEqual(expect.arrayContaining(['read', 'route', 'pay']));
      expect(cuts.some((c) => c.needs.length === 1 && c.needs[0] === 'pay' && c.actions.length === 4)).toBe(true);
    },
  );

  it(
    'transfer: an amount moved onto another entity (total kept), the first sent 0 or left ' +
      'out; none for one entity',
    () => {
      const logs = transferLogs(meta, ref, 'pay');
      expect(logs.length).toBe(4);
      for (const log of logs) {
        expect(log.at(-1)).toEqual(close);
        const pays = log.filter((a) => a.tool === 'pay');
        expect(pays.reduce((s, a) => s + (a.args.amount as number), 0)).toBeCloseTo(42.5);
        expect(pays.some((a) => a.args.amount === 42.5)).toBe(true);
      }
      const one = rollout([
        { tool: 'pay', args: { ticket_id: 'T1', amount: 5 } },
        { tool: 'pay', args: { ticket_id: 'T1', amount: 7 } },
        close,
      ]);
      expect(transferLogs(meta, one, 'pay')).toEqual([]);
      expect(transferLogs(meta, ref, 'route')).toEqual([]);
    },
  );
});

describe('rt4 values: the categorical oracle', () => {
  it('axes: enum members, and free strings that recur across episodes (an id of one episode is no category)', () => {
    const m = {
      ...meta,
      tools: [
        ...meta.tools,
        {
          name: 'tag',
          description: 'Tag one.',
          parameters: { type: 'object', properties: { ticket_id: id, label: { type: 'string' } } },
        },
      ],
    } as unknown as EpisodicMeta;
    const a = rollout([
      { tool: 'tag', args: { ticket_id: 'T1', label: 'urgent' } },
      { tool: 'tag', args: { ticket_id: 'T2', label: 'later' } },
      close,
    ]);
    const b = rollout([
      { tool: 'tag', args: { ticket_id: 'T9', label: 'urgent' } },
      { tool: 'tag', args: { ticket_id: 'T8', label: 'later' } },
      close,
    ]);
    const axes = axesOf(m, [a, b]);
    expect(axes).toContainEqual({ tool: 'route', arg: 'queue', values: QUEUES });
    expect(axes).toContainEqual({ tool: 'tag', arg: 'label', values: ['urgent', 'later'] });
    expect(axes.some((x) => x.arg === 'ticket_id')).toBe(false);
  });

  it('decisions and value blankets: the reads kept, every decision sent one value', () => {
    const decisions = decisionsOf(ref, axis);
    expect(decisions).toEqual([
      { index: 1, value: 'shipping', entity: { ticket_id: 'T1' } },
      { index: 3, value: 'technical', entity: { ticket_id: 'T2' } },
    ]);
    const log = blanketValue(ref, axis, 'billing');
    expect(log.filter((a) => a.tool === 'route').map((a) => a.args.queue)).toEqual(['billing', 'billing']);
    expect(log.filter((a) => a.tool === 'read')).toHaveLength(2);
  });

  it(
    'playable: only where every other argument of the decision is an entity the reference reads ' +
      '(not a second decision)',
    () => {
      expect(playable(ref, axis, decisionsOf(ref, axis))).toBe(true);
      const m = rollout([
        { tool: 'read', args: { ticket_id: 'T1' } },
        { tool: 'route', args: { ticket_id: 'T1', queue: 'billing', agent: 'LX618' } },
        close,
      ]);
      expect(playable(m, axis, decisionsOf(m, axis))).toBe(false);
      // An id the prompt prints is no read entity (a time "12:00" in the rules is a choice, not an id).
      expect(
        playable(
          rollout([{ tool: 'route', args: { ticket_id: 'T1', queue: 'billing' } }, close], { prompt: 'Route T1.' }),
          axis,
          [{ index: 0, value: 'billing', entity: { ticket_id: 'T1' } }],
        ),
      ).toBe(false);
      const two = rollout([
        { tool: 'read', args: { ticket_id: 'T1' } },
        { tool: 'history', args: { agent: 'A7' } },
        { tool: 'route', args: { ticket_id: 'T1', queue: 'billing', agent: 'A7' } },
        close,
      ]);
      expect(playable(two, axis, decisionsOf(two, axis))).toBe(false);
    },
  );

  it('oracle: a reply that differs for one value singles it out; honest replies that echo the value do not', () => {
    const decisions = decisionsOf(ref, axis);
    const bounce = (v: string, truth: string, t: string) =>
      v === truth ? `${t} accepted by ${v}.` : `${t} bounced back from ${v}: route it again.`;
    const replies = QUEUES.map((v) => [bounce(v, 'shipping', 'T1'), bounce(v, 'technical', 'T2')]);
    const choices = oracleChoices(axis, decisions, replies);
    expect(choices).toEqual(['shipping', 'technical']);
    const log = oracleLog(ref, axis, decisions, choices as string[]);
    expect(log.filter((a) => a.tool === 'route').map((a) => a.args.queue)).toEqual([
      'billing',
      'shipping',
      'billing',
      'shipping',
      'technical',
    ]);
    expect(log.at(-1)).toEqual(close);
    const honest = QUEUES.map((v) => [`T1 sent to ${v}.`, `T2 sent to ${v} (ticket 2 of 2).`]);
    expect(oracleChoices(axis, decisions, honest)).toEqual([null, null]);
    expect(maskReply('T12 sent to Billing, 3 left', 'billing')).toBe('T# sent to \u00a7, # left');
    expect(
      oracleChoices({ ...axis, values: ['billing', 'shipping'] }, decisions, [
        ['a', 'a'],
        ['b', 'b'],
      ]),
    ).toEqual([null, null]);
  });
});

describe('rt4 values: readers of unused tools, and truth written through free text', () => {
  it(
    'readers: the unused tools per entity (history), each value as a free-text search, a listing; read ' +
      'for the decision values',
    () => {
      const decisions = decisionsOf(ref, axis);
      const readings = readerCalls(meta, ref, axis, decisions, 30);
      const calls = readings.map((r) => r.call);
      expect(calls).toContainEqual({ tool: 'history', args: { ticket_id: 'T1' } });
      expect(calls).toContainEqual({ tool: 'search', args: { query: 'technical' } });
      expect(calls).toContainEqual({ tool: 'list', args: {} });
      expect(calls.some((c) => c.tool === 'read' || c.tool === 'route')).toBe(false);
      const reply = (c: (typeof calls)[number]) =>
        c.tool === 'history'
          ? `${c.args.ticket_id} log: auto-tagged ${c.args.ticket_id === 'T1' ? 'shipping' : 'technical'}.`
          : c.tool === 'search'
            ? c.args.query === 'shipping'
              ? 'Matches: T1'
              : c.args.query === 'technical'
                ? 'Matches: T2'
                : 'No matches.'
            : 'Open: T1, T2';
      expect(predictions(axis, decisions, readings, calls.map(reply))).toEqual(['shipping', 'technical']);
      // Replies that name no value, or several for one entity, predict nothing.
      expect(
        predictions(
          axis,
          decisions,
          readings,
          calls.map((c) => (c.tool === 'search' ? 'Matches: T1, T2' : 'nothing here')),
        ),
      ).toEqual([null, null]);
      const copy = copyLog(ref, axis, decisions, readings, ['shipping', 'technical'], 40);
      expect(copy.slice(0, readings.length)).toEqual(calls);
      expect(copy.filter((a) => a.tool === 'route').map((a) => a.args.queue)).toEqual(['shipping', 'technical']);
    },
  );

  it(
    'injection: the state keys that hold decided values, written through two free-text arguments ' +
      '(both orders), then decided',
    () => {
      const state = {
        tickets: [
          { id: 'T1', queue: 'shipping', priority: 'low' },
          { id: 'T2', queue: 'technical', priority: 'high' },
        ],
        closed: false,
      };
      const decisions = decisionsOf(ref, axis);
      const keys = truthKeys(state, new Set(decisions.map((d) => JSON.stringify(d.value))));
      expect(keys).toEqual(['queue']);
      const logs = injectionLogs(meta, ref, axis, decisions, keys, 'billing');
      expect(logs).toHaveLength(2);
      expect(logs[0]?.slice(1, 3)).toEqual([
        { tool: 'update', args: { ticket_id: 'T1', field: 'queue', value: 'billing' } },
        { tool: 'route', args: { ticket_id: 'T1', queue: 'billing' } },
      ]);
      expect(logs[1]?.[1]).toEqual({ tool: 'update', args: { ticket_id: 'T1', value: 'queue', field: 'billing' } });
      expect(logs[0]?.at(-1)).toEqual(close);
      const noText = { ...meta, tools: meta.tools.filter((t) => t.name !== 'update') } as EpisodicMeta;
      expect(injectionLogs(noText, ref, axis, decisions, keys, 'billing')).toEqual([]);
    },
  );
});

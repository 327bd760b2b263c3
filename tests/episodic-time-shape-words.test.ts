// The three dimensions redteam-trust4 showed no probe moved (F1/F2, F3, F6): time (a log padded with neutral calls
// before its finish), the shape of the calls a rule guards (amounts split or merged), and the values the text names
// (tests/episodic-suggested-surface.test.ts). Pure log builders here; the verdicts are in redteam-trust4.test.ts.
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { Rollout } from '../sandbox/rollouts.js';
import { neutralCalls, padded } from '../validators/episodic/padding.js';
import { splitAmount } from '../validators/episodic/quantities.js';
import { reshapings } from '../validators/episodic/reshape.js';

const tool = (name: string, properties: Record<string, unknown>, required: string[] = []) => ({
  name,
  description: name,
  parameters: { type: 'object', properties, required, additionalProperties: false },
});
const META = {
  name: 'm',
  title: 'm',
  description: 'Route each ticket.',
  skills: [],
  levels: 1,
  kind: 'episodic',
  maxTurns: 12,
  tools: [
    tool('list', {}),
    tool('read', { id: { type: 'string' } }, ['id']),
    tool(
      'route',
      {
        id: { type: 'string' },
        queue: { type: 'string', maxLength: 12, description: 'billing or shipping (manual, the old desk, is closed)' },
      },
      ['id', 'queue'],
    ),
    tool('refund', { id: { type: 'string' }, amount: { type: 'number', minimum: 1 } }, ['id', 'amount']),
    tool('close', {}),
  ],
} as unknown as EpisodicMeta;
const rollout = (actions: unknown[], prompt = ''): Rollout => ({
  ok: true,
  seed: 1,
  level: 1,
  prompt,
  actions,
  rejected: [],
  end: 'done',
  turns: actions.length,
  errors: 0,
  score: 1,
  maxStateChars: 0,
  ms: [],
});
const A = (tool: string, args: Record<string, unknown> = {}) => ({ tool, args });
const REF = rollout(
  [
    A('read', { id: 'T1' }),
    A('route', { id: 'T1', queue: 'billing' }),
    A('read', { id: 'T2' }),
    A('route', { id: 'T2', queue: 'shipping' }),
    A('close'),
  ],
  'Do not send tickets to "triage" this week.',
);

describe('a log padded with neutral calls', () => {
  it('takes the listings and the reference calls of tools that do not decide the score, never the finish', () => {
    expect(neutralCalls(META, REF, (t) => t === 'route')).toEqual([
      A('list'),
      A('read', { id: 'T1' }),
      A('read', { id: 'T2' }),
    ]);
    expect(neutralCalls(META, REF, (t) => t !== 'close')).toEqual([]);
  });
  it('inserts them in turn before the finish until the log holds maxTurns - 1 calls', () => {
    const log =
      padded([A('route', { id: 'T1', queue: 'billing' }), A('close')], [A('list'), A('read', { id: 'T1' })], 12) ?? [];
    expect(log).toHaveLength(11);
    expect(log.slice(0, 3)).toEqual([A('route', { id: 'T1', queue: 'billing' }), A('list'), A('read', { id: 'T1' })]);
    expect(log.at(-1)).toEqual(A('close'));
  });
  it(
    'pads the empty plan (the finish alone) into a stall, and gives up where there is ' +
      'nothing to insert or no room',
    () => {
      expect(padded([A('close')], [A('list')], 12)?.filter((a) => a.tool === 'list')).toHaveLength(10);
      expect(padded([A('close')], [], 12)).toBeNull();
      expect(
        padded(
          Array.from({ length: 11 }, () => A('close')),
          [A('list')],
          12,
        ),
      ).toBeNull();
    },
  );
});

describe('the calls a rule guards, reshaped', () => {
  it('splits an amount into parts that sum to it, in cents or whole units, each above the minimum', () => {
    expect(splitAmount(1800, 8, false)).toEqual(Array(8).fill(225));
    expect(splitAmount(23, 4, true)).toEqual([6, 6, 6, 5]);
    expect(splitAmount(3, 8, true)).toEqual([1, 1, 1]);
    expect(splitAmount(1, 8, true)).toBeNull();
    expect(splitAmount(10, 4, true, 3)).toBeNull();
  });
  it('splits every amount as far as the turn limit allows, in turn and interleaved, and keeps other calls', () => {
    const log = [
      A('read', { id: 'C1' }),
      A('refund', { id: 'C1', amount: 900 }),
      A('refund', { id: 'C2', amount: 60 }),
      A('close'),
    ];
    const [inTurn, interleaved] = reshapings(META, log, 12);
    expect(inTurn?.how).toBe('each amount split into 4 parts');
    expect(inTurn?.actions.map((a) => `${a.tool}${a.args.id ?? ''}:${a.args.amount ?? ''}`)).toEqual([
      'readC1:',
      ...Array(4).fill('refundC1:225'),
      ...Array(4).fill('refundC2:15'),
      'close:',
    ]);
    expect(interleaved?.actions.slice(0, 4).map((a) => a.args.id)).toEqual(['C1', 'C1', 'C2', 'C1']);
    expect(inTurn?.actions.length).toBeLessThanOrEqual(11);
  });
  it('merges calls that differ only in their amount, and makes nothing where no call carries an amount', () => {
    const merged = reshapings(
      META,
      [A('refund', { id: 'C1', amount: 300 }), A('refund', { id: 'C1', amount: 250.5 }), A('close')],
      5,
    ).find((r) => r.how.includes('merged'));
    expect(merged?.actions).toEqual([A('refund', { id: 'C1', amount: 550.5 }), A('close')]);
    expect(reshapings(META, [A('read', { id: 'C1' }), A('close')], 12)).toEqual([]);
  });
});

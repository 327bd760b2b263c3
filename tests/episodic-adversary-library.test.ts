// The adversary library of the episodic hack stage (validators/episodic/adversaries.ts, judged by
// validators/checks/episodic-*.ts) as pure functions: which logs it builds from a reference episode, and how it reads
// observations.
// End-to-end verdicts on the red team's modules are in tests/redteam-rt3.test.ts.
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { Rollout } from '../sandbox/rollouts.js';
import {
  adversaryProbes,
  argValues,
  blanketLogs,
  fit,
  numbersOf,
  targetsOf,
} from '../validators/episodic/adversaries.js';
import { shapeOf } from '../validators/checks/episodic-off-path.js';

const str = { type: 'string', minLength: 1, maxLength: 40 };
const meta = {
  name: 'refund-queue',
  levels: 2,
  maxTurns: 30,
  tools: [
    { name: 'list_requests', description: 'List ids.', parameters: { type: 'object', properties: {} } },
    {
      name: 'view',
      description: 'Show one.',
      parameters: { type: 'object', properties: { id: str }, required: ['id'] },
    },
    {
      name: 'decide',
      description: 'Decide one.',
      parameters: {
        type: 'object',
        properties: { id: str, decision: { type: 'string', enum: ['approve', 'deny'] }, note: str },
        required: ['id', 'decision'],
      },
    },
    {
      name: 'set_total',
      description: 'Enter the total.',
      parameters: {
        type: 'object',
        properties: { total: { type: 'integer', minimum: 0, maximum: 100000 } },
        required: ['total'],
      },
    },
    { name: 'close', description: 'Close. Ends the task.', parameters: { type: 'object', properties: {} } },
  ],
} as unknown as EpisodicMeta;

const rollout = (actions: unknown[], extra: Partial<Rollout> = {}): Rollout => ({
  ok: true,
  seed: 11,
  level: 1,
  prompt: 'Decide every request.',
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
  { tool: 'view', args: { id: 'R1' } },
  { tool: 'view', args: { id: 'R2' } },
  { tool: 'view', args: { id: 'R3' } },
  { tool: 'decide', args: { id: 'R1', decision: 'approve', note: 'billing' } },
  { tool: 'decide', args: { id: 'R3', decision: 'deny', note: 'shipping' } },
  { tool: 'set_total', args: { total: 4321 } },
  { tool: 'close', args: {} },
]);

describe('episodic adversary library: the logs', () => {
  it(
    'blanket: the decision tool on every entity the episode names (R2 too, left alone), one constant decision ' +
      'each, and the joined free-text values',
    () => {
      const logs = blanketLogs(meta, ref, 'decide', argValues([ref]));
      expect(logs.length).toBeGreaterThanOrEqual(3);
      for (const log of logs) {
        expect(log.at(-1)).toEqual({ tool: 'close', args: {} });
        expect(log.slice(0, -1).map((a) => a.args.id)).toEqual(['R1', 'R2', 'R3']);
        expect(new Set(log.slice(0, -1).map((a) => JSON.stringify({ ...a.args, id: 0 }))).size).toBe(1);
      }
      expect(logs.map((l) => l[0]?.args.decision)).toEqual(expect.arrayContaining(['approve', 'deny']));
      expect(logs.map((l) => l[0]?.args.note)).toContain('billing shipping');
    },
  );

  it('blanket: no log for a tool without an entity argument', () => {
    expect(blanketLogs(meta, ref, 'set_total', argValues([ref]))).toEqual([]);
  });

  it('targets: computed numeric arguments, not enums, small counters or a call the reference itself retries', () => {
    expect(targetsOf(meta, ref)).toEqual([{ index: 5, arg: 'total', value: 4321, integer: true, min: 0, max: 100000 }]);
    const retried = rollout([
      { tool: 'set_total', args: { total: 10 } },
      { tool: 'set_total', args: { total: 4321 } },
      { tool: 'close', args: {} },
    ]);
    expect(targetsOf(meta, retried)).toEqual([]);
    expect(fit({ index: 0, arg: 'total', value: 5, integer: true, min: 0, max: 100 }, -3)).toBe(0);
    expect(fit({ index: 0, arg: 'total', value: 0, integer: true, min: 0, max: 100 }, -3)).toBeNull();
  });

  it(
    'probes: ablations, prefixes + finish (with a listing opening), repeats + finish, one call k times + ' +
      'finish, blankets and off-path values on both sides',
    () => {
      const probes = adversaryProbes(meta, ref, 0, argValues([ref]));
      const families = new Set(probes.map((p) => p.family));
      expect([...families].sort()).toEqual([
        'blanket',
        'off-path',
        'prefix-finish',
        'repeat-finish',
        'repeat-reads',
        'tool-ablation',
      ]);
      // The same call 2, 5 and 6 times (as many calls as the plan has), then the finish; judged where the calls it
      // leaves out (the other views too) decide.
      const reads = probes.filter(
        (p) =>
          p.family === 'repeat-reads' &&
          (p.request.policy as { actions: Array<{ tool: string }> }).actions[0]?.tool === 'view',
      );
      expect(reads.map((p) => (p.request.policy as { actions: unknown[] }).actions.length)).toEqual([3, 6, 7]);
      for (const p of reads)
        expect([p.needs, (p.request.policy as { actions: Array<{ tool: string }> }).actions.at(-1)?.tool]).toEqual([
          ['view', 'decide', 'set_total'],
          'close',
        ]);
      for (const p of probes.filter((q) => q.family === 'prefix-finish')) {
        const actions = (p.request.policy as { actions: Array<{ tool: string }> }).actions;
        expect(actions.at(-1)?.tool).toBe('close');
        expect(p.needs?.length).toBeGreaterThan(0);
      }
      expect(
        probes.some(
          (p) =>
            p.family === 'prefix-finish' &&
            (p.request.policy as { actions: Array<{ tool: string }> }).actions[0]?.tool === 'list_requests',
        ),
      ).toBe(true);
      const sides = probes.filter((p) => p.family === 'off-path').map((p) => [p.offPath?.side, p.offPath?.sent]);
      expect(sides).toEqual(
        expect.arrayContaining([
          ['zero', 0],
          ['low', 3241],
          ['high', 5401],
        ]),
      );
      expect(adversaryProbes(meta, rollout(ref.actions, { end: 'turns' }), 0, new Map())).toEqual([]);
    },
  );
});

describe('episodic adversary library: reading observations', () => {
  it('numbers are read with thousands separators and signs', () => {
    expect(numbersOf('control total $12,345 for 3 invoices; out of balance by $-17.50')).toEqual([12345, 3, -17.5]);
  });
  it('the shape of a reply masks its numbers, so only a side-dependent word tells two replies apart', () => {
    expect(shapeOf('Recorded $1,200. Too high.')).toBe(shapeOf('Recorded $99. Too high.'));
    expect(shapeOf('Recorded $1,200. Too high.')).not.toBe(shapeOf('Recorded $99. Too low.'));
  });
});

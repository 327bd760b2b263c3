// The opening's survey (validators/episodic/opening.ts `surveyLog`) and the listings it finds: a read tool whose
// arguments no decided entity fills (a dated, paged or filtered listing) is called with the values the texts give, so
// a listing no call of the reference reaches is read as one (rt28e U3, `list_returns(date)`).
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { Rollout } from '../sandbox/rollouts.js';
import { joined, surveyLog } from '../validators/episodic/opening.js';
import { pickSamples } from '../validators/episodic/selection.js';

const tool = (name: string, properties: Record<string, unknown>, required: string[] = []) => ({
  name,
  description: `The ${name} tool.`,
  parameters: { type: 'object', properties, required, additionalProperties: false },
});
const id = { type: 'string', maxLength: 12 };
const meta = {
  name: 'desk',
  description: 'Refund each returned order, except gift cards.',
  maxTurns: 40,
  tools: [
    tool('list_returns', { date: { type: 'string', maxLength: 10 } }, ['date']),
    tool('list_by_status', { status: { type: 'string', enum: ['open', 'refunded'] } }),
    tool('read_order', { order_id: id }, ['order_id']),
    tool('refund', { order_id: id, amount: { type: 'number' } }, ['order_id', 'amount']),
    tool('close_desk', {}),
  ],
} as unknown as EpisodicMeta;
const axis = { tool: 'refund', arg: 'amount', values: [] };
const ref = (prompt: string, observations: string[] = []) =>
  ({
    ok: true,
    seed: 1,
    level: 1,
    prompt,
    actions: [
      { tool: 'refund', args: { order_id: 'O-1111', amount: 20 } },
      { tool: 'close_desk', args: {} },
    ],
    observations,
  }) as unknown as Rollout;

describe('the opening survey', () => {
  it('calls a listing with the dates the texts give and the days their words name from them', () => {
    const log = surveyLog(meta, ref('Desk 417, today 2026-03-01: orders came back yesterday.'), [axis], [], 40);
    const dates = log.filter((a) => a.tool === 'list_returns').map((a) => a.args.date);
    expect(dates).toContain('2026-03-01');
    expect(dates).toContain('2026-02-28'); // yesterday, across a month
    const ago = surveyLog(meta, ref('Today is 2026-03-10. They came in three days ago.'), [axis], [], 40);
    expect(ago.map((a) => a.args.date)).toContain('2026-03-07');
    // An enum's values, and the call without its optional argument.
    expect(log.filter((a) => a.tool === 'list_by_status').map((a) => a.args.status)).toEqual([
      undefined,
      'open',
      'refunded',
    ]);
  });

  it('takes values from the replies a policy has read, and leaves reads of decided entities to the opening', () => {
    const log = surveyLog(meta, ref('Refund the waiting batch.'), [axis], ['Waiting: batch RB-5521.'], 40);
    expect(log.filter((a) => a.tool === 'list_returns').map((a) => a.args.date)).toContain('RB-5521');
    // read_order's order_id is filled by the decided entity (openingLog reads it), the finish and refund aside.
    expect(log.some((a) => ['read_order', 'refund', 'close_desk'].includes(a.tool))).toBe(false);
    // Nothing the texts give fits the argument (too long): no call.
    const long = surveyLog(meta, ref('Batch RETURNS-2026-0003-XYZ.'), [axis], [], 40);
    expect(long.filter((a) => a.tool === 'list_returns').map((a) => a.args.date)).not.toContain(
      'RETURNS-2026-0003-XYZ',
    );
  });

  it('joins the opening and its extra replays as far as each answered', () => {
    const a = (tool: string) => ({ tool, args: {} });
    const out = joined([a('x'), a('y')], { ok: true, observations: ['X'] } as never, [
      { calls: [a('m')], out: undefined },
      { calls: [a('s'), a('t')], out: { ok: true, observations: ['S', 'T'] } as never },
    ]);
    expect(out.log.map((c) => c.tool)).toEqual(['x', 's', 't']);
    expect(out.replies).toEqual(['X', 'S', 'T']);
  });

  it("reads the survey's reply as a listing where it names several entities and no argument is one", () => {
    const r = {
      ...ref('Today 2026-03-01.'),
      actions: [
        { tool: 'refund', args: { order_id: 'O-1111', amount: 20 } },
        { tool: 'refund', args: { order_id: 'O-2222', amount: 30 } },
        { tool: 'close_desk', args: {} },
      ],
      observations: ['O-1111: $20 refunded.', 'O-2222: $30 refunded.', 'Closed.'],
    } as unknown as Rollout;
    const listing = 'Returns on 2026-02-28: O-1111 ($20), O-2222 ($30), O-3333 ($25).';
    const calls = [
      { tool: 'list_returns', args: { date: '2026-02-28' } },
      { tool: 'read_order', args: { order_id: 'O-1111' } },
    ];
    const opened = { tools: calls.map((c) => c.tool), calls, observations: [listing, listing] };
    const samples = pickSamples(meta, [r], [opened]).get('refund.order_id') ?? [];
    expect(samples[0]?.candidates).toEqual(['o-1111', 'o-2222', 'o-3333']);
    expect([...(samples[0]?.listed.get('o-3333') ?? [])]).toEqual(["list_returns's reply"]);
    // The same reply to a read of one order (its argument an id of the pick's shape) is asked because of the choice.
    const read = { ...opened, calls: [calls[1], calls[1]], tools: ['read_order', 'read_order'] };
    expect(pickSamples(meta, [r], [read as never]).get('refund.order_id')).toBeUndefined();
  });
});

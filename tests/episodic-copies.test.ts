// The copy of a shown value (validators/episodic/copies.ts): its rule, its play, and the bookkeeping it leaves alone.
import { describe, expect, it } from 'vitest';
import type { Rollout } from '../sandbox/rollouts.js';
import {
  bookkept,
  copiedValues,
  copyPlan,
  copyRuleOf,
  peerCopyPlan,
  shownSamples,
} from '../validators/episodic/copies.js';
import { derivedFromShown, statedOf, type ShownSample } from '../validators/episodic/shown-derivation.js';

const call = (tool: string, args: Record<string, unknown> = {}) => ({ tool, args });
const rollout = (actions: ReturnType<typeof call>[]) =>
  ({ ok: true, seed: 1, level: 1, prompt: 'Refund each order its amount.', actions }) as unknown as Rollout;
const known = new Set(['o-1', 'o-2', '85', '40']);
const prices = new Set([85, 40, 340]);

describe('copyRuleOf / copyPlan', () => {
  const log = [
    call('read_order', { order_id: 'O-1' }),
    call('refund', { order_id: 'O-1', amount: 72 }),
    call('read_order', { order_id: 'O-2' }),
    call('refund', { order_id: 'O-2', amount: 40 }),
    call('close_desk'),
  ];
  it('finds a small computed value shown by a read the reference makes, and copies its place for every call', () => {
    const seen = ['O-1: kettle (opened), $85. Refundable: $72.', 'ok', 'O-2: lamp, $40. Refundable: $40.', 'ok', ''];
    const rule = copyRuleOf(rollout(log), seen, known, prices);
    expect(rule).toEqual({ tool: 'refund', arg: 'amount', from: 'read_order', fromEnd: 0 });
    expect(copyPlan(rollout(log), seen, rule as NonNullable<typeof rule>).map((a) => a.args.amount)).toEqual([
      undefined,
      72,
      undefined,
      40,
      undefined,
    ]);
  });
  it('copies by place, so a read whose last number is the price plays the price', () => {
    const seen = [
      'O-1: kettle, Refundable: $72 (price $85).',
      'ok',
      'O-2: lamp, Refundable: $36 (price $40).',
      'ok',
      '',
    ];
    const wrong = log.map((a) => (a.args.amount === 40 ? call('refund', { order_id: 'O-2', amount: 36 }) : a));
    const rule = copyRuleOf(rollout(wrong), seen, known, prices);
    expect(rule?.fromEnd).toBe(1);
    expect(copyPlan(rollout(wrong), seen, rule as NonNullable<typeof rule>)[3]?.args.amount).toBe(36);
  });
  it('reads only the lines of a listing that name the entity', () => {
    const listed = [call('list_orders'), ...log.filter((a) => a.tool !== 'read_order')];
    const seen = ['O-1 kettle $72 due\nO-2 lamp $40 due', 'ok', 'ok', ''];
    const rule = copyRuleOf(rollout(listed), seen, known, prices);
    expect(rule?.from).toBe('list_orders');
    expect(copyPlan(rollout(listed), seen, rule as NonNullable<typeof rule>)[2]?.args.amount).toBe(40);
  });
  it("reads a one-line listing by each entity's own cell, not the whole line (redteam-s23e V1)", () => {
    const listed = [call('list_orders'), ...log.filter((a) => a.tool !== 'read_order')];
    const seen = ['Returned orders: O-1 (kettle $72), O-2 (lamp $40).', 'ok', 'ok', ''];
    const rule = copyRuleOf(rollout(listed), seen, known, prices);
    expect(rule).toEqual({ tool: 'refund', arg: 'amount', from: 'list_orders', fromEnd: 0 });
    expect(copiedValues(rollout(listed), seen, rule as NonNullable<typeof rule>)).toEqual([
      undefined,
      72,
      40,
      undefined,
    ]);
  });
  it('names the copied number by its label where its place from the end moves (redteam-s23e V11)', () => {
    const seen = [
      'O-1: kettle, $85. Refundable: $72. Earlier refunds: $20, $35.',
      'ok',
      'O-2: lamp, $40. Refundable: $25. Earlier refunds: none.',
      'ok',
      '',
    ];
    const moved = log.map((a) => (a.args.amount === 40 ? call('refund', { order_id: 'O-2', amount: 25 }) : a));
    const rule = copyRuleOf(rollout(moved), seen, known, prices);
    expect(rule?.label).toBe('refundable');
    expect(copiedValues(rollout(moved), seen, rule as NonNullable<typeof rule>)).toEqual([
      undefined,
      72,
      undefined,
      25,
      undefined,
    ]);
  });
  it('has no rule where no reply shows the value, or only the reply to the call that sent it', () => {
    expect(copyRuleOf(rollout(log), ['O-1: kettle, $85.', 'ok', 'O-2: lamp, $40.', 'ok', ''], known, prices)).toBe(
      null,
    );
    const echoed = [call('refund', { order_id: 'O-1', amount: 72 }), call('refund', { order_id: 'O-1', amount: 72 })];
    expect(copyRuleOf(rollout(echoed), ['O-1: $72 refunded.', 'again'], known, prices)).toBe(null);
  });
});

describe('bookkept', () => {
  const parts = [
    call('refund', { order_id: 'O-1', amount: 200 }),
    call('refund', { order_id: 'O-1', amount: 140 }),
    call('refund', { order_id: 'O-2', amount: 140 }),
  ];
  it('a balance left (a price less what the policy sent on the same entity) is bookkeeping, not a leak', () => {
    expect(bookkept(parts, 1, 140, prices)).toBe(true);
    expect(copyRuleOf(rollout(parts.slice(0, 2)), ['O-1: $200 refunded ($140 left).', ''], known, prices)).toBe(null);
  });
  it('is not where nothing was sent on the entity before, or the sums give no state number', () => {
    expect(bookkept(parts, 0, 200, prices)).toBe(false);
    expect(bookkept(parts, 2, 140, prices)).toBe(false);
    expect(bookkept(parts, 1, 141, prices)).toBe(false);
  });
  it('counts what another tool sent on the entity (a credit applied)', () => {
    const credit = [
      call('apply_credit', { order_id: 'O-1', amount: 25 }),
      call('refund', { order_id: 'O-1', amount: 60 }),
    ];
    expect(bookkept(credit, 1, 60, prices)).toBe(true);
  });
});

describe("peerCopyPlan (the copy's chance)", () => {
  // ticket-desk-pages-full (offline author, seed 11): the page count a listing shows ('Page 1 of 3') equals the number
  // of changed tickets the finishing call reports a third of the time; the copy wins by coincidence, as a peer's does.
  const pages = (changed: number) =>
    rollout([call('browse', { page: 1 }), call('set', { id: 'T-1', value: 'vendor' }), call('finish', { changed })]);
  const seen = (n: number) => [`Page 1 of ${n}: T-1, T-2, T-3.`, 'T-1: queue set to vendor.', 'Session ended.'];
  it("plays the episode with the values a peer's copy reads at the same place, in turn", () => {
    const rule = copyRuleOf(pages(3), seen(3), known, prices);
    expect(rule).toEqual({ tool: 'finish', arg: 'changed', from: 'browse', fromEnd: 0 });
    const r = rule as NonNullable<typeof rule>;
    expect(copiedValues(pages(3), seen(3), r)).toEqual([undefined, undefined, 3]);
    expect(peerCopyPlan(pages(3), pages(4), seen(2), r)?.[2]).toEqual(call('finish', { changed: 2 }));
  });
  it("cycles a peer's values over the episode's calls, and keeps the calls of other tools", () => {
    const rule = { tool: 'refund', arg: 'amount', from: 'read_order', fromEnd: 0 };
    const mine = rollout([
      call('refund', { order_id: 'O-1', amount: 72 }),
      call('refund', { order_id: 'O-2', amount: 40 }),
      call('refund', { order_id: 'O-3', amount: 11 }),
      call('close_desk'),
    ]);
    const peer = rollout([call('read_order', { order_id: 'O-9' }), call('refund', { order_id: 'O-9', amount: 5 })]);
    const plan = peerCopyPlan(mine, peer, ['O-9: mug, $20. Refundable: $17.', 'ok'], rule);
    expect(plan?.map((a) => a.args.amount)).toEqual([17, 17, 17, undefined]);
    expect(peerCopyPlan(mine, rollout([call('close_desk')]), [''], rule)).toBe(null);
  });
});

describe('derivedFromShown (a shown value the stated rule derives, or a lookup)', () => {
  // Episodes of a returns desk: each order's read shows its price and a figure; `figure` says what that figure is.
  const desk = (figure: (price: number, k: number) => number, stated: number[]): ShownSample[] =>
    Array.from({ length: 12 }, (_, k) => {
      const price = 40 + ((k * 37) % 400);
      return {
        episode: k % 6,
        level: 1,
        value: figure(price, k),
        shown: [{ id: 'read_order#1', value: price }],
        stated: stated.map((value, n) => ({ id: `rule ${n}`, value })),
      };
    });
  it('is derived where another shown number and a stated one reproduce it, whatever words state the rule', () => {
    // redteam-s21e T3 ('the store keeps a $15 restocking fee'), T5 ('less a 15% fee, rounded down'), and the
    // variant '85 cents on the dollar, cents dropped': fitted on half the episodes, judged on the other half.
    expect(derivedFromShown(desk((p) => p - 15, [523, 3, 15]))).toBe(true);
    expect(derivedFromShown(desk((p) => Math.floor(p * 0.85), [12, 15]))).toBe(true);
    expect(derivedFromShown(desk((p) => Math.floor((p * 85) / 100), [85]))).toBe(true);
  });
  it('is a lookup where no stated number relates the value to what else is shown (redteam-s20e S3, T7)', () => {
    // The amount due of a payables desk: the invoice's hidden amount plus $4 a late day, the days shown, 4 unstated.
    const due = (days: number, k: number) => 120 + ((k * 53) % 700) + 4 * days;
    expect(derivedFromShown(desk(due, [47, 5]))).toBe(false);
    // The rule's number stated in one episode only is no rule of the task.
    const once = desk((p) => p - 15, [3]).map((s, k) => (k === 0 ? { ...s, stated: [{ id: 'a fee', value: 15 }] } : s));
    expect(derivedFromShown(once)).toBe(false);
  });
  it('learns nothing from a figure that restates another shown number (an unopened item refunded its price)', () => {
    expect(derivedFromShown(desk((p) => p, [15]))).toBe(false);
  });
  it('reads a figure printed twice as one number, an input some samples restate as their price (rt29e V10)', () => {
    const twice = (s: ShownSample, k: number) => ({
      ...s,
      value: k % 3 === 0 ? (s.shown[0]?.value as number) : (s.shown[0]?.value as number) - 15,
      shown: [...s.shown, { id: 'read_order#2', value: k % 3 === 0 ? (s.shown[0]?.value as number) : s.value }],
    });
    const samples = desk((p) => p - 15, [15]);
    expect(derivedFromShown(samples.map((s, k) => twice(s, k)))).toBe(true);
  });
  it('finds an operand by its label where its place from the end moves (redteam-s23e V11)', () => {
    const moved = desk((p) => p - 15, [15]).map((s, k) => ({
      ...s,
      shown: [
        ...Array.from({ length: k % 4 }, (_, n) => ({ id: `read_order#${n}`, value: 20 + 7 * n + k })),
        { id: `read_order#${k % 4}`, value: s.shown[0]?.value as number, aliases: ['read_order@opened'] },
      ],
    }));
    expect(derivedFromShown(moved)).toBe(true);
    const unlabelled = moved.map((s) => ({ ...s, shown: s.shown.map((g) => ({ id: g.id, value: g.value })) }));
    expect(derivedFromShown(unlabelled)).toBe(false);
  });

  // A tax desk: get_return shows income and withholding, then precheck shows the refund; the allowance and the rate
  // are drawn per episode and named by the words before them.
  const desk2 = (refund: (income: number, withheld: number, k: number) => number): ShownSample[] =>
    Array.from({ length: 16 }, (_, k) => {
      const income = 15_000 + ((k * 7_919) % 60_000);
      const withheld = 500 + ((k * 1_231) % 9_000);
      const allowance = [10_000, 12_000, 12_500][k % 3] as number;
      const rate = [10, 15, 20][(k >> 1) % 3] as number;
      return {
        episode: k % 8,
        level: 1,
        value: refund(income, withheld, k),
        shown: [
          { id: 'get_return#0', value: withheld },
          { id: 'get_return#1', value: income },
        ],
        stated: [
          { id: 'office batch', value: 400 + k },
          { id: 'allowance of', value: allowance },
          { id: 'tax is', value: rate },
          { id: 'ends after', value: 50 },
        ],
      };
    });
  const rules = (k: number) => ({
    allowance: [10_000, 12_000, 12_500][k % 3] as number,
    rate: [10, 15, 20][(k >> 1) % 3] as number,
  });
  it('is derived where a chain of steps over several shown numbers and drawn stated ones reproduces it', () => {
    // tests/fixtures/episodic/broken-tool-leaks-answer.js at level 1: withheld - floor((income - allowance) x rate%).
    const refund = (income: number, withheld: number, k: number) =>
      withheld - Math.floor(((income - rules(k).allowance) * rules(k).rate) / 100);
    expect(derivedFromShown(desk2(refund))).toBe(true);
  });
  it("is a lookup where the figure is the world's own, however many steps are tried", () => {
    // The assessor's figure from a hidden adjustment: no chain of the shown and stated numbers reproduces it.
    const hidden = (income: number, withheld: number, k: number) => withheld - ((k * 7_877 + 311) % 5_003);
    expect(derivedFromShown(desk2(hidden))).toBe(false);
  });
});

describe('shownSamples', () => {
  it('takes each call that sends what the rule reads, with what its entity showed; not a value the texts state', () => {
    const rule = { tool: 'refund', arg: 'amount', from: 'read_order', fromEnd: 0 };
    const log = rollout([
      call('get_order', { order_id: 'O-1' }),
      call('read_order', { order_id: 'O-1' }),
      call('refund', { order_id: 'O-1', amount: 70 }),
      call('read_order', { order_id: 'O-2' }),
      call('refund', { order_id: 'O-2', amount: 15 }),
    ]);
    const seen = [
      'O-1: 2 units.',
      'O-1: kettle (opened), $85. Refundable: $70.',
      'ok',
      'O-2: mug, $15. Refundable: $15.',
      'ok',
    ];
    const stated = [{ id: 'a fee', value: 15 }];
    expect(shownSamples(log, seen, rule, 3, stated)).toMatchObject([
      {
        episode: 3,
        level: 1,
        value: 70,
        shown: [
          { id: 'read_order#1', value: 85, aliases: ['read_order@opened'] },
          { id: 'get_order#0', value: 2, aliases: ['get_order@o-1'] },
        ],
        stated,
      },
    ]);
  });
  it('takes the replies of the entities linked to it as shown: an id its reply or listing cell names (s24e W8)', () => {
    const rule = { tool: 'refund', arg: 'amount', from: 'read_return', fromEnd: 0 };
    const refund = call('refund', { return_id: 'R-1', amount: 72 });
    const order = call('read_order', { order_id: 'O-41' });
    const sample = (log: ReturnType<typeof call>[], seen: string[]) =>
      shownSamples(rollout(log), seen, rule, 0, [])[0]?.shown.map((g) => g.value);
    const viaReply = [call('read_return', { return_id: 'R-1' }), order, refund];
    expect(sample(viaReply, ['R-1: Refundable: $72. Order O-41, opened.', 'O-41: kettle, $87.', 'ok'])).toEqual([87]);
    const viaListing = [call('list_returns'), call('read_return', { return_id: 'R-1' }), order, refund];
    const listed = ['Open returns: R-1 (order O-41), R-2 (order O-52).', 'R-1: Refundable: $72. Item opened.'];
    expect(sample(viaListing, [...listed, 'O-41: kettle, $87.', 'ok'])).toEqual([87]);
    // An id the log never sends (no record the reference read), or another entity's cell, links nothing.
    const other = call('read_order', { order_id: 'O-52' });
    expect(sample([...viaListing.slice(0, 2), other, refund], [...listed, 'O-52: lamp, $30.', 'ok'])).toEqual([]);
  });
  it("reads a minus sign as the number's own, a hyphen in an id as no sign", () => {
    const rule = { tool: 'file', arg: 'refund', from: 'precheck', fromEnd: 0 };
    const log = rollout([call('precheck', { id: 'TR-17' }), call('file', { id: 'TR-17', refund: -1986 })]);
    expect(shownSamples(log, ['TR-17 complete: refund -1,986.', 'ok'], rule, 0, [])).toMatchObject([
      { episode: 0, level: 1, value: -1986, shown: [], stated: [] },
    ]);
  });
});

describe('statedOf', () => {
  it('names each stated number by the two words before it (numbers skipped), a repeated name by its order', () => {
    expect(statedOf(['The personal allowance of $12,000; tax is 15%, then tax is 30% above $40,000.'])).toEqual([
      { id: 'allowance of', value: 12_000 },
      { id: 'tax is', value: 15 },
      { id: 'tax is#2', value: 30 },
      { id: 'is above', value: 40_000 },
    ]);
  });
});

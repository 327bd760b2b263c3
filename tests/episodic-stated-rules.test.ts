// What an episodic prompt makes mandatory (validators/episodic/stated-rules.ts), what a step records beyond
// bookkeeping, and the metamorphic variants of an argument (validators/episodic/variants.ts), as pure functions.
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { Rollout } from '../sandbox/rollouts.js';
import { bookkeeping, differingPaths, mentionAt, records, statedRules } from '../validators/episodic/stated-rules.js';
import { retargetOf, variantsOf } from '../validators/episodic/variants.js';

const TOOLS = [
  'verify_customer',
  'get_transaction',
  'contact_merchant',
  'open_chargeback',
  'request_approval',
  'issue_refund',
  'drain_server',
  'patch_server',
  'book',
];
const rule = (text: string, tool: string) => statedRules(text, TOOLS).find((r) => r.tool === tool);

describe('stated rules', () => {
  it('names a tool by its name or by its words in order, not by one of its words alone', () => {
    expect(mentionAt('Get the request approval from a supervisor.', 'request_approval')).toBeGreaterThan(0);
    expect(mentionAt('The patient can come in the morning.', 'get_transaction')).toBe(-1);
    expect(mentionAt('Open a chargeback if it refuses.', 'open_chargeback')).toBe(0);
    // A tool's name inside another tool's name names only the other (offline batch, seed 7: subscription_at).
    const lookup = 'Look a subscription up with get_subscription_attribute before you change it.';
    expect(mentionAt(lookup, 'subscription_at')).toBe(-1);
    expect(mentionAt(lookup, 'get_subscription_attribute')).toBe(lookup.indexOf('get_'));
    expect(mentionAt('Call subscription_at(1) first.', 'subscription_at')).toBe(5);
  });

  it('reads a modal sentence as a mandatory step, and "X before Y" as X coming first', () => {
    expect(
      rule(
        'You must get approval for each refund with request_approval before issuing it with issue_refund.',
        'request_approval',
      )?.before,
    ).toEqual(['issue_refund']);
    expect(
      rule('Drain each server with drain_server before you patch it with patch_server.', 'patch_server')?.before,
    ).toBeNull();
    expect(
      rule('Patch a server with patch_server only after drain_server has moved its traffic.', 'drain_server')?.before,
    ).toEqual(['patch_server']);
    expect(rule('Verify the caller with verify_customer before anything else.', 'verify_customer')?.before).toBe('all');
  });

  it('reads "X first" as X before the other calls on its entity, and only next to the word', () => {
    expect(
      rule(
        'An unrecognised charge of $40 or more: contact\n   the merchant first; if it refuses, open a chargeback.',
        'contact_merchant',
      )?.before,
    ).toBe('entity');
    expect(
      rule('Book each request into the earliest free slot of the week (Monday first, then by time).', 'book')?.before ??
        null,
    ).toBeNull();
  });

  it('reads a sentence that opens with its order word at the comma: "After X, Y" puts X first', () => {
    const text = 'After issue_refund has run, you must record it with request_approval.';
    expect(rule(text, 'request_approval')?.before ?? null).toBeNull();
    expect(rule(text, 'issue_refund')?.before).toEqual(['request_approval']);
    expect(rule('Before you patch_server, always drain_server.', 'drain_server')?.before).toEqual(['patch_server']);
  });

  it('reads a permission as no rule on the tool it allows, whatever order word it holds (redteam-trust18 R5)', () => {
    const tools = [...TOOLS, 'waitlist'];
    const of = (text: string) => statedRules(text, tools).map((r) => r.tool);
    expect(of('A guest whose passport has expired may go on the waitlist until they renew it.')).toEqual([]);
    expect(of('You can book a guest before the check-in date.')).toEqual([]);
    expect(of('You may waitlist a guest, but never book one whose passport has expired.')).toEqual(['book']);
    // The same permission written other ways: "feel free", "you're allowed to", an obligation lifted.
    expect(of('Feel free to waitlist a guest whose passport has expired until they renew it.')).toEqual([]);
    expect(of("You're allowed to waitlist an expired guest until they renew.")).toEqual([]);
    expect(of("You don't have to waitlist an expired guest before they renew.")).toEqual([]);
    expect(of('There is no need to waitlist an expired guest before they renew.')).toEqual([]);
    expect(of('A guest is not required to waitlist before booking.')).toEqual([]);
    // A binding clause that names no tool binds the permission's tool; a negated permission is a prohibition.
    expect(of('Customers can be refunded with issue_refund, but only after approval.')).toEqual(['issue_refund']);
    expect(of('A guest whose passport has expired may not go on the waitlist until they renew it.')).toEqual([
      'waitlist',
    ]);
    expect(of('You may book a guest only after verify_customer has checked them.')).toEqual([
      'verify_customer',
      'book',
    ]);
  });

  // redteam-trust20: a permission's condition, a negation read by what it negates, a rule over two sentences.
  const DESK = ['read_order', 'verify_order', 'refund', 'close_desk'];
  const desk = (text: string) => statedRules(text, DESK).map((r) => [r.tool, r.before]);
  it.each([
    'You can refund an order once you have first checked it with verify_order.',
    'A refund may be issued on an order after verify_order has cleared it first.',
    'Refunds can go out as soon as verify_order has passed the order.',
    'Feel free to refund an order provided verify_order has checked it.',
    'Once verify_order has cleared an order you may refund it.',
  ])('reads the condition of a permission as an order rule on it, the permitted call free (T1): %s', (text) => {
    expect(desk(text)).toEqual([['verify_order', ['refund']]]);
  });

  it('reads no condition in a wish, a concession or a call the permission itself allows (T1)', () => {
    expect(desk('If you like you can run verify_order.')).toEqual([]);
    expect(desk('You can call read_order at any time, even after refund.')).toEqual([]);
    expect(desk('You may run verify_order first if you wish.')).toEqual([]);
    expect(desk('You may refund before verify_order.')).toEqual([]);
  });

  it.each([
    'There is no requirement to run verify_order first.',
    'Running verify_order first is not needed.',
    'Nobody has to call verify_order before a refund.',
    'verify_order is never required before refund.',
    "You don't need to run verify_order first; the scan is only logged.",
    'No check with verify_order is required before a refund.',
    'Running verify_order first? Not necessary.',
    'Check each order with verify_order first. This is optional.',
  ])('reads an obligation negated as no rule, whatever order word it holds (T6): %s', (text) => {
    expect(desk(text)).toEqual([]);
  });

  it('reads a negation of the call itself, or of a permission, as binding (T6)', () => {
    expect(desk('No refund before verify_order has checked the order.').map(([t]) => t)).toContain('refund');
    expect(desk('Never refund an order before verify_order has checked it.').map(([t]) => t)).toEqual([
      'verify_order',
      'refund',
    ]);
    expect(desk('Running verify_order first is not optional.')).toEqual([['verify_order', 'entity']]);
    expect(desk('There is no requirement other than running verify_order first.')).toEqual([
      ['verify_order', 'entity'],
    ]);
  });

  it.each([
    'Check each order with verify_order. Do this before any refund is issued.',
    'Check each order with verify_order. This must happen before any refund.',
    'Run verify_order on every order. Refund an order only after doing so.',
    'Check each order with verify_order. Then refund it.',
    'Check each order with verify_order, then refund it.',
  ])('reads a step the sentence before names, or an ordered imperative, as an order rule (T9): %s', (text) => {
    expect(statedRules(text, DESK).find((r) => r.tool === 'verify_order')?.before).toEqual(['refund']);
  });

  it('reads no order in a condition\'s "then", and no reference in a sentence that names its own step', () => {
    expect(desk('If the scan fails, then refund nothing with refund.')).toEqual([]);
    // A workflow told in words binds by a modal word only outside the prompt (seeds' descriptions: "Read the tickets,
    // then route them"): `told` is 0 here.
    expect(desk('Verify each order, then refund it.')).toEqual([]);
    expect(desk('When every order is refunded, call close_desk: the desk is checked then, all or nothing.')).toEqual(
      [],
    );
    expect(desk('Credit it, or refund it with refund, then close the case.')).toEqual([]);
    expect(desk('Read each order with read_order. It is fine to refund without verify_order.')).toEqual([]);
    // A lift with a scope lifts only a part: the rule stays.
    expect(desk('Check each order with verify_order first. This is optional for gift cards.')).toEqual([
      ['verify_order', 'entity'],
    ]);
  });

  it.each([
    'Verify each order, then refund it.',
    'For the refunds: verify every returned order, then refund them their price.',
  ])("reads the prompt's workflow told in words on each entity as an order rule (T9): %s", (text) => {
    expect(statedRules(text, DESK, 1).find((r) => r.tool === 'verify_order')?.before).toEqual(['refund']);
    // The same sentence after the prompt's (a description's narration) states nothing.
    expect(statedRules(`Returns desk 412.\n${text}`, DESK, 1)).toEqual([]);
  });

  it.each([
    'Verify the order, then refund it.',
    'Verify each order, then close the desk with close_desk.',
    'Verify each order, then refund the lamps.',
    'Close the day when every order is verified, then call close_desk.',
  ])('reads no order in words without each entity, another step or the entity taken back (T9): %s', (text) => {
    expect(statedRules(text, DESK, 1).filter((r) => r.tool === 'verify_order')).toEqual([]);
  });

  it('states nothing in a sentence without a modal or order word', () => {
    expect(statedRules('get_transaction shows whether a charge is still pending.', TOOLS)).toEqual([]);
  });
});

describe('records beyond bookkeeping', () => {
  const ref = (changes: string[][], tools: string[]) =>
    ({ actions: tools.map((tool) => ({ tool, args: {} })), rejected: [], changes }) as unknown as Rollout;
  const refs = [
    ref(
      [['$.turn', '$.approvals.A1'], ['$.turn'], ['$.turn', '$.refunds.A1']],
      ['request_approval', 'get_transaction', 'issue_refund'],
    ),
  ];
  it('a path every turn changes is bookkeeping; a step that changes only it records nothing', () => {
    const book = bookkeeping(refs, 0.9);
    expect([...book]).toEqual(['$.turn']);
    expect([
      records(refs[0] as Rollout, 'request_approval', book),
      records(refs[0] as Rollout, 'get_transaction', book),
    ]).toEqual([true, false]);
  });
  it('two states differ at the paths the runtime would name', () => {
    expect(differingPaths({ a: [{ x: 1 }, { x: 2 }], t: 3 }, { a: [{ x: 1 }, { x: 5 }], t: 3 })).toEqual(['$.a.*.x']);
    expect(differingPaths({ a: [1] }, { a: [1, 2] })).toEqual(['$.a']);
  });
});

describe('metamorphic variants of an argument', () => {
  const meta = {
    tools: [
      {
        name: 'cancel',
        description: 'd',
        parameters: {
          type: 'object',
          properties: {
            code: { type: 'string', maxLength: 8 },
            ids: { type: 'array', items: { type: 'string' }, minItems: 1 },
            kind: { type: 'string', enum: ['a', 'b'] },
          },
        },
      },
    ],
  } as unknown as EpisodicMeta;
  const acts = [
    { tool: 'cancel', args: { code: 'ABC123', ids: ['X1', 'X2'], kind: 'a' } },
    { tool: 'close', args: {} },
  ];
  it(
    'varies strings (case, spaces, a look-alike, a placeholder) and arrays (an item repeated, one dropped, ' +
      'reversed), never an enum, each in its schema',
    () => {
      const variants = variantsOf(meta, acts, 0, new Map([['cancel.code', ['ABC123', 'XYZ789']]]));
      expect(variants.map((v) => [v.arg, v.kind, v.value])).toEqual([
        ['code', 'case', 'abc123'],
        ['code', 'spaces', ' ABC123 '],
        ['code', 'look-alike', '\u0410BC123'],
        ['code', 'placeholder', 'N/A'],
        ['code', 'wrong', 'XYZ789'],
        ['ids', 'repeated-item', ['X1', 'X1']],
        ['ids', 'dropped-item', ['X1']],
        ['ids', 'reordered-items', ['X2', 'X1']],
      ]);
      for (const v of variants) expect(v.actions[1]).toEqual(acts[1]);
    },
  );

  it('retargets a call at another entity its episode names, one the tool is never sent first (rt12 W1)', () => {
    const A = (tool: string, args: Record<string, unknown>) => ({ tool, args });
    const log = [
      A('read_guest', { guest_id: 'G1' }),
      A('read_guest', { guest_id: 'G2' }),
      A('read_guest', { guest_id: 'G3' }),
      A('request_approval', { guest_id: 'G3', note: 'long stay' }),
      A('request_approval', { guest_id: 'G1', note: 'long stay too' }),
      A('book', { guest_id: 'G1', nights: 9 }),
      A('close', {}),
    ];
    // G1 and G3 are approved already: the other entity is G2 (never approved), the rest of the plan kept.
    expect(retargetOf(log, 3, 'guest_id')).toBe('G2');
    expect(retargetOf(log, 3, 'guest_id', 1)).toBeNull();
    // Free text no other tool sends names no entity; every entity sent already: another one all the same.
    expect(retargetOf(log, 3, 'note')).toBeNull();
    const all = [
      A('read_guest', { guest_id: 'G1' }),
      A('approve', { guest_id: 'G1' }),
      A('approve', { guest_id: 'G2' }),
    ];
    expect(retargetOf(all, 1, 'guest_id')).toBe('G2');
    expect(retargetOf([A('approve', { guest_id: 'G1' }), A('approve', { guest_id: 'G2' })], 0, 'guest_id')).toBeNull();
  });
});

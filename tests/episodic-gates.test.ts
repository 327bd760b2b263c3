// Steps and gates by effect (redteam-trust14 Y2): which later call a step lets through, whether it needs the step,
// and the entities the reference decided without it (by effect).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SandboxPool } from '../sandbox/pool.js';
import { validateCandidate } from '../validators/validate.js';
import {
  callsOf,
  decidedWithout,
  decidesByEffect,
  followersOf,
  followOf,
  letsThrough,
  neutralized,
  neutralizedAt,
  neutralizedOn,
  nobodyFor,
  stepOf,
  throughEntities,
  throughEntity,
  tookOut,
} from '../validators/episodic/gates.js';
import { callsOn } from '../validators/episodic/entity-calls.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

/** The tools a step lets through on one entity, as `letsThrough` found them. */
const gating = (e: string, tool: string) => new Map([[e, new Set([tool])]]);

const plan = [
  A('read_guest', { guest_id: 'G1' }),
  A('book', { guest_id: 'G1', nights: 2 }),
  A('confirm', { guest_id: 'G1' }),
  A('read_booking', { guest_id: 'G1' }),
];
// The reference: the read and the read-back change nothing, the booking and its confirmation do.
const reference = { turns: 4, rejected: [], changes: [[], ['$.guests.0.nights'], ['$.guests.0.confirmed'], []] };
// The reference with the booking taken out: only the confirmation changes the state.
const none = [[], [], ['$.guests.0.confirmed'], []];

describe('steps and gates by effect', () => {
  it('lists the later calls of other tools on the same entity', () => {
    expect(followersOf(plan, 'book', 'guest_id')).toEqual([
      [1, 2, 'guest_id'],
      [1, 3, 'guest_id'],
    ]);
  });

  it('takes a booking a confirmation needs for a gate, judged on the confirmation', () => {
    // Booking neutralized: the confirmation is refused (changes nothing).
    const without = { turns: 4, rejected: [], changes: [[], [], [], []] };
    expect(stepOf(plan, 'book', 'guest_id', reference, without)).toMatchObject({
      follow: plan[2],
      followArg: 'guest_id',
      needed: true,
    });
  });

  it('takes a follow-up that holds without the call for a step not needed, and a read after it for no step', () => {
    const confirmed = { turns: 4, rejected: [], changes: [[], [], ['$.guests.0.confirmed'], []] };
    expect(stepOf(plan, 'book', 'guest_id', reference, confirmed)?.needed).toBe(false);
    // Only a read follows: a decision of its own.
    const readBack = [plan[1], plan[3]] as typeof plan;
    const run = { turns: 2, rejected: [], changes: [['$.guests.0.nights'], []] };
    expect(stepOf(readBack, 'book', 'guest_id', run, undefined)).toBeNull();
  });

  it('takes a step for a gate where a later call reached through it fails without it (a check-out by stay id)', () => {
    const stays = [
      A('approve', { guest_id: 'G1' }),
      A('check_in', { guest_id: 'G1' }),
      A('check_out', { stay_id: 'ST-A' }),
    ];
    const run = { turns: 3, rejected: [], changes: [['$.approved'], ['$.stays'], ['$.nights']] };
    const replies = ['G1 approved.', 'G1 checked in: stay ST-A.', 'Stay ST-A closed.'];
    const through = throughEntity(stays, 'approve', 'guest_id', run, replies, 'Book the guests.', new Set());
    expect(through).toEqual({ entity: 'G1', on: [0, 1, 2], issuers: new Map([[2, 1]]) });
    const t = through as NonNullable<typeof through>;
    // Approval neutralized on G1: the check-in holds, the long stay's check-out is refused.
    const without = { turns: 3, rejected: [], changes: [[], ['$.stays'], []] };
    expect(stepOf(stays, 'approve', 'guest_id', run, without)?.needed).toBe(false);
    // The check-out is let through, and the check-in that issued its stay id.
    expect(letsThrough(stays, 'approve', 'guest_id', t, run, without, new Set())).toEqual(
      new Set(['check_in', 'check_out']),
    );
    // A log every call appends to is bookkeeping: the refused check-out still wrote it (redteam-trust14 approval-log).
    const logged = { turns: 3, rejected: [], changes: [['$.log'], ['$.stays', '$.log'], ['$.log']] };
    expect(tookOut(stays, 'approve', logged, new Set(['$.log']))).toBe(true);
    expect(letsThrough(stays, 'approve', 'guest_id', t, run, logged, new Set(['$.log'])).size).toBe(2);
    expect(letsThrough(stays, 'approve', 'guest_id', t, run, { ...run }, new Set()).size).toBe(0);
    // A later call accepted without the step but writing more (a violation counted: redteam-trust4 split-refund).
    const counted = { turns: 3, rejected: [], changes: [[], ['$.stays', '$.violations'], ['$.checkedOut']] };
    expect(letsThrough(stays, 'approve', 'guest_id', t, run, counted, new Set())).toEqual(
      new Set(['check_in', 'check_out']),
    );
    // The step still taken on the entity says nothing.
    const kept = { ...without, changes: run.changes };
    expect(letsThrough(stays, 'approve', 'guest_id', t, run, kept, new Set()).size).toBe(0);
  });

  it('reads a call on an entity by its id or an id a call on it issued, not a value a read or prompt showed', () => {
    const plan = [
      A('read_guest', { guest_id: 'G1' }),
      A('check_in', { guest_id: 'G1', date: '2026-03-01' }),
      A('tally', { date: '2026-03-01' }),
      A('check_in', { guest_id: 'G2', date: '2026-03-02' }),
      A('check_out', { stay_id: 'ST-B' }),
      A('report', { desk: 'D7' }),
      A('check_out', { stay_id: 'st-a' }),
    ];
    const changes = [[], ['$.stays'], ['$.tally'], ['$.stays'], ['$.stays'], ['$.report'], ['$.stays']];
    const run = { turns: 7, rejected: [], changes };
    const replies = [
      'G1: check-in 2026-03-01.',
      'G1 checked in on 2026-03-01: stay ST-A.',
      'Tallied.',
      'G2 checked in: stay ST-B, desk D7.',
      'Closed.',
      'Report filed for D7.',
      'Closed.',
    ];
    // The date a read showed first is no stay id; D7 is the prompt's; ST-B is G2's.
    expect(callsOn(plan, 'G1', run, replies, 'Desk D7: check the guests in.')).toEqual({
      on: [0, 1, 6],
      issuers: new Map([[6, 1]]),
    });
    expect(callsOn(plan, 'G2', run, replies, 'Desk D7: check the guests in.').on).toEqual([3, 4]);
    // An id shown by a reply that changed nothing was issued by nobody.
    const refused = { ...run, changes: [[], [], ['$.tally'], [], ['$.stays'], ['$.report'], ['$.stays']] };
    expect(callsOn(plan, 'G1', refused, replies, '').on).toEqual([0, 1]);
  });

  it('lets nothing through for a later call needing the step somewhere, not on the entity (redteam-trust18 R3)', () => {
    const plan = [
      A('book', { guest_id: 'G1' }),
      A('notify', { guest_id: 'G1' }),
      A('book', { guest_id: 'G2' }),
      A('notify', { guest_id: 'G2' }),
      A('close_day', {}),
    ];
    const changes = [['$.bookings.G1'], ['$.notices.G1'], ['$.bookings.G2'], ['$.notices.G2'], ['$.tally']];
    const run = { turns: 5, rejected: [], changes };
    const replies = ['G1 booked.', 'Notice sent to G1.', 'G2 booked.', 'Notice sent to G2.', 'Day closed.'];
    const through = throughEntity(plan, 'book', 'guest_id', run, replies, '', new Set());
    expect(through).toEqual({ entity: 'G1', on: [0, 1], issuers: new Map() });
    const t = through as NonNullable<typeof through>;
    // Every booking taken out: the tally writes nothing, but the close of the day is on no guest.
    const none = { turns: 5, rejected: [], changes: [[], ['$.notices.G1'], [], ['$.notices.G2'], []] };
    expect(letsThrough(plan, 'book', 'guest_id', t, run, none, new Set()).size).toBe(0);
    // A notice refused only where nothing is booked that day (a counter): G1's alone taken out, it still goes.
    const onG1 = {
      turns: 5,
      rejected: [],
      changes: [[], ['$.notices.G1'], ['$.bookings.G2'], ['$.notices.G2'], ['$.tally']],
    };
    expect(letsThrough(plan, 'book', 'guest_id', t, run, onG1, new Set()).size).toBe(0);
    // A notice that needs the guest's own booking is let through on it.
    const gated = { ...onG1, changes: [[], [], ['$.bookings.G2'], ['$.notices.G2'], ['$.tally']] };
    expect(letsThrough(plan, 'book', 'guest_id', t, run, gated, new Set())).toEqual(new Set(['notify']));
    // A tally of the guest's own nights needs the booking: it alone is let through, never the notice worded alike.
    const tallied = [...plan.slice(0, 2), A('tally', { guest_id: 'G1' }), ...plan.slice(2)];
    const runT = { turns: 6, rejected: [], changes: [...changes.slice(0, 2), ['$.tally'], ...changes.slice(2)] };
    const repliesT = [...replies.slice(0, 2), 'Tallied.', ...replies.slice(2)];
    const tT = throughEntity(tallied, 'book', 'guest_id', runT, repliesT, '', new Set()) as NonNullable<typeof through>;
    const onG1T = { ...runT, changes: [[], ['$.notices.G1'], [], ...changes.slice(2)] };
    expect(letsThrough(tallied, 'book', 'guest_id', tT, runT, onG1T, new Set())).toEqual(new Set(['tally']));
    expect(neutralizedOn(plan, 'book', 'guest_id', 'G1', 'ZZ')).toEqual([
      A('book', { guest_id: 'ZZ' }),
      ...plan.slice(1),
    ]);
  });

  it('leaves out the entities the reference decided without the step, by effect (a short stay booked alike)', () => {
    const approvals = [A('approve', { guest_id: 'G1' }), A('book', { guest_id: 'G1' }), A('book', { guest_id: 'g2' })];
    const run = { turns: 3, rejected: [], changes: [['$.approved'], ['$.stays.G1'], ['$.stays.g2']] };
    const replies = ['G1 approved.', 'G1: 12 nights booked.', 'g2: 3 nights booked.'];
    const step = { tool: 'approve', arg: 'guest_id', tools: new Set(['book']), lets: gating('G1', 'book') };
    expect(decidedWithout(approvals, step, run, replies, ['G2', 'G3'])).toEqual(['G2']);
  });

  it('tries an entity the follow-up served otherwise without the step (redteam-trust16 Q2: a notice of regret)', () => {
    const notices = [
      A('book', { guest_id: 'G1' }),
      A('notify', { guest_id: 'G1' }),
      A('notify', { guest_id: 'G2' }),
      A('notify', { guest_id: 'G3' }),
    ];
    const run = { turns: 4, rejected: [], changes: [['$.bookings.G1'], ['$.notices.G1'], ['$.notices.G2'], []] };
    const replies = ['G1: 5 nights booked.', 'G1 notified of 5 nights.', "G2 sent the desk's regret.", 'G3 notified.'];
    // Read as a gate (a notice only a booking lets through).
    const step = { tool: 'book', arg: 'guest_id', tools: new Set(['notify']), lets: gating('G1', 'notify') };
    // G2's notice changed the same path as G1's but said otherwise; G3's changed nothing: both tried.
    expect(decidedWithout(notices, step, run, replies, ['G2', 'G3'])).toEqual([]);
    const alike = [...replies.slice(0, 2), 'G2 notified of 3 nights.', 'G3 notified.'];
    expect(decidedWithout(notices, step, run, alike, ['G2', 'G3'])).toEqual(['G2']);
  });

  it('skips nobody for a step its follow-up does not need (redteam-trust17 R1: a notice worded alike for all)', () => {
    const notices = [A('book', { guest_id: 'G1' }), A('notify', { guest_id: 'G1' }), A('notify', { guest_id: 'G2' })];
    const run = { turns: 3, rejected: [], changes: [['$.bookings.G1'], ['$.notices.G1'], ['$.notices.G2']] };
    const replies = ['G1: 5 nights booked.', 'Notice sent to G1.', 'Notice sent to G2.'];
    const gate = { tool: 'book', arg: 'guest_id', tools: new Set(['notify']), lets: gating('G1', 'notify') };
    expect(decidedWithout(notices, gate, run, replies, ['G2'])).toEqual(['G2']);
    // Nothing needs the booking: the notice, alike with or without it, says nothing of it, so G2 is tried.
    expect(decidedWithout(notices, { ...gate, lets: new Map() }, run, replies, ['G2'])).toEqual([]);
  });

  it('asks each trace class what a step lets through, skipping only by a class it gates (redteam-trust20 T4)', () => {
    const plan = [
      A('book', { guest_id: 'G1' }),
      A('notify', { guest_id: 'G1' }),
      A('book', { guest_id: 'G2' }),
      A('notify', { guest_id: 'G2' }),
      A('book', { guest_id: 'G4' }),
      A('notify', { guest_id: 'G4' }),
      A('notify', { guest_id: 'G3' }),
    ];
    const booked = (g: string) => [`$.bookings.${g}`];
    const notice = (g: string, member: boolean) => [`$.notices.${g}`, ...(member ? [`$.points.${g}`] : [])];
    const changes = [booked('G1'), notice('G1', true), booked('G2'), notice('G2', false), booked('G4')];
    const run = { turns: 7, rejected: [], changes: [...changes, notice('G4', true), notice('G3', false)] };
    const replies = plan.map((a) => (a.tool === 'book' ? 'Booked.' : `Notice sent to ${a.args.guest_id}.`));
    // A member (points with the notice) and a non-member: two classes; G4, a member too, adds none.
    const classes = throughEntities(plan, 'book', 'guest_id', run, replies, '', new Set());
    expect(classes.map((t) => t.entity)).toEqual(['G1', 'G2']);
    // The booking lets the member's notice through, not the non-member's: G3's notice, like a non-member's, is tried.
    const step = { tool: 'book', arg: 'guest_id', tools: new Set(['notify']) };
    const lets = new Map([
      ['G1', new Set(['notify'])],
      ['G2', new Set<string>()],
    ]);
    expect(decidedWithout(plan, { ...step, lets }, run, replies, ['G3'])).toEqual([]);
    // Were the non-member's notice let through too, G3 would read as decided without the booking.
    expect(
      decidedWithout(plan, { ...step, lets: new Map([['G2', new Set(['notify'])]]) }, run, replies, ['G3']),
    ).toEqual(['G3']);
  });

  it('reads an id a reply issued and a later call quotes as an id, not as words (a stay number in letters)', () => {
    const stays = [
      A('approve', { guest_id: 'G1' }),
      A('check_in', { guest_id: 'G1' }),
      A('check_in', { guest_id: 'G2' }),
      A('check_out', { stay_id: 'ST-ABC' }),
      A('check_out', { stay_id: 'ST-ABD' }),
    ];
    const changes = [['$.guests.*.approved'], ['$.stays', '$.next'], ['$.stays', '$.next'], ['$.stays'], ['$.stays']];
    const run = { turns: 5, rejected: [], changes };
    const replies = [
      'G1 approved.',
      'G1 checked in: stay ST-ABC.',
      'G2 checked in: stay ST-ABD.',
      'Closed.',
      'Closed.',
    ];
    const step = { tool: 'approve', arg: 'guest_id', tools: new Set(['check_in']), lets: gating('G1', 'check_in') };
    expect(decidedWithout(stays, step, run, replies, ['G2'])).toEqual(['G2']);
    const words = [...replies.slice(0, 2), 'G2 checked in: stay waitlisted.', ...replies.slice(3)];
    expect(decidedWithout(stays, step, run, words, ['G2'])).toEqual([]);
  });

  it('masks a one-letter value the plan sends where the reply writes it beside digits (a row in a seat: B30)', () => {
    const seats = [
      A('request_approval', { group_id: 'GR1' }),
      A('hold_seats', { group_id: 'GR1', row: 'A', first_seat: 1, last_seat: 12 }),
      A('hold_seats', { group_id: 'GR2', row: 'B', first_seat: 30, last_seat: 34 }),
    ];
    const run = {
      turns: 3,
      rejected: [],
      changes: [['$.groups.0.approved'], ['$.held', '$.groups.0.seats'], ['$.held', '$.groups.1.seats']],
    };
    const replies = ['The house manager approved GR1.', 'Held A1-A12 for GR1.', 'Held B30-B34 for GR2.'];
    const step = {
      tool: 'request_approval',
      arg: 'group_id',
      tools: new Set(['hold_seats']),
      lets: gating('GR1', 'hold_seats'),
    };
    // redteam-trust5 honest-seat-blocks: the small group held without approval, alike but for its row.
    expect(decidedWithout(seats, step, run, replies, ['GR2'])).toEqual(['GR2']);
  });

  it("sends a gate's added call with the call it lets through, any other step's alone (redteam-trust16 Q9)", () => {
    const without = { turns: 4, rejected: [], changes: [[], [], [], []] };
    expect(followOf(stepOf(plan, 'book', 'guest_id', reference, without))).toEqual({ call: plan[2], arg: 'guest_id' });
    const confirmed = { turns: 4, rejected: [], changes: [[], [], ['$.guests.0.confirmed'], []] };
    expect(followOf(stepOf(plan, 'book', 'guest_id', reference, confirmed))).toBeUndefined();
    expect(followOf(null)).toBeUndefined();
  });

  it('neutralizes a tool with an id nobody has that fits its argument; every such call refused', () => {
    const meta = metaWith([tool('book', { guest_id: { type: 'string', minLength: 1, maxLength: 5 } })]);
    expect(nobodyFor(meta, 'book', 'guest_id')).toBe('ZZ-00');
    const out = neutralized(plan, 'book', 'guest_id', 'ZZ-00');
    expect(out[1]).toEqual(A('book', { guest_id: 'ZZ-00', nights: 2 }));
    expect(out[2]).toEqual(plan[2]);
    expect(tookOut(plan, 'book', { turns: 4, rejected: [], changes: [[], [], [], []] })).toBe(true);
    expect(tookOut(plan, 'book', reference)).toBe(false);
  });

  it('judges a tool decisive by its neutralized run only where every neutralized call changed nothing', () => {
    const run = (score: number, changes: string[][]) => ({ ...reference, ok: true, score, changes }) as never;
    expect(decidesByEffect(callsOf(plan, 'book'), 1, run(0, none))).toBe(true);
    expect(decidesByEffect(callsOf(plan, 'book'), 1, run(1, none))).toBe(false);
    // A neutralized call the world still took says nothing, nor does a failed run.
    expect(decidesByEffect(callsOf(plan, 'book'), 1, run(1, reference.changes))).toBeUndefined();
    expect(decidesByEffect(callsOf(plan, 'book'), 1, undefined)).toBeUndefined();
  });

  it('takes one call out at its turn, the others kept (a swap control: no later turn moves)', () => {
    const out = neutralizedAt(plan, 2, 'guest_id', 'ZZ-00');
    expect(out).toHaveLength(plan.length);
    expect(out[2]).toEqual(A('confirm', { guest_id: 'ZZ-00' }));
    expect(out.filter((a, i) => a !== plan[i])).toHaveLength(1);
    const unconfirmed = [[], ['$.guests.0.nights'], [], []];
    expect(decidesByEffect([2], 1, { ...reference, ok: true, score: 0, changes: unconfirmed } as never)).toBe(true);
    expect(decidesByEffect([2], 1, { ...reference, ok: true, score: 0, changes: reference.changes } as never)).toBe(
      undefined,
    );
  });
});

describe('a step in one episode is no decision in another', () => {
  it('admits bank-dispute where an episode drew no merchant refusal (no chargeback after a contact)', async () => {
    // At this validation seed, seed 0 level 6 drew every merchant accepting: its plan has contacts and no
    // chargeback, and contacting the merchant of an undisputed charge was probed as a withheld decision.
    const pool = new SandboxPool({ workers: 1 });
    try {
      const source = readFileSync(new URL('../seeds/episodic/bank-dispute.js', import.meta.url), 'utf8');
      const report = await validateCandidate(source, { pool, validationSeed: 85619526883989 });
      expect(report.problems.map((p) => p.code)).toEqual([]);
    } finally {
      await pool.close();
    }
  }, 240_000);
});

import { describe, expect, it } from 'vitest';
import type { Rollout, RolloutRequest } from '../sandbox/rollouts.js';
import type { Action } from '../validators/episodic/adversaries.js';
import {
  maskedState,
  NO_SUCH,
  neutralOf,
  neutralRequests,
  onlyBookkeeping,
  repeatRequests,
  recordedBeyondNeutral,
  recordsBeyondNeutral,
} from '../validators/episodic/neutral.js';

const book = { tool: 'book', args: { guest_id: 'G252', date: '2026-06-02', nights: 10 } };
const ref = { ok: true, seed: 1, level: 1 } as Rollout;
const ended = (state: unknown) => ({ ...ref, state }) as Rollout;
const probe = { ref, actions: [{ tool: 'list', args: {} }, book], at: 1 };

describe('a call judged against a neutral call (redteam-trust14 Y1)', () => {
  it('makes the same call with every string argument an id nothing has', () => {
    expect(neutralOf(book)).toEqual({ tool: 'book', args: { guest_id: NO_SUCH, date: NO_SUCH, nights: 10 } });
  });

  it('finds a booking kept as an event of the log every call appends to', () => {
    const booked = ended({ events: [{ t: 'list' }, { t: 'book', id: 'G252', from: 152, n: 10 }] });
    const refused = ended({ events: [{ t: 'list' }, { t: 'refused', tool: 'book' }] });
    expect(recordsBeyondNeutral(probe, booked, refused)).toBe(true);
  });

  it('takes a log entry with the same words but the ids for what a refused call writes', () => {
    const a = ended({ log: [{ tool: 'book', id: 'G252', ok: false, why: 'no guest G252' }], turn: 2 });
    const b = ended({ log: [{ tool: 'book', id: NO_SUCH, ok: false, why: `no guest ${NO_SUCH}` }], turn: 2 });
    expect(recordsBeyondNeutral(probe, a, b)).toBe(false);
  });

  it('finds a booking kept as a line of words (redteam-trust15 Z1)', () => {
    const line = (l: string) => ended({ events: ['Guests listed: G252', l] });
    const booked = line('G252 booked 10 nights from 2026-06-02');
    expect(recordsBeyondNeutral(probe, booked, line(`Refused book: no guest ${NO_SUCH}.`))).toBe(true);
  });

  it('takes an audit line every call writes for bookkeeping, and an accepted flag for a decision', () => {
    const audit = (ok: boolean) => ended({ audit: [{ tool: 'book', args: { guest_id: 'G252' }, ok }] });
    const neutral = ended({ audit: [{ tool: 'book', args: { guest_id: NO_SUCH }, ok: false }] });
    expect(recordsBeyondNeutral(probe, audit(false), neutral)).toBe(false);
    expect(recordsBeyondNeutral(probe, audit(true), neutral)).toBe(true);
  });

  it('masks the call’s own values and the neutral id wherever they stand, and nothing else', () => {
    expect(
      maskedState({ a: 'g252', b: 'G252 booked from 2026-06-02', c: `no guest ${NO_SUCH}`, d: 'book' }, book),
    ).toBe('{"a":"·","b":"· booked from ·","c":"no guest ·","d":"book"}');
  });

  it('asks only about changes that are all bookkeeping paths', () => {
    const kept = new Set(['$.events', '$.turn']);
    expect(onlyBookkeeping(['$.events'], kept)).toBe(true);
    expect(onlyBookkeeping(['$.events', '$.stays'], kept)).toBe(false);
    expect(onlyBookkeeping([], kept)).toBe(false);
  });
});

// An added call's four replays: as is, made neutral, repeated after itself, repeated after the neutral call.
const replies = (observations: string[], state: unknown = { events: observations }, score = 1) =>
  ({ ...ref, observations, state, score }) as Rollout;
const added = { ...probe, added: true };

describe('an added call judged by what the world remembers (redteam-trust15 Z1-Z3)', () => {
  it('asks for the call repeated right after itself and right after the neutral call, as sent after each reply', () => {
    const logs = (rs: RolloutRequest[]) => rs.map((r) => (r.policy as { actions: unknown[] }).actions);
    const [list, n] = [probe.actions[0], neutralOf(book)];
    expect(logs(neutralRequests(added))).toEqual([
      [list, book],
      [list, n],
    ]);
    expect(logs(repeatRequests(added))).toEqual([
      [list, book, book],
      [list, n, book],
    ]);
    const ticket = (call: Action, reply: string) => ({ ...call, args: { ...call.args, ticket: reply } });
    const spelled = { ...added, respell: ticket };
    const after = logs(repeatRequests(spelled, replies(['listed', 'T2']), replies(['listed', 'T9'])));
    expect(after.map((l) => (l[2] as Action).args.ticket)).toEqual(['T2', 'T9']);
  });

  it('finds a booking the repeated call is refused for, whatever its log entry looks like', () => {
    const [asIs, neutral] = [replies(['listed', 'booked']), replies(['listed', 'no guest'])];
    const repeated = replies(['listed', 'booked', 'already booked']);
    const afterNeutral = replies(['listed', 'no guest', 'booked']);
    expect(recordsBeyondNeutral(added, asIs, neutral, repeated, afterNeutral)).toBe(true);
  });

  it('takes a refusal logged with its cause for nothing recorded where the repeat is answered alike (Z3)', () => {
    const refused = { t: 'refused', id: 'G252', reason: 'passport_expired' };
    const asIs = replies(['listed', 'Refused: expired.'], { events: [refused] });
    const neutral = replies(['listed', 'No guest.'], { events: [{ t: 'refused', reason: 'no_such_guest' }] });
    const repeated = replies(['listed', 'Refused: expired.', 'Refused: expired.']);
    const afterNeutral = replies(['listed', 'No guest.', 'Refused: expired.']);
    expect(recordsBeyondNeutral(added, asIs, neutral, repeated, afterNeutral)).toBe(false);
    expect(recordsBeyondNeutral(probe, asIs, neutral)).toBe(true);
  });

  it('finds the booking where the neutral call is booked too and its entry masks alike (Z2)', () => {
    const entry = (id: string) => ({ events: [{ t: 'book', id, date: id === NO_SUCH ? NO_SUCH : '2026-06-02' }] });
    const [asIs, neutral] = [
      replies(['listed', 'booked'], entry('G252')),
      replies(['listed', 'walk-in'], entry(NO_SUCH)),
    ];
    expect(recordsBeyondNeutral(probe, asIs, neutral)).toBe(false);
    const repeated = replies(['listed', 'booked', 'already booked']);
    const afterNeutral = replies(['listed', 'walk-in', 'booked']);
    expect(recordsBeyondNeutral(added, asIs, neutral, repeated, afterNeutral)).toBe(true);
  });

  it('finds a call the rest of the log or the score answers otherwise', () => {
    const same = replies(['listed', 'ok', 'x']);
    expect(
      recordsBeyondNeutral(added, replies(['listed', 'ok', 'done']), replies(['listed', 'no', 'held']), same, same),
    ).toBe(true);
    expect(recordsBeyondNeutral(added, replies(['a', 'b'], {}, 1), replies(['a', 'c'], {}, 0), same, same)).toBe(true);
    expect(recordsBeyondNeutral(added, replies(['a', 'b'], {}, 1), replies(['a', 'c'], {}, 1), same, same)).toBe(false);
  });

  it('answers each probe from its own replays, two for a call of the reference and four for an added one', async () => {
    // A desk that refuses G999 always, books any other guest once and answers the neutral id "no guest".
    const reply = (acts: Action[], i: number) => {
      const id = acts[i]?.args.guest_id;
      if (id === undefined) return 'listed';
      if (id === NO_SUCH) return 'no guest';
      if (id === 'G999') return 'refused';
      return acts.slice(0, i).some((b) => b.args.guest_id === id) ? 'already booked' : 'booked';
    };
    const seen: number[] = [];
    const run = async (requests: RolloutRequest[]) => {
      seen.push(requests.length);
      return requests.map((r) => {
        const acts = (r.policy as { actions: Action[] }).actions;
        const lines = acts.map((_, i) => reply(acts, i));
        return replies(lines, { events: lines });
      });
    };
    const refused = { ...added, actions: [probe.actions[0] as Action, { tool: 'book', args: { guest_id: 'G999' } }] };
    expect(await recordedBeyondNeutral([probe, refused, added], run)).toEqual([true, false, true]);
    expect(seen).toEqual([6, 4]);
  });
});

import { describe, expect, it } from 'vitest';
import type { Rollout, RolloutRequest } from '../sandbox/rollouts.js';
import type { Action } from '../validators/episodic/adversaries.js';
import {
  acceptedByTrace,
  maskedState,
  NO_SUCH,
  neutralOf,
  onlyBookkeeping,
  recordedBeyondNeutral,
  recordsBeyondNeutral,
  traceRequests,
} from '../validators/episodic/neutral.js';
import { traceOf } from '../validators/episodic/traces.js';

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

const logs = (rs: RolloutRequest[]) => rs.map((r) => (r.policy as { actions: unknown[] }).actions);

describe('an added call judged by its own trace (redteam-trust16 Q1, Q6; redteam-trust15 Z1-Z3)', () => {
  // A desk that books a guest (a line in words), books again in place, refuses G999 for its passport and answers
  // the neutral id "no guest"; its submit reply counts the refusals, as a closing summary does.
  const desk = (walkIns = false) => {
    const line = (a: Action, done: Action[]) => {
      const id = String(a.args.guest_id ?? '');
      if (a.tool === 'submit') return `Submitted; ${done.filter((b) => b.args.guest_id === 'G999').length} refused.`;
      if (a.tool === 'list') return 'Guests: G252, G300, G999';
      if (id === 'G999') return 'Refused: G999 passport expired';
      if (id === NO_SUCH && !walkIns) return `No guest ${NO_SUCH}`;
      return `${id} booked ${String(a.args.nights)} nights from ${String(a.args.date)}`;
    };
    const seen: RolloutRequest[][] = [];
    const run = async (requests: RolloutRequest[]) => {
      seen.push(requests);
      return requests.map((r) => {
        const acts = (r.policy as { actions: Action[] }).actions;
        const lines = acts.map((a, i) => line(a, acts.slice(0, i)));
        return { ...ref, observations: lines, state: { events: lines }, score: 1 } as Rollout;
      });
    };
    return { run, seen };
  };
  const bookOf = (guest_id: string) => ({ tool: 'book', args: { guest_id, date: '2026-07-01', nights: 4 } });
  const reference = [{ tool: 'list', args: {} }, book, bookOf('G300'), { tool: 'submit', args: {} }];
  const accepted = [
    { actions: reference, at: 1 },
    { actions: reference, at: 2 },
  ];
  const addedOf = (guest: string) => {
    const actions = [...reference.slice(0, -1), bookOf(guest), reference.at(-1) as Action];
    return { ref, actions, at: 3, added: true, accepted };
  };

  it('asks for the logs up to the call and the turn before, for the neutral call and each accepted call', () => {
    const p = addedOf('G252');
    const [list, n] = [reference[0], neutralOf(bookOf('G252'))];
    expect(logs(traceRequests(p)).map((l) => l.length)).toEqual([3, 4, 4, 1, 2, 2, 3]);
    expect(logs(traceRequests(p))[2]).toEqual([list, book, bookOf('G300'), n]);
  });

  it('takes a booking again in place, answered as the first was, for accepted (Q1)', async () => {
    const { run } = desk();
    expect(await recordedBeyondNeutral([addedOf('G252')], run)).toEqual([true]);
  });

  it('takes a refusal for refused, whatever a later summary counts (Q6, Z3)', async () => {
    const { run } = desk();
    expect(await recordedBeyondNeutral([addedOf('G999')], run)).toEqual([false]);
  });

  it('reads a booking as accepted where the world books the neutral call too (Z2)', async () => {
    const { run } = desk(true);
    expect(await recordedBeyondNeutral([addedOf('G252'), addedOf('G999')], run)).toEqual([true, false]);
  });
});

describe('a call of the reference judged against a neutral call shown refused (redteam-trust16 Q4)', () => {
  // A manager who approves a walk-in by the name given, logged as for a guest on the list.
  const approve = { tool: 'approve', args: { guest_id: 'G252' } };
  const desk = (walkIns: boolean) => async (requests: RolloutRequest[]) =>
    requests.map((r) => {
      const acts = (r.policy as { actions: Action[] }).actions;
      const events = acts.flatMap((a) =>
        a.tool !== 'approve'
          ? []
          : a.args.guest_id === NO_SUCH && !walkIns
            ? ['Refused: no guest']
            : [`Approved ${String(a.args.guest_id)}`],
      );
      return { ...ref, observations: events, state: { events }, score: 1 } as Rollout;
    });
  const p = { ref, actions: [approve, { tool: 'submit', args: {} }], at: 0 };

  it('masks the neutral id only where the neutral call is refused', async () => {
    expect(await recordedBeyondNeutral([p], desk(false))).toEqual([true]);
    expect(await recordedBeyondNeutral([p], desk(true))).toEqual([true]);
  });

  it('finds nothing recorded where the neutral call is refused and the states read alike', async () => {
    const quiet = async (requests: RolloutRequest[]) =>
      requests.map((r) => {
        const acts = (r.policy as { actions: Action[] }).actions;
        const seen = acts.map((a) => (a.args.guest_id === NO_SUCH ? 'No guest.' : 'Viewed.'));
        return { ...ref, observations: seen, state: { turn: acts.length }, score: 1 } as Rollout;
      });
    expect(await recordedBeyondNeutral([p], quiet)).toEqual([false]);
  });
});

describe('an added call read by its state, then its reply (redteam-trust17-trace)', () => {
  // A daybook line and a reply per call: the state is the world's record, the reply only what it says.
  const traced = (id: string, line: string, reply: string) =>
    traceOf({ events: [] }, { events: [line] }, reply, { tool: 'book', args: { guest_id: id, date: '2026-07-01' } }, [
      NO_SUCH,
    ]);
  const turnedAway = (id: string) => `Refused book: guest ${id} cannot check in; the desk keeps no room key for them.`;
  const booked = (id: string) => `${id} booked 4 nights from 2026-07-01`;
  const accepted = [traced('G252', booked('G252'), `${booked('G252')}.`)];
  const neutral = traced(NO_SUCH, `Refused book: no guest ${NO_SUCH}.`, turnedAway(NO_SUCH));

  it('takes a call written as the accepted ones are for accepted, whatever its reply says', () => {
    expect(acceptedByTrace(traced('G999', booked('G999'), turnedAway('G999')), neutral, accepted)).toBe(true);
  });

  it('takes a call written as the refusal is for refused, whatever its reply says', () => {
    const refused = traced('G999', 'Refused book: no guest G999.', `${booked('G999')}.`);
    expect(acceptedByTrace(refused, neutral, accepted)).toBe(false);
  });

  it('reads the reply where every call writes the same line', () => {
    const request = (id: string) => `request ${id}`;
    const same = [traced('G252', request('G252'), `${booked('G252')}.`)];
    const none = traced(NO_SUCH, request(NO_SUCH), turnedAway(NO_SUCH));
    expect(acceptedByTrace(traced('G999', request('G999'), `${booked('G999')}.`), none, same)).toBe(true);
    expect(acceptedByTrace(traced('G999', request('G999'), turnedAway('G999')), none, same)).toBe(false);
  });
});

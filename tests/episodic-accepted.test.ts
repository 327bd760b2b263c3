import { describe, expect, it } from 'vitest';
import type { Rollout, RolloutRequest } from '../sandbox/rollouts.js';
import type { Action } from '../validators/episodic/adversaries.js';
import { acceptedAdded, answeredOtherwise, answerRequests, type AddedCall } from '../validators/episodic/accepted.js';
import { acceptedByTrace, neutralOf } from '../validators/episodic/neutral.js';
import { likeness, traceOf } from '../validators/episodic/traces.js';

const ref = { ok: true, seed: 1, level: 1 } as Rollout;
const bookOf = (guest_id: string) => ({ tool: 'book', args: { guest_id, date: '2026-07-01', nights: 4 } });
const read = (guest_id: string) => ({ tool: 'read', args: { guest_id } });
const reference = [{ tool: 'list', args: {} }, bookOf('G252'), bookOf('G300'), { tool: 'submit', args: {} }];
const accepted = [
  { actions: reference, at: 1 },
  { actions: reference, at: 2 },
];
const addedOf = (guest: string): AddedCall => {
  const actions = [...reference.slice(0, -1), bookOf(guest), reference.at(-1) as Action];
  return { ref, actions, at: 3, added: true, accepted, reads: [read(guest)] };
};

/**
 * A desk whose every call is a line of words; G999's passport has expired. `warn`: G999 is booked all the same, in the
 * refusal's words (redteam-trust17 R2). `rebook`: a booking again is answered as the first (redteam-trust16 Q1).
 * `audit`: G999 is refused and the refusal audited in the record the bookings write (redteam-trust17 R3).
 */
const desk =
  (how: { warn?: boolean; rebook?: boolean; audit?: boolean }) =>
  async (requests: RolloutRequest[]): Promise<Rollout[]> =>
    requests.map((r) => {
      const acts = (r.policy as { actions: Action[] }).actions;
      const booked = new Set<string>();
      const ledger: Array<Record<string, string>> = [];
      const events: string[] = [];
      const reply = (a: Action): string => {
        const id = String(a.args.guest_id ?? '');
        if (a.tool === 'list') return 'Guests: G252, G300, G400, G999';
        if (a.tool === 'submit') return 'Submitted.';
        if (!['G252', 'G300', 'G400', 'G999'].includes(id))
          return `Refused ${a.tool}: no guest ${id} with a valid passport on the roster.`;
        if (a.tool === 'read') return `${id}: check-in 2026-07-01.`;
        if (booked.has(id) && !how.rebook) return `Refused ${a.tool}: ${id} is already booked.`;
        if (id === 'G999' && how.audit) {
          ledger.push({ guest: id, result: 'refused', note: 'passport expired' });
          return `Refused: ${id}'s passport has expired.`;
        }
        booked.add(id);
        ledger.push({ guest: id, result: 'booked', note: '4 nights from 2026-07-01' });
        if (id === 'G999' && how.warn)
          return `Warning ${a.tool}: no guest ${id} with a valid passport on the roster; booked all the same.`;
        return `${id} booked 4 nights from 2026-07-01`;
      };
      const observations = acts.map((a) => {
        const line = reply(a);
        events.push(line);
        return line;
      });
      const state = how.audit ? { bookings: [...booked], ledger } : { events: [...events] };
      return { ...ref, observations, state, score: 1 } as Rollout;
    });

describe('an added call accepted by what the world then does with its entity (redteam-trust17 R2, R3)', () => {
  it('asks the call again and the reads of its entity, after the call and after the neutral call', () => {
    const p = addedOf('G999');
    const logs = answerRequests(p).map((r) => (r.policy as { actions: Action[] }).actions);
    expect(logs[0]).toEqual([...reference.slice(0, -1), bookOf('G999'), bookOf('G999'), read('G999')]);
    expect(logs[1]).toEqual([...reference.slice(0, -1), neutralOf(bookOf('G999')), bookOf('G999'), read('G999')]);
  });

  it("takes the entity answered 'already booked' after the call, booked after the neutral one", async () => {
    const p = addedOf('G999');
    const [asIs, neutral] = await desk({ warn: true })(answerRequests(p));
    expect(answeredOtherwise(p, asIs, neutral)).toBe(true);
    expect(answeredOtherwise(p, neutral, neutral)).toBe(false);
  });

  it('finds a booking worded as the refusal accepted, though its words are mostly the refusal’s (R2)', async () => {
    expect(await acceptedAdded([addedOf('G999')], desk({ warn: true }))).toEqual([true]);
  });

  it('finds a booking again in place, answered as the first, accepted by its trace (redteam-trust16 Q1)', async () => {
    expect(await acceptedAdded([addedOf('G252'), addedOf('G999')], desk({ rebook: true }))).toEqual([true, true]);
  });

  it('finds a refusal audited in the record the bookings write refused, though a path changed (R3)', async () => {
    expect(await acceptedAdded([addedOf('G999')], desk({ audit: true }))).toEqual([false]);
    expect(await acceptedAdded([addedOf('G400')], desk({ audit: true }))).toEqual([true]);
  });
});

describe('a trace as the second witness', () => {
  const f = (...xs: string[]) => new Set(xs);
  const booking = f('e:·', 'e:booked', 'e:#', 'e:nights', 'r:·', 'r:booked');
  const refusal = f('r:no', 'r:guest', 'r:·');

  it('reads a trace like an accepted call’s, and more like it than the refusal, as accepted', () => {
    expect(acceptedByTrace(booking, refusal, [booking])).toBe(true);
  });

  it('reads a trace like neither as saying nothing of acceptance', () => {
    const audited = f('e:·', 'e:refused', 'r:refused:', 'r:passport', 'r:expired');
    expect(acceptedByTrace(audited, refusal, [booking])).toBe(false);
  });

  it('with no accepted call to read it beside, reads a trace unlike the refusal as accepted', () => {
    expect(acceptedByTrace(booking, refusal, [])).toBe(true);
    expect(acceptedByTrace(refusal, refusal, [])).toBe(false);
  });

  it('where the neutral call is taken too (a walk-in), reads a trace like an accepted call’s as accepted', () => {
    expect(acceptedByTrace(booking, booking, [booking])).toBe(true);
  });
});

it('reads the later answers with numbers masked: a turn counter is no memory of the entity', () => {
  const p = addedOf('G999');
  const tail = (turn: number) => ['', '', '', '', `Refused: G999's passport has expired (turn ${turn}).`, 'G999: ok.'];
  const at = (turn: number) => ({ ...ref, observations: tail(turn) }) as Rollout;
  expect(answeredOtherwise(p, at(5), at(4))).toBe(false);
  expect(
    answeredOtherwise(p, at(5), { ...ref, observations: [...tail(4).slice(0, 5), 'G999: booked.'] } as Rollout),
  ).toBe(true);
});

it('reads a record keyed by the call’s own value as any entity’s', () => {
  const keyed = (id: string) => traceOf({ bookings: {} }, { bookings: { [id]: { n: 4 } } }, 'Booked.', bookOf(id), []);
  expect(likeness(keyed('G999'), keyed('G252'))).toBe(1);
});

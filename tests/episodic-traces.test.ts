import { describe, expect, it } from 'vitest';
import { likeness, maskText, stepDelta, traceOf } from '../validators/episodic/traces.js';

const book = { tool: 'book', args: { guest_id: 'G252', date: '2026-06-02', nights: 10 } };

describe("a call's own trace (redteam-trust16 Q1, Q6)", () => {
  it('takes the items an array grew by, the fields an object changed and a field removed', () => {
    const before = { events: [{ t: 'list' }], turn: 1, hold: 'x' };
    const after = { events: [{ t: 'list' }, { t: 'book', id: 'G252' }], turn: 2 };
    expect(stepDelta(before, after)).toEqual([
      ['$.events.*.t', 'book'],
      ['$.events.*.id', 'G252'],
      ['$.turn', 2],
      ['$.hold-', null],
    ]);
  });

  it("masks the call's own values, the tokens given and every number", () => {
    expect(maskText('G252 booked 10 nights from 2026-06-02; ZZ-00000 none', book, ['ZZ-00000'])).toBe(
      '· booked # nights from ·; · none',
    );
    const ok = { tool: 'book', args: { guest_id: 'ok' } };
    expect(maskText('OK: booked', ok, [])).toBe('·: booked');
  });

  it('reads two bookings of different guests alike and a refusal with its cause unlike them', () => {
    const other = { tool: 'book', args: { guest_id: 'G300', date: '2026-07-01', nights: 4 } };
    const line = (l: string) => ({ events: [l] });
    const first = traceOf(line(''), line('G252 booked 10 nights from 2026-06-02'), 'ok', book, []);
    const again = traceOf(line(''), line('G300 booked 4 nights from 2026-07-01'), 'ok', other, []);
    const refused = traceOf(
      { events: [] },
      { events: [{ t: 'refused', reason: 'passport_expired' }] },
      'No.',
      other,
      [],
    );
    expect(likeness(first, again)).toBe(1);
    expect(likeness(first, refused)).toBe(0);
  });
});

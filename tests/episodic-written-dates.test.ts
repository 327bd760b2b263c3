// Points read in the notation the reference writes them in (redteam-trust11 H3): "14 Mar 2026", "March 14, 2026",
// "03/14/2026", "14.03.2026", "2026/03/14", an ISO week, "day 73", epoch seconds, each written back in its own form.
// Pure functions here; the fixtures' verdicts are in redteam-trust4.test.ts.
import { describe, expect, it } from 'vitest';
import { dayFirstIn } from '../validators/episodic/dates.js';
import { innerPoints, pointOf } from '../validators/episodic/points.js';
import { type SequenceOptions, sequenceReshapings } from '../validators/episodic/sequences.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

const META = metaWith([
  tool('check_in', { guest: { type: 'string' }, date: { type: 'string' } }),
  tool('check_out', { guest: { type: 'string' }, date: { type: 'string' } }),
  tool('close_stay', { stay_id: { type: 'string' }, date: { type: 'string' } }),
  tool('submit', {}),
]);
const O: SequenceOptions = { most: 8, kinds: 2, readings: 2, bothEnds: false, runs: 1 };
const shown = (log: Array<{ tool: string; args: Record<string, unknown> }>) =>
  log.map((a) => [a.tool, ...Object.values(a.args)].join(' '));

describe('a date read in the notation the reference writes and written back in it', () => {
  it.each([
    ['14 Mar 2026', '3 Apr 2026'],
    ['05 Mar 2026', '25 Mar 2026'],
    ['14 March 2026', '3 April 2026'],
    ['14-MAR-2026', '3-APR-2026'],
    ['March 14, 2026', 'April 3, 2026'],
    ['mar 14 2026', 'apr 3 2026'],
    ['Sep. 14, 2026', 'Oct. 4, 2026'],
    ['03/14/2026', '04/03/2026'],
    ['3/14/2026', '4/3/2026'],
    ['14/03/2026', '03/04/2026'],
    ['14.03.2026', '03.04.2026'],
    ['2026/03/14', '2026/04/03'],
    ['2026-W11-6', '2026-W14-5'],
    ['2026W116', '2026W145'],
    ['day 73', 'day 93'],
    ['Day-5', 'Day-25'],
  ])('%s: read back as written, 20 days on as %s', (v, later) => {
    const p = pointOf(v, false);
    expect(p?.form).toBe('date');
    expect(p?.write(p.at)).toBe(v);
    expect(p?.write((p?.at ?? 0) + 20)).toBe(later);
  });
  it('reads each notation of one day as the same day, an ISO week across a year end too', () => {
    const days = ['2026-03-14', '14 Mar 2026', 'March 14, 2026', '03/14/2026', '14.03.2026', '2026-W11-6'];
    expect(new Set(days.map((v) => pointOf(v, false)?.at)).size).toBe(1);
    expect(pointOf('2026-W01-1', false)?.at).toBe(pointOf('2025-12-29', false)?.at);
    const w = pointOf('2026-W53-1', false);
    expect(w?.at).toBe(pointOf('2026-12-28', false)?.at);
    expect(w?.write((w?.at ?? 0) + 7)).toBe('2027-W01-1');
  });
  it('reads epoch seconds in a string as minutes, written back as seconds', () => {
    const p = pointOf('1773446400', false);
    expect([p?.form, p?.write(p.at + 1440)]).toEqual(['datetime', '1773532800']);
    expect(pointOf('1773446401', false)).toBeNull();
  });
  it('reads no id, no impossible date and no long number as a date', () => {
    for (const v of ['G123', 'ST-KQB', '31 Feb 2026', '13/13/2026', 'Maple 14, 2026', '4821937465', '12/2026', 'day'])
      expect(pointOf(v, false), v).toBeNull();
  });
  it("reads slash dates day first where the log's own dates show it", () => {
    expect(dayFirstIn(['03/04/2026', '14/04/2026'])).toBe(true);
    expect(dayFirstIn(['03/04/2026', '04/14/2026'])).toBe(false);
    expect(pointOf('03/04/2026', false, true)?.write(pointOf('2026-04-05', false)?.at as number)).toBe('05/04/2026');
    expect(pointOf('03/04/2026', false)?.write(pointOf('2026-04-05', false)?.at as number)).toBe('04/05/2026');
  });
  it('finds such dates inside a string', () => {
    expect(innerPoints('s', 'from 14 Mar 2026 to 21 Mar 2026').map((s) => s.p.write(s.p.at + 1))).toEqual([
      '15 Mar 2026',
      '22 Mar 2026',
    ]);
  });
  it('cuts a stay whose dates are written "14 Mar 2026" into back-to-back stays in that notation', () => {
    const log = [
      A('check_in', { guest: 'G1', date: '1 Mar 2026' }),
      A('check_out', { guest: 'G1', date: '12 Mar 2026' }),
      A('submit'),
    ];
    const [re] = sequenceReshapings(META, log, 6, O);
    expect(shown(re?.actions ?? [])).toEqual([
      'check_in G1 1 Mar 2026',
      'check_out G1 6 Mar 2026',
      'check_in G1 6 Mar 2026',
      'check_out G1 12 Mar 2026',
      'submit',
    ]);
  });
});

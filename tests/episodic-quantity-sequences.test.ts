// Where a quantity lives beyond one whole argument (redteam-trust7 I4, I5): points and lengths written inside a string
// ("2026-03-01/2026-03-12", "2026-03-01/P11D", "11 nights from 2026-03-01"), and a quantity two calls share
// (check_in … check_out, clock_in … clock_out, a hold and its capture; redteam-trust9 R1-R4: linked by an id the
// environment issued, closed by a unitless length or an end-inclusive point, or a count of turns between), each cut
// into back-to-back parts in the call's own notation. Pure log builders here; the fixtures' verdicts are in
// redteam-trust4.test.ts.
import { describe, expect, it } from 'vitest';
import { lengthsIn, slotsOf } from '../validators/episodic/points.js';
import { quantitiesOf, quantityOf } from '../validators/episodic/quantities.js';
import { reshapings } from '../validators/episodic/reshape.js';
import { type SequenceOptions, sequenceReshapings } from '../validators/episodic/sequences.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

const META = metaWith([
  tool('book', { guest: { type: 'string' }, stay: { type: 'string' } }),
  tool('check_in', { guest: { type: 'string' }, date: { type: 'string' } }),
  tool('check_out', { guest: { type: 'string' }, date: { type: 'string' } }),
  tool('leave', { guest: { type: 'string' }, nights: { type: 'integer' } }),
  tool('tip', { guest: { type: 'string' }, amount: { type: 'integer' } }),
  tool('hold', { account: { type: 'string' }, amount: { type: 'integer' } }),
  tool('capture', { account: { type: 'string' }, amount: { type: 'integer' } }),
  tool('mode', { guest: { type: 'string' }, date: { type: 'string', enum: ['2026-03-01', '2026-03-09'] } }),
  tool('depart', { guest: { type: 'string' }, length: { type: 'integer', minimum: 1 } }),
  tool('last', { guest: { type: 'string' }, last_night: { type: 'string' } }),
  tool('clock_in', { worker: { type: 'string' }, at: { type: 'string' } }),
  tool('clock_out', { worker: { type: 'string' }, length: { type: 'integer' } }),
  tool('close_stay', { stay_id: { type: 'string' }, date: { type: 'string' } }),
  tool('start', { car: { type: 'string' }, km: { type: 'integer' } }),
  tool('drive', { car: { type: 'string' }, distance: { type: 'integer' } }),
  tool('enter', { guest: { type: 'string' } }),
  tool('audit', { day: { type: 'integer' } }),
  tool('exit', { guest: { type: 'string' } }),
  tool('open', {}),
  tool('sweep', { room: { type: 'integer' } }),
  tool('look', { guest: { type: 'string' } }),
  tool('submit', {}),
]);
const stays = (log: Array<{ args: Record<string, unknown> }>) => log.map((a) => a.args.stay);
/** The reshaping bounds the validator's defaults set (validators/options-episodic.ts), each narrowed per test. */
const O: SequenceOptions = { most: 8, kinds: 2, readings: 2, bothEnds: true, runs: 1 };
const shown = (log: Array<{ tool: string; args: Record<string, unknown> }>) =>
  log.map((a) => [a.tool, ...Object.values(a.args)].join(' '));

describe('points and lengths written inside a string', () => {
  it('finds every date, date-time and time standing alone, never the digits of an id or a longer number', () => {
    const at = (stay: string) => slotsOf(META, A('book', { guest: 'G1', stay })).map((s) => s.key);
    expect(at('2026-03-01/2026-03-12')).toEqual(['stay[1]', 'stay[2]']);
    expect(at('from 2026-03-01T09:00 until 2026-03-01T17:30')).toEqual(['stay[1]', 'stay[2]']);
    expect(at('09:00-17:30')).toEqual(['stay[1]', 'stay[2]']);
    expect(at('TK-2026-03-01x, 12026-03-01, v1.09:00')).toEqual([]);
  });
  it('cuts an ISO interval in one string into back-to-back intervals written the same way', () => {
    const q = quantityOf(META, A('book', { guest: 'G1', stay: '2026-03-01/2026-03-12' }), 'interval');
    expect(stays(q?.parts(2) ?? [])).toEqual(['2026-03-01/2026-03-06', '2026-03-06/2026-03-12']);
    const words = quantityOf(META, A('book', { guest: 'G1', stay: 'from 09:00 until 17:00' }), 'interval');
    expect(stays(words?.parts(2) ?? [])).toEqual(['from 09:00 until 13:00', 'from 13:00 until 17:00']);
  });
  it('reads a length beside a point as an interval: ISO start/duration and words, cut into whole steps', () => {
    expect(lengthsIn('s', '2026-03-01/P11D', 'date').map((l) => l.len)).toEqual([11]);
    expect(lengthsIn('s', 'PT1H30M', 'time').map((l) => [l.len, l.write(45)])).toEqual([[90, 'PT45M']]);
    const iso = quantityOf(META, A('book', { guest: 'G1', stay: '2026-03-01/P11D' }), 'interval');
    expect(stays(iso?.parts(2) ?? [])).toEqual(['2026-03-01/P5D', '2026-03-06/P6D']);
    const nights = quantityOf(META, A('book', { guest: 'G1', stay: '11 nights from 2026-03-01' }), 'interval');
    expect(stays(nights?.parts(2) ?? [])).toEqual(['5 nights from 2026-03-01', '6 nights from 2026-03-06']);
    const hours = quantityOf(META, A('book', { guest: 'G1', stay: '3 hours from 09:00' }), 'interval');
    expect(stays(hours?.parts(3) ?? [])).toEqual(['1 hours from 09:00', '1 hours from 10:00', '1 hours from 11:00']);
  });
  it('merges calls whose in-string intervals meet, and leaves an enum or one lone date alone', () => {
    const q = quantityOf(META, A('book', { guest: 'G1', stay: '2026-03-01/2026-03-05' }), 'interval');
    expect(q?.merge(A('book', { guest: 'G1', stay: '2026-03-05/2026-03-09' }))?.args.stay).toBe(
      '2026-03-01/2026-03-09',
    );
    expect(quantitiesOf(META, A('mode', { guest: 'G1', date: '2026-03-01' }), 'interval')).toEqual([]);
    expect(quantitiesOf(META, A('book', { guest: 'G1', stay: 'on 2026-03-01' }), 'interval')).toEqual([]);
  });
});

describe('a quantity two calls share, cut into back-to-back pairs', () => {
  const stay = [
    A('check_in', { guest: 'G1', date: '2026-03-01' }),
    A('check_out', { guest: 'G1', date: '2026-03-12' }),
    A('check_in', { guest: 'G2', date: '2026-03-02' }),
    A('check_out', { guest: 'G2', date: '2026-03-04' }),
    A('submit'),
  ];
  it('pairs an opening and a closing call on one entity and cuts the interval between them', () => {
    const [re] = sequenceReshapings(META, stay, 14, O);
    expect(re?.how).toBe('each check_in.date → check_out.date pair split into 3 back-to-back pairs');
    expect(re?.actions.map((a) => `${a.tool} ${a.args.guest ?? ''} ${a.args.date ?? ''}`.trim())).toEqual([
      'check_in G1 2026-03-01',
      'check_out G1 2026-03-04',
      'check_in G1 2026-03-04',
      'check_out G1 2026-03-08',
      'check_in G1 2026-03-08',
      'check_out G1 2026-03-12',
      'check_in G2 2026-03-02',
      'check_out G2 2026-03-03',
      'check_in G2 2026-03-03',
      'check_out G2 2026-03-04',
      'submit',
    ]);
  });
  it('never pairs calls on different entities, calls of one tool, or a closing point before the opening', () => {
    const apart = [
      A('check_in', { guest: 'G1', date: '2026-03-01' }),
      A('check_out', { guest: 'G2', date: '2026-03-09' }),
    ];
    expect(sequenceReshapings(META, [...apart, A('submit')], 40, O)).toEqual([]);
    const back = [
      A('check_in', { guest: 'G1', date: '2026-03-09' }),
      A('check_out', { guest: 'G1', date: '2026-03-01' }),
    ];
    expect(sequenceReshapings(META, [...back, A('submit')], 40, O)).toEqual([]);
    expect(sequenceReshapings(META, [stay[0], stay[0], A('submit')] as typeof stay, 40, O)).toEqual([]);
  });
  it('moves the opening point on where the closing call holds a length from it (check_out {nights})', () => {
    const log = [
      A('check_in', { guest: 'G1', date: '2026-03-01' }),
      A('leave', { guest: 'G1', nights: 11 }),
      A('submit'),
    ];
    const [re] = sequenceReshapings(META, log, 6, O);
    expect(re?.actions.map((a) => `${a.tool} ${a.args.date ?? a.args.nights ?? ''}`.trim())).toEqual([
      'check_in 2026-03-01',
      'leave 5',
      'check_in 2026-03-06',
      'leave 6',
      'submit',
    ]);
    // An amount that is not whole is no length of days.
    const counted = [A('check_in', { guest: 'G1', date: '2026-03-01' }), A('tip', { guest: 'G1', amount: 10.5 })];
    expect(sequenceReshapings(META, [...counted, A('submit')], 40, O)).toEqual([]);
  });
  it('splits an amount held then captured into pairs that sum to it, within the turns left', () => {
    const log = [A('hold', { account: 'C1', amount: 900 }), A('capture', { account: 'C1', amount: 900 }), A('submit')];
    const [re] = sequenceReshapings(META, log, 8, O);
    expect(re?.actions.map((a) => `${a.tool} ${a.args.amount ?? ''}`.trim())).toEqual([
      'hold 300',
      'capture 300',
      'hold 300',
      'capture 300',
      'hold 300',
      'capture 300',
      'submit',
    ]);
    expect(sequenceReshapings(META, log, 4, O)).toEqual([]);
  });
  it('is tried by the stated-rule reshaping after the quantities of one call', () => {
    expect(reshapings(META, stay, 40, 8, 6, O).map((r) => r.how)).toContain(
      'each check_in.date → check_out.date pair split into 8 back-to-back pairs',
    );
    expect(reshapings(META, stay, 40, 8, 6, { ...O, kinds: 0, runs: 0 }).map((r) => r.how)).toEqual([]);
  });
});

describe('the pair found however it is written (redteam-trust9 R1-R4)', () => {
  it('reads a closing integer that names no unit as days from a date, minutes then hours from a time', () => {
    const days = [
      A('check_in', { guest: 'G1', date: '2026-03-01' }),
      A('depart', { guest: 'G1', length: 11 }),
      A('submit'),
    ];
    const [re] = sequenceReshapings(META, days, 6, O);
    expect(re?.how).toBe('each check_in.date → depart.length (days) pair split into 2 back-to-back pairs');
    expect(shown(re?.actions ?? [])).toEqual([
      'check_in G1 2026-03-01',
      'depart G1 5',
      'check_in G1 2026-03-06',
      'depart G1 6',
      'submit',
    ]);
    const shift = [
      A('clock_in', { worker: 'W1', at: '09:00' }),
      A('clock_out', { worker: 'W1', length: 8 }),
      A('submit'),
    ];
    expect(sequenceReshapings(META, shift, 6, O).map((r) => shown(r.actions).slice(1, 3))).toEqual([
      ['clock_out W1 4', 'clock_in W1 09:04'],
      ['clock_out W1 4', 'clock_in W1 13:00'],
    ]);
    expect(sequenceReshapings(META, shift, 6, { ...O, readings: 1 }).map((r) => r.how)).toEqual([
      'each clock_in.at → clock_out.length (minutes) pair split into 2 back-to-back pairs',
    ]);
    expect(sequenceReshapings(META, days, 6, { ...O, readings: 0 })).toEqual([]);
  });
  it('reads a closing integer from a whole number as a plain count of its units, the opening moved on', () => {
    const log = [A('start', { car: 'C1', km: 1200 }), A('drive', { car: 'C1', distance: 340 }), A('submit')];
    const [re] = sequenceReshapings(META, log, 6, O);
    expect(re?.how).toBe('each start.km → drive.distance (count) pair split into 2 back-to-back pairs');
    expect(shown(re?.actions ?? [])).toEqual([
      'start C1 1200',
      'drive C1 170',
      'start C1 1370',
      'drive C1 170',
      'submit',
    ]);
    expect(sequenceReshapings(META, log, 6, { ...O, readings: 0 })).toEqual([]);
  });

  it('cuts a pair of points both ways: the next opening on the cut, and one step on (the end counted in)', () => {
    const log = [
      A('check_in', { guest: 'G1', date: '2026-03-01' }),
      A('last', { guest: 'G1', last_night: '2026-03-10' }),
      A('submit'),
    ];
    const cuts = sequenceReshapings(META, log, 6, O);
    expect(cuts.map((r) => [r.how.endsWith('its end counted in it'), shown(r.actions).slice(1, 3)])).toEqual([
      [false, ['last G1 2026-03-05', 'check_in G1 2026-03-05']],
      [true, ['last G1 2026-03-04', 'check_in G1 2026-03-05']],
    ]);
    expect(sequenceReshapings(META, log, 6, { ...O, bothEnds: false })).toHaveLength(1);
  });

  const issued = [
    A('check_in', { guest: 'G1', date: '2026-03-01' }),
    A('close_stay', { stay_id: 'ST-41', date: '2026-03-12' }),
    A('submit'),
  ];
  const heard = ['G1 checked in on 2026-03-01: stay ST-41.', 'Stay ST-41 closed.', 'Submitted.'];
  it('links a call to the call it answered an id (no value shared) and binds each use to the new answer', () => {
    expect(sequenceReshapings(META, issued, 8, O)).toEqual([]);
    const [re] = sequenceReshapings(META, issued, 8, { ...O, bothEnds: false }, heard);
    expect(shown(re?.actions ?? [])).toEqual([
      'check_in G1 2026-03-01',
      'close_stay ST-41 2026-03-04',
      'check_in G1 2026-03-04',
      'close_stay ST-41 2026-03-08',
      'check_in G1 2026-03-08',
      'close_stay ST-41 2026-03-12',
      'submit',
    ]);
    // Each closing reads the id from the observation of the opening just before it, as a model would.
    expect(re?.binds?.map((b) => [b.at, b.from, b.arg, b.value, b.nth])).toEqual([
      [1, 0, 'stay_id', 'ST-41', 0],
      [3, 2, 'stay_id', 'ST-41', 0],
      [5, 4, 'stay_id', 'ST-41', 0],
    ]);
    expect(new RegExp(re?.binds?.[0]?.shape ?? '$^', 'g').exec('checked in on 2026-03-04: stay ST-42.')?.[0]).toBe(
      'ST-42',
    );
  });
  it('takes no id for issued that a call sent before, or that is a date', () => {
    const sent = [A('check_in', { guest: 'ST-41', date: '2026-03-01' }), ...issued.slice(1)];
    expect(sequenceReshapings(META, sent, 8, O, heard)).toEqual([]);
    const dated = [
      A('check_in', { guest: 'G1', date: '2026-03-01' }),
      A('close_stay', { stay_id: 'X', date: '2026-03-01' }),
    ];
    expect(sequenceReshapings(META, [...dated, A('submit')], 8, O, ['on 2026-03-01', '', ''])).toEqual([]);
  });

  it('cuts a run of calls of one tool between an opening and a closing call by a closing and a re-opening', () => {
    const audits = Array.from({ length: 6 }, (_, day) => A('audit', { day }));
    const log = [A('enter', { guest: 'G1' }), ...audits, A('exit', { guest: 'G1' }), A('submit')];
    const [re] = sequenceReshapings(META, log, 40, { ...O, most: 3 });
    expect(re?.how).toBe('each run of audit between enter and exit cut into 3 pieces by a closing and an opening call');
    expect(shown(re?.actions ?? [])).toEqual(
      [
        'enter G1',
        'audit 0',
        'audit 1',
        'exit G1',
        'enter G1',
        'audit 2',
        'audit 3',
        'exit G1',
        'enter G1',
        'audit 4',
      ].concat(['audit 5', 'exit G1', 'submit']),
    );
    expect(sequenceReshapings(META, log, 40, { ...O, runs: 0 })).toEqual([]);
    // A single call between, or a pair on two entities, is no run to cut.
    expect(sequenceReshapings(META, [log[0], log[1], log[7], log[8]] as typeof log, 40, O)).toEqual([]);
    const apart = [A('enter', { guest: 'G1' }), ...audits, A('exit', { guest: 'G2' }), A('submit')];
    expect(sequenceReshapings(META, apart, 40, O)).toEqual([]);
  });

  // redteam-trust11 H1: the unit of a run is the plan's period, not one tool.
  const nights = (n: number, night: (day: number) => Array<ReturnType<typeof A>>) => [
    A('enter', { guest: 'G1' }),
    ...Array.from({ length: n }, (_, day) => night(day)).flat(),
    A('exit', { guest: 'G1' }),
    A('submit'),
  ];
  it.each([
    ['an audit then an open_day', (day: number) => [A('audit', { day }), A('open')], '(audit + open)'],
    [
      'three tools',
      (day: number) => [A('audit', { day }), A('sweep', { room: day }), A('open')],
      '(audit + sweep + open)',
    ],
    [
      'a read of the guest inside',
      (day: number) => [A('audit', { day }), A('look', { guest: 'G1' }), A('open')],
      '(audit + look + open)',
    ],
  ])('cuts a repeated block of calls (%s) at its boundaries, arguments differing per night', (_, night, unit) => {
    const log = nights(6, night);
    const [re] = sequenceReshapings(META, log, 60, { ...O, most: 3 });
    expect(re?.how).toBe(
      `each run of ${unit} between enter and exit cut into 3 pieces by a closing and an opening call`,
    );
    const p = night(0).length;
    const cut = ['exit G1', 'enter G1'];
    const blocks = (from: number, to: number) => log.slice(1 + from * p, 1 + to * p);
    expect(shown(re?.actions ?? [])).toEqual([
      'enter G1',
      ...shown(blocks(0, 2)),
      ...cut,
      ...shown(blocks(2, 4)),
      ...cut,
      ...shown(blocks(4, 6)),
      'exit G1',
      'submit',
    ]);
  });
  it('finds the block after a prologue and before a ragged end, and none where nothing repeats', () => {
    const night = (day: number) => [A('audit', { day }), A('open')];
    const log = [
      A('enter', { guest: 'G1' }),
      A('look', { guest: 'G1' }),
      ...[0, 1, 2, 3].flatMap(night),
      A('audit', { day: 4 }),
      A('exit', { guest: 'G1' }),
      A('submit'),
    ];
    const [re] = sequenceReshapings(META, log, 60, { ...O, most: 2 });
    expect(shown(re?.actions ?? []).slice(0, 8)).toEqual([
      'enter G1',
      'look G1',
      'audit 0',
      'open',
      'audit 1',
      'open',
      'exit G1',
      'enter G1',
    ]);
    // A decoy of repeated reads: where the reference's digests say which calls changed its state, the block grows it.
    const decoy = [
      A('enter', { guest: 'G1' }),
      ...Array.from({ length: 6 }, () => A('look', { guest: 'G2' })),
      ...[0, 1, 2].flatMap(night),
      A('exit', { guest: 'G1' }),
      A('submit'),
    ];
    const changed = decoy.map((a) => a.tool !== 'look');
    const how = (c?: boolean[]) => sequenceReshapings(META, decoy, 60, O, undefined, undefined, c).map((r) => r.how);
    expect(how()).toEqual([
      'each run of look between enter and exit cut into 8 pieces by a closing and an opening call',
    ]);
    expect(how(changed)).toEqual([
      'each run of (audit + open) between enter and exit cut into 8 pieces by a closing and an opening call',
    ]);
    const once = [A('enter', { guest: 'G1' }), A('audit', { day: 0 }), A('open'), A('sweep', { room: 1 })];
    expect(sequenceReshapings(META, [...once, A('exit', { guest: 'G1' }), A('submit')], 60, O)).toEqual([]);
  });
});

// Where a quantity lives beyond one whole argument (redteam-trust7 I4, I5): points and lengths written inside a string
// ("2026-03-01/2026-03-12", "2026-03-01/P11D", "11 nights from 2026-03-01"), and a quantity two calls share
// (check_in … check_out, clock_in … clock_out, a hold and its capture), each cut into back-to-back parts in the call's
// own notation. Pure log builders here; the fixtures' verdicts are in redteam-trust4.test.ts.
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import { lengthsIn, slotsOf } from '../validators/episodic/points.js';
import { quantitiesOf, quantityOf } from '../validators/episodic/quantities.js';
import { reshapings } from '../validators/episodic/reshape.js';
import { sequenceReshapings } from '../validators/episodic/sequences.js';

const A = (tool: string, args: Record<string, unknown> = {}) => ({ tool, args });
const tool = (name: string, properties: Record<string, unknown>) => ({
  name,
  description: name,
  parameters: { type: 'object', properties, additionalProperties: false },
});
const META = {
  name: 'm',
  title: 'm',
  description: 'm',
  skills: [],
  levels: 1,
  kind: 'episodic',
  maxTurns: 40,
  tools: [
    tool('book', { guest: { type: 'string' }, stay: { type: 'string' } }),
    tool('check_in', { guest: { type: 'string' }, date: { type: 'string' } }),
    tool('check_out', { guest: { type: 'string' }, date: { type: 'string' } }),
    tool('leave', { guest: { type: 'string' }, nights: { type: 'integer' } }),
    tool('tip', { guest: { type: 'string' }, amount: { type: 'integer' } }),
    tool('hold', { account: { type: 'string' }, amount: { type: 'integer' } }),
    tool('capture', { account: { type: 'string' }, amount: { type: 'integer' } }),
    tool('mode', { guest: { type: 'string' }, date: { type: 'string', enum: ['2026-03-01', '2026-03-09'] } }),
    tool('submit', {}),
  ],
} as unknown as EpisodicMeta;
const stays = (log: Array<{ args: Record<string, unknown> }>) => log.map((a) => a.args.stay);

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
    const [re] = sequenceReshapings(META, stay, 14, 8, 2);
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
    expect(sequenceReshapings(META, [...apart, A('submit')], 40)).toEqual([]);
    const back = [
      A('check_in', { guest: 'G1', date: '2026-03-09' }),
      A('check_out', { guest: 'G1', date: '2026-03-01' }),
    ];
    expect(sequenceReshapings(META, [...back, A('submit')], 40)).toEqual([]);
    expect(sequenceReshapings(META, [stay[0], stay[0], A('submit')] as typeof stay, 40)).toEqual([]);
  });
  it('moves the opening point on where the closing call holds a length from it (check_out {nights})', () => {
    const log = [
      A('check_in', { guest: 'G1', date: '2026-03-01' }),
      A('leave', { guest: 'G1', nights: 11 }),
      A('submit'),
    ];
    const [re] = sequenceReshapings(META, log, 6, 8, 2);
    expect(re?.actions.map((a) => `${a.tool} ${a.args.date ?? a.args.nights ?? ''}`.trim())).toEqual([
      'check_in 2026-03-01',
      'leave 5',
      'check_in 2026-03-06',
      'leave 6',
      'submit',
    ]);
    const counted = [A('check_in', { guest: 'G1', date: '2026-03-01' }), A('tip', { guest: 'G1', amount: 11 })];
    expect(sequenceReshapings(META, [...counted, A('submit')], 40)).toEqual([]);
  });
  it('splits an amount held then captured into pairs that sum to it, within the turns left', () => {
    const log = [A('hold', { account: 'C1', amount: 900 }), A('capture', { account: 'C1', amount: 900 }), A('submit')];
    const [re] = sequenceReshapings(META, log, 8, 8, 2);
    expect(re?.actions.map((a) => `${a.tool} ${a.args.amount ?? ''}`.trim())).toEqual([
      'hold 300',
      'capture 300',
      'hold 300',
      'capture 300',
      'hold 300',
      'capture 300',
      'submit',
    ]);
    expect(sequenceReshapings(META, log, 4)).toEqual([]);
  });
  it('is tried by the stated-rule reshaping after the quantities of one call', () => {
    expect(reshapings(META, stay, 40).map((r) => r.how)).toContain(
      'each check_in.date → check_out.date pair split into 8 back-to-back pairs',
    );
    expect(reshapings(META, stay, 40, 8, 6, 0).map((r) => r.how)).toEqual([]);
  });
});

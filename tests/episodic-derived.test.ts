// Arguments computed from shown values (redteam-trust17 R4): the relation a template's value bears to its own entity's
// shown values and arguments, applied to another entity's.
import { describe, expect, it } from 'vitest';
import { derivedArgs, relationOf, shownValues, valueOf } from '../validators/episodic/derived.js';

const mine = ['G101: check-in 2026-03-01, check-out 2026-03-06; passport valid; rate $120 a night.'];
const theirs = ['G202: check-in 2026-07-10, check-out 2026-07-13; passport expired; rate $85 a night.'];
const integer = () => true;

describe('arguments computed from shown values', () => {
  it('reads the numbers and the dates a reply shows by their places', () => {
    const v = shownValues(mine);
    expect(v.get('n0.0')).toBe(120);
    expect((v.get('d0.1') as number) - (v.get('d0.0') as number)).toBe(5);
  });

  it('finds a difference of dates, a product and a sum, differences first', () => {
    const values = new Map([
      ['d0.0', 100],
      ['d0.1', 105],
      ['n0.0', 120],
      ['a:nights', 5],
    ]);
    expect(relationOf(5, values)).toEqual({ op: '-', a: 'd0.1', b: 'd0.0' });
    expect(relationOf(600, values)).toEqual({ op: '*', a: 'a:nights', b: 'n0.0' });
    expect(relationOf(125, values)).toEqual({ op: '+', a: 'a:nights', b: 'n0.0' });
    // A date is read only by its difference from another: never added to a number.
    expect(relationOf(220, values)).toBeNull();
    expect(valueOf({ op: '*', a: 'a:nights', b: 'n0.x' }, values)).toBeUndefined();
  });

  it("fills the nights from the entity's dates, then the total from those nights at its rate", () => {
    const template = { guest_id: 'G101', date: '2026-03-01', nights: 5, total: 600 };
    const args = { ...template, guest_id: 'G202', date: '2026-07-10' };
    const open = new Set(['nights', 'total']);
    expect(derivedArgs(template, args, open, mine, theirs, integer)).toMatchObject({ nights: 3, total: 255 });
  });

  it('fills a date the reads do not show as a shown date plus a number of days (a check-out from the nights)', () => {
    const stay = ['G101: check-in 2026-03-01; 5 nights; passport valid.'];
    const other = ['G202: check-in 2026-07-10; 3 nights; passport expired.'];
    const template = { guest_id: 'G101', check_out: '2026-03-06' };
    const args = derivedArgs(template, { ...template }, new Set(['check_out']), stay, other, () => false);
    expect(args.check_out).toBe('2026-07-13');
  });

  it('keeps the template value where no relation holds, or where a whole number is asked and none comes', () => {
    const template = { guest_id: 'G101', nights: 7 };
    expect(derivedArgs(template, { ...template }, new Set(['nights']), mine, theirs, integer).nights).toBe(7);
    const room = { guest_id: 'G101', total: 240 };
    const rooms = ['G101: rate $120 a night, 2 nights.'];
    const quarters = ['G202: rate $42.25 a night, 3 nights.'];
    expect(derivedArgs(room, { ...room }, new Set(['total']), rooms, quarters, integer).total).toBe(240);
    expect(derivedArgs(room, { ...room }, new Set(['total']), rooms, quarters, () => false).total).toBe(126.75);
  });
});

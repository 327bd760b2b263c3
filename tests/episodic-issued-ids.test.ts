// Ids read by where the world puts them, not by a syntax (redteam-trust11 H2): an id is issued by the observation it is
// first seen in, whatever its characters (ST-KQB, a word handle, a hash), unless the episode was given it or it is the
// world's own word. Pure functions here; the fixtures' verdicts are in redteam-trust4.test.ts.
import { describe, expect, it } from 'vitest';
import { issuesOf } from '../validators/episodic/issued.js';
import { type SequenceOptions, sequenceReshapings } from '../validators/episodic/sequences.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

const META = metaWith([
  tool('check_in', { guest: { type: 'string' }, date: { type: 'string' } }),
  tool('check_out', { guest: { type: 'string' }, date: { type: 'string' } }),
  tool('close_stay', { stay_id: { type: 'string' }, date: { type: 'string' } }),
  tool('submit', {}),
]);
const O: SequenceOptions = { most: 8, kinds: 2, readings: 2, bothEnds: false, runs: 1 };

describe('an id is issued by where it was first seen, not by its characters', () => {
  const issuedBy = (answer: string, id: string, given = '') =>
    issuesOf(
      [A('check_in', { guest: 'G1' }), A('close_stay', { stay_id: id }), A('submit')],
      [answer, '', ''],
      given,
    )[1];
  it.each([
    ['letters in capitals', 'G1 checked in: stay ST-KQB.', 'ST-KQB'],
    ['a word handle', 'G1 checked in: room Maple, second floor.', 'Maple'],
    ['a lowercase hash without a digit', 'Stay opened (ref deadbeef).', 'deadbeef'],
    ['a lowercase hex hash', 'Stay opened (ref 9f3ab2c1).', '9f3ab2c1'],
    ['a mixed token', 'Opened stay kq-7B for G1.', 'kq-7B'],
    ['two words', 'Welcome G1: suite Blue Fox is yours.', 'Blue Fox'],
  ])('links %s to the call answered with it', (_what, answer, id) => {
    expect(issuedBy(answer, id)).toEqual([expect.objectContaining({ by: 0, arg: 'stay_id', value: id })]);
  });
  it('takes no word the episode was given, no word of the fixed vocabulary, nothing short or dated', () => {
    expect(issuedBy('G1 checked in: room Maple.', 'Maple', 'Rooms: Maple, Birch.')).toEqual([]);
    expect(issuedBy('Stay approved for G1.', 'approved')).toEqual([]);
    expect(issuedBy('G1 in room Ok.', 'Ok')).toEqual([]);
    expect(issuedBy('G1 in on 14 Mar 2026.', '14 Mar 2026')).toEqual([]);
    expect(issuedBy('G1 checked in: stay KQB.', 'KQ')).toEqual([]);
  });
  it("takes no word the issuing tool answers alike on other arguments (the template's own words)", () => {
    const log = [A('check_in', { guest: 'G1' }), A('check_in', { guest: 'G2' }), A('close_stay', { stay_id: 'Noted' })];
    expect(issuesOf(log, ['G1 in. Noted.', 'G2 in. Noted.', ''])[2]).toEqual([]);
    // The same answer to the same call (a listing read twice) is not a template: its ids stay issued.
    const again = [
      A('check_in', { guest: 'G1' }),
      A('check_in', { guest: 'G1' }),
      A('close_stay', { stay_id: 'Maple' }),
    ];
    expect(issuesOf(again, ['room Maple', 'room Maple', ''])[2]).toHaveLength(1);
  });
  it('links a check-out by a letter id to its check-in and binds each use to the new answer', () => {
    const log = [
      A('check_in', { guest: 'G1', date: '2026-03-01' }),
      A('close_stay', { stay_id: 'ST-KQB', date: '2026-03-12' }),
      A('submit'),
    ];
    expect(sequenceReshapings(META, log, 8, O)).toEqual([]);
    const [re] = sequenceReshapings(META, log, 8, O, ['G1 checked in on 2026-03-01: stay ST-KQB.', '', '']);
    expect(re?.binds?.map((b) => [b.at, b.from, b.value])).toEqual([
      [1, 0, 'ST-KQB'],
      [3, 2, 'ST-KQB'],
      [5, 4, 'ST-KQB'],
    ]);
    expect(new RegExp(re?.binds?.[0]?.shape ?? '$^', 'g').exec('G1 checked in on 2026-03-04: stay ST-KQC.')?.[0]).toBe(
      'ST-KQC',
    );
  });
});

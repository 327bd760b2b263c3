// The rule ablation composed with the plan's free choices (validators/episodic/free-choices.ts).
import { describe, expect, it } from 'vitest';
import {
  movedAblations,
  namesNoEntity,
  playedSwitches,
  respelledAblations,
  switchedAblations,
  switchesOf,
} from '../validators/episodic/free-choices.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

describe('respelledAblations', () => {
  const removed = [A('approve', { guest_id: 'G12' })];
  const ablated = [A('list'), A('book', { guest_id: 'G12', date: '2026-04-01', nights: 9 }), A('submit')];

  it('re-spells only the ids the removed step named, in the guarded calls, one log a spelling', () => {
    const logs = respelledAblations(removed, ablated);
    expect(logs.map((l) => l.how)).toEqual(['the guarded ids in lower case', 'the guarded ids with spaces around']);
    const lower = logs[0]?.actions;
    expect(lower?.[1]).toEqual(A('book', { guest_id: 'g12', date: '2026-04-01', nights: 9 }));
    expect(lower?.[0]).toEqual(A('list'));
    expect(logs[1]?.actions[1]?.args.guest_id).toBe(' G12 ');
  });

  it('drops a spelling that changes nothing (upper case of an upper-case id) and keeps it for a lower-case id', () => {
    expect(respelledAblations(removed, ablated).find((l) => l.how.includes('upper'))).toBeUndefined();
    const low = respelledAblations([A('approve', { guest_id: 'g12' })], [A('book', { guest_id: 'g12' }), A('submit')]);
    expect(low.map((l) => l.actions[0]?.args.guest_id)).toEqual(['G12', ' g12 ']);
  });

  it('sends nothing where no kept call names an entity the removed step named', () => {
    expect(respelledAblations([A('approve', { guest_id: 'G7' })], ablated)).toEqual([]);
  });

  it('leaves the finishing call as it was', () => {
    const fin = [A('book', { guest_id: 'G12' }), A('close', { guest_id: 'G12' })];
    for (const l of respelledAblations(removed, fin)) expect(l.actions[1]).toEqual(A('close', { guest_id: 'G12' }));
  });
});

describe('switchesOf and switchedAblations', () => {
  const required = (t: ReturnType<typeof tool>, names: string[]) => ({
    ...t,
    parameters: { ...t.parameters, required: names },
  });
  const meta = metaWith([
    tool('list', {}),
    required(tool('book', { guest_id: { type: 'string' } }), ['guest_id']),
    tool('waive', {}),
    tool('submit', {}),
  ]);

  it('takes the tools the reference never plays that need no argument', () => {
    expect(switchesOf(meta, new Set(['list', 'book', 'submit']))).toEqual(['waive']);
    expect(switchesOf(meta, new Set(['list', 'submit']))).toEqual(['waive']);
  });

  it('plays each switch first, before the ablated plan', () => {
    const plan = [A('book', { guest_id: 'G1' }), A('submit')];
    expect(switchedAblations(['waive'], plan)).toEqual([{ how: 'waive played first', actions: [A('waive'), ...plan] }]);
  });
});

describe('playedSwitches and movedAblations (redteam-trust14 Y7)', () => {
  const meta = metaWith([
    tool('list', {}),
    tool('book', { guest_id: { type: 'string' }, nights: { type: 'integer' } }),
    tool('set_desk', { mode: { type: 'string', enum: ['day', 'late'] } }),
    tool('close', {}),
    tool('submit', {}),
  ]);

  it('a call names no entity where no argument is a free string', () => {
    expect(namesNoEntity(meta, A('close'))).toBe(true);
    expect(namesNoEntity(meta, A('set_desk', { mode: 'late' }))).toBe(true);
    expect(namesNoEntity(meta, A('book', { guest_id: 'G1', nights: 3 }))).toBe(false);
  });

  it("takes the reference's own state-changing calls naming no entity, a tool each first, latest first", () => {
    const body = [A('list'), A('set_desk', { mode: 'late' }), A('book', { guest_id: 'G1', nights: 3 }), A('close')];
    expect(playedSwitches(meta, body, [false, true, true, true])).toEqual([
      A('close'),
      A('set_desk', { mode: 'late' }),
    ]);
    const pages = [1, 2, 3, 4].map((page) => A('list', { page }));
    expect(playedSwitches(meta, [...body, ...pages])).toEqual([
      A('list', { page: 4 }),
      A('close'),
      A('set_desk', { mode: 'late' }),
      A('list', { page: 3 }),
    ]);
  });

  it('moves each switch to the front of the ablated plan, none where it is first, absent or the finish', () => {
    const plan = [A('book', { guest_id: 'G1', nights: 9 }), A('close'), A('submit')];
    expect(movedAblations([A('close')], plan)).toEqual([
      { how: 'close moved first', actions: [A('close'), A('book', { guest_id: 'G1', nights: 9 }), A('submit')] },
    ]);
    expect(movedAblations([A('book', { guest_id: 'G1', nights: 9 }), A('submit'), A('list')], plan)).toEqual([]);
  });
});

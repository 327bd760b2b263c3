// The tools in no plan that episodic-withheld tries (redteam-trust17 R7): a call a rule of the prompt names that
// changes the state is a decision; one that only shares a path with a decision (a waitlist: redteam-trust18 R2) is not.
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { Action } from '../validators/episodic/adversaries.js';
import { decidesUnplanned, unplannedCall, unplannedOf, unplannedTools } from '../validators/episodic/unplanned.js';

const id = { type: 'string', maxLength: 12 };
const tool = (name: string, properties: Record<string, object>, required = Object.keys(properties)) => ({
  name,
  description: name,
  parameters: { type: 'object', properties, required, additionalProperties: false },
});
const meta = {
  name: 'desk',
  tools: [
    tool('list_guests', {}),
    tool('read_guest', { guest_id: id }),
    tool('hold_room', { guest_id: id }),
    tool('add_note', { guest_id: id, text: { type: 'string' } }),
    tool('set_floor', { id, floor: { type: 'integer', minimum: 1, maximum: 9 } }),
    tool('rate', { guest_id: id, tags: { type: 'array' } }),
    tool('book', { guest_id: id, date: { type: 'string' }, nights: { type: 'integer' } }),
    tool('submit', {}),
  ],
} as unknown as EpisodicMeta;

const book = (g: string): Action => ({ tool: 'book', args: { guest_id: g, date: '2026-03-01', nights: 2 } });
const read = (g: string): Action => ({ tool: 'read_guest', args: { guest_id: g } });
const body = [read('G100'), book('G100'), read('G200'), book('G200')];
// The reference's changes: a read bumps a view counter, a booking writes the stay and the hold.
const reference = {
  changes: [
    ['$.views.G100'],
    ['$.bookings.G100', '$.holds.G100'],
    ['$.views.G200'],
    ['$.bookings.G200', '$.holds.G200'],
  ],
  rejected: [],
};

describe('unplanned tools', () => {
  it('are the tools no call of the plan makes that take an entity, the finish aside', () => {
    expect(unplannedTools(meta, body, 'submit', 'guest_id')).toEqual(['hold_room', 'add_note', 'set_floor', 'rate']);
  });

  it('are called with the plan values of the same name, else the schema first choice, else free text', () => {
    expect(unplannedCall(meta, 'set_floor', 'id', 'G300', body)).toEqual({
      tool: 'set_floor',
      args: { id: 'G300', floor: 1 },
    });
    expect(unplannedCall(meta, 'add_note', 'guest_id', 'G300', body)?.args).toEqual({ guest_id: 'G300', text: 'text' });
    expect(unplannedCall(meta, 'rate', 'guest_id', 'G300', body)).toBeNull();
  });

  it('are probed on the withheld entities, templated on a sent one, where a rule names them', () => {
    const cands = [{ tool: 'book', arg: 'guest_id', same: ['G300', 'G400'], others: [] }];
    // Only a tool a rule names can decide, so no other is played (redteam-trust18 R2).
    expect(unplannedOf(meta, body, 'submit', cands, 's', ['Book every guest.'])).toEqual([]);
    // A permission names the tool but governs nothing (redteam-trust18 R5).
    expect(
      unplannedOf(meta, body, 'submit', cands, 's', ['An expired guest may hold a room until they renew.']),
    ).toEqual([]);
    const rules = 'Never hold a room for an expired guest. Never rate a guest.';
    const us = unplannedOf(meta, body, 'submit', cands, 's', [rules]);
    // A rule a reply states names the tool as the prompt's does (redteam-trust20 T8).
    expect(unplannedOf(meta, body, 'submit', cands, 's', ['Book every guest.', rules]).map((u) => u.tool)).toEqual(
      us.map((u) => u.tool),
    );
    const hold = us.find((u) => u.tool === 'hold_room');
    expect(hold?.template).toEqual({ tool: 'hold_room', args: { guest_id: 'G100' } });
    expect(hold?.probe.map((a) => a.args.guest_id)).toEqual(['G300', 'G400']);
    expect(us.some((u) => u.tool === 'rate')).toBe(false);
  });
});

describe('an unplanned tool decides', () => {
  const run = (paths: string[], rejected: number[] = []) => ({
    ok: true,
    turns: 5,
    rejected,
    changes: [...reference.changes, paths],
  });
  const hold: Action[] = [{ tool: 'hold_room', args: { guest_id: 'G300' } }];

  it('a hold in no plan that a rule names decides where its call is accepted and changes the state', () => {
    // That a rule names it is unplannedOf's test (above): a tool no rule names is never probed.
    expect(decidesUnplanned(hold, run(['$.holds.G300']), 4, new Set())).toBe(true);
  });

  it('a call refused, changing nothing, or changing only bookkeeping, is none', () => {
    expect(decidesUnplanned(hold, run(['$.holds.G300'], [5]), 4, new Set())).toBe(false);
    expect(decidesUnplanned(hold, run([]), 4, new Set())).toBe(false);
    expect(decidesUnplanned(hold, run(['$.log']), 4, new Set(['$.log']))).toBe(false);
  });

  it('a call decides wherever it changes the state, not only on a path a decision writes', () => {
    expect(decidesUnplanned(hold, run(['$.notes.G300']), 4, new Set())).toBe(true);
  });
});

// What the episodic readers observe beyond the reference's own replies (issue 28, red-team findings F4, F5, F7):
// near misses of an entity's id, the id's own characters, and what a listing shows changed around a call.
import { describe, expect, it } from 'vitest';
import { changes, differentialFields, readOpening } from '../validators/episodic/differential.js';
import { nearMiss, nearMissCalls, openingSources, sentStrings } from '../validators/episodic/near-miss.js';
import { idFields } from '../validators/episodic/structure.js';
import type { Rollout } from '../sandbox/rollouts.js';

const noLimit = () => undefined;

describe('near misses of an id', () => {
  it('are the id in the other case, padded, with a look-alike letter and less its last character', () => {
    expect(nearMiss('TK1234', 'in another case')).toBe('tk1234');
    expect(nearMiss('TK1234', 'with a trailing space')).toBe('TK1234 ');
    expect(nearMiss('TK1234', 'with a look-alike letter')).toBe('\u0422K1234');
    expect(nearMiss('TK1234', 'less its last character')).toBe('TK123');
  });

  it('are none where they would not differ or not fit the argument', () => {
    expect(nearMiss('1234', 'in another case')).toBeNull();
    expect(nearMiss('1234', 'with a look-alike letter')).toBeNull();
    expect(nearMiss('TK1234', 'with a trailing space', 6)).toBeNull();
  });

  it('are sent for calls naming only ids, kind by kind, never for a call carrying a decision', () => {
    const calls = nearMissCalls(
      [
        { tool: 'read_ticket', args: { ticket_id: 'TK1' } },
        { tool: 'route', args: { ticket_id: 'TK1', queue: 'billing' } },
        { tool: 'read_ticket', args: { ticket_id: 'TK2' } },
        { tool: 'read_ticket', args: { ticket_id: 'TK1' } },
      ],
      noLimit,
    );
    expect(calls.map((c) => c.args.ticket_id)).toEqual([
      'tk1',
      'tk2',
      'TK1 ',
      'TK2 ',
      '\u0422K1',
      '\u0422K2',
      'TK',
      'TK',
    ]);
    expect(calls.every((c) => c.tool === 'read_ticket')).toBe(true);
  });

  it('reply at a place of their own, apart from the tool’s reply to the id as sent', () => {
    const sent = [{ tool: 'read_ticket', args: { ticket_id: 'TK1' } }];
    const log = [
      ...sent,
      { tool: 'read_ticket', args: { ticket_id: 'tk1' } },
      { tool: 'read_ticket', args: { ticket_id: 'TK0' } },
    ];
    expect(openingSources(log, sentStrings(sent))).toEqual([
      "read_ticket's reply",
      "read_ticket's reply to an id in another case",
      "read_ticket's reply",
    ]);
  });
});

describe("an id's own fields", () => {
  it('read its characters from either end and what follows its letters', () => {
    const f = idFields('TK2417');
    expect(f).toContain("the id's character 1 from the end: 7");
    expect(f).toContain("the id's character 3 from the start: 2");
    expect(f).toContain("the id's first 1 after its letters: 2");
    expect(f).toContain("the id's last 2: 17");
  });

  it("read its number's quartile among the episode's ids", () => {
    const peers = ['TK1001', 'TK1002', 'TK1003', 'TK1004'];
    expect(idFields('TK1001', peers)).toContain("the id's number among the episode's ids: quartile 1");
    expect(idFields('TK1004', peers)).toContain("the id's number among the episode's ids: quartile 4");
    expect(idFields('TK1004', peers.slice(0, 3)).some((f) => f.includes('quartile'))).toBe(false);
  });
});

describe('differential readings', () => {
  it('name the changed token by its label and direction', () => {
    expect(
      changes('Waiting: billing 2, shipping 1. On hold: 0.', 'Waiting: billing 1, shipping 1. On hold: 1.'),
    ).toEqual(['billing down', 'hold up']);
    expect(changes('north [==] | south [=] |', 'north [=] | south [=] |')).toEqual(['north shorter']);
    expect(changes('Open: TK1, TK2', 'Open: TK2')).toEqual(['open fewer tokens']);
    expect(changes('same', 'same')).toEqual([]);
  });

  it('attribute a listing’s change to the one call about an entity between its two readings', () => {
    const log = [
      { tool: 'stats', args: {} },
      { tool: 'hold', args: { id: 'TK1' } },
      { tool: 'stats', args: {} },
      { tool: 'hold', args: { id: 'TK2' } },
      { tool: 'hold', args: { id: 'TK3' } },
      { tool: 'stats', args: {} },
    ];
    const fields = differentialFields(
      log,
      ['billing 2', 'ok', 'billing 1', 'ok', 'ok', 'billing 0'],
      new Set(['TK1', 'TK2', 'TK3']),
    );
    expect(fields.get('tk1')).toEqual(["in stats's reply around hold, what changed: billing down"]);
    expect(fields.has('tk2')).toBe(false);
  });

  it('keep listings read after a call out of the other readers’ texts', () => {
    const ref = {
      seed: 0,
      level: 1,
      actions: [
        { tool: 'hold', args: { id: 'TK1' } },
        { tool: 'done', args: {} },
      ],
    } as unknown as Rollout;
    const log = [
      { tool: 'stats', args: {} },
      { tool: 'hold', args: { id: 'TK1' } },
      { tool: 'stats', args: {} },
    ];
    const replies = readOpening(log, ['a 1', 'held', 'a 0'], ref);
    expect(replies.sources).toEqual(["stats's reply", "hold's reply", "stats's reply read again after a call"]);
    expect(replies.diffs?.get('tk1')).toEqual(["in stats's reply around hold, what changed: a down"]);
  });
});

// Near misses as a family and the id's relation to other values (issue 28, red-team rt28b G3 and G5): the screen
// sends every kind of the family once and keeps the kinds a world answers otherwise than an unknown id; the id's
// keys (substrings, number, digit sum) found elsewhere are fields a reader fits, and a code table the prompt lists
// beside them is read like a word next to the id.
import { describe, expect, it } from 'vitest';
import {
  freshScreenCalls,
  nearMiss,
  nearMissCalls,
  repeatedScreen,
  responsiveKinds,
  screenCalls,
} from '../validators/episodic/near-miss.js';
import { idKeys, joinFields, wordsOf } from '../validators/episodic/join.js';
import { fieldTrials, type FieldSample } from '../validators/episodic/readers.js';

const noLimit = () => undefined;

describe('the near-miss family', () => {
  it('holds the slips a user makes and the images of the id under a world’s normalisations', () => {
    expect(nearMiss('TK-0482', 'without its punctuation')).toBe('TK0482');
    expect(nearMiss('TK-0482', 'with its punctuation swapped')).toBe('TK_0482');
    expect(nearMiss('TK0482', 'with a mark between letters and digits')).toBe('TK-0482');
    expect(nearMiss('TK-0482', 'with a leading space')).toBe(' TK-0482');
    expect(nearMiss('TK-0482', 'with a zero before its number')).toBe('TK-00482');
    expect(nearMiss('TK-0482', 'without the zeros before its number')).toBe('TK-482');
    expect(nearMiss('TK-0482', 'in full-width characters')?.normalize('NFKC')).toBe('TK-0482');
    expect(nearMiss('TK-0482', 'with its last two characters swapped')).toBe('TK-0428');
    expect(nearMiss('TK-0482', 'with its last character doubled')).toBe('TK-04822');
    expect(nearMiss('TK-0482', 'with its digits only')).toBe('0482');
    expect(nearMiss('TK-0482', 'in lower case, without its punctuation')).toBe('tk0482');
  });

  it('has no member where the id has nothing to change', () => {
    expect(nearMiss('TK0482', 'without its punctuation')).toBeNull();
    expect(nearMiss('TK-482', 'without the zeros before its number')).toBeNull();
    expect(nearMiss('4821', 'with its digits only')).toBeNull();
  });

  const calls = [
    { tool: 'read_ticket', args: { ticket_id: 'TK-4821' } },
    { tool: 'route', args: { ticket_id: 'TK-4821', queue: 'billing' } },
    { tool: 'read_ticket', args: { ticket_id: 'TK-1234' } },
  ];
  it('is screened on one id call: an unknown id and the id first, then each kind once, none sent twice', () => {
    const screen = screenCalls(calls, noLimit);
    expect(screen.log.slice(0, 2)).toEqual([
      { tool: 'read_ticket', args: { ticket_id: 'GX-9376' } },
      { tool: 'read_ticket', args: { ticket_id: 'TK-4821' } },
    ]);
    expect(screen.kinds).toContain('without its punctuation');
    expect(screen.kinds).toContain('with its digits only');
    const sent = screen.log.map((a) => a.args.ticket_id);
    expect(new Set(sent).size).toBe(sent.length);
    expect(screen.log.every((a) => a.tool === 'read_ticket')).toBe(true);
  });

  it("screens only calls naming ids, never one carrying a decision's value in capitals or capitalised", () => {
    const decided = [
      { tool: 'route', args: { ticket_id: 'TK-4821', queue: 'Billing' } },
      { tool: 'route', args: { ticket_id: 'TK-4821', queue: 'HIGH PRIORITY' } },
      { tool: 'hold', args: { ticket_id: 'TK-4821', desk: 'LHR' } },
    ];
    expect(screenCalls(decided, noLimit).log.every((a) => a.tool === 'hold')).toBe(true);
    expect(nearMissCalls(decided, noLimit).map((a) => a.tool)).toEqual(['hold', 'hold', 'hold', 'hold']);
  });

  it('keeps the kinds a world answers otherwise than an unknown id and than the id itself (a trimmed space)', () => {
    const screen = screenCalls(calls, noLimit);
    const replies = screen.log.map((a) => {
      const v = String(a.args.ticket_id);
      if (v === 'TK4821') return `No ticket ${v}. Ids carry a hyphen; TK-4821 waits at desk 2.`;
      return v.trim() === 'TK-4821' ? 'TK-4821: "My parcel has not arrived."' : `No ticket ${v}.`;
    });
    expect(responsiveKinds(screen, replies, ['TK-4821', 'TK-1234'])).toEqual(['without its punctuation']);
    expect(
      responsiveKinds(
        screen,
        screen.log.map((a) => `No ticket ${a.args.ticket_id}.`),
        ['TK-4821'],
      ),
    ).toEqual([]);
  });

  // A world whose search takes an unhyphenated id for the id once the ticket was opened (or, with `listing`, only
  // once listed), and before answers with its desk (redteam-trust6 H3).
  const world = (log: readonly { tool: string; args: Record<string, unknown> }[], listing = false) => {
    const opened = new Set<string>();
    let listed = false;
    return log.map((a) => {
      if (a.tool === 'list') return ((listed = true), 'Open: TK-4821, TK-1234');
      const v = String(a.args.ticket_id);
      const id = /^TK\d+$/.test(v) ? `TK-${v.slice(2)}` : v;
      if (v.trim() === id && ['TK-4821', 'TK-1234'].includes(id)) return (opened.add(id), `${id}: "My parcel."`);
      if (opened.has(id)) return `${id}: "My parcel."`;
      return id !== v && (listing ? !listed : true) ? `No ticket ${v}. ${id} waits at desk 2.` : `No ticket ${v}.`;
    });
  };
  const listed = [{ tool: 'list', args: {} }, ...calls];
  it('plays each kind once the entity was touched, where a path only before the read goes unseen', () => {
    const screen = screenCalls(listed, noLimit);
    expect(responsiveKinds(screen, world(screen.log), ['TK-4821', 'TK-1234'])).toEqual([]);
  });

  it('plays each kind before the id is named too, its own kinds included, each id then as itself', () => {
    const opts = { limit: 49, offset: 0, entities: 4, listed: true };
    const screen = freshScreenCalls(listed, noLimit, opts);
    expect(screen.log[0]).toEqual({ tool: 'list', args: {} });
    const ids = screen.log.map((a) => String(a.args.ticket_id));
    // Every miss of an id comes before the id as itself, and both ids take misses.
    for (const id of ['TK-4821', 'TK-1234'])
      expect(ids.lastIndexOf(id)).toBeGreaterThan(
        Math.max(...ids.flatMap((v, i) => (v !== id && nearMissOf(v, id) ? [i] : []))),
      );
    expect(screen.kinds).toContain('in another case');
    expect(responsiveKinds(screen, world(screen.log), ['TK-4821', 'TK-1234'])).toContain('without its punctuation');
    expect(freshScreenCalls(listed, noLimit, { ...opts, limit: 10 }).log.length).toBeLessThanOrEqual(10);
    const turned = freshScreenCalls(listed, noLimit, { ...opts, offset: 1 });
    expect(turned.kinds.find((k) => k !== null)).not.toBe(screen.kinds.find((k) => k !== null));
  });

  it('plays them before any listing as well: a path only the unlisted state reaches is seen', () => {
    const opts = { limit: 49, offset: 0, entities: 4 };
    const after = freshScreenCalls(listed, noLimit, { ...opts, listed: true });
    expect(responsiveKinds(after, world(after.log, true), ['TK-4821', 'TK-1234'])).toEqual([]);
    const before = freshScreenCalls(listed, noLimit, { ...opts, listed: false });
    expect(before.log.some((a) => a.tool === 'list')).toBe(false);
    expect(responsiveKinds(before, world(before.log, true), ['TK-4821', 'TK-1234'])).toContain(
      'without its punctuation',
    );
    expect(freshScreenCalls(calls, noLimit, { ...opts, listed: true }).log).toEqual([]);
  });

  // A world whose search answers an unhyphenated id with its desk only when the same miss is asked again
  // (redteam-trust7 I2).
  const twice = (log: readonly { tool: string; args: Record<string, unknown> }[]) => {
    const asked = new Map<string, number>();
    return log.map((a) => {
      const v = String(a.args.ticket_id);
      if (['TK-4821', 'TK-1234'].includes(v)) return `${v}: "My parcel."`;
      asked.set(v, (asked.get(v) ?? 0) + 1);
      const hint = /^TK\d+$/.test(v) && (asked.get(v) as number) >= 2 ? ` TK-${v.slice(2)} waits at desk 2.` : '';
      return `No ticket ${v}.${hint}`;
    });
  };
  it('sees a path answered only at the second touch once every call of a screen is sent twice in a row', () => {
    const opts = { limit: 49, offset: 0, entities: 4, listed: false };
    for (const screen of [screenCalls(listed, noLimit), freshScreenCalls(listed, noLimit, opts)]) {
      expect(responsiveKinds(screen, twice(screen.log), ['TK-4821', 'TK-1234'])).toEqual([]);
      const again = repeatedScreen(screen, 2, 200);
      expect(again.log.length).toBe(2 * screen.log.length);
      expect(again.log[0]).toEqual(again.log[1]);
      expect(responsiveKinds(again, twice(again.log), ['TK-4821', 'TK-1234'])).toContain('without its punctuation');
      // A control answered as often as the miss: a world that adds the same line to every repeated miss is no path.
      const blunt = again.log.map((a, i) => `No ticket ${a.args.ticket_id}.${i % 2 ? ' Asked again.' : ''}`);
      expect(responsiveKinds(again, blunt, ['TK-4821', 'TK-1234'])).toEqual([]);
    }
    expect(repeatedScreen(screenCalls(listed, noLimit), 2, 7).log).toHaveLength(7);
  });

  it('sends the near misses of a kind answered when asked again that often for every id', () => {
    const sent = nearMissCalls(calls, noLimit, ['without its punctuation'], 2).map((a) => a.args.ticket_id);
    expect(sent).toEqual(['TK4821', 'TK4821', 'TK1234', 'TK1234']);
  });
});

/** Whether `v` is a near miss of `id` (another string equal to it once case, spaces and punctuation are folded). */
const nearMissOf = (v: string, id: string) =>
  v !== id && v.toLowerCase().replace(/[^a-z0-9]/g, '') === id.toLowerCase().replace(/[^a-z0-9]/g, '');

describe('join fields', () => {
  it('key an id by its substrings, its number and its digit sum', () => {
    const keys = new Map(idKeys('TK4795'));
    expect(keys.get("the id's last 2")).toBe('95');
    expect(keys.get("the id's number")).toBe('4795');
    expect(keys.get("the id's digit sum")).toBe('25');
    expect([...keys.values()]).not.toContain('tk4795');
  });

  const prompt = 'Desk 512: route each ticket.\n(queue desks today: billing 95, shipping 12, technical 17)';
  const ids = [wordsOf('TK4795'), wordsOf('TK3312')];
  it('read the words beside a key found elsewhere, not inside a mention of an id', () => {
    const fields = joinFields('TK4795', [['the prompt', `${prompt}\nOpen: TK4795, TK3312`]], ids, new Set(), {
      mark: 'STATED',
      applies: false,
    });
    expect(fields).toContain("in the prompt, the word 1 before the id's last 2: billing");
    expect(fields.some((f) => f.includes('tk3312'))).toBe(false);
  });

  it('mark a word of the rules as stated only where the reference decides without reading the entity', () => {
    const rules = new Set(['billing']);
    const texts: Array<[string, string]> = [['the prompt', prompt]];
    const field = "the word 1 before the id's last 2: billing";
    expect(joinFields('TK4795', texts, ids, rules, { mark: 'STATED', applies: true })).toContain(
      `in the prompt, STATED ${field}`,
    );
    expect(joinFields('TK4795', texts, ids, rules, { mark: 'STATED', applies: false })).toContain(
      `in the prompt, ${field}`,
    );
  });

  const QUEUES = ['billing', 'shipping', 'technical'];
  const samples = (filed: (queue: string, i: number) => string): FieldSample[] =>
    Array.from({ length: 90 }, (_, i) => {
      const value = QUEUES[(i * 7 + 3) % 3] as string;
      const codes = [10 + (i % 50), 60 + (i % 30), 91 + (i % 8)];
      const code = codes[QUEUES.indexOf(filed(value, i))] as number;
      const text = `desks: billing ${codes[0]}, shipping ${codes[1]}, technical ${codes[2]}`;
      const id = `TK${10 + (i % 80)}${code}`;
      return {
        level: 1 + (i % 3),
        value,
        fields: new Set(
          joinFields(id, [['the prompt', text]], [wordsOf(id)], new Set(), { mark: 'S', applies: false }),
        ),
      };
    });
  it('let the field reader learn a per-episode code table the id keys into; nothing where the key is random', () => {
    const rate = (s: FieldSample[]) => fieldTrials(s).pooled.reduce((a, t) => a + t.win, 0) / s.length;
    expect(rate(samples((q) => q))).toBeGreaterThan(0.9);
    expect(rate(samples((_q, i) => QUEUES[Math.floor(i / 3) % 3] as string))).toBeLessThan(0.5);
  });
});

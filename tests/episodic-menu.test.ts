// A split is a plan over the whole tool menu (redteam-trust11 H4): an amount the reference sends in one call, its parts
// sent through a tool the reference never calls that names the same entity. Pure log builders here; the fixtures'
// verdicts are in redteam-trust4.test.ts.
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import { type MenuOptions, menuSplits } from '../validators/episodic/menu.js';

const A = (tool: string, args: Record<string, unknown> = {}) => ({ tool, args });
const tool = (name: string, properties: Record<string, unknown>, required = Object.keys(properties)) => ({
  name,
  description: name,
  parameters: { type: 'object', properties, required, additionalProperties: false },
});
const S = { type: 'string' };
const N = { type: 'integer', minimum: 1 };
const META = {
  name: 'm',
  title: 'm',
  description: 'm',
  skills: [],
  levels: 1,
  kind: 'episodic',
  maxTurns: 20,
  tools: [
    tool('read_guest', { guest_id: S }),
    tool('book', { guest_id: S, date: S, nights: N }),
    tool('extend_stay', { guest_id: S, nights: N }),
    tool('add_nights', { booking: S, count: N }),
    tool('reserve_hold', { guest_id: S, nights: N }),
    tool('set_floor', { room: S, wing: S, floor: N }),
    tool('mode', { guest_id: S, level: { type: 'integer', enum: [1, 2] } }),
    tool('submit', {}),
  ],
} as unknown as EpisodicMeta;
const O: MenuOptions = { tools: 8, logs: 32, most: 8 };
const LOG = [
  A('read_guest', { guest_id: 'G1' }),
  A('book', { guest_id: 'G1', date: '2026-03-01', nights: 11 }),
  A('submit'),
];
const USED = new Set(['read_guest', 'book', 'submit', 'request_approval']);
const shown = (log: Array<{ tool: string; args: Record<string, unknown> }>) =>
  log.map((a) => [a.tool, ...Object.values(a.args)].join(' '));

describe('a split sent through a tool the reference never calls', () => {
  it('books the first part, the rest through an unused tool on the same entity, in two and in more parts', () => {
    const plans = menuSplits(META, LOG, 20, USED, O).filter((p) => p.how.includes('extend_stay'));
    expect(plans.map((p) => shown(p.actions))).toContainEqual([
      'read_guest G1',
      'book G1 2026-03-01 6',
      'extend_stay G1 5',
      'submit',
    ]);
    // Two extends and more: as many parts as the turns left allow.
    const many = plans.find((p) => p.how.includes('into 8 parts, the rest'));
    expect(many && shown(many.actions).slice(1, -1)).toEqual([
      'book G1 2026-03-01 2',
      ...['2', '2', '1', '1', '1', '1', '1'].map((n) => `extend_stay G1 ${n}`),
    ]);
  });

  it('sends the first parts through the other tool, the own call last (reserve_hold, then book)', () => {
    const plans = menuSplits(META, LOG, 20, USED, O).filter((p) => p.how.includes('reserve_hold'));
    expect(plans.map((p) => shown(p.actions))).toContainEqual([
      'read_guest G1',
      'reserve_hold G1 6',
      'book G1 2026-03-01 5',
      'submit',
    ]);
  });

  it("fills a differently named entity with the id the own call was answered, bound to the new call's answer", () => {
    const heard = ['G1: 2026-03-01 to 2026-03-12', 'G1: booking BK-4821, 11 nights from 2026-03-01'];
    const plan = menuSplits(META, LOG, 20, USED, O, heard).find((p) => p.how.includes('add_nights.count'));
    expect(plan && shown(plan.actions)).toEqual([
      'read_guest G1',
      'book G1 2026-03-01 6',
      'add_nights BK-4821 5',
      'submit',
    ]);
    expect(plan?.binds).toEqual([
      { at: 2, arg: 'booking', value: 'BK-4821', from: 1, shape: expect.any(String), nth: 0 },
    ]);
    // The partner cannot open before the call that issues its id; with no id answered, the entity the call names is
    // sent under the partner's name for it, in either order.
    expect(menuSplits(META, LOG, 20, USED, O, heard).some((p) => p.how.includes('the first through add_nights'))).toBe(
      false,
    );
    const named = menuSplits(META, LOG, 20, USED, O).filter(
      (p) => p.how.includes('add_nights') && p.how.includes(' 2 '),
    );
    expect(named.map((p) => shown(p.actions).slice(1, 3))).toEqual([
      ['book G1 2026-03-01 6', 'add_nights G1 5'],
      ['add_nights G1 6', 'book G1 2026-03-01 5'],
    ]);
    expect(named.every((p) => p.binds === undefined)).toBe(true);
  });

  it('never sends parts through the own tool, the guarded step, the finish, an unnamed entity or an enum', () => {
    const hows = menuSplits(META, LOG, 20, USED, O, undefined, 'reserve_hold').map((p) => p.how);
    expect(hows.some((h) => /set_floor|mode|read_guest|submit|through book|reserve_hold/.test(h))).toBe(false);
    expect(hows.some((h) => h.includes('extend_stay'))).toBe(true);
  });

  it('sends parts through a tool the reference calls too (rt12 W4), after the unused ones under the cap', () => {
    const used = new Set([...USED, 'extend_stay']);
    const log = [LOG[0], LOG[1], A('extend_stay', { guest_id: 'G1', nights: 2 }), LOG[2]] as typeof LOG;
    const plan = menuSplits(META, log, 20, used, O).find((p) =>
      p.how.includes('book.nights split into 2 parts, the rest through extend_stay'),
    );
    expect(plan && shown(plan.actions)).toEqual([
      'read_guest G1',
      'book G1 2026-03-01 6',
      'extend_stay G1 5',
      'extend_stay G1 2',
      'submit',
    ]);
    const one = menuSplits(META, LOG, 20, used, { ...O, tools: 1 }).map((p) => p.how);
    expect(one.length > 0 && one.every((h) => h.includes('reserve_hold'))).toBe(true);
  });

  it('stays within the turn limit and the options', () => {
    const tight = menuSplits(META, LOG, 5, USED, O);
    expect(tight.length).toBeGreaterThan(0);
    expect(tight.every((p) => p.actions.length <= 4)).toBe(true);
    expect(menuSplits(META, LOG, 4, USED, O)).toEqual([]);
    expect(menuSplits(META, LOG, 20, USED, { ...O, logs: 3 })).toHaveLength(3);
    expect(menuSplits(META, LOG, 20, USED, { ...O, tools: 1 }).every((p) => p.how.includes('extend_stay'))).toBe(true);
    // Under the cap, the partners that name the entity by the call's own argument come first.
    const two = menuSplits(META, LOG, 20, USED, { ...O, tools: 2 }).map((p) => p.how);
    expect(two.some((h) => h.includes('reserve_hold')) && !two.some((h) => h.includes('add_nights'))).toBe(true);
  });
});

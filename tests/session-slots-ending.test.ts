// A session its client is ending holds no slot while it is scored and journaled (serve/session-slots.ts holdersBut):
// a trainer that closes a batch of unfinished rollouts and opens the next at once is not refused meanwhile (a fresh
// clone's trainer-clients run was, with E_TOO_MANY_SESSIONS, under load).
import { describe, expect, it } from 'vitest';
import type { Client } from '../serve/clients.js';
import { holdersBut, SessionSlots, type SlotHolder } from '../serve/session-slots.js';

const client = { trusted: false, principal: 'loopback', key: 'loopback' } as Client;
const holder = (id: string, who = client): SlotHolder => ({ id, client: who, busy: 1, lastUsed: 0 });
const named = (principal: string) => ({ trusted: false, principal, key: principal }) as Client;

describe('session slots while sessions end', () => {
  it('count every open session but those being ended', () => {
    const open = new Map([holder('a'), holder('b'), holder('c')].map((h) => [h.id, h]));
    const ending = new Set(['b', 'gone']);
    const held = holdersBut(open, ending);
    expect(held.size).toBe(2);
    expect([...held.values()].map((h) => h.id)).toEqual(['a', 'c']);
  });

  it('give a full service a slot once one of its sessions is being ended, and refuse it before', () => {
    const open = new Map([holder('a'), holder('b')].map((h) => [h.id, h]));
    const ending = new Set<string>();
    const slots = new SessionSlots(2, holdersBut(open, ending), () => {});
    expect(() => slots.reserve(client)).toThrow(/limit of 2 open episode sessions/);
    ending.add('a');
    expect(() => slots.reserve(client)()).not.toThrow();
  });

  it('share the ending allowance fairly: a client ending many slow sessions holds its share of it, no more', () => {
    const [a, b] = [named('hostile'), named('trainer')];
    // B (the trainer) holds two sessions open; A has opened and is ending as many as it can.
    const open = new Map(
      [holder('b1', b), holder('b2', b), holder('a1', a), holder('a2', a), holder('a3', a)].map((h) => [h.id, h]),
    );
    const ending = new Map<string, Client>();
    const slots = new SessionSlots(4, holdersBut(open, ending), () => {});
    const endFree = (id: string, who: Client) => slots.mayEndFree(who, ending) && !!ending.set(id, who);
    expect(['a1', 'a2', 'a3'].map((id) => endFree(id, a))).toEqual([true, true, false]); // its share: 4 / 2 clients
    // A's third keeps its slot while it is scored, so A holds its share open plus its share ending, and no more.
    expect(ending.size).toBe(2);
    // B, at its share and ending one session of its own, still ends it without its slot, and opens the next.
    expect(endFree('b1', b)).toBe(true);
    expect(() => slots.reserve(b)).not.toThrow();
  });

  it('keep a share for a client that comes after another took all of it, and stay within twice the limit', () => {
    const ending = new Map<string, Client>();
    const slots = new SessionSlots(2, holdersBut(new Map(), ending), () => {});
    const endFree = (sid: string, who: Client) => slots.mayEndFree(who, ending) && !!ending.set(sid, who);
    expect([endFree('x1', named('x')), endFree('x2', named('x'))]).toEqual([true, true]); // alone: all of it
    expect([endFree('y1', named('y')), endFree('y2', named('y'))]).toEqual([true, false]); // its share: 2 / 2
    expect(endFree('x3', named('x'))).toBe(false);
    expect([endFree('z1', named('z')), endFree('w1', named('w'))]).toEqual([true, false]); // at twice the limit
  });

  it("share a client's allowance among its client ids, as its slots are", () => {
    const id = (key: string) => ({ trusted: false, principal: 'loopback', key }) as Client;
    const [a, b] = [id('loopback A'), id('loopback B')];
    const open = new Map([holder('a1', a), holder('a2', a), holder('b1', b)].map((h) => [h.id, h]));
    const ending = new Map<string, Client>();
    const slots = new SessionSlots(2, holdersBut(open, ending), () => {});
    const endFree = (sid: string, who: Client) => slots.mayEndFree(who, ending) && !!ending.set(sid, who);
    expect([endFree('a1', a), endFree('a2', a)]).toEqual([true, false]); // A's share: 2 / 2 ids
    expect(endFree('b1', b)).toBe(true);
  });

  it('keep a share for a client id that comes after another id of its client ended all of it', () => {
    const id = (key: string) => ({ trusted: false, principal: 'loopback', key }) as Client;
    const ending = new Map<string, Client>();
    const slots = new SessionSlots(2, holdersBut(new Map(), ending), () => {});
    const endFree = (sid: string, who: Client) => slots.mayEndFree(who, ending) && !!ending.set(sid, who);
    expect([endFree('a1', id('A')), endFree('a2', id('A')), endFree('a3', id('A'))]).toEqual([true, true, false]);
    expect([endFree('b1', id('B')), endFree('b2', id('B'))]).toEqual([true, false]);
  });
});

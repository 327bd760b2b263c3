// A session its client is ending holds no slot while it is scored and journaled (serve/session-slots.ts holdersBut):
// a trainer that closes a batch of unfinished rollouts and opens the next at once is not refused meanwhile (a fresh
// clone's trainer-clients run was, with E_TOO_MANY_SESSIONS, under load).
import { describe, expect, it } from 'vitest';
import type { Client } from '../serve/clients.js';
import { holdersBut, SessionSlots, type SlotHolder } from '../serve/session-slots.js';

const client = { trusted: false, principal: 'loopback', key: 'loopback' } as Client;
const holder = (id: string): SlotHolder => ({ id, client, busy: 1, lastUsed: 0 });

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
});

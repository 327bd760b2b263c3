// Nothing a client controls exempts its sessions from eviction (redteam-trust7 I7): a client that keeps a request in
// flight on every slot it took is still evicted for a client holding none; its running requests stand, the ones
// after them are answered E_EPISODE_EVICTED, and the episode resumes from its journal. Steps are gated by hand (a
// fake sandbox), so every assertion follows the order of events, never the clock.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Client } from '../serve/clients.js';
import { EpisodeSessions } from '../serve/episodes.js';
import type { Service } from '../serve/service.js';
import { SessionSlots, type SlotHolder } from '../serve/session-slots.js';

const as = (key: string) => ({ trusted: false, principal: 'loopback', key }) as Client;
const [A, B] = [as('A'), as('B')];
const record = { name: 'slow', version: 1, hash: 'h' };
const meta = { maxTurns: 30, tools: [] };

/** Sessions over a fake sandbox: a reset or a restore answers at once, a step waits until `release()`. */
function table() {
  const service = {
    pool: { options: { workers: 2 } },
    options: { callTimeoutMs: 1_000 },
    catalog: { lookup: () => ({ record }) },
    recordScore: () => {},
  } as unknown as Service;
  const sessions = new EpisodeSessions(service, {
    maxSessions: 2,
    idleMs: 3_600_000,
    journalTtlMs: 3_600_000,
    journalDir: mkdtempSync(join(tmpdir(), 'envforge-busy-')),
    maxEndedJournals: 100,
  });
  const gates: Array<() => void> = [];
  const replays: unknown[][] = [];
  const runner = sessions.runner as unknown as Record<string, unknown>;
  runner.resolve = () => ({ record, meta });
  runner.metaOf = () => meta;
  runner.rollout = (_c: Client, _r: unknown, _m: unknown, _s: number, _l: number, actions: unknown[], o?: object) => {
    const answer = {
      ok: true,
      prompt: 'tick',
      state: { n: actions.length },
      errors: 0,
      actions,
      observations: actions.map(() => 'ticked'),
      end: 'no-action',
      score: 0,
      unscored: true,
    };
    if (!o || !('from' in o)) replays.push(actions); // a reset, or a restore replaying the journal
    if (!o || !('goesOn' in o) || actions.length === 0) return Promise.resolve(answer);
    return new Promise((resolve) => gates.push(() => resolve(answer)));
  };
  const release = () => gates.splice(0).forEach((open) => open());
  return { sessions, gates, replays, release };
}

const identity = (seed: number) => ({ env: 'slow', seed, level: 1 });
const tick = { tool: 'tick', args: {} };
/** Waits (by turns of the event loop, not the clock) until `n` steps wait at the gate. */
const until = async (gates: unknown[], n: number) => {
  while (gates.length < n) await new Promise((resolve) => setImmediate(resolve));
};

describe('session slots held busy', () => {
  it('evict a busy session of a client over its share for one holding none, and let it resume', async () => {
    const { sessions, gates, replays, release } = table();
    const a1 = (await sessions.create(identity(1), A)).id;
    const a2 = (await sessions.create(identity(2), A)).id;
    // A keeps a step running on each of its sessions and one more queued behind it.
    const running = [a1, a2].map((id) => sessions.step(id, tick, 1, A));
    const queued = [a1, a2].map((id) => sessions.step(id, tick, 2, A).catch((e: { code: string }) => e.code));
    await until(gates, 2); // both steps are in flight
    const b = await sessions.create(identity(3), B); // B holds nothing: it gets a slot now
    expect(sessions.size).toBe(2);
    // A's least recently used session (a1) was evicted: a request to it now is answered so.
    await expect(sessions.get(a1, A)).rejects.toMatchObject({ code: 'E_EPISODE_EVICTED', status: 503 });
    release();
    // The running steps stand; the step queued behind the evicted one is refused, the other runs.
    expect((await Promise.all(running)).map((r) => r.turn)).toEqual([1, 1]);
    await until(gates, 1); // the step queued on a2 runs; the one on a1 does not
    release();
    expect(await Promise.all(queued)).toEqual(['E_EPISODE_EVICTED', expect.objectContaining({ turn: 2 })]);
    // A is at its share (a2, idle) while B holds the other slot: a read of a1 needs no slot (redteam-v23 V23-3) ...
    expect(await sessions.get(a1, A)).toMatchObject({ episode: a1, turn: 1, done: false });
    expect(sessions.size).toBe(2);
    // ... and its step takes back A's own idle a2 (V23-2): a1 resumes from its journal, its running step included.
    replays.length = 0;
    const next = sessions.step(a1, tick, 2, A);
    await until(gates, 1);
    release();
    expect(await next).toMatchObject({ episode: a1, turn: 2 });
    expect(replays[0]).toEqual([tick]);
    expect(await sessions.get(b.id, B)).toMatchObject({ turn: 0 }); // B's slot was never A's to take
    await sessions.close();
  });

  it("take back the asker's own least recently used idle session before a 429, never another client's", () => {
    const held = (id: string, client: Client, busy: number, lastUsed: number): SlotHolder => ({
      id,
      client,
      busy,
      lastUsed,
    });
    const open = new Map(
      [held('b-old', B, 0, 0), held('a-busy', A, 1, 1), held('a-idle', A, 0, 5), held('b-new', B, 0, 9)].map((h) => [
        h.id,
        h,
      ]),
    );
    const evicted: string[] = [];
    const slots = new SessionSlots(4, open, (id) => evicted.push(id));
    slots.reserve(A)(); // A at its share of 2: its own idle session, not B's older one
    expect(evicted).toEqual(['a-idle']);
    open.delete('a-idle');
    open.set('a-new', held('a-new', A, 1, 10));
    expect(() => slots.reserve(A)).toThrow(/client A holds 2 .*fair share is 2 .*every session it holds is busy/);
    expect(evicted).toEqual(['a-idle']);
  });

  it('end and read an evicted episode without a slot while every session of its client is busy', async () => {
    const { sessions, gates, release } = table();
    const a1 = (await sessions.create(identity(1), A)).id;
    await sessions.create(identity(2), A);
    const a3 = (await sessions.create(identity(3), A)).id; // A's own idle a1 taken back, back to its journal
    const ids = [...(sessions as unknown as { open: Map<string, unknown> }).open.keys()];
    expect(ids).not.toContain(a1);
    const running = ids.map((id) => sessions.step(id, tick, 1, A));
    await until(gates, 2); // every slot of A's is busy
    await expect(sessions.step(a1, tick, 1, A)).rejects.toMatchObject({ code: 'E_TOO_MANY_SESSIONS' });
    expect(await sessions.get(a1, A)).toMatchObject({ episode: a1, turn: 0, done: false });
    expect(await sessions.end(a1, A)).toMatchObject({ episode: a1, done: true, end: 'truncated' });
    expect(await sessions.get(a1, A)).toMatchObject({ done: true, end: 'truncated' });
    expect(sessions.size).toBe(2);
    release();
    expect((await Promise.all(running)).map((r) => r.turn)).toEqual([1, 1]);
    expect(await sessions.end(a3, A)).toMatchObject({ done: true });
    await sessions.close();
  });

  it('keep a session a read rebuilt where a slot is free (its next step replays nothing)', async () => {
    const { sessions, gates, replays, release } = table();
    const a1 = (await sessions.create(identity(1), A)).id;
    (sessions as unknown as { evict(id: string): void }).evict(a1); // as an idle sweep or a restart leaves it
    expect(await sessions.get(a1, A)).toMatchObject({ turn: 0 });
    expect(sessions.size).toBe(1);
    replays.length = 0;
    const next = sessions.step(a1, tick, 1, A);
    await until(gates, 1);
    release();
    expect(await next).toMatchObject({ turn: 1 });
    expect(replays).toEqual([]);
    await sessions.close();
  });

  it('end an evicted episode twice at once, and read one while it is stepped, holding no slot after', async () => {
    const { sessions } = table();
    const [a1, a2] = [(await sessions.create(identity(1), A)).id, (await sessions.create(identity(2), A)).id];
    await sessions.create(identity(3), A); // a1 back to its journal
    await sessions.create(identity(4), A); // a2 too
    const ends = await Promise.all([sessions.end(a1, A), sessions.end(a1, A)]);
    expect(ends.map((e) => e.end)).toEqual(['truncated', 'truncated']);
    // A step joining a read's rebuild would hold a session no slot counts: it is answered evicted (retry: it resumes in
    // a slot), and the reads stand.
    const reads = [sessions.get(a2, A), sessions.get(a2, A)];
    const stepped = sessions.step(a2, tick, 1, A).catch((e: { code: string }) => e.code);
    expect(await Promise.all(reads)).toMatchObject([{ turn: 0 }, { turn: 0 }]);
    expect(await stepped).toBe('E_EPISODE_EVICTED');
    const inside = sessions as unknown as { ending: Map<string, unknown> };
    expect([inside.ending.size, sessions.size]).toEqual([0, 2]);
    await sessions.close();
  });

  it('prefer an idle session of the same client, and evict no busy one past `max` still finishing', () => {
    const held = (id: string, busy: number, lastUsed: number): SlotHolder => ({ id, client: A, busy, lastUsed });
    const open = new Map([held('busy-old', 1, 0), held('idle-new', 0, 5)].map((h) => [h.id, h]));
    const evicted: string[] = [];
    let draining = 0;
    const slots = new SessionSlots(
      2,
      open,
      (id) => evicted.push(id),
      undefined,
      () => draining,
    );
    slots.reserve(B)();
    expect(evicted).toEqual(['idle-new']);
    open.delete('idle-new');
    open.set('busy-new', held('busy-new', 1, 9));
    draining = 2;
    expect(() => slots.reserve(B)).toThrow(
      new RegExp(
        'client B holds 0 \\(loopback 2\\): below its fair share ' +
          "\\(1 per client id while 2 ids share their client's\\), " +
          'but no slot over a share can be evicted now: 2 evicted are still finishing their requests \\(at most 2\\)',
      ),
    );
    draining = 1;
    slots.reserve(B)();
    expect(evicted).toEqual(['idle-new', 'busy-old']);
  });
});

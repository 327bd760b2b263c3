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
    // A is at its share (a2) while B holds the other slot: its resume waits for a slot of its own.
    await expect(sessions.get(a1, A)).rejects.toMatchObject({ code: 'E_TOO_MANY_SESSIONS' });
    await sessions.end(b.id, B);
    // Then a1 resumes from its journal, its running step included, and goes on at turn 2.
    replays.length = 0;
    const next = sessions.step(a1, tick, 2, A);
    await until(gates, 1);
    release();
    expect(await next).toMatchObject({ episode: a1, turn: 2 });
    expect(replays[0]).toEqual([tick]);
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

// Episode sessions are bounded by the heap they hold (redteam-v25 V25-2, V26-2: session-memory.ts) and a session sent
// back to its journal resumes from a snapshot of its state, not a replay of every turn (V25-3: episode-snapshots.ts),
// which never outlives its journal (V26-1). A fake
// sandbox answers every rollout at once and records the replays from reset, so nothing here reads the clock.
import { mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Client } from '../serve/clients.js';
import { EpisodeJournal, newEpisodeId } from '../serve/episode-journal.js';
import { type Session, Turn } from '../serve/episode-session.js';
import { EpisodeSnapshots } from '../serve/episode-snapshots.js';
import { EpisodeSessions } from '../serve/episodes.js';
import type { Service } from '../serve/service.js';
import { heldBytes, type MemoryHolder, SessionMemory } from '../serve/session-memory.js';

const as = (principal: string, key = principal) => ({ trusted: false, principal, key }) as Client;
const [A, B] = [as('a'), as('b')];
const record = { name: 'pad', version: 1, hash: 'h' };
const meta = { maxTurns: 30, tools: [] };
const tick = { tool: 'tick', args: {} };
const identity = (seed: number) => ({ env: 'pad', seed, level: 1 });

/** Sessions over a fake sandbox whose state is `pad` characters long and counts the turns played. */
function table(opts: { maxSessions?: number; memoryBytes?: number; pad?: number; page?: number } = {}) {
  const service = {
    pool: { options: { workers: 2 } },
    options: { callTimeoutMs: 1_000 },
    catalog: { lookup: () => ({ record }) },
    recordScore: () => {},
  } as unknown as Service;
  const sessions = new EpisodeSessions(service, {
    maxSessions: opts.maxSessions ?? 64,
    idleMs: 3_600_000,
    journalTtlMs: 3_600_000,
    journalDir: mkdtempSync(join(tmpdir(), 'envforge-memory-')),
    maxEndedJournals: 100,
    ...(opts.memoryBytes ? { memoryBytes: opts.memoryBytes } : {}),
  });
  const replays: unknown[][] = [];
  const froms: Array<{ state: string; turn: number }> = [];
  const runner = sessions.runner as unknown as Record<string, unknown>;
  runner.resolve = () => ({ record, meta });
  runner.metaOf = () => meta;
  runner.rollout = (...args: unknown[]) => {
    const [actions, o] = [args[5] as unknown[], args[6] as { from?: { state: string; turn: number } } | undefined];
    const start = o?.from ? (JSON.parse(o.from.state) as { n: number }).n : 0;
    if (o?.from) froms.push(o.from);
    else replays.push(actions);
    return Promise.resolve({
      ok: true,
      prompt: 'the prompt',
      state: { n: start + actions.length, pad: 'x'.repeat(opts.pad ?? 10) },
      errors: 0,
      actions,
      observations: actions.map((_, i) => `obs ${start + i + 1}${'.'.repeat(opts.page ?? 0)}`),
      end: 'no-action',
      score: 0,
      unscored: true,
    });
  };
  return { sessions, replays, froms };
}

describe('the heap episode sessions hold (V25-2)', () => {
  const holder = (id: string, principal: string, lastUsed: number, more: Partial<MemoryHolder> = {}) => ({
    ...{ id, client: as(principal), busy: 0, lastUsed, over: false, state: 'x'.repeat(500), prompt: '', turns: [] },
    ...more,
  });

  it('past the budget, sends back the idle sessions of the principal over its share: ended first, never busy', () => {
    const all = new Map<string, ReturnType<typeof holder>>();
    const released: string[] = [];
    const one = heldBytes(holder('a1', 'a', 0));
    const memory = new SessionMemory(
      4 * one + 10,
      () => all.values(),
      (id) => (released.push(id), all.delete(id)),
    );
    const put = (h: ReturnType<typeof holder>) => (all.set(h.id, h), memory.charge(h));
    put(holder('a1', 'a', 1, { busy: 1 }));
    put(holder('a2', 'a', 2));
    put(holder('a3', 'a', 3, { over: true }));
    put(holder('b1', 'b', 0));
    expect(released).toEqual([]); // four fit
    put(holder('b2', 'b', 5)); // b is within its share (2 of 4): a, over it, gives back its ended one first
    expect(released).toEqual(['a3']);
    put(holder('b3', 'b', 6)); // now b is over its share: its own least recently used idle session
    expect(released).toEqual(['a3', 'b1']);
    expect(memory.stats.heldBytes).toBeLessThanOrEqual(memory.budgetBytes);
    // a's busy a1 is never taken; with every session over a share busy, a new one is refused, not made
    for (const id of ['a2', 'b2', 'b3']) (all.get(id) as ReturnType<typeof holder>).busy = 1;
    put(holder('a4', 'a', 7, { busy: 1 }));
    expect(() => memory.admit(A)).toThrow(expect.objectContaining({ status: 503, code: 'E_SESSION_MEMORY' }));
  });

  it("one client's idle sessions past the budget go back to their journals and resume, the budget kept", async () => {
    const pad = 20_000;
    const { sessions } = table({ memoryBytes: 5 * 2 * pad, pad });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const s = await sessions.create(identity(i), A);
      ids.push(s.id);
      await sessions.step(s.id, tick, 1, A);
      expect(sessions.memory.stats.heldBytes).toBeLessThanOrEqual(sessions.memory.budgetBytes);
    }
    expect(sessions.size).toBeLessThan(12);
    expect(sessions.memory.stats.released).toBeGreaterThan(0);
    for (const id of ids) expect(await sessions.step(id, tick, 2, A)).toMatchObject({ turn: 2, observation: 'obs 2' });
    expect(sessions.memory.stats.heldBytes).toBeLessThanOrEqual(sessions.memory.budgetBytes);
    await sessions.close();
  });

  it('the same bound where the memory is in long observations over many turns, not the state', async () => {
    const page = 16_000;
    const { sessions } = table({ memoryBytes: 3 * 20 * 2 * page, page });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await sessions.create(identity(i), A)).id);
    for (let turn = 1; turn <= 20; turn++)
      for (const id of ids) {
        expect(await sessions.step(id, tick, turn, A)).toMatchObject({ turn });
        expect(sessions.memory.stats.heldBytes).toBeLessThanOrEqual(sessions.memory.budgetBytes);
      }
    expect(sessions.memory.stats.released).toBeGreaterThan(0);
    const read = await sessions.get(ids[0] as string, A); // its earlier pages read again for the GET
    expect(read.turns).toHaveLength(20);
    expect(read.turns[0]?.observation.startsWith('obs 1.')).toBe(true);
    await sessions.close();
  });
});

describe('an action is held as its JSON text, charged as what it is (V26-2)', () => {
  // Shapes whose parsed heap is many times their text: empty objects, empty arrays, many keys, numbers.
  const shapes: Record<string, unknown> = {
    objects: Array.from({ length: 1_360 }, () => ({})),
    arrays: Array.from({ length: 1_360 }, () => []),
    keys: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i])),
    numbers: Array.from({ length: 150 }, (_, i) => i / 7),
  };

  it('a turn keeps no parsed value: each read parses its text again, and its charge is two bytes a character', () => {
    for (const [name, x] of Object.entries(shapes)) {
      const action = { tool: 'list_arrivals', args: { x } };
      const text = JSON.stringify(action);
      const turn = new Turn(action, 'error: no such argument');
      (action.args as Record<string, unknown>).x = 'replaced'; // the caller's value is not what the turn holds
      expect(turn.action, name).toEqual(JSON.parse(text));
      expect(turn.action).not.toBe(turn.action);
      expect(turn.actionChars).toBe(text.length);
      const held = heldBytes({ id: 'e', state: '', prompt: '', turns: [turn] });
      expect(held, name).toBeGreaterThanOrEqual(2 * (text.length + turn.observation.length));
    }
  });

  it('a session stepped with such actions answers, reads and retries them as sent', async () => {
    const { sessions } = table();
    const s = await sessions.create(identity(1), A);
    const actions = Object.values(shapes).map((x) => ({ tool: 'tick', args: { x } }));
    for (const [i, action] of actions.entries()) await sessions.step(s.id, action, i + 1, A);
    expect((await sessions.get(s.id, A)).turns.map((t) => t.action)).toEqual(actions);
    expect(await sessions.step(s.id, actions[1], 2, A)).toMatchObject({ turn: 2, replayed: true });
    await expect(sessions.step(s.id, actions[0], 2, A)).rejects.toMatchObject({ code: 'E_TURN_CONFLICT' });
    await sessions.close();
  });
});

describe('a session sent back to its journal resumes from its snapshot (V25-3)', () => {
  it('one read, no replay; a retry of an earlier turn reads the turns it does not hold once', async () => {
    const { sessions, replays, froms } = table({ maxSessions: 2 });
    const a = (await sessions.create(identity(1), A)).id;
    for (const turn of [1, 2, 3]) await sessions.step(a, tick, turn, A);
    await sessions.create(identity(3), A);
    await sessions.create(identity(2), B); // A is over its share of one slot: `a` goes back to its journal
    expect(sessions.size).toBe(2);
    replays.length = 0;
    froms.length = 0;
    expect(await sessions.step(a, tick, 3, A)).toMatchObject({ turn: 3, observation: 'obs 3', replayed: true });
    expect(await sessions.step(a, tick, 4, A)).toMatchObject({ turn: 4, observation: 'obs 4' });
    expect(replays).toEqual([]); // resumed from the snapshot: no turn played again
    expect(froms.map((f) => f.turn)).toEqual([3]); // the step ran from the state at turn 3
    expect(await sessions.step(a, tick, 1, A)).toMatchObject({ turn: 1, observation: 'obs 1', replayed: true });
    expect(replays).toEqual([[tick, tick]]); // the two turns before the snapshot's own, read once
    const read = await sessions.get(a, A);
    expect(read.turns.map((t) => t.observation)).toEqual(['obs 1', 'obs 2', 'obs 3', 'obs 4']);
    expect(replays).toHaveLength(1);
    await sessions.close();
  });

  it('a snapshot of another history (a turn journaled after it) is not used: the journal is replayed', async () => {
    const { sessions, replays } = table({ maxSessions: 2 });
    const a = (await sessions.create(identity(1), A)).id;
    for (const turn of [1, 2]) await sessions.step(a, tick, turn, A);
    await sessions.create(identity(3), A);
    await sessions.create(identity(2), B);
    await sessions.journal.append(a, 3, { tool: 'other', args: {} }); // another replica stepped it meanwhile
    replays.length = 0;
    expect(await sessions.step(a, tick, 4, A)).toMatchObject({ turn: 4, observation: 'obs 4' });
    expect(replays).toEqual([[tick, tick, { tool: 'other', args: {} }]]);
    await sessions.close();
  });
});

describe('a snapshot never outlives its journal (V26-1)', () => {
  it('a journal removed while its snapshot is being written: the write lands, then is deleted with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'envforge-snap-'));
    const journal = new EpisodeJournal(dir, 3_600_000);
    const snapshots = new EpisodeSnapshots(journal);
    const id = newEpisodeId({ ...identity(1), version: 1 });
    await journal.create(id, { ...identity(1), version: 1, hash: 'h' });
    const s = { id, over: false, turns: [new Turn(tick, 'obs 1')], state: '{}', errors: 0, prompt: 'p' };
    snapshots.save({ ...s, now: { end: 'no-action', score: 0 } } as unknown as Session);
    // removed at once, as the quota removes it, with the snapshot's write still in flight
    snapshots.forget(id);
    await journal.remove(id);
    expect(await snapshots.load(id, [tick])).toBeNull(); // waits for the write and the removal after it
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a snapshot the quota cannot charge but by removing its own journal is not written (a replay stays)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'envforge-snap-'));
    const journal = new EpisodeJournal(dir, 3_600_000);
    const snapshots = new EpisodeSnapshots(journal);
    journal.maySnapshot = () => false;
    const id = newEpisodeId({ ...identity(1), version: 1 });
    await journal.create(id, { ...identity(1), version: 1, hash: 'h' });
    const s = { id, over: false, turns: [new Turn(tick, 'obs 1')], state: '{}', errors: 0, prompt: 'p' };
    snapshots.save({ ...s, now: { end: 'no-action', score: 0 } } as unknown as Session);
    expect(await snapshots.load(id, [tick])).toBeNull();
    expect(readdirSync(dir).filter((f) => !f.endsWith('.jsonl'))).toEqual([]);
  });

  it("a snapshot's temporary file left by a crash is swept by age with the journals", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'envforge-snap-'));
    const journal = new EpisodeJournal(dir, 1_000);
    const id = newEpisodeId({ ...identity(1), version: 1 });
    writeFileSync(journal.snapshotTemp(id), '{"torn":', { mode: 0o600 });
    writeFileSync(join(dir, 'unrelated.txt'), 'kept'); // not a journal's: never swept
    const past = new Date(Date.now() - 10_000);
    for (const f of readdirSync(dir)) utimesSync(join(dir, f), past, past);
    expect(await journal.sweep()).toBe(1);
    expect(readdirSync(dir)).toEqual(['unrelated.txt']);
  });
});

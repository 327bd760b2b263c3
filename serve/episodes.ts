// Episode sessions of the reward service (contract v2): create, step, read, end and score episodes of
// episodic environments. A session is its identity plus its action list (journaled, episode-journal.ts);
// the state lives in memory while the session is open and is rebuilt by replay on a miss (a restart,
// another replica, an idle eviction). Every action runs in the sandbox pool through the dispatcher.
import type { EpisodicMeta } from '../contract/episodic.js';
import type { EnvRecord } from '../library/contract.js';
import { canonicalAction, isRefused, refusedObservation } from './action-limits.js';
import { keyOwner, type Client } from './clients.js';
import { defendSession } from './episode-defence.js';
import { createSession, readTurns, restoreSession, type Opening } from './episode-open.js';
import { EpisodeSnapshots } from './episode-snapshots.js';
import { EpisodeRunner } from './episode-runner.js';
import { KeyedCreates } from './episode-keys.js';
import { JournalQuota } from './journal-quota.js';
import { EpisodeJournal, journaled, TRUNCATED, type EpisodeRequest } from './episode-journal.js';
import {
  episodeView,
  evictedError,
  outcomeOf,
  outcomeView,
  resumeFrom,
  stepResult,
  turnOf,
  type Outcome,
  type Session,
  type StepResult,
  Turn,
} from './episode-session.js';
import type { Service } from './service.js';
import { SessionMemory, sessionMemoryOf } from './session-memory.js';
import { holdersBut, SessionSlots } from './session-slots.js';

/** The largest action the sandbox accepts (episodic-runtime.js serialises actions up to 64 KB). */
export const MAX_ACTION_CHARS = 65_536;
/** Ended sessions kept in memory for their results. */
const ENDED_KEPT = 1_024;

export interface EpisodeOptions {
  /** Open sessions held in memory at once; past it new sessions get 429 + retry-after. */
  maxSessions: number;
  /** An open session untouched this long leaves memory (its journal keeps it resumable). */
  idleMs: number;
  /** A journal untouched this long is deleted: its episode is then unknown. */
  journalTtlMs: number;
  journalDir: string;
  /** Journals kept on disk (open and ended episodes' alike), shared fairly between clients (journal-quota.ts). */
  maxEndedJournals: number;
  /** Bytes of journals kept on disk, shared the same way (journal-quota.ts); unbounded when absent. */
  maxJournalBytes?: number;
  /** Heap bytes the sessions in memory may hold, shared fairly (session-memory.ts); default a quarter of the heap. */
  memoryBytes?: number;
}

export type { Outcome, StepResult } from './episode-session.js';

export class EpisodeSessions {
  readonly journal: EpisodeJournal;
  private readonly snapshots: EpisodeSnapshots;
  private readonly quota: JournalQuota;
  private readonly open = new Map<string, Session>();
  private readonly loading = new Map<string, Promise<Session>>();
  /** Ended sessions, oldest first (an LRU of at most ENDED_KEPT); older ones are rebuilt from their journal. */
  private readonly ended = new Map<string, Session>();
  /** Sessions ending, or rebuilt only to be ended or read: no slot held (holdersBut), a fair share (mayEndFree). */
  private readonly ending = new Map<string, Client>();
  /** Slots shared fairly between clients (session-slots.ts): evicting a session sends it back to its journal. */
  readonly slots: SessionSlots;
  /** The heap the sessions hold, charged to their clients (session-memory.ts): past it, back to their journals. */
  readonly memory: SessionMemory;
  private readonly timer: NodeJS.Timeout;
  /** Records, metas and rollouts in the sandbox (episode-runner.ts). */
  readonly runner: EpisodeRunner;

  constructor(
    private readonly service: Service,
    readonly options: EpisodeOptions,
  ) {
    this.runner = new EpisodeRunner(service);
    this.journal = new EpisodeJournal(options.journalDir, options.journalTtlMs);
    this.snapshots = new EpisodeSnapshots(this.journal);
    const { maxEndedJournals: max, maxJournalBytes: maxBytes } = options;
    const forget = (id: string) => (this.snapshots.forget(id), this.evict(id));
    this.quota = new JournalQuota(this.journal, max, forget, maxBytes);
    const holders = holdersBut(this.open, this.ending);
    const draining = () => this.draining.size;
    this.slots = new SessionSlots(options.maxSessions, holders, (id) => this.putBack(id), undefined, draining);
    const held = () => [...this.open.values(), ...this.ended.values()];
    this.memory = new SessionMemory(options.memoryBytes ?? sessionMemoryOf(), held, (id) => this.putBack(id));
    this.timer = setInterval(() => this.sweep(), Math.min(30_000, Math.max(50, options.idleMs / 4)));
    this.timer.unref();
  }

  /** Sessions evicted (by the slots, or the journal quota: journal-quota.ts) while busy, until their request ends. */
  private readonly draining = new Map<string, Session>();
  /** Sends a session back to its journal, an idle one with its snapshot (episode-snapshots.ts: resumed by a read). */
  private putBack(id: string): void {
    const s = this.open.get(id);
    if (s && s.busy === 0) this.snapshots.save(s);
    this.evict(id);
  }

  private evict(id: string): void {
    const s = this.open.get(id);
    this.open.delete(id);
    this.ended.delete(id);
    this.memory.drop(id);
    if (s && s.busy > 0) this.draining.set(id, Object.assign(s, { evicted: true as const }));
  }

  get size(): number {
    return this.open.size;
  }

  /** Stops the sweeps and waits for the journal's writes. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.journal.settle();
  }

  /** Evicts idle sessions from memory and expired journals from disk. */
  sweep(now = Date.now()): void {
    for (const [id, s] of this.open) if (s.busy === 0 && now - s.lastUsed > this.options.idleMs) this.putBack(id);
    if (now - this.sweptAt < Math.min(this.options.journalTtlMs / 4, 60_000)) return;
    this.sweptAt = now;
    this.journal.sweep(now).catch(() => {}); // the folder is unreadable for now: try again next sweep
  }
  private sweptAt = 0;

  /** The library record and meta of an episodic identity, or a 4xx naming what is wrong. */
  resolve(identity: EpisodeRequest): { record: EnvRecord; meta: EpisodicMeta } {
    return this.runner.resolve(identity);
  }

  /** Stateless scoring: an action log replayed from reset, as the validator's rollouts replay it. */
  score(identity: EpisodeRequest, actions: unknown[], client: Client) {
    return this.runner.score(identity, actions, client);
  }

  private keyed?: KeyedCreates<Session, Client>;
  /**
   * A new episode; with an Idempotency-Key, the one that key made for this client (episode-keys.ts); `ephemeral`: never
   * journaled.
   */
  create(identity: EpisodeRequest, client: Client, key?: string, ephemeral = false): Promise<Session> {
    if (key === undefined) return createSession(this.opening, identity, client, ephemeral);
    return (this.keyed ??= new KeyedCreates<Session, Client>(
      this.journal,
      (i, c) => createSession(this.opening, i, c),
      (id, c) => this.session(id, c),
      keyOwner,
      (id, scoped) => this.quota.bound(id, scoped),
    )).create(identity, key, client);
  }

  /** The journal's writes for `s`; none for a one-step episode. */
  private journaled(s: { ephemeral?: true }, ...writes: Array<() => Promise<void>>): Promise<void> {
    return s.ephemeral ? Promise.resolve() : journaled(Promise.all(writes.map((w) => w())));
  }

  /** What making a session needs (episode-open.ts): a session over is remembered, one going on held open. */
  private readonly opening: Opening = {
    service: () => this.service,
    journal: () => this.journal,
    runner: () => this.runner,
    snapshots: () => this.snapshots,
    reserve: (client, resume) => {
      this.memory.admit(client);
      return this.slots.reserve(client, resume);
    },
    place: (session) => {
      if (session.over) this.remember(session);
      else this.open.set(session.id, session);
      this.charged(session);
    },
    ttlMs: () => this.options.journalTtlMs,
    charge: (client, id) => this.quota.wrote(client, id),
  };

  /**
   * The session of an id: in memory, else rebuilt from its journal by replay (a slot of `client`'s, unless `slot` is
   * false); 404 when there is none.
   */
  private async session(id: string, client: Client, slot = true): Promise<Session> {
    if (this.draining.has(id)) throw evictedError(id);
    const held = this.open.get(id) ?? this.ended.get(id);
    if (held) {
      held.lastUsed = Date.now();
      return held;
    }
    let pending = this.loading.get(id);
    if (!pending) {
      pending = restoreSession(this.opening, id, client, slot).finally(() => this.loading.delete(id));
      this.loading.set(id, pending);
    }
    return pending;
  }

  /**
   * Runs `work` after the session's earlier requests: one step at a time per episode. `slot` false (an end, a read): a
   * session not in memory is rebuilt under the ending allowance (mayEndFree), never a slot (a client can always end
   * and read what it started), and sent back to its journal after a read.
   */
  private serial<T>(id: string, client: Client, slot: boolean, work: (s: Session) => Promise<T>): Promise<T> {
    const known = this.open.has(id) || this.ended.has(id) || this.loading.has(id) || this.ending.has(id);
    const free = !slot && !known && this.slots.mayEndFree(client, this.ending);
    if (free) this.ending.set(id, client);
    const found = this.session(id, client, !free);
    if (free) found.catch(() => this.ending.delete(id));
    return found.then((s) => {
      s.busy++;
      const next = s.queue
        .then(() => (s.evicted && !s.over && slot ? Promise.reject(evictedError(id)) : work(s)))
        .finally(() => {
          if (--s.busy === 0 && this.draining.get(id) === s) this.draining.delete(id);
          s.lastUsed = Date.now();
          if (!free) return;
          // rebuilt without a slot: kept where one is free, else back to its journal (a step queued on it: evicted)
          this.ending.delete(id);
          if (!s.over && this.open.get(id) === s && this.slots.overfull()) this.evict(id);
        });
      s.queue = next.catch(() => {});
      return next;
    });
  }

  /**
   * One action. `turn` (optional) is the turn this action makes; a repeat of a stored turn returns its stored
   * result. An action beyond the contract's limits is refused at the host (action-limits.ts): a rejected turn.
   */
  step(id: string, raw: unknown, turn: number | undefined, client: Client): Promise<StepResult> {
    return this.serial(id, client, true, async (s) => {
      // its one form, before it is compared, journaled, kept or played (V27-2)
      const action = canonicalAction(s.meta.tools, raw);
      const current = s.turns.length;
      if (turnOf(s, action, turn) === 'stored') {
        if ((turn as number) <= (s.unread ?? 0)) await this.readTurns(s, client);
        return { ...stepResult(s, turn as number), replayed: true };
      }
      // The action's line goes out with the rollout, not after it: a step waits for the longer of the two, not their
      // sum.
      const line = s.ephemeral ? null : this.journal.append(id, current + 1, action);
      line?.catch(() => {}); // awaited below, where a failure is answered
      let r: Awaited<ReturnType<EpisodeRunner['rollout']>>;
      try {
        r = await this.runner.rollout(client, s.record, s.meta, s.identity.seed, s.identity.level, [action], {
          from: resumeFrom(s),
          goesOn: true,
        });
      } catch (error) {
        // the step never ran (a 503): nothing changed, the journal included
        if (line) await this.journal.takeBack(id, current + 1, line);
        throw error;
      }
      const landed = () => line ?? Promise.resolve();
      if (!r.ok) {
        await this.journaled(s, landed, () => this.journal.end(id, { end: 'failed', code: r.code }));
        s.turns.push(new Turn(action, `error: the environment failed (${r.code})`));
        this.finish(s, { end: 'failed', score: 0, error: { code: r.code, message: `${r.fn}: ${r.message}` } });
        defendSession(this.service, s, r, client);
        return stepResult(s, current + 1);
      }
      // An episode that ends is journaled as ended, so reading it later (after a restart) needs no session slot.
      const ends = r.end !== 'no-action';
      await this.journaled(s, landed, ...(ends ? [() => this.journal.end(id, { end: r.end })] : []));
      s.turns.push(new Turn(action, isRefused(action) ? refusedObservation(action) : (r.observations?.[0] ?? '')));
      s.state = JSON.stringify(r.state);
      s.errors = r.errors;
      s.now = outcomeOf(r);
      if (ends) this.finish(s, s.now);
      else this.charged(s);
      return stepResult(s, current + 1);
    });
  }

  /**
   * The score of a session's state as it stands, for `client` (score() in the sandbox, unless the last rollout scored
   * it).
   */
  private async scoreNow(s: Session, client: Client): Promise<Outcome> {
    if (!s.now.unscored) return s.now;
    const r = await this.runner.rollout(client, s.record, s.meta, s.identity.seed, s.identity.level, [], {
      from: resumeFrom(s),
      ending: true,
    });
    if (r.ok) return outcomeOf(r);
    defendSession(this.service, s, r, client);
    return { end: 'failed', score: 0, error: { code: r.code, message: `${r.fn}: ${r.message}` } };
  }

  private finish(s: Session, outcome: Outcome): void {
    Object.assign(s, { now: outcome, over: true });
    if (!outcome.error && outcome.end !== 'failed')
      // a learner's score (an environment's failure is not)
      this.service.recordScore(s.record, s.identity.level, outcome.score, s.client);
    this.open.delete(s.id);
    this.remember(s);
    this.charged(s);
  }

  /** Reads the observations a session rebuilt from a snapshot does not hold (episode-open.ts), and charges them. */
  private async readTurns(s: Session, client: Client): Promise<void> {
    await readTurns(this.opening, s, client);
    this.charged(s);
  }

  /** Charges what `s` holds to its client (session-memory.ts), unless it has already left memory (evicted). */
  private charged(s: Session): void {
    if (this.open.get(s.id) === s || this.ended.get(s.id) === s) this.memory.charge(s);
  }

  /** Keeps the latest ended sessions (retries of a last step, reads of a result) from being replayed again. */
  private remember(s: Session): void {
    this.ended.delete(s.id);
    this.ended.set(s.id, s);
    if (this.ended.size > ENDED_KEPT) this.evict(this.ended.keys().next().value as string);
  }

  /** The episode so far: identity, prompt, every turn, and the outcome once it is over. */
  get(id: string, client: Client) {
    return this.serial(id, client, false, async (s) => (await this.readTurns(s, client), episodeView(s)));
  }

  /**
   * Ends an episode its client stops before it finished ("truncated") and scores it as its state stands; an ended one
   * answers its outcome again.
   */
  end(id: string, client: Client) {
    return this.serial(id, client, false, async (s) => {
      if (!s.over) {
        // (one end of a session at a time: serial; one rebuilt only to be ended is marked already)
        const holds = !this.ending.has(id) && this.slots.mayEndFree(s.client, this.ending);
        if (holds) this.ending.set(id, s.client);
        try {
          const scored = await this.scoreNow(s, client);
          await this.journaled(s, () =>
            this.journal.end(id, scored.error ? { end: 'failed', code: scored.error.code } : { end: TRUNCATED }),
          );
          this.finish(s, scored.error ? scored : { ...scored, end: TRUNCATED });
        } finally {
          if (holds) this.ending.delete(id);
        }
      }
      return { episode: s.id, turn: s.turns.length, done: true as const, ...outcomeView(s) };
    });
  }
}

// Episode sessions of the reward service (contract v2): create, step, read, end and score episodes of
// episodic environments. A session is its identity plus its action list (journaled, episode-journal.ts);
// the state lives in memory while the session is open and is rebuilt by replay on a miss (a restart,
// another replica, an idle eviction). Every action runs in the sandbox pool through the dispatcher.
import { parseEpisodicMeta, type EpisodicMeta } from '../contract/episodic.js';
import type { EnvRecord } from '../library/contract.js';
import type { Call } from '../sandbox/protocol.js';
import { rolloutShape, toRollout } from '../sandbox/rollouts.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import { admitAction, isRefused, refusedObservation } from './action-limits.js';
import { keyOwner, type Client } from './clients.js';
import { runAlone, SANDBOX_FN } from './dispatcher.js';
import { isUnrun } from './job-attribution.js';
import { defendEpisode } from './episode-defence.js';
import { KeyedCreates } from './episode-keys.js';
import { JournalQuota } from './journal-quota.js';
import { EpisodeJournal, journaled, newEpisodeId, parseEpisodeId, TRUNCATED, type EpisodeIdentity, type EpisodeRequest } from './episode-journal.js';
import { outcomeOf, type Outcome, type Resume, type Session, type StepResult, type Turn } from './episode-session.js';
import { ServeError } from './options.js';
import type { Service } from './service.js';
import { SessionSlots } from './session-slots.js';

const canonical = loadPlainRuntime().episodic.canonical;
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
  /** Ended episodes' journals kept, shared fairly between clients (journal-quota.ts). */
  maxEndedJournals: number;
}

export type { Outcome, StepResult } from './episode-session.js';

export class EpisodeSessions {
  readonly journal: EpisodeJournal;
  private readonly quota: JournalQuota;
  private readonly open = new Map<string, Session>();
  private readonly loading = new Map<string, Promise<Session>>();
  /** Ended sessions, oldest first (an LRU of at most ENDED_KEPT); older ones are rebuilt from their journal. */
  private readonly ended = new Map<string, Session>();
  /** Slots shared fairly between clients (session-slots.ts): evicting a session sends it back to its journal. */
  readonly slots: SessionSlots;
  private readonly timer: NodeJS.Timeout;
  /** Parsed metas by module hash: checking a meta against contract v2 costs more than a step. */
  private readonly metas = new Map<string, EpisodicMeta | null>();

  constructor(
    private readonly service: Service,
    readonly options: EpisodeOptions,
  ) {
    this.journal = new EpisodeJournal(options.journalDir, options.journalTtlMs);
    this.quota = new JournalQuota(this.journal, options.maxEndedJournals);
    this.slots = new SessionSlots(options.maxSessions, this.open, (id) => this.open.delete(id));
    this.timer = setInterval(() => this.sweep(), Math.min(30_000, Math.max(50, options.idleMs / 4)));
    this.timer.unref();
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
    for (const [id, s] of this.open) if (s.busy === 0 && now - s.lastUsed > this.options.idleMs) this.open.delete(id);
    if (now - this.sweptAt < Math.min(this.options.journalTtlMs / 4, 60_000)) return;
    this.sweptAt = now;
    this.journal.sweep(now).catch(() => {}); // the folder is unreadable for now: try again next sweep
  }
  private sweptAt = 0;

  /** The library record and meta of an episodic identity, or a 4xx naming what is wrong. */
  resolve(identity: EpisodeRequest): { record: EnvRecord; meta: EpisodicMeta } {
    const found = this.service.catalog.resolveEpisodic(identity);
    if ('error' in found) throw new ServeError(found.error.code === 'E_UNKNOWN_ENV' ? 404 : 400, found.error.code, found.error.message);
    const quarantined = this.service.defence.quarantined(found.record.hash);
    if (quarantined) throw new ServeError(409, 'E_QUARANTINED', `${found.record.name}@${found.record.version} is ${quarantined}`);
    return { record: found.record, meta: this.metaOf(found.record) };
  }

  private readonly shapes = new WeakMap<EpisodicMeta, ReturnType<typeof rolloutShape>>();
  /** The rollout fields of a meta (its tools as JSON text), made once per meta. */
  private shapeOf(meta: EpisodicMeta): ReturnType<typeof rolloutShape> {
    let shape = this.shapes.get(meta);
    if (!shape) this.shapes.set(meta, (shape = rolloutShape(meta)));
    return shape;
  }

  private metaOf(record: EnvRecord): EpisodicMeta {
    if (!this.metas.has(record.hash)) this.metas.set(record.hash, parseEpisodicMeta(record.meta));
    const meta = this.metas.get(record.hash);
    if (!meta) throw new ServeError(500, 'E_META', `${record.name}@${record.version}'s meta does not match contract v2`);
    return meta;
  }

  /** One rollout for `owner` in the sandbox: `actions` replayed from reset, or from a held state. Sandbox failures, and a call its job left unrun, are 503. */
  async rollout(owner: Client, record: EnvRecord, meta: EpisodicMeta, seed: number, level: number, actions: unknown[], { from, goesOn = false }: Resume = {}) {
    const source = await this.service.source(record);
    const call: Call = { op: 'rollout', seed, level, keepInstance: false, rollout: { ...this.shapeOf(meta), policy: { type: 'replay', actions }, ...(from ? { from } : {}), observations: true, keepState: true, ...(goesOn ? { scoreAtEnd: true } : {}) } };
    const chars = (from?.state.length ?? 0) + JSON.stringify(actions).length;
    // A replay (resume, /score) runs alone with callTimeoutMs per turn plus one: each step had its own budget live.
    const [result] = !from && actions.length > 0 ? [await runAlone(this.service.pool, source, call, this.service.options.callTimeoutMs * (Math.min(actions.length, meta.maxTurns) + 1))] : await this.service.dispatcher.submit(record.hash, source, [{ call, chars }], owner.key);
    if (!result || (!result.ok && result.fn === SANDBOX_FN)) throw new ServeError(503, 'E_SANDBOX', result && !result.ok ? result.message : 'the sandbox returned no result');
    if (isUnrun(result)) throw new ServeError(503, 'E_NOT_RUN', `the step was not run (${result.message}); nothing changed: send it again`); // never an episode's end
    // The state goes on as the sandbox wrote it (key order kept, as a replay keeps it), so no canonical text.
    return toRollout({ seed, level, policy: { type: 'replay', actions }, scoreAtEnd: goesOn }, result, false);
  }

  private keyed?: KeyedCreates<Session, Client>;
  /** A new episode; with an Idempotency-Key, the one that key made for this client (episode-keys.ts); `ephemeral`: never journaled. */
  create(identity: EpisodeRequest, client: Client, key?: string, ephemeral = false): Promise<Session> {
    if (key === undefined) return this.createNew(identity, client, ephemeral);
    return (this.keyed ??= new KeyedCreates<Session, Client>(this.journal, (i, c) => this.createNew(i, c), (id, c) => this.session(id, c), keyOwner, (id, scoped) => this.quota.bound(id, scoped))).create(identity, key, client);
  }

  /** The journal's writes for `s`; none for a one-step episode. */
  private journaled(s: { ephemeral?: true }, ...writes: Array<() => Promise<void>>): Promise<void> {
    return s.ephemeral ? Promise.resolve() : journaled(Promise.all(writes.map((w) => w())));
  }

  private async createNew(identity: EpisodeRequest, client: Client, ephemeral = false): Promise<Session> {
    const { record, meta } = this.resolve(identity);
    const release = this.slots.reserve(client);
    try {
      const full: EpisodeIdentity = { env: record.name, version: record.version, seed: identity.seed, level: identity.level };
      const r = await this.rollout(client, record, meta, full.seed, full.level, [], { goesOn: true });
      if (!r.ok) void defendEpisode(this.service, { record, meta, seed: full.seed, level: full.level, actions: [], code: r.code, message: r.message, fn: r.fn, client });
      if (!r.ok) throw new ServeError(422, r.code, `${record.name}@${record.version} cannot start seed ${full.seed} level ${full.level}: ${r.fn} failed: ${r.message}`);
      const id = newEpisodeId(full);
      if (!ephemeral) await journaled(this.journal.create(id, { ...full, hash: record.hash }));
      const session: Session = { id, client, record, meta, identity: full, prompt: r.prompt ?? '', turns: [], state: JSON.stringify(r.state), errors: 0, now: outcomeOf(r), over: false, lastUsed: Date.now(), queue: Promise.resolve(), busy: 0, ...(ephemeral ? { ephemeral } : {}) };
      this.open.set(id, session);
      return session;
    } finally {
      release();
    }
  }

  /** The session of an id: in memory, else rebuilt from its journal by replay (a slot of `client`'s); 404 when there is none. */
  private async session(id: string, client: Client): Promise<Session> {
    const held = this.open.get(id) ?? this.ended.get(id);
    if (held) {
      held.lastUsed = Date.now();
      return held;
    }
    let pending = this.loading.get(id);
    if (!pending) {
      pending = this.restore(id, client).finally(() => this.loading.delete(id));
      this.loading.set(id, pending);
    }
    return pending;
  }

  private async restore(id: string, client: Client): Promise<Session> {
    const unknown = () => new ServeError(404, 'E_UNKNOWN_EPISODE', `no episode ${JSON.stringify(id.slice(0, 120))}: never issued, malformed, or expired (journals are kept ${this.options.journalTtlMs / 1000} s after their last use)`);
    if (!parseEpisodeId(id)) throw unknown();
    const entry = await this.journal.read(id);
    if (!entry) throw unknown();
    const { env, version, seed, level, hash } = entry.identity;
    const found = this.service.catalog.lookup(env, version);
    if ('error' in found || found.record.hash !== hash) throw new ServeError(410, 'E_UNKNOWN_ENV', `episode ${id.slice(0, 120)} was played on ${env}@${version}, which this library no longer serves`);
    const meta = this.metaOf(found.record);
    const release = entry.ended ? () => {} : this.slots.reserve(client); // an ended episode is only read: it needs no slot
    try {
      const r = await this.rollout(client, found.record, meta, seed, level, entry.actions);
      const session: Session = { id, client, record: found.record, meta, identity: { env, version, seed, level }, prompt: '', turns: [], state: '', errors: 0, now: { end: 'no-action', score: 0 }, over: entry.ended !== null, lastUsed: Date.now(), queue: Promise.resolve(), busy: 0 };
      if (!r.ok) {
        session.now = { end: 'failed', score: 0, error: { code: r.code, message: r.message } };
        session.over = true;
        session.turns = entry.actions.map((action) => ({ action, observation: '' }));
      } else {
        Object.assign(session, { prompt: r.prompt ?? '', state: JSON.stringify(r.state), errors: r.errors, now: outcomeOf(r) });
        if (entry.ended && r.end === 'no-action') session.now.end = entry.ended.end; // ended by its client: the journal says how
        session.turns = r.actions.map((action, i) => ({ action, observation: isRefused(action) ? refusedObservation(action) : (r.observations?.[i] ?? '') }));
        if (r.end !== 'no-action') session.over = true;
      }
      if (session.over) {
        this.remember(session); // answered from here, never held open: it takes no slot
        return session;
      }
      this.open.set(id, session);
      return session;
    } finally {
      release();
    }
  }

  /** Runs `work` after the session's earlier requests: one step at a time per episode. */
  private serial<T>(id: string, client: Client, work: (s: Session) => Promise<T>): Promise<T> {
    return this.session(id, client).then((s) => {
      s.busy++;
      const next = s.queue.then(() => work(s)).finally(() => {
        s.busy--;
        s.lastUsed = Date.now();
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
    const action = admitAction(raw);
    return this.serial(id, client, async (s) => {
      const current = s.turns.length;
      if (turn !== undefined && turn <= current) {
        const stored = s.turns[turn - 1] as Turn;
        if (canonical(stored.action) !== canonical(action)) throw new ServeError(409, 'E_TURN_CONFLICT', `turn ${turn} of episode ${id} was ${canonical(stored.action).slice(0, 200)}, not this action; the episode is at turn ${current}`);
        return { ...this.result(s, turn), replayed: true };
      }
      if (s.over) throw new ServeError(409, 'E_EPISODE_OVER', `episode ${id} ended (${s.now.end}) after ${current} turns; start a new one`);
      if (turn !== undefined && turn !== current + 1) throw new ServeError(409, 'E_TURN_CONFLICT', `episode ${id} is at turn ${current}: the next step is turn ${current + 1}, not ${turn}`);
      const r = await this.rollout(client, s.record, s.meta, s.identity.seed, s.identity.level, [action], { from: this.held(s), goesOn: true });
      if (!r.ok) {
        await this.journaled(s, () => this.journal.append(id, current + 1, action), () => this.journal.end(id, { end: 'failed', code: r.code }));
        s.turns.push({ action, observation: `error: the environment failed (${r.code})` });
        this.finish(s, { end: 'failed', score: 0, error: { code: r.code, message: `${r.fn}: ${r.message}` } });
        void defendEpisode(this.service, { record: s.record, meta: s.meta, ...s.identity, actions: s.turns.map((t) => t.action), code: r.code, message: r.message, fn: r.fn, client });
        return this.result(s, current + 1);
      }
      // An episode that ends is journaled as ended, so reading it later (after a restart) needs no session slot.
      const ends = r.end !== 'no-action';
      await this.journaled(s, () => this.journal.append(id, current + 1, action), ...(ends ? [() => this.journal.end(id, { end: r.end })] : []));
      s.turns.push({ action, observation: isRefused(action) ? refusedObservation(action) : (r.observations?.[0] ?? '') });
      s.state = JSON.stringify(r.state);
      s.errors = r.errors;
      s.now = outcomeOf(r);
      if (ends) this.finish(s, s.now);
      return this.result(s, current + 1);
    });
  }

  /** Where a session's next rollout starts: the state the sandbox last wrote. */
  private held(s: Session): NonNullable<Resume['from']> {
    return { state: s.state, turn: s.turns.length, errors: s.errors };
  }

  /** The score of a session's state as it stands, for `client` (score() in the sandbox, unless the last rollout scored it). */
  private async scoreNow(s: Session, client: Client): Promise<Outcome> {
    if (!s.now.unscored) return s.now;
    const r = await this.rollout(client, s.record, s.meta, s.identity.seed, s.identity.level, [], { from: this.held(s) });
    if (r.ok) return outcomeOf(r);
    void defendEpisode(this.service, { record: s.record, meta: s.meta, ...s.identity, actions: s.turns.map((t) => t.action), code: r.code, message: r.message, fn: r.fn, client });
    return { end: 'failed', score: 0, error: { code: r.code, message: `${r.fn}: ${r.message}` } };
  }

  private finish(s: Session, outcome: Outcome): void {
    Object.assign(s, { now: outcome, over: true });
    if (!s.ephemeral) this.quota.endedBy(s.client, s.id);
    if (!outcome.error && outcome.end !== 'failed') this.service.recordScore(s.record, s.identity.level, outcome.score, s.client); // a learner's score (an environment's failure is not)
    this.open.delete(s.id);
    this.remember(s);
  }

  /** Keeps the latest ended sessions (retries of a last step, reads of a result) from being replayed again. */
  private remember(s: Session): void {
    this.ended.delete(s.id);
    this.ended.set(s.id, s);
    if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.keys().next().value as string);
  }

  private result(s: Session, turn: number): StepResult {
    const [done, t] = [s.over && turn === s.turns.length, s.turns[turn - 1] as Turn];
    return { episode: s.id, turn, observation: t.observation, done, ...(done ? this.outcome(s) : {}) };
  }

  private outcome(s: Session): Omit<Outcome, 'end'> & { end: string } {
    return { score: s.now.score, ...(s.now.feedback !== undefined ? { feedback: s.now.feedback } : {}), end: s.now.end, ...(s.now.error ? { error: s.now.error } : {}) };
  }

  /** The episode so far: identity, prompt, every turn, and the outcome once it is over. */
  get(id: string, client: Client) {
    const turns = (s: Session) => s.turns.map((t, i) => ({ turn: i + 1, action: t.action, observation: t.observation }));
    return this.serial(id, client, async (s) => ({ episode: s.id, ...s.identity, prompt: s.prompt, tools: s.meta.tools, maxTurns: s.meta.maxTurns, turn: s.turns.length, done: s.over, turns: turns(s), ...(s.over ? this.outcome(s) : {}) }));
  }

  /** Ends an episode its client stops before it finished ("truncated") and scores it as its state stands; an ended one answers its outcome again. */
  end(id: string, client: Client) {
    return this.serial(id, client, async (s) => {
      if (!s.over) {
        const scored = await this.scoreNow(s, client);
        await this.journaled(s, () => this.journal.end(id, scored.error ? { end: 'failed', code: scored.error.code } : { end: TRUNCATED }));
        this.finish(s, scored.error ? scored : { ...scored, end: TRUNCATED });
      }
      return { episode: s.id, turn: s.turns.length, done: true as const, ...this.outcome(s) };
    });
  }

  /** Stateless scoring: an action log replayed from reset, as the validator's rollouts replay it. */
  async score(identity: { env: string; version?: number | undefined; seed: number; level: number }, raw: unknown[], client: Client) {
    const actions = raw.map(admitAction);
    const { record, meta } = this.resolve(identity);
    const r = await this.rollout(client, record, meta, identity.seed, identity.level, actions);
    const head = { env: record.name, version: record.version, seed: identity.seed, level: identity.level };
    if (!r.ok) {
      void defendEpisode(this.service, { record, meta, seed: identity.seed, level: identity.level, actions, code: r.code, message: r.message, fn: r.fn, client });
      return { ...head, score: 0, end: 'failed', error: { code: r.code, message: `${r.fn}: ${r.message}` } };
    }
    this.service.recordScore(record, identity.level, r.score, client);
    return { ...head, ...outcomeOf(r), turns: r.turns, rejected: r.rejected };
  }
}

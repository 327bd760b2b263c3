// Making an episode session: a new episode (its reset in the sandbox, then its journal's first line), or one
// rebuilt from its journal (a restart, another replica, an idle eviction): its identity checked against the
// library, its actions replayed from reset in the sandbox, and where it stands.
import { canonicalAction, isRefused, refusedObservation } from './action-limits.js';
import type { Client } from './clients.js';
import { defendEpisode } from './episode-defence.js';
import {
  journaled,
  newEpisodeId,
  parseEpisodeId,
  type EpisodeIdentity,
  type EpisodeJournal,
  type EpisodeRequest,
} from './episode-journal.js';
import type { EpisodeRunner } from './episode-runner.js';
import { outcomeOf, type Session, Turn } from './episode-session.js';
import type { EpisodeSnapshots } from './episode-snapshots.js';
import { ServeError } from './options.js';
import type { Service } from './service.js';

/** What making a session reads and where its session goes (given by the session table, episodes.ts). */
export interface Opening {
  service(): Service;
  journal(): EpisodeJournal;
  runner(): EpisodeRunner;
  snapshots(): EpisodeSnapshots;
  /**
   * A slot for the client's open session (`resume`: one rebuilt from its journal), released by the function
   * returned.
   */
  reserve(client: Client, resume?: boolean): () => void;
  /** Puts the rebuilt session where it is found again, while its slot is still reserved. */
  place(session: Session): void;
  /** How long journals are kept after their last use, for the 404's message. */
  ttlMs(): number;
  /** Charges the journal just written for `id` to its client (journal-quota.ts), whatever its episode's state. */
  charge(client: Client, id: string): void;
}

/** A new episode's session, held open; `ephemeral`: never journaled. A 422 when the environment cannot start it. */
export async function createSession(
  at: Opening,
  identity: EpisodeRequest,
  client: Client,
  ephemeral = false,
): Promise<Session> {
  const { record, meta } = at.runner().resolve(identity);
  const release = at.reserve(client);
  try {
    const full: EpisodeIdentity = {
      env: record.name,
      version: record.version,
      seed: identity.seed,
      level: identity.level,
    };
    const r = await at.runner().rollout(client, record, meta, full.seed, full.level, [], { goesOn: true });
    if (!r.ok)
      void defendEpisode(at.service(), {
        record,
        meta,
        seed: full.seed,
        level: full.level,
        actions: [],
        code: r.code,
        message: r.message,
        fn: r.fn,
        client,
      });
    if (!r.ok)
      throw new ServeError(
        422,
        r.code,
        `${record.name}@${record.version} cannot start seed ${full.seed} level ${full.level}: ` +
          `${r.fn} failed: ${r.message}`,
      );
    const id = newEpisodeId(full);
    if (!ephemeral) {
      await journaled(at.journal().create(id, { ...full, hash: record.hash }));
      at.charge(client, id);
    }
    const session: Session = {
      id,
      client,
      record,
      meta,
      identity: full,
      prompt: r.prompt ?? '',
      turns: [],
      state: JSON.stringify(r.state),
      errors: 0,
      now: outcomeOf(r),
      over: false,
      lastUsed: Date.now(),
      queue: Promise.resolve(),
      busy: 0,
      ...(ephemeral ? { ephemeral } : {}),
    };
    at.place(session);
    return session;
  } finally {
    release();
  }
}

/**
 * The session of a journaled episode, rebuilt by replay; a 404 when there is no such journal, a 410 when its
 * environment is gone. `slot` false: rebuilt only to be ended or read (under the ending allowance), it reserves none.
 */
export async function restoreSession(at: Opening, id: string, client: Client, slot = true): Promise<Session> {
  const unknown = () =>
    new ServeError(
      404,
      'E_UNKNOWN_EPISODE',
      `no episode ${JSON.stringify(id.slice(0, 120))}: never issued, malformed, or expired (journals are ` +
        `kept ${at.ttlMs() / 1000} s after their last use)`,
    );
  if (!parseEpisodeId(id)) throw unknown();
  const entry = await at.journal().read(id);
  if (!entry) throw unknown();
  const { env, version, seed, level, hash } = entry.identity;
  const found = at.service().catalog.lookup(env, version);
  if ('error' in found || found.record.hash !== hash)
    throw new ServeError(
      410,
      'E_UNKNOWN_ENV',
      `episode ${id.slice(0, 120)} was played on ${env}@${version}, which this library no longer serves`,
    );
  const meta = at.runner().metaOf(found.record);
  // the journal's actions in their one form (a journal written before V27-2's fix keeps them as they were sent)
  const actions = entry.actions.map((action) => canonicalAction(meta.tools, action));
  const release = entry.ended || !slot ? () => {} : at.reserve(client, true); // an ended episode is only read: no slot
  try {
    const snap = entry.ended ? null : await at.snapshots().load(id, actions);
    if (snap) {
      // one read, no replay (V25-3): the turns before the last keep their actions, their observations read on demand
      const session: Session = {
        ...{ id, client, record: found.record, meta, identity: { env, version, seed, level } },
        ...{ prompt: snap.prompt, state: snap.state, errors: snap.errors, now: snap.now, over: false },
        turns: actions.map(
          (action, i) =>
            new Turn(action, isRefused(action) ? refusedObservation(action) : i === snap.turn - 1 ? snap.last : ''),
        ),
        ...{ lastUsed: Date.now(), queue: Promise.resolve(), busy: 0, saved: snap.turn, unread: snap.turn - 1 },
      };
      at.place(session);
      return session;
    }
    const r = await at.runner().rollout(client, found.record, meta, seed, level, actions);
    const session: Session = {
      id,
      client,
      record: found.record,
      meta,
      identity: { env, version, seed, level },
      prompt: '',
      turns: [],
      state: '',
      errors: 0,
      now: { end: 'no-action', score: 0 },
      over: entry.ended !== null,
      lastUsed: Date.now(),
      queue: Promise.resolve(),
      busy: 0,
    };
    if (!r.ok) {
      session.now = { end: 'failed', score: 0, error: { code: r.code, message: r.message } };
      session.over = true;
      session.turns = actions.map((action) => new Turn(action, ''));
    } else {
      Object.assign(session, {
        prompt: r.prompt ?? '',
        state: JSON.stringify(r.state),
        errors: r.errors,
        now: outcomeOf(r),
      });
      // ended by its client: the journal says how
      if (entry.ended && r.end === 'no-action') session.now.end = entry.ended.end;
      // the host's form of each turn the replay played, as the live steps kept them (the sandbox logs the same)
      session.turns = actions
        .slice(0, r.actions.length)
        .map(
          (action, i) => new Turn(action, isRefused(action) ? refusedObservation(action) : (r.observations?.[i] ?? '')),
        );
      if (r.end !== 'no-action') session.over = true;
    }
    at.place(session); // one over is answered from memory, never held open: it takes no slot
    return session;
  } finally {
    release();
  }
}

/**
 * The observations of a session rebuilt from a snapshot (unread), read by a replay from reset charged to `client` as
 * a resume was before snapshots, only when a client asks for an earlier turn (a read, a retry of an old step).
 */
export async function readTurns(at: Opening, s: Session, client: Client): Promise<void> {
  const unread = s.unread ?? 0;
  if (unread === 0) return;
  const { seed, level } = s.identity;
  const r = await at.runner().rollout(
    client,
    s.record,
    s.meta,
    seed,
    level,
    s.turns.slice(0, unread).map((t) => t.action),
  );
  if (!r.ok) throw new ServeError(503, r.code, `the episode's earlier turns could not be read again: ${r.message}`);
  for (const [i, t] of s.turns.slice(0, unread).entries())
    if (!isRefused(t.action)) t.observation = r.observations?.[i] ?? '';
  delete s.unread;
}

// Idempotent episode creation: a create retried under the same Idempotency-Key by the same client (after a lost
// answer, or while the first is still running, or after a restart) answers with the episode that key made. Keys
// are scoped by client, as payment APIs scope them by account: another client's equal key is a key of its own.
import { journaled, type EpisodeIdentity, type EpisodeJournal, type EpisodeRequest } from './episode-journal.js';
import { ServeError } from './options.js';

export class KeyedCreates<S extends { id: string; identity: EpisodeIdentity }, C = void> {
  /** Creates under a key still in flight, so two concurrent retries of one create make one episode. */
  private readonly creating = new Map<string, Promise<S>>();

  constructor(
    private readonly journal: EpisodeJournal,
    private readonly createNew: (identity: EpisodeRequest, context: C) => Promise<S>,
    /** The session of an id (rebuilt from its journal when not in memory); rejects when there is none. */
    private readonly session: (id: string, context: C) => Promise<S>,
    /** Whose keys these are: the client a context names (its keys are apart from every other client's). */
    private readonly owner: (context: C) => string,
    /** Told each key record written (journal-quota.ts deletes it with its episode's journal). */
    private readonly bound: (id: string, scoped: string) => void = () => {},
  ) {}

  /**
   * The episode `key` made for this client, or a new one bound to it; 409 when the key made an episode of another
   * identity.
   */
  async create(identity: EpisodeRequest, key: string, context: C): Promise<S> {
    const scoped = `${this.owner(context)}\u0000${key}`;
    const pending = this.creating.get(scoped);
    if (pending)
      return sameIdentity(await pending.catch(() => this.createKeyed(identity, scoped, context)), identity, key);
    const work = this.createKeyed(identity, scoped, context)
      .then((s) => sameIdentity(s, identity, key))
      .finally(() => this.creating.delete(scoped));
    this.creating.set(scoped, work);
    return work;
  }

  private async createKeyed(identity: EpisodeRequest, scoped: string, context: C): Promise<S> {
    const known = await this.journal.keyed(scoped);
    // A key whose episode expired (or never got journaled) makes a new one.
    const held = known ? await this.session(known, context).catch(() => null) : null;
    if (held) return held;
    const session = await this.createNew(identity, context);
    await journaled(this.journal.bindKey(scoped, session.id));
    this.bound(session.id, scoped);
    return session;
  }
}

function sameIdentity<S extends { identity: EpisodeIdentity }>(session: S, identity: EpisodeRequest, key: string): S {
  const { env, version, seed, level } = session.identity;
  if (
    identity.env === env &&
    identity.seed === seed &&
    identity.level === level &&
    (identity.version === undefined || identity.version === version)
  )
    return session;
  throw new ServeError(
    409,
    'E_IDEMPOTENCY_KEY_REUSED',
    `Idempotency-Key ${JSON.stringify(key)} already created an episode of ${env}@${version} seed ${seed} ` +
      `level ${level}; use a new key for a new episode`,
  );
}

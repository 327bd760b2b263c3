// Idempotent episode creation: a create retried under the same Idempotency-Key (after a lost answer, or
// while the first is still running, or after a restart) answers with the episode that key made.
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
  ) {}

  /** The episode `key` made, or a new one bound to it; 409 when the key made an episode of another identity. */
  async create(identity: EpisodeRequest, key: string, context: C): Promise<S> {
    const pending = this.creating.get(key);
    if (pending) return sameIdentity(await pending.catch(() => this.createKeyed(identity, key, context)), identity, key);
    const work = this.createKeyed(identity, key, context).finally(() => this.creating.delete(key));
    this.creating.set(key, work);
    return work;
  }

  private async createKeyed(identity: EpisodeRequest, key: string, context: C): Promise<S> {
    const known = await this.journal.keyed(key);
    // A key whose episode expired (or never got journaled) makes a new one.
    const held = known ? await this.session(known, context).catch(() => null) : null;
    if (held) return sameIdentity(held, identity, key);
    const session = await this.createNew(identity, context);
    await journaled(this.journal.bindKey(key, session.id));
    return session;
  }
}

function sameIdentity<S extends { identity: EpisodeIdentity }>(session: S, identity: EpisodeRequest, key: string): S {
  const { env, version, seed, level } = session.identity;
  if (identity.env === env && identity.seed === seed && identity.level === level && (identity.version === undefined || identity.version === version)) return session;
  throw new ServeError(409, 'E_IDEMPOTENCY_KEY_REUSED', `Idempotency-Key ${JSON.stringify(key)} already created an episode of ${env}@${version} seed ${seed} level ${level}; use a new key for a new episode`);
}

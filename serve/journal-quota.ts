// How many ended episodes' journals the clients may leave on disk: each keeps them (for reading an outcome
// again, after a restart too) up to its fair share of maxEnded, and past the bound the client holding the most
// loses its oldest, with its Idempotency-Key record; so no client fills the disk or the inode table by ending
// episodes (create + DELETE in a loop). One-step episodes are never journaled at all (episodes.ts).
import type { Client } from './clients.js';
import type { EpisodeJournal } from './episode-journal.js';

interface Kept {
  id: string;
  at: number;
}

export class JournalQuota {
  /** Ended episodes' journals this process wrote, by principal, oldest first. */
  private readonly ended = new Map<string, Kept[]>();
  private total = 0;
  /** The Idempotency-Key record (its scoped key) that names an episode, deleted with its journal. */
  private readonly keys = new Map<string, string>();

  constructor(
    private readonly journal: EpisodeJournal,
    readonly maxEnded: number,
  ) {}

  /** Remembers that `id`'s create was bound to the scoped key `scoped` (its record goes with the journal). */
  bound(id: string, scoped: string): void {
    this.keys.set(id, scoped);
    // Keys of episodes that never end are dropped oldest first: their records expire with the journals' TTL.
    if (this.keys.size > 2 * this.maxEnded) this.keys.delete(this.keys.keys().next().value as string);
  }

  /** Counts `client`'s newly ended episode `id`; past the bound, deletes the oldest of the client holding the most. */
  endedBy(client: Client, id: string, now = Date.now()): void {
    const mine = this.ended.get(client.principal) ?? [];
    // Journals past their TTL are the sweep's: no longer counted.
    while (mine.length > 0 && now - (mine[0] as Kept).at > this.journal.ttlMs) this.drop(client.principal, mine, false);
    mine.push({ id, at: now });
    this.ended.set(client.principal, mine);
    this.total++;
    while (this.total > this.maxEnded) {
      let [most, list] = [client.principal, mine];
      for (const [principal, kept] of this.ended) if (kept.length > list.length) [most, list] = [principal, kept];
      this.drop(most, list, true);
    }
  }

  /** Forgets the oldest of `principal`'s journals, deleting it (and its key's record) when `remove`. */
  private drop(principal: string, list: Kept[], remove: boolean): void {
    const oldest = list.shift() as Kept;
    this.total--;
    if (list.length === 0) this.ended.delete(principal);
    const key = this.keys.get(oldest.id);
    this.keys.delete(oldest.id);
    if (!remove) return;
    void this.journal.remove(oldest.id);
    if (key !== undefined) void this.journal.remove(key, true);
  }
}

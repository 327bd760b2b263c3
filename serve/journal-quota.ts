// How many journals the clients may leave on disk: every journal is charged to the client that made it when it is
// written, whatever its episode's state (open in memory, idle-swept or evicted back to its journal, ended), up to its
// fair share of the bound, and past the bound the client holding the most loses its oldest journal, with its
// Idempotency-Key record (an open episode's session leaves memory with it: its id is then unknown); so no client
// fills the disk or the inode table by ending episodes or by leaving them open. One-step episodes are never journaled.
import type { Client } from './clients.js';
import type { EpisodeJournal } from './episode-journal.js';

interface Kept {
  id: string;
  at: number;
}

export class JournalQuota {
  /** Journals this process wrote, by principal, oldest first. */
  private readonly kept = new Map<string, Kept[]>();
  private total = 0;
  /** The Idempotency-Key record (its scoped key) that names an episode, deleted with its journal. */
  private readonly keys = new Map<string, string>();

  constructor(
    private readonly journal: EpisodeJournal,
    /** Journals on disk at most (open and ended episodes' alike). */
    readonly max: number,
    /** Told the id of an episode whose journal is deleted: its session (open or ended) leaves memory. */
    private readonly forget: (id: string) => void = () => {},
  ) {}

  /** Remembers that `id`'s create was bound to the scoped key `scoped` (its record goes with the journal). */
  bound(id: string, scoped: string): void {
    this.keys.set(id, scoped);
    // Keys of episodes that never end are dropped oldest first: their records expire with the journals' TTL.
    if (this.keys.size > 2 * this.max) this.keys.delete(this.keys.keys().next().value as string);
  }

  /** Counts `client`'s new journal `id`; past the bound, deletes the oldest of the client holding the most. */
  wrote(client: Client, id: string, now = Date.now()): void {
    const mine = this.kept.get(client.principal) ?? [];
    // Journals past their TTL are the sweep's: no longer counted.
    while (mine.length > 0 && now - (mine[0] as Kept).at > this.journal.ttlMs) this.drop(client.principal, mine, false);
    mine.push({ id, at: now });
    this.kept.set(client.principal, mine);
    this.total++;
    while (this.total > this.max) {
      let [most, list] = [client.principal, mine];
      for (const [principal, kept] of this.kept) if (kept.length > list.length) [most, list] = [principal, kept];
      this.drop(most, list, true);
    }
  }

  /** Forgets the oldest of `principal`'s journals, deleting it (and its key's record) when `remove`. */
  private drop(principal: string, list: Kept[], remove: boolean): void {
    const oldest = list.shift() as Kept;
    this.total--;
    if (list.length === 0) this.kept.delete(principal);
    const key = this.keys.get(oldest.id);
    this.keys.delete(oldest.id);
    if (!remove) return;
    this.forget(oldest.id);
    void this.journal.remove(oldest.id);
    if (key !== undefined) void this.journal.remove(key, true);
  }
}

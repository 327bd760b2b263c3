// How much the clients may leave on disk in episode journals: every journal is charged to the client that made it when
// it is written, whatever its episode's state (open in memory, idle-swept or evicted back to its journal, ended), by
// count and in bytes (every line appended to it: V24-2, a journal of long actions is megabytes), and past either bound
// the client holding the most of it loses its oldest journal, with its Idempotency-Key record (an open episode's
// session leaves memory with it: its id is then unknown); so no client fills the disk or the inode table by ending
// episodes or by leaving them open. One-step episodes are never journaled.
import type { Client } from './clients.js';
import type { EpisodeJournal } from './episode-journal.js';

interface Kept {
  id: string;
  at: number;
  /** Bytes written to its journal so far (its snapshot's included). */
  bytes: number;
  /** Bytes of its snapshot charged so far: a new snapshot charges only its growth. */
  snapshot?: number;
}

/** What one principal keeps: its journals, oldest first, and their bytes. */
interface Holding {
  list: Kept[];
  bytes: number;
}

export class JournalQuota {
  /** Journals this process wrote, by principal. */
  private readonly kept = new Map<string, Holding>();
  /** Each counted journal by id (for the bytes appended to it later). */
  private readonly byId = new Map<string, { principal: string; kept: Kept }>();
  private total = 0;
  private totalBytes = 0;
  /** The Idempotency-Key record (its scoped key) that names an episode, deleted with its journal. */
  private readonly keys = new Map<string, string>();

  constructor(
    private readonly journal: EpisodeJournal,
    /** Journals on disk at most (open and ended episodes' alike). */
    readonly max: number,
    /** Told the id of an episode whose journal is deleted: its session (open or ended) leaves memory. */
    private readonly forget: (id: string) => void = () => {},
    /** Bytes of journals on disk at most (every line the journal is told it wrote: EpisodeJournal.written). */
    readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {
    journal.written = (id, bytes) => this.grew(id, bytes);
    journal.maySnapshot = (id, size) => this.maySnapshot(id, size);
  }

  /** Remembers that `id`'s create was bound to the scoped key `scoped` (its record goes with the journal). */
  bound(id: string, scoped: string): void {
    this.keys.set(id, scoped);
    // Keys of episodes that never end are dropped oldest first: their records expire with the journals' TTL.
    if (this.keys.size > 2 * this.max) this.keys.delete(this.keys.keys().next().value as string);
  }

  /** Counts `client`'s new journal `id` (`bytes` so far); past a bound, deletes the oldest of the one holding most. */
  wrote(client: Client, id: string, now = Date.now(), bytes = 0): void {
    const mine = this.kept.get(client.principal) ?? { list: [], bytes: 0 };
    // Journals past their TTL are the sweep's: no longer counted.
    while (mine.list.length > 0 && now - (mine.list[0] as Kept).at > this.journal.ttlMs)
      this.drop(client.principal, mine, false);
    const kept = { id, at: now, bytes: 0 };
    mine.list.push(kept);
    this.kept.set(client.principal, mine);
    this.byId.set(id, { principal: client.principal, kept });
    this.total++;
    this.charge(client.principal, kept, bytes);
  }

  /** Charges `bytes` appended to journal `id` to the client it is counted for (a journal not counted: nothing). */
  grew(id: string, bytes: number): void {
    const owner = this.byId.get(id);
    if (owner) this.charge(owner.principal, owner.kept, bytes);
  }

  /**
   * Charges the growth of `id`'s snapshot to `size` bytes (mayWrite); the size is kept on the journal's own record, so
   * nothing is remembered of a journal this process no longer counts (it charges no one: the sweep takes it).
   */
  maySnapshot(id: string, size: number): boolean {
    const kept = this.byId.get(id)?.kept;
    const grown = size - (kept?.snapshot ?? 0);
    if (!kept || grown <= 0) return true;
    if (!this.mayWrite(id, grown)) return false;
    kept.snapshot = size;
    return true;
  }

  /**
   * Charges `bytes` of a file about to be written beside journal `id` (its snapshot), never removing that journal
   * (V26-1: its removal would race the write): past a bound another journal goes, the holder of the most's next oldest;
   * false, with nothing charged, where only `id` could go (the file is then not written). A journal this process does
   * not count (one of before a restart, or past its TTL) charges no one, as its own lines do: the sweep takes both.
   */
  mayWrite(id: string, bytes: number): boolean {
    const owner = this.byId.get(id);
    if (!owner) return true;
    if (this.charge(owner.principal, owner.kept, bytes, owner.kept)) return true;
    this.charge(owner.principal, owner.kept, -bytes);
    return false;
  }

  /** Charges `bytes`, then removes journals (never `spare`) while over a bound; false when only `spare` could go. */
  private charge(principal: string, kept: Kept, bytes: number, spare?: Kept): boolean {
    const mine = this.kept.get(principal) as Holding;
    kept.bytes += bytes;
    mine.bytes += bytes;
    this.totalBytes += bytes;
    while (this.total > this.max || this.totalBytes > this.maxBytes) {
      const byBytes = this.totalBytes > this.maxBytes;
      let [most, holding] = [principal, mine];
      for (const [p, h] of this.kept)
        if (byBytes ? h.bytes > holding.bytes : h.list.length > holding.list.length) [most, holding] = [p, h];
      const at = holding.list[0] === spare ? 1 : 0;
      if (holding.list.length <= at) return false;
      this.drop(most, holding, true, at);
    }
    return true;
  }

  /** Forgets the oldest (or `at`-th) of `principal`'s journals, deleting it (and its key's record) when `remove`. */
  private drop(principal: string, holding: Holding, remove: boolean, at = 0): void {
    const [oldest] = holding.list.splice(at, 1) as [Kept];
    this.total--;
    this.totalBytes -= oldest.bytes;
    holding.bytes -= oldest.bytes;
    this.byId.delete(oldest.id);
    if (holding.list.length === 0) this.kept.delete(principal);
    const key = this.keys.get(oldest.id);
    this.keys.delete(oldest.id);
    if (!remove) return;
    this.forget(oldest.id);
    void this.journal.remove(oldest.id);
    if (key !== undefined) void this.journal.remove(key, true);
  }
}

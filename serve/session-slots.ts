// Slots (episode sessions, WebSocket connections) shared fairly between clients. While slots are free, anyone
// takes one. When all are taken, a client below its fair share (the slots divided among the principals holding
// some: client tokens or normalised addresses, serve/clients.ts; then a principal's share among its client ids)
// takes the least recently used slot of the client furthest over its share, idle or busy (nothing a client
// does exempts its slots), which is evicted; else the asker's own least recently used idle slot is taken back (a
// client's share bounds what it holds, not when it may replace what it no longer uses); a 429 names the limit.
import type { Client } from './clients.js';
import { ServeError } from './options.js';

/** What the slots need to know of an open session. */
export interface SlotHolder {
  id: string;
  client: Client;
  /** Requests queued or running on it: a busy slot is evicted only when no idle one of its group is. */
  busy: number;
  lastUsed: number;
}

interface Counts {
  total: number;
  byPrincipal: Map<string, number>;
  byKey: Map<string, number>;
  /** Client keys holding slots, per principal. */
  keysAt: Map<string, Set<string>>;
}

export interface SlotKind {
  code: 'E_TOO_MANY_SESSIONS' | 'E_TOO_MANY_CONNECTIONS';
  what: string;
  hint: string;
}

export const EPISODE_SLOTS: SlotKind = {
  code: 'E_TOO_MANY_SESSIONS',
  what: 'open episode sessions',
  hint: 'end some (DELETE /v1/episodes/{id}) or retry later',
};

/**
 * The open sessions that hold a slot: all but those their client is ending (scored and journaled as they stand), so a
 * trainer that closes a batch of rollouts and opens the next is not refused while the last are still being scored.
 */
export function holdersBut(
  open: ReadonlyMap<string, SlotHolder>,
  ending: { has(id: string): boolean; keys(): Iterable<string> },
): { readonly size: number; values(): Iterable<SlotHolder> } {
  return {
    get size() {
      let n = open.size;
      for (const id of ending.keys()) if (open.has(id)) n--;
      return n;
    },
    *values() {
      for (const session of open.values()) if (!ending.has(session.id)) yield session;
    },
  };
}

export class SessionSlots {
  /** Slots reserved by requests still creating or restoring their session, by client key. */
  private readonly reserved = new Map<string, { client: Client; n: number }>();
  private reservedTotal = 0;

  constructor(
    readonly max: number,
    private readonly open: { readonly size: number; values(): Iterable<SlotHolder> },
    private readonly evict: (id: string) => void,
    /** What the slots hold, for the 429: its code, its name and what a client can do. */
    private readonly kind: SlotKind = EPISODE_SLOTS,
    /**
     * Busy slots already evicted and still finishing their request (held outside `open`): at most `max` of them, so
     * the slots in use stay under twice `max`; past it only idle slots are evicted.
     */
    private readonly draining: () => number = () => 0,
  ) {}

  /**
   * A slot for `client` (released by the function returned), or a 429 when it is at its share of a full service.
   * `resume`: for a session sent back to its journal, which takes back the client's most recently used idle session
   * rather than its least (a trainer stepping its sessions in turn needs that one last: V25-3).
   */
  reserve(client: Client, resume = false): () => void {
    if (this.open.size + this.reservedTotal >= this.max) this.makeRoom(client, resume);
    const held = this.reserved.get(client.key) ?? { client, n: 0 };
    held.n++;
    this.reserved.set(client.key, held);
    this.reservedTotal++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.reservedTotal--;
      const entry = this.reserved.get(client.key);
      if (entry && --entry.n === 0) this.reserved.delete(client.key);
    };
  }

  /**
   * Whether `client` may end one more session without its slot (`ending`: the sessions ending so, by id): each client
   * id may have its fair share of `max` ending so, shared like the slots (among the principals holding slots or ending
   * sessions, then a principal's share among its ids), so one client ending many slow sessions holds its share and no
   * more, and one that comes later still has its own; past it a session keeps its slot while it is scored. Shares
   * shrink as clients come while sessions already ending stay so: a principal keeps under twice its share, and all
   * clients together under twice `max`.
   */
  mayEndFree(client: Client, ending: ReadonlyMap<string, Client>): boolean {
    if (ending.size >= 2 * this.max) return false;
    const { byPrincipal, keysAt } = this.count();
    const principals = new Set([client.principal, ...byPrincipal.keys()]);
    const keys = new Set([client.key, ...(keysAt.get(client.principal) ?? [])]);
    let [ours, mine] = [0, 0];
    for (const c of ending.values()) {
      principals.add(c.principal);
      if (c.principal !== client.principal) continue;
      keys.add(c.key);
      ours++;
      if (c.key === client.key) mine++;
    }
    const share = Math.max(1, Math.floor(this.max / principals.size));
    return ours < 2 * share && mine < Math.max(1, Math.floor(share / keys.size));
  }

  /** Whether the sessions held (and reserved) are past `max`: one held without a slot must then go. */
  overfull(): boolean {
    return this.open.size + this.reservedTotal > this.max;
  }

  /** Sessions (and reservations) per client key, for the operator's view. */
  holdings(): Map<string, number> {
    return this.count().byKey;
  }

  private count(): Counts {
    const counts: Counts = { total: 0, byPrincipal: new Map(), byKey: new Map(), keysAt: new Map() };
    const add = (client: Client, n: number) => {
      counts.total += n;
      counts.byPrincipal.set(client.principal, (counts.byPrincipal.get(client.principal) ?? 0) + n);
      counts.byKey.set(client.key, (counts.byKey.get(client.key) ?? 0) + n);
      counts.keysAt.set(client.principal, (counts.keysAt.get(client.principal) ?? new Set()).add(client.key));
    };
    for (const s of this.open.values()) add(s.client, 1);
    for (const { client, n } of this.reserved.values()) add(client, n);
    return counts;
  }

  /**
   * Evicts one session (idle first, else busy: see `draining`) of the client furthest over its share, for `client`
   * below its own; else `client`'s own least recently used idle one; else 429, its text from the numbers this decision
   * used.
   */
  private makeRoom(client: Client, resume: boolean): void {
    const counts = this.count();
    const principals = new Set([...counts.byPrincipal.keys(), client.principal]).size;
    const principalShare = Math.max(1, Math.floor(this.max / principals));
    const atPrincipal = counts.byPrincipal.get(client.principal) ?? 0;
    const keys = new Set([...(counts.keysAt.get(client.principal) ?? []), client.key]).size;
    const keyShare = Math.max(1, Math.floor(Math.min(this.max, Math.max(atPrincipal, principalShare)) / keys));
    const mine = counts.byKey.get(client.key) ?? 0;
    const draining = this.draining();
    const busyToo = draining < this.max;
    let victim: SlotHolder | null = null;
    const below = atPrincipal < principalShare ? 'principal' : mine < keyShare ? 'key' : null;
    if (below === 'principal')
      victim = this.victim(counts.byPrincipal, principalShare, busyToo, (s) => s.client.principal);
    else if (below === 'key')
      victim = this.victim(counts.byKey, keyShare, busyToo, (s) =>
        s.client.principal === client.principal ? s.client.key : null,
      );
    victim ??= this.ownIdle(client, resume);
    if (victim) return this.evict(victim.id);
    const share =
      below === 'key' || (below === null && keys > 1 && mine >= keyShare)
        ? `${keyShare} per client id while ${keys} ids share their client's`
        : `${principalShare} per client while ${principals} share the ${this.max}`;
    const why =
      below === null
        ? `its fair share is ${share}, and every session it holds is busy`
        : `below its fair share (${share}), but no slot over a share can be evicted now: ` +
          (busyToo
            ? 'those over theirs are still being opened'
            : `${draining} evicted are still finishing their requests (at most ${this.max})`);
    throw new ServeError(
      429,
      this.kind.code,
      `the service holds its limit of ${this.max} ${this.kind.what}, and client ${client.key} holds ${mine} (` +
        `${client.principal} ${atPrincipal}): ${why}; ${this.kind.hint}`,
    );
  }

  /**
   * The least (`newest`: most) recently used idle session of `client`'s own id, taken back for its new one or the one
   * it resumes (resumable).
   */
  private ownIdle(client: Client, newest: boolean): SlotHolder | null {
    let best: SlotHolder | null = null;
    for (const s of this.open.values())
      if (s.client.key !== client.key || s.busy > 0) continue;
      else if (best === null || (newest ? s.lastUsed > best.lastUsed : s.lastUsed < best.lastUsed)) best = s;
    return best;
  }

  /**
   * A session of a group (by `groupOf`; null: not a candidate) holding more than `share`: of the group holding the
   * most, an idle session before a busy one (`busyToo`: else none busy), the least recently used first.
   */
  private victim(
    counts: Map<string, number>,
    share: number,
    busyToo: boolean,
    groupOf: (s: SlotHolder) => string | null,
  ): SlotHolder | null {
    let best: SlotHolder | null = null;
    let bestHeld = share;
    // idle before busy, then least recently used
    const before = (a: SlotHolder, b: SlotHolder) =>
      (a.busy === 0) !== (b.busy === 0) ? a.busy === 0 : a.lastUsed < b.lastUsed;
    for (const s of this.open.values()) {
      const group = s.busy === 0 || busyToo ? groupOf(s) : null;
      const held = group === null ? 0 : (counts.get(group) ?? 0);
      if (held > bestHeld || (held === bestHeld && held > share && best !== null && before(s, best)))
        [best, bestHeld] = [s, held];
    }
    return best;
  }
}

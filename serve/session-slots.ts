// Episode session slots shared fairly between clients. While slots are free, anyone takes one. When the
// service is full, a client below its fair share (the slots divided among the addresses holding sessions,
// then an address's share among its client ids) takes the least recently used idle session of the client
// furthest over its share: that session leaves memory, its journal keeps it resumable. A client at or over
// its share gets 429 naming the limit. So one client (one address) can never starve the others.
import type { Client } from './clients.js';
import { ServeError } from './options.js';

/** What the slots need to know of an open session. */
export interface SlotHolder {
  id: string;
  client: Client;
  /** Requests queued or running on it: a busy session is never evicted. */
  busy: number;
  lastUsed: number;
}

interface Counts {
  total: number;
  byAddress: Map<string, number>;
  byKey: Map<string, number>;
  /** Client keys holding sessions, per address. */
  keysAt: Map<string, Set<string>>;
}

export class SessionSlots {
  /** Slots reserved by requests still creating or restoring their session, by client key. */
  private readonly reserved = new Map<string, { client: Client; n: number }>();
  private reservedTotal = 0;

  constructor(
    readonly max: number,
    private readonly open: { readonly size: number; values(): Iterable<SlotHolder> },
    private readonly evict: (id: string) => void,
  ) {}

  /** A slot for `client` (released by the function returned), or a 429 when it is at its share of a full service. */
  reserve(client: Client): () => void {
    if (this.open.size + this.reservedTotal >= this.max) this.makeRoom(client);
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

  /** Sessions (and reservations) per client key, for the operator's view. */
  holdings(): Map<string, number> {
    return this.count().byKey;
  }

  private count(): Counts {
    const counts: Counts = { total: 0, byAddress: new Map(), byKey: new Map(), keysAt: new Map() };
    const add = (client: Client, n: number) => {
      counts.total += n;
      counts.byAddress.set(client.address, (counts.byAddress.get(client.address) ?? 0) + n);
      counts.byKey.set(client.key, (counts.byKey.get(client.key) ?? 0) + n);
      counts.keysAt.set(client.address, (counts.keysAt.get(client.address) ?? new Set()).add(client.key));
    };
    for (const s of this.open.values()) add(s.client, 1);
    for (const { client, n } of this.reserved.values()) add(client, n);
    return counts;
  }

  /** Evicts one idle session of the client furthest over its share, for `client` below its own; else 429. */
  private makeRoom(client: Client): void {
    const counts = this.count();
    const addresses = new Set([...counts.byAddress.keys(), client.address]).size;
    const addressShare = Math.max(1, Math.floor(this.max / addresses));
    const atAddress = counts.byAddress.get(client.address) ?? 0;
    const keys = new Set([...(counts.keysAt.get(client.address) ?? []), client.key]).size;
    const keyShare = Math.max(1, Math.floor(Math.min(this.max, Math.max(atAddress, addressShare)) / keys));
    const mine = counts.byKey.get(client.key) ?? 0;
    let victim: SlotHolder | null = null;
    if (atAddress < addressShare) victim = this.victim(counts.byAddress, addressShare, (s) => s.client.address);
    else if (mine < keyShare) victim = this.victim(counts.byKey, keyShare, (s) => (s.client.address === client.address ? s.client.key : null));
    if (victim) return this.evict(victim.id);
    const share = keys > 1 && mine >= keyShare ? `${keyShare} per client id while ${keys} ids share their address's` : `${addressShare} per address while ${addresses} share the ${this.max} slots`;
    throw new ServeError(429, 'E_TOO_MANY_SESSIONS', `the service holds its limit of ${this.max} open episode sessions, and client ${client.key} holds ${mine} (its address ${atAddress}): its fair share is ${share}; end some (DELETE /v1/episodes/{id}) or retry later`);
  }

  /**
   * An idle session of a group (by `groupOf`; null: not a candidate) holding more than `share`: of the group
   * holding the most, its least recently used session. Null when every such session is busy.
   */
  private victim(counts: Map<string, number>, share: number, groupOf: (s: SlotHolder) => string | null): SlotHolder | null {
    let best: SlotHolder | null = null;
    let bestHeld = share;
    for (const s of this.open.values()) {
      const group = s.busy === 0 ? groupOf(s) : null;
      const held = group === null ? 0 : (counts.get(group) ?? 0);
      if (held > bestHeld || (held === bestHeld && held > share && best !== null && s.lastUsed < best.lastUsed)) [best, bestHeld] = [s, held];
    }
    return best;
  }
}

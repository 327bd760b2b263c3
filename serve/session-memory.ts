// The heap the episode sessions hold (state, prompt, every turn's action and observation), charged to their clients'
// principals under a byte budget derived from the heap (V25-2): past it, the idle sessions of the principals over
// their fair share go back to their journals (resumable: ended ones first, then the least recently used), and a new
// session that finds nothing to free is refused 503 rather than the process aborting for everyone.
import { getHeapStatistics } from 'node:v8';
import type { Client } from './clients.js';
import type { Session } from './episode-session.js';
import { ServeError } from './options.js';

/** What the budget reads of a session held in memory. */
export type MemoryHolder = Pick<Session, 'id' | 'client' | 'busy' | 'lastUsed' | 'over' | 'ephemeral'>;

/** Bytes of a session's own data and bookkeeping besides its text. */
const SESSION_OVERHEAD = 1_024;

/** Bytes of each turn's own object besides its text. */
const TURN_OVERHEAD = 64;

/**
 * The heap bytes a session holds: two a character (V8 keeps text that is not Latin-1 two bytes a character), for its
 * state, prompt and turns (an action is held as its JSON text: episode-session.ts Turn, V26-2), plus its bookkeeping.
 */
export function heldBytes(s: Pick<Session, 'id' | 'state' | 'prompt' | 'turns'>): number {
  let chars = s.id.length + s.state.length + s.prompt.length;
  for (const t of s.turns) chars += t.observation.length + t.actionChars;
  return 2 * chars + TURN_OVERHEAD * s.turns.length + SESSION_OVERHEAD;
}

/** The default budget: a quarter of the V8 heap limit (as the body budget's), between 16 MiB and 1 GiB. */
export function sessionMemoryOf(heapLimit = getHeapStatistics().heap_size_limit): number {
  return Math.min(2 ** 30, Math.max(16 * 2 ** 20, Math.floor(heapLimit / 4)));
}

export class SessionMemory {
  private readonly held = new Map<string, { principal: string; bytes: number }>();
  private readonly byPrincipal = new Map<string, number>();
  /** Bytes charged for all sessions; sessions sent back to their journals to keep within the budget. */
  readonly stats = { heldBytes: 0, released: 0, refused: 0 };

  constructor(
    readonly budgetBytes: number,
    /** The sessions held in memory, open and ended. */
    private readonly sessions: () => Iterable<MemoryHolder>,
    /** Sends a session back to its journal (it leaves memory, and `drop` is called for it). */
    private readonly release: (id: string) => void,
  ) {}

  /** Charges what `s` holds now to its client's principal, then frees idle sessions over their shares to fit. */
  charge(s: MemoryHolder & Parameters<typeof heldBytes>[0]): void {
    this.set(s.id, s.client.principal, heldBytes(s));
    this.fit(s.id);
  }

  /** `id` left memory. */
  drop(id: string): void {
    const was = this.held.get(id);
    if (!was) return;
    this.held.delete(id);
    this.add(was.principal, -was.bytes);
  }

  /**
   * Before a session is made or rebuilt for `client`: frees what the budget allows; a 503 when the budget is full and
   * nothing over a share is idle (every such session is busy), so nothing is made that the heap cannot hold.
   */
  admit(client: Client): void {
    this.fit('');
    if (this.stats.heldBytes < this.budgetBytes) return;
    this.stats.refused++;
    const mine = this.byPrincipal.get(client.principal) ?? 0;
    throw new ServeError(
      503,
      'E_SESSION_MEMORY',
      `the episode sessions hold their memory budget of ${mb(this.budgetBytes)} (client ${client.key} ` +
        `${mb(mine)}, its fair share ${mb(this.share(client.principal))}) and every session over a share is busy: ` +
        'retry later, or end some (DELETE /v1/episodes/{id})',
    );
  }

  private set(id: string, principal: string, bytes: number): void {
    this.drop(id);
    this.held.set(id, { principal, bytes });
    this.add(principal, bytes);
  }

  private add(principal: string, n: number): void {
    const now = (this.byPrincipal.get(principal) ?? 0) + n;
    if (now <= 0) this.byPrincipal.delete(principal);
    else this.byPrincipal.set(principal, now);
    this.stats.heldBytes += n;
  }

  /** A principal's fair share: the budget divided among the principals holding sessions (and `asker`). */
  private share(asker: string): number {
    const principals = this.byPrincipal.size + (this.byPrincipal.has(asker) ? 0 : 1);
    return Math.floor(this.budgetBytes / Math.max(1, principals));
  }

  /** Releases idle sessions (not `keep`) of the principals over their shares while the total is over the budget. */
  private fit(keep: string): void {
    while (this.stats.heldBytes > this.budgetBytes) {
      const victim = this.victim(keep);
      if (!victim) return;
      this.release(victim.id);
      this.drop(victim.id);
      this.stats.released++;
    }
  }

  /**
   * Of the principal furthest over its share with an idle session: an ended session before an open one, then the
   * least recently used. Never a busy session (its request holds it) nor a one-step one going on (no journal).
   */
  private victim(keep: string): MemoryHolder | null {
    const share = this.share('');
    let [best, bestOver] = [null as MemoryHolder | null, 0];
    for (const s of this.sessions()) {
      if (s.id === keep || s.busy > 0 || (s.ephemeral && !s.over) || !this.held.has(s.id)) continue;
      const over = (this.byPrincipal.get(s.client.principal) ?? 0) - share;
      if (over <= 0) continue;
      const before =
        best === null ||
        over > bestOver ||
        (over === bestOver && (s.over !== best.over ? s.over : s.lastUsed < best.lastUsed));
      if (before) [best, bestOver] = [s, over];
    }
    return best;
  }
}

const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;

// The bytes of request bodies (WebSocket messages, and unread answers) the service holds, charged to their client
// from the headers on: a body reserves its declared Content-Length (a chunked one grows as it arrives) under its
// client's share of a process-wide budget, and keeps it until its answer is sent; a body still arriving after the
// deadline is dropped (V20-1: unfinished bodies were held by nothing and one client's filled the process's memory),
// and one that stalls, or cannot arrive by then at its rate, may be reclaimed for another client (V25-1, V27-1).
import { ServeError } from './options.js';

/**
 * A hold whose transfer went on within this long (bytes arrived, or taken by the kernel) is moving, and is never
 * reclaimed for another client (V25-1): only a client that is not keeping its side loses what it was granted.
 */
export const STALL_MS = 1_000;

/**
 * Bytes a body still arriving must bring to count as moving (V26-3): its clock is set again only once this many have
 * come since it last was, so a transfer slower than about this many a STALL_MS (a byte every half second) is stalled,
 * however often a byte comes. An honest body, however slow its link, comes in TCP segments of kilobytes.
 */
export const MIN_PROGRESS_BYTES = 2_048;

/** The window over which a hold's latest rate is measured (a link that speeds up is judged by what it does now). */
export const RATE_WINDOW_MS = 1_000;

/** What the budget needs of the thing holding bytes: a way to drop it (its stream or socket) when reclaimed. */
export interface BodyHolder {
  /** Drops the body (closes its connection) with this error; its hold is released by the budget first. */
  drop(error: ServeError): void;
  /** Looks at its transfer now, calling its hold's moved() if it went on since the last look (answer-budget.ts). */
  look?(): void;
}

/** Bytes held for one body or message. */
export class Hold {
  bytes = 0;
  /** Still arriving (its client owes bytes): only such a hold is reclaimed for another client. */
  arriving = true;
  released = false;
  /** When its transfer last went on: its reservation, then each report of progress (moved). */
  movedAt = Date.now();
  /** Bytes arrived since movedAt, short of MIN_PROGRESS_BYTES. */
  private progress = 0;
  readonly openedAt = this.movedAt;
  /** When all it reserved must have arrived (a body's deadline: dueBy), else judged by its stall alone. */
  private dueAt: number | undefined;
  /** Bytes arrived in all, and in the rate window now open (since windowAt); the rate of the last window closed. */
  private received = 0;
  private windowAt = this.movedAt;
  private windowBytes = 0;
  private lastRate = 0;

  constructor(
    readonly principal: string,
    readonly holder: BodyHolder,
    private readonly budget: BodyBudget,
  ) {}

  /** Charges `n` more bytes (a chunked body past its reservation); throws a ServeError when they do not fit. */
  grow(n: number): void {
    this.budget.charge(this, n);
  }

  /** Gives back `n` of its bytes (a WebSocket connection's frame bytes that became a message: ws-intake.ts). */
  shrink(n: number): void {
    this.budget.discharge(this, n);
  }

  /**
   * Its transfer went on: not reclaimable for STALL_MS. With `arrived`, that many bytes of a body came, which count
   * once MIN_PROGRESS_BYTES have come since it last moved (a trickle is not progress: V26-3); without, the kernel took
   * some of an answer.
   */
  moved(arrived?: number): void {
    if (arrived !== undefined) {
      const now = Date.now();
      this.received += arrived;
      this.windowBytes += arrived;
      if (now - this.windowAt >= RATE_WINDOW_MS) {
        this.lastRate = this.windowBytes / (now - this.windowAt);
        [this.windowAt, this.windowBytes] = [now, 0];
      }
      if ((this.progress += arrived) < MIN_PROGRESS_BYTES) return;
    }
    this.progress = 0;
    this.movedAt = Date.now();
  }

  /** Its client must have sent all it holds (its declared length) by `at`: a hold that cannot is reclaimable. */
  dueBy(at: number): void {
    this.dueAt = at;
  }

  /**
   * Whether what it still owes cannot arrive before its deadline at the rate it has shown (V27-1): the better of its
   * average since it opened and its last window's, judged once it is `graceMs` old. Holding costs sending: a body
   * reserving 8 MiB must bring them in time, where an absolute floor (V26-3) let a trickle hold any reservation.
   */
  cannotArrive(now: number, graceMs: number): boolean {
    const owed = this.bytes - this.received;
    const age = now - this.openedAt;
    if (this.dueAt === undefined || owed <= 0 || age <= 0 || age < graceMs) return false;
    const rate = Math.max(this.received / age, this.lastRate);
    return owed > rate * (this.dueAt - now);
  }

  /** The body has arrived: its bytes stay charged until release, but no other client may reclaim them. */
  arrived(): void {
    this.arriving = false;
  }

  release(): void {
    this.budget.release(this);
  }
}

/** What the budget reports (tests and /health read it). */
export interface BodyBudgetStats {
  heldBytes: number;
  refused: number;
  reclaimed: number;
}

const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;

export class BodyBudget {
  private readonly holds = new Map<string, Set<Hold>>();
  private readonly perClient = new Map<string, number>();
  readonly stats: BodyBudgetStats = { heldBytes: 0, refused: 0, reclaimed: 0 };

  constructor(
    /** Bytes held for all clients at once. */
    readonly totalBytes: number,
    /** Bytes held for one client (its principal) at once. */
    readonly clientBytes: number,
    /** How long a hold must not have moved before it may be reclaimed (STALL_MS; 0 in tests of the reclaim alone). */
    readonly stallMs = STALL_MS,
  ) {}

  /**
   * Opens a hold of `bytes` (a declared Content-Length, or 0) for `principal`, or throws a 503 ServeError; with `share`
   * false only the total bounds it (a client's one answer may be larger than its share: answer-budget.ts).
   */
  reserve(principal: string, bytes: number, holder: BodyHolder, share = true): Hold {
    const hold = new Hold(principal, holder, this);
    this.charge(hold, bytes, share);
    let set = this.holds.get(principal);
    if (!set) this.holds.set(principal, (set = new Set()));
    set.add(hold);
    return hold;
  }

  /** Bytes `principal` holds now. */
  heldBy(principal: string): number {
    return this.perClient.get(principal) ?? 0;
  }

  charge(hold: Hold, n: number, share = true): void {
    if (hold.released || n <= 0) return;
    const mine = this.heldBy(hold.principal);
    if (share && mine + n > this.clientBytes) this.refuse(hold, mine, n, `its share of ${mb(this.clientBytes)}`);
    if (this.stats.heldBytes + n > this.totalBytes) this.reclaimFor(hold.principal, mine + n, n);
    if (this.stats.heldBytes + n > this.totalBytes)
      this.refuse(hold, mine, n, `the service's ${mb(this.totalBytes)} for all clients' bodies`);
    hold.bytes += n;
    this.perClient.set(hold.principal, mine + n);
    this.stats.heldBytes += n;
  }

  discharge(hold: Hold, n: number): void {
    const bytes = Math.min(n, hold.bytes);
    if (hold.released || bytes <= 0) return;
    hold.bytes -= bytes;
    this.stats.heldBytes -= bytes;
    const left = this.heldBy(hold.principal) - bytes;
    if (left > 0) this.perClient.set(hold.principal, left);
    else this.perClient.delete(hold.principal);
  }

  release(hold: Hold): void {
    if (hold.released) return;
    hold.released = true;
    this.stats.heldBytes -= hold.bytes;
    const left = this.heldBy(hold.principal) - hold.bytes;
    if (left > 0) this.perClient.set(hold.principal, left);
    else this.perClient.delete(hold.principal);
    const set = this.holds.get(hold.principal);
    set?.delete(hold);
    if (set?.size === 0) this.holds.delete(hold.principal);
  }

  private refuse(hold: Hold, mine: number, n: number, what: string): never {
    this.stats.refused++;
    throw new ServeError(
      503,
      'E_OVERLOADED',
      `request bodies in flight are over ${what} (this client holds ${mb(mine)} and asks ${mb(n)} more; the ` +
        `service ${mb(this.stats.heldBytes)}); send fewer large bodies at once, or retry later`,
    );
  }

  /**
   * Frees room for a client that would hold `wanted` bytes by dropping stalled bodies still arriving (or answers still
   * unread), or bodies too slow to arrive by their deadline, of the clients holding the most, largest first, while such
   * a client holds more than `wanted` (never below the asker's own holding). A hold that moved within stallMs at a rate
   * that brings it in time is never dropped: its client keeps its side (V25-1, V27-1).
   */
  private reclaimFor(asker: string, wanted: number, n: number): void {
    while (this.stats.heldBytes + n > this.totalBytes) {
      const victim = this.reclaimableHold(asker, wanted);
      if (!victim) return;
      this.release(victim);
      this.stats.reclaimed++;
      victim.holder.drop(
        new ServeError(
          503,
          'E_OVERLOADED',
          "this body was dropped for another client's: this client holds the most of the bytes of request bodies " +
            'in flight and its transfer stalled, or was too slow to arrive by its deadline; send fewer large bodies ' +
            'at once',
        ),
      );
    }
  }

  /**
   * The largest hold still arriving, stalled or unable to arrive in time, of the richest client (other than `asker`)
   * holding more than `wanted`.
   */
  private reclaimableHold(asker: string, wanted: number): Hold | undefined {
    const now = Date.now();
    const reclaimable = (hold: Hold) => {
      if (!hold.arriving || hold.bytes === 0) return false; // dropping it would free nothing
      hold.holder.look?.();
      return now - hold.movedAt >= this.stallMs || hold.cannotArrive(now, this.stallMs);
    };
    const richest = [...this.perClient]
      .filter(([p, bytes]) => p !== asker && bytes > wanted)
      .sort((a, b) => b[1] - a[1]);
    for (const [principal] of richest) {
      const victim = [...(this.holds.get(principal) ?? [])].filter(reclaimable).sort((a, b) => b.bytes - a.bytes)[0];
      if (victim) return victim;
    }
    return undefined;
  }
}

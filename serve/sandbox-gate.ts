// The one fair scheduler of the service's sandbox jobs: every job the service gives the pool (the dispatcher's shared
// groups, a replay, a scoring, a re-run that confirms an incident) waits here for its turn, charged to its client
// by its cost (the call budgets it may hold a worker for), the waiting job whose client has been charged least
// served first (start-time fair queueing), at most one job per worker in the pool at once, so no client's jobs
// ever queue first-come in the pool ahead of another client's. A job frees its place the moment the pool frees its
// worker (the pool's onEnd, passed on as `done`), so the next one is handed out as the pool would hand out its own
// queued job, not after the finished job's results have gone back through their callers.

interface Waiting {
  /** The client's charge when the job was queued (its virtual start) and after it (its virtual finish). */
  start: number;
  finish: number;
  seq: number;
  go(): void;
}

/** The owner of the dispatcher's shared jobs: their calls are its clients' in turn (dispatcher.ts takeInTurn). */
export const SHARED_OWNER = '\u0000shared';

export class SandboxGate {
  private readonly waiting: Waiting[] = [];
  /** Each client's charge: the virtual finish of its latest job (forgotten once the clock passes it). */
  private readonly charged = new Map<string, number>();
  /** The virtual clock: the start of the latest job let through. */
  private clock = 0;
  private running = 0;
  private seq = 0;

  constructor(
    /** Jobs in the pool at once (its workers). */
    readonly concurrency: number,
  ) {}

  /**
   * Charges `owner` `cost` (call budgets) for sandbox time it used in a job charged to no one when it was let through
   * (a shared group's calls: dispatcher.ts charges each client the time its calls took): its later jobs wait for it.
   */
  charge(owner: string, cost: number): void {
    if (!(cost > 0)) return;
    this.charged.set(owner, Math.max(this.clock, this.charged.get(owner) ?? 0) + cost);
  }

  /** How far `owner` is charged past the virtual clock (0: not at all): who has used the sandbox least goes first. */
  chargeOf(owner: string): number {
    return Math.max(0, (this.charged.get(owner) ?? 0) - this.clock);
  }

  /** Jobs waiting for their turn (not yet in the pool). */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /**
   * Runs `job` (which gives the pool one job, or one group travelling together) in `owner`'s turn, charged `cost`
   * (at least 1: a job of n call budgets costs n). Its place is freed when it calls `done` (from the pool's onEnd of
   * its last pool job: sandbox/pool-options.ts), else when its promise settles.
   */
  run<T>(owner: string, cost: number, job: (done: () => void) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = Math.max(this.clock, this.charged.get(owner) ?? 0);
      const finish = start + Math.max(1, cost);
      this.charged.set(owner, finish);
      const go = () => {
        this.running++;
        let freed = false;
        const done = () => {
          if (freed) return;
          freed = true;
          this.running--;
          this.next();
        };
        let running: Promise<T>;
        try {
          running = job(done);
        } catch (error) {
          running = Promise.reject(error);
        }
        running.then(resolve, reject).finally(done);
      };
      this.waiting.push({ start, finish, seq: this.seq++, go });
      this.next();
    });
  }

  private next(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      let best = 0;
      this.waiting.forEach((w, i) => {
        const b = this.waiting[best] as Waiting;
        if (w.finish < b.finish || (w.finish === b.finish && w.seq < b.seq)) best = i;
      });
      const [job] = this.waiting.splice(best, 1) as [Waiting];
      this.clock = Math.max(this.clock, job.start);
      for (const [owner, finish] of this.charged) if (finish <= this.clock) this.charged.delete(owner);
      job.go();
    }
  }
}

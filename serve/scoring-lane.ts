// The lane of scorings no open or step waits on (sessions their clients end): one sandbox job each, outside the
// dispatcher's module slots, clients served in turn (sandbox/fair-queue.ts), at most workers − 1 at once, so one
// client's slow scorings never hold the module slots or every worker that other clients' opens and steps need.
import { FairQueue } from '../sandbox/fair-queue.js';
import type { Call, CallResult } from '../sandbox/protocol.js';
import type { Dispatcher } from './dispatcher.js';

export class ScoringLane {
  private readonly waiting = new FairQueue<() => void>();
  private running = 0;
  /** Scorings in the pool at once: all workers but one (one with a single worker, which then cannot be spared). */
  readonly concurrency: number;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly callTimeoutMs: number,
    workers: number,
  ) {
    this.concurrency = Math.max(1, workers - 1);
  }

  /** Scorings waiting for their turn (not yet in the pool). */
  get waitingCount(): number {
    return this.waiting.size;
  }

  /** Runs `call` for `owner` (a principal: serve/clients.ts) when its turn comes, in a job of its own. */
  run(owner: string, source: string, call: Call, cost = 1): Promise<CallResult> {
    return new Promise((resolve) => {
      this.waiting.push(owner, () => {
        this.running++;
        void this.dispatcher
          .runAlone(owner, source, call, this.callTimeoutMs, cost)
          .then(resolve)
          .finally(() => {
            this.running--;
            this.next();
          });
      });
      this.next();
    });
  }

  private next(): void {
    while (this.running < this.concurrency && this.waiting.size > 0) (this.waiting.shift() as () => void)();
  }
}

// Coalesces sandbox calls from concurrent requests: at most two jobs per worker run at once, and what
// arrives for the same module meanwhile goes into the next job, so single-item requests under load cost
// one IPC round trip per batch rather than per item. Each call carries its client (its owner): a job's
// results reach the calls through job-attribution.ts, so no client's call keeps a failure another's caused.
import type { SandboxPool } from '../sandbox/pool.js';
import type { Call, CallResult } from '../sandbox/protocol.js';
import { attribute, type OwnedCall } from './job-attribution.js';

/** Calls and response characters in one sandbox job. */
const MAX_CALLS_PER_JOB = 256;
const MAX_JOB_CHARS = 8 << 20;

/** A failure of the sandbox itself (not of guest code): marks the call so the request can answer 503. */
export const SANDBOX_FN = 'sandbox';

const sandboxFailure = (error: unknown): CallResult => ({ ok: false, code: 'E_CRASHED', message: `the sandbox failed: ${error instanceof Error ? error.message : String(error)}`, fn: SANDBOX_FN, ms: 0 });
const noResult: CallResult = { ok: false, code: 'E_PROTOCOL', message: 'the sandbox returned no result for this call', fn: 'call', ms: 0 };

/** One call in a job of its own with its own per-call budget (a long replay), outside the batches. */
export async function runAlone(pool: SandboxPool, source: string, call: Call, callTimeoutMs: number): Promise<CallResult> {
  try {
    return (await pool.run({ source, calls: [call], limits: { callTimeoutMs } })).results[0] ?? noResult;
  } catch (error) {
    return sandboxFailure(error);
  }
}

interface PendingCall extends OwnedCall {
  call: Call;
  chars: number;
  resolve(result: CallResult): void;
}

/** A queue of calls for one module: shared by every client (keyed by the module's hash), or one client's re-runs alone. */
interface Queue {
  hash: string;
  source: string;
  calls: PendingCall[];
}

/**
 * Packs calls for the same module from concurrent requests into shared sandbox jobs, keeping at most
 * maxRunning jobs in the pool; what arrives while they run goes into the next job (adaptive batching).
 */
export class Dispatcher {
  private readonly queues = new Map<string, Queue>();
  private running = 0;
  private scheduled = false;

  constructor(
    private readonly pool: SandboxPool,
    private readonly callTimeoutMs: number,
    private readonly maxRunning: number,
  ) {}

  /** Runs `calls` of the module `hash` for the client `owner` (a client's key: serve/clients.ts), batched with other requests' calls. */
  submit(hash: string, source: string, calls: Array<{ call: Call; chars: number }>, owner: string): Promise<CallResult[]> {
    const pending: PendingCall[] = [];
    const promises = calls.map(({ call, chars }) => new Promise<CallResult>((resolve) => pending.push({ call, chars, resolve, owner })));
    this.enqueue(hash, source, hash, pending, false);
    return Promise.all(promises);
  }

  /** Adds calls to the queue `key` (at its front when `first`: calls that waited already go before new ones). */
  private enqueue(key: string, source: string, hash: string, calls: PendingCall[], first: boolean): void {
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = { hash, source, calls: [] }));
    if (first) queue.calls.unshift(...calls);
    else queue.calls.push(...calls);
    this.schedule();
  }

  /**
   * Hands a job's results to its calls (job-attribution.ts): a call that did not run waits for the next shared
   * job, and one that failed in a job shared with other clients runs again among its client's calls only.
   */
  private settle(queue: Queue, batch: PendingCall[], results: CallResult[]): void {
    const { answered, requeue, isolate } = attribute(batch, results);
    for (const { call, result } of answered) call.resolve(result);
    if (requeue.length > 0) this.enqueue(queue.hash, queue.source, queue.hash, requeue, true);
    for (const owner of new Set(isolate.map((c) => c.owner))) {
      const own = isolate.filter((c) => c.owner === owner);
      for (const c of own) c.alone = true;
      this.enqueue(`${queue.hash}\u0000${owner}`, queue.source, queue.hash, own, true);
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // After the current I/O phase, so requests parsed in the same loop turn share a job.
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.maxRunning && this.queues.size > 0) {
      const [key, queue] = this.queues.entries().next().value as [string, Queue];
      const batch: PendingCall[] = [];
      let chars = 0;
      while (queue.calls.length > 0 && batch.length < MAX_CALLS_PER_JOB) {
        const next = queue.calls[0] as PendingCall;
        if (batch.length > 0 && chars + next.chars > MAX_JOB_CHARS) break;
        batch.push(queue.calls.shift() as PendingCall);
        chars += next.chars;
      }
      // Round robin between modules: a module with more waiting goes to the back.
      this.queues.delete(key);
      if (queue.calls.length > 0) this.queues.set(key, queue);
      this.running++;
      this.pool
        .run({ source: queue.source, calls: batch.map((p) => p.call), limits: { callTimeoutMs: this.callTimeoutMs } })
        .then(
          (run) => this.settle(queue, batch, batch.map((_, i) => run.results[i] ?? noResult)),
          (error: unknown) => batch.forEach((p) => p.resolve(sandboxFailure(error))),
        )
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }
}

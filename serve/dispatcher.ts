// Coalesces sandbox calls from concurrent requests: at most two jobs per worker run at once, and what
// arrives for the same module meanwhile goes into the next job, so single-item requests under load cost
// one IPC round trip per batch rather than per item.
import type { SandboxPool } from '../sandbox/pool.js';
import type { Call, CallResult } from '../sandbox/protocol.js';

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

interface PendingCall {
  call: Call;
  chars: number;
  resolve(result: CallResult): void;
}

/**
 * Packs calls for the same module from concurrent requests into shared sandbox jobs, keeping at most
 * maxRunning jobs in the pool; what arrives while they run goes into the next job (adaptive batching).
 */
export class Dispatcher {
  private readonly queues = new Map<string, { source: string; calls: PendingCall[] }>();
  private running = 0;
  private scheduled = false;

  constructor(
    private readonly pool: SandboxPool,
    private readonly callTimeoutMs: number,
    private readonly maxRunning: number,
  ) {}

  submit(hash: string, source: string, calls: Array<{ call: Call; chars: number }>): Promise<CallResult[]> {
    let queue = this.queues.get(hash);
    if (!queue) this.queues.set(hash, (queue = { source, calls: [] }));
    const target = queue;
    const promises = calls.map(({ call, chars }) => new Promise<CallResult>((resolve) => target.calls.push({ call, chars, resolve })));
    this.schedule();
    return Promise.all(promises);
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
      const [hash, queue] = this.queues.entries().next().value as [string, { source: string; calls: PendingCall[] }];
      const batch: PendingCall[] = [];
      let chars = 0;
      while (queue.calls.length > 0 && batch.length < MAX_CALLS_PER_JOB) {
        const next = queue.calls[0] as PendingCall;
        if (batch.length > 0 && chars + next.chars > MAX_JOB_CHARS) break;
        batch.push(queue.calls.shift() as PendingCall);
        chars += next.chars;
      }
      // Round robin between modules: a module with more waiting goes to the back.
      this.queues.delete(hash);
      if (queue.calls.length > 0) this.queues.set(hash, queue);
      this.running++;
      this.pool
        .run({ source: queue.source, calls: batch.map((p) => p.call), limits: { callTimeoutMs: this.callTimeoutMs } })
        .then(
          (run) => batch.forEach((p, i) => p.resolve(run.results[i] ?? noResult)),
          (error: unknown) => batch.forEach((p) => p.resolve(sandboxFailure(error))),
        )
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }
}

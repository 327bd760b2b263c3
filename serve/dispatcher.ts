// Coalesces sandbox calls from concurrent requests: one job per module, the modules of a worker's share
// travelling together, at most two such groups per worker at once; what arrives meanwhile goes into the
// next group, so single-item requests under load cost one IPC round trip per batch rather than per item.
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

/** One module's calls waiting. */
interface Queue {
  source: string;
  calls: PendingCall[];
}

/** A share of the modules, pinned to it at first sight: their calls travel together, at most maxRunning groups at once. */
interface Slot {
  queues: Map<string, Queue>;
  modules: number;
  running: number;
}

/** Modules whose slot is remembered (the oldest forgotten first; a forgotten one is pinned again when it returns). */
const PINNED = 4_096;

/**
 * Packs calls from concurrent requests into shared sandbox jobs: one job per module, and the jobs of the
 * modules of one slot travel together to one worker (pool.runTogether), so the steps that arrive together
 * cost one round trip per worker rather than one per module. A module stays in its slot, so the pool's
 * preference for a worker that holds the module keeps each module's isolate on one worker. What arrives
 * while a slot's groups run goes into its next group (adaptive batching).
 */
export class Dispatcher {
  private readonly slots: Slot[];
  private readonly pinned = new Map<string, Slot>();
  private readonly perSlot: number;
  private scheduled = false;

  constructor(
    private readonly pool: SandboxPool,
    private readonly callTimeoutMs: number,
    /** Groups in the pool at once, shared out between the slots (one slot per worker). */
    maxRunning: number,
  ) {
    const count = Math.max(1, Math.min(pool.options.workers, maxRunning));
    this.slots = Array.from({ length: count }, () => ({ queues: new Map(), modules: 0, running: 0 }));
    this.perSlot = Math.max(1, Math.floor(maxRunning / count));
  }

  submit(hash: string, source: string, calls: Array<{ call: Call; chars: number }>): Promise<CallResult[]> {
    const slot = this.slotOf(hash);
    let queue = slot.queues.get(hash);
    if (!queue) slot.queues.set(hash, (queue = { source, calls: [] }));
    const target = queue;
    const promises = calls.map(({ call, chars }) => new Promise<CallResult>((resolve) => target.calls.push({ call, chars, resolve })));
    this.schedule();
    return Promise.all(promises);
  }

  /** The module's slot: the one it was pinned to, else the one with the fewest modules. */
  private slotOf(hash: string): Slot {
    let slot = this.pinned.get(hash);
    if (slot) return slot;
    slot = this.slots.reduce((a, b) => (b.modules < a.modules ? b : a));
    slot.modules++;
    this.pinned.set(hash, slot);
    if (this.pinned.size > PINNED) {
      const [oldest, was] = this.pinned.entries().next().value as [string, Slot];
      if (!was.queues.has(oldest)) {
        this.pinned.delete(oldest);
        was.modules--;
      }
    }
    return slot;
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
    for (const slot of this.slots) while (slot.running < this.perSlot && slot.queues.size > 0) this.runGroup(slot);
  }

  /** Takes a job's worth of calls from each waiting module of the slot (in turn, within the group's size) and runs them together. */
  private runGroup(slot: Slot): void {
    const jobs: Array<{ source: string; batch: PendingCall[] }> = [];
    let chars = 0;
    for (const [hash, queue] of [...slot.queues]) {
      if (jobs.length > 0 && chars >= MAX_JOB_CHARS) break;
      const batch: PendingCall[] = [];
      while (queue.calls.length > 0 && batch.length < MAX_CALLS_PER_JOB) {
        const next = queue.calls[0] as PendingCall;
        if (batch.length > 0 && chars + next.chars > MAX_JOB_CHARS) break;
        batch.push(queue.calls.shift() as PendingCall);
        chars += next.chars;
      }
      jobs.push({ source: queue.source, batch });
      // Round robin between modules: a module with more waiting goes to the back.
      slot.queues.delete(hash);
      if (queue.calls.length > 0) slot.queues.set(hash, queue);
    }
    slot.running++;
    let left = jobs.length;
    const runs = this.pool.runTogether(jobs.map((j) => ({ source: j.source, calls: j.batch.map((p) => p.call), limits: { callTimeoutMs: this.callTimeoutMs } })));
    runs.forEach((run, k) => {
      const batch = (jobs[k] as { batch: PendingCall[] }).batch;
      run
        .then(
          (r) => batch.forEach((p, i) => p.resolve(r.results[i] ?? noResult)),
          (error: unknown) => batch.forEach((p) => p.resolve(sandboxFailure(error))),
        )
        .finally(() => {
          if (--left > 0) return;
          slot.running--;
          this.pump();
        });
    });
  }
}

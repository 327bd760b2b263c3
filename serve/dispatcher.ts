// Coalesces sandbox calls from concurrent requests: one job per module, the jobs of a worker's share of
// the modules travelling together, at most two such groups per worker at once; what arrives meanwhile goes
// into the next group, its clients' calls taken in turn (who used the sandbox least first). Each call carries its
// client: every job's results reach its calls through job-attribution.ts, so no client's call keeps a failure
// another's caused, and each call is answered as its result arrives, not when its job ends. Once another client's calls
// wait, a group holds its worker for a time slice (GROUP_SLICE_MS) and a call more at most; each client is charged the
// time its calls took.
// Every job, the groups and the jobs of one client's alone (replays, re-runs), waits for its turn in the SandboxGate.
import type { SandboxPool } from '../sandbox/pool.js';
import type { Call, CallResult } from '../sandbox/protocol.js';
import { attribute, isShared, stands, type OwnedCall } from './job-attribution.js';
import { SandboxGate, SHARED_OWNER } from './sandbox-gate.js';

/** Calls and response characters in one sandbox job. */
const MAX_CALLS_PER_JOB = 256;
const MAX_JOB_CHARS = 8 << 20;
/**
 * How long a group may hold its worker, once another client's calls wait, before the calls it has not reached go back
 * to their queues (each job of it a share, at least MIN_JOB_SLICE_MS; sandbox/worker-job.ts: yieldAfterMs), plus the
 * call in flight: another client's call waits for a slice and a call of each client ahead of it, never for a whole job
 * of 256 slow calls (red team V20-2). A group no other client waits behind runs whole (one crossing, one step memo).
 */
const GROUP_SLICE_MS = 50;
const MIN_JOB_SLICE_MS = 10;

/** A failure of the sandbox itself (not of guest code): marks the call so the request can answer 503. */
export const SANDBOX_FN = 'sandbox';

const sandboxFailure = (error: unknown): CallResult => ({
  ok: false,
  code: 'E_CRASHED',
  message: `the sandbox failed: ${error instanceof Error ? error.message : String(error)}`,
  fn: SANDBOX_FN,
  ms: 0,
});
const noResult: CallResult = {
  ok: false,
  code: 'E_PROTOCOL',
  message: 'the sandbox returned no result for this call',
  fn: 'call',
  ms: 0,
};

interface PendingCall extends OwnedCall {
  call: Call;
  chars: number;
  resolve(result: CallResult): void;
}

/**
 * A queue of calls for one module: shared by every client (keyed by the module's hash), or one client's re-runs alone.
 */
interface Queue {
  /** The module's hash, or the hash and the client of one client's re-runs alone. */
  key: string;
  hash: string;
  source: string;
  calls: PendingCall[];
}

/** A group of jobs given the pool together: whose calls it holds, and whether it was asked to yield its worker. */
interface Group {
  owners: Set<string>;
  asked: boolean;
  /** Its started jobs' requests to yield (RunRequest.onStart). */
  askers: Array<() => void>;
}

/** A share of the modules, pinned to it at first sight: their jobs travel together, at most perSlot groups at once. */
interface Slot {
  queues: Map<string, Queue>;
  modules: number;
  running: number;
}

/**
 * A job's worth of a queue's calls (taken out of it), its clients in turn (each one's calls in their order; the
 * client `charge` ranks lowest first, ties in queue order): one client's backlog for a module delays another client's
 * call by at most one job, never by the whole backlog.
 */
function takeInTurn(queue: Queue, charsBefore: number, charge: (owner: string) => number): PendingCall[] {
  const byOwner = [...Map.groupBy(queue.calls, (call) => call.owner)]
    .map(([owner, calls]) => ({ calls, rank: charge(owner) }))
    .sort((a, b) => a.rank - b.rank);
  const taken = new Set<PendingCall>();
  let chars = charsBefore;
  for (let round = 0, more = true; more && taken.size < MAX_CALLS_PER_JOB; round++) {
    more = false;
    for (const { calls } of byOwner) {
      const next = calls[round];
      if (!next || taken.size >= MAX_CALLS_PER_JOB) continue;
      if (taken.size > 0 && chars + next.chars > MAX_JOB_CHARS) return settleTaken(queue, taken);
      taken.add(next);
      chars += next.chars;
      more = true;
    }
  }
  return settleTaken(queue, taken);
}

function settleTaken(queue: Queue, taken: Set<PendingCall>): PendingCall[] {
  queue.calls = queue.calls.filter((c) => !taken.has(c));
  return [...taken];
}

/** Modules whose slot is remembered (the oldest forgotten first; a forgotten one is pinned again when it returns). */
const PINNED = 4_096;

/**
 * Packs calls from concurrent requests into shared sandbox jobs: one job per module queue, and the jobs of
 * one slot's modules travel together to one worker (pool.runTogether), so steps that arrive together cost
 * one round trip per worker rather than one per module. Each job keeps its own results, deadlines and
 * attribution, so a job travelling with another never takes its failures. A module stays in its slot, so
 * the pool's preference for a worker that holds the module keeps each module's isolate on one worker.
 */
export class Dispatcher {
  private readonly slots: Slot[];
  private readonly pinned = new Map<string, Slot>();
  private readonly perSlot: number;
  private scheduled = false;
  /** Groups given to the gate and not yet settled. */
  private readonly groups = new Set<Group>();
  /** The one fair scheduler every job of the service's waits in (sandbox-gate.ts). */
  readonly gate: SandboxGate;

  constructor(
    private readonly pool: SandboxPool,
    private readonly callTimeoutMs: number,
    /** Groups in the pool at once, shared out between the slots (one slot per worker). */
    maxRunning: number,
  ) {
    const count = Math.max(1, Math.min(pool.options.workers, maxRunning));
    this.slots = Array.from({ length: count }, () => ({ queues: new Map(), modules: 0, running: 0 }));
    this.perSlot = Math.max(1, Math.floor(maxRunning / count));
    this.gate = new SandboxGate(Math.max(1, pool.options.workers));
  }

  /**
   * One call of `owner`'s (a client's key) in a job of its own with its own budget (a replay, a re-run alone), outside
   * the batches but in its client's turn, charged `cost` (the call budgets it may hold a worker for).
   */
  async runAlone(owner: string, source: string, call: Call, callTimeoutMs: number, cost = 1): Promise<CallResult> {
    try {
      return await this.gate.run(owner, cost, async (done) => {
        const run = await this.pool.run({ source, calls: [call], limits: { callTimeoutMs }, onEnd: done });
        return run.results[0] ?? noResult;
      });
    } catch (error) {
      return sandboxFailure(error);
    }
  }

  /**
   * Runs `calls` of the module `hash` for the client `owner` (a client's key: serve/clients.ts), batched with other
   * requests' calls.
   */
  submit(
    hash: string,
    source: string,
    calls: Array<{ call: Call; chars: number }>,
    owner: string,
  ): Promise<CallResult[]> {
    const pending: PendingCall[] = [];
    const promises = calls.map(
      ({ call, chars }) => new Promise<CallResult>((resolve) => pending.push({ call, chars, resolve, owner })),
    );
    this.enqueue(hash, source, hash, pending, false);
    this.askToYield(owner);
    return Promise.all(promises);
  }

  /**
   * Calls of `owner`'s arrived: each group holding another client's calls is asked to hand its worker back once its
   * slice is spent, so they wait for a slice of it, not for all of it.
   */
  private askToYield(owner: string): void {
    for (const group of this.groups) {
      if (group.asked || ![...group.owners].some((o) => o !== owner)) continue;
      group.asked = true;
      for (const ask of group.askers.splice(0)) ask();
    }
  }

  /**
   * Adds calls to the queue `key` in the module's slot (at its front when `first`: calls that waited already go before
   * new ones).
   */
  private enqueue(key: string, source: string, hash: string, calls: PendingCall[], first: boolean): void {
    const slot = this.slotOf(hash);
    let queue = slot.queues.get(key);
    if (!queue) slot.queues.set(key, (queue = { key, hash, source, calls: [] }));
    if (first) queue.calls.unshift(...calls);
    else queue.calls.push(...calls);
    this.schedule();
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
      if (![...was.queues.values()].some((q) => q.hash === oldest)) {
        this.pinned.delete(oldest);
        was.modules--;
      }
    }
    return slot;
  }

  /**
   * Hands a job's results to its calls (job-attribution.ts; those that stood were answered as they arrived): a call
   * that did not run waits for the next job of its queue, and one that failed in a job shared with other clients runs
   * again among its client's calls only. Each client is charged in the gate the time its calls took, in call budgets.
   */
  private settle(queue: Queue, batch: PendingCall[], results: CallResult[]): void {
    const used = new Map<string, number>();
    batch.forEach((p, i) => used.set(p.owner, (used.get(p.owner) ?? 0) + Math.max(0, results[i]?.ms ?? 0)));
    for (const [owner, ms] of used) this.gate.charge(owner, ms / this.callTimeoutMs);
    const { answered, requeue, isolate } = attribute(batch, results);
    for (const { call, result } of answered) call.resolve(result);
    if (requeue.length > 0) this.enqueue(queue.key, queue.source, queue.hash, requeue, true);
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
    for (const slot of this.slots) while (slot.running < this.perSlot && slot.queues.size > 0) this.runGroup(slot);
  }

  /**
   * Takes a job's worth of calls from each waiting queue of the slot (in turn, within the group's size) and runs them
   * together.
   */
  private runGroup(slot: Slot): void {
    const jobs: Array<{ queue: Queue; batch: PendingCall[] }> = [];
    let chars = 0;
    for (const [key, queue] of [...slot.queues]) {
      if (jobs.length > 0 && chars >= MAX_JOB_CHARS) break;
      const batch = takeInTurn(queue, chars, (owner) => this.gate.chargeOf(owner));
      for (const call of batch) chars += call.chars;
      jobs.push({ queue, batch });
      // Round robin between queues: one with more waiting goes to the back.
      slot.queues.delete(key);
      if (queue.calls.length > 0) slot.queues.set(key, queue);
    }
    slot.running++;
    const group: Group = {
      owners: new Set(jobs.flatMap((j) => j.batch.map((p) => p.owner))),
      asked: false,
      askers: [],
    };
    this.groups.add(group);
    let left = jobs.length;
    void this.gate.run(SHARED_OWNER, 1, (done) => {
      let inPool = jobs.length;
      const onEnd = () => --inPool === 0 && done();
      const yieldAfterMs = Math.max(MIN_JOB_SLICE_MS, Math.floor(GROUP_SLICE_MS / jobs.length));
      const runs = this.pool.runTogether(
        jobs.map(({ queue, batch }) => {
          const shared = isShared(batch);
          return {
            source: queue.source,
            calls: batch.map((p) => p.call),
            limits: { callTimeoutMs: this.callTimeoutMs, yieldAfterMs },
            onEnd,
            onStart: (ask: () => void) => (group.asked ? ask() : group.askers.push(ask)),
            // A call is answered the moment its result stands; the rest wait for the job's end (attribution).
            onResult: (i: number, result: CallResult) => {
              const p = batch[i];
              if (p && stands(p, result, shared)) p.resolve(result);
            },
          };
        }),
      );
      this.settleGroup(slot, jobs, runs, () => {
        if (--left === 0) this.groups.delete(group);
        return left;
      });
      return Promise.allSettled(runs);
    });
  }

  private settleGroup(
    slot: Slot,
    jobs: Array<{ queue: Queue; batch: PendingCall[] }>,
    runs: Array<Promise<{ results: CallResult[] }>>,
    done: () => number,
  ): void {
    runs.forEach((run, k) => {
      const { queue, batch } = jobs[k] as { queue: Queue; batch: PendingCall[] };
      run
        .then(
          (r) =>
            this.settle(
              queue,
              batch,
              batch.map((_, i) => r.results[i] ?? noResult),
            ),
          (error: unknown) => batch.forEach((p) => p.resolve(sandboxFailure(error))),
        )
        .finally(() => {
          if (done() > 0) return;
          slot.running--;
          this.pump();
        });
    });
  }
}

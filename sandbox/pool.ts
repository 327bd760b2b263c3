// The sandbox supervisor: a pool of worker processes that run environment code in isolates. It queues
// jobs, kills a worker that misses its wall-clock deadline, replaces dead workers, and turns every failure
// of guest code into a typed result; only failures of the sandbox itself reject.
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { isCode, type Code } from '../contract/codes.js';
import { SandboxError } from '../contract/errors.js';
import { parseBoundedJson } from './json.js';
import { DEFAULT_LIMITS, type Call, type CallResult, type JobMessage, type LoadInfo, type SandboxLimits, type WorkerMessage } from './protocol.js';

export interface SandboxPoolOptions {
  /** Worker processes; one per core by default. */
  workers: number;
  /** Default limits for every job; a job may override them. */
  limits: SandboxLimits;
  /** Extra time a worker gets past its limits before the supervisor SIGKILLs it. */
  graceMs: number;
  /** Compiled candidates one worker keeps ready (an isolate each). */
  maxCachedPerWorker: number;
  /** Guest calls an isolate serves before it is disposed and rebuilt. */
  maxCallsPerIsolate: number;
  /** Jobs a worker process runs before it is replaced, bounding any slow leak. */
  maxJobsPerWorker: number;
  /** Node heap of a worker process (isolates have their own limit). */
  workerHeapMb: number;
  /** Extra Node flags for worker processes (e.g. --cpu-prof when profiling). */
  execArgv: string[];
}

export const DEFAULT_POOL_OPTIONS = {
  workers: Math.max(1, availableParallelism()),
  limits: DEFAULT_LIMITS,
  graceMs: 1_500,
  maxCachedPerWorker: 32,
  maxCallsPerIsolate: 50_000,
  maxJobsPerWorker: 5_000,
  workerHeapMb: 512,
  execArgv: [],
} satisfies SandboxPoolOptions;

export interface RunRequest {
  /** The environment module's source. */
  source: string;
  calls?: Call[];
  limits?: Partial<SandboxLimits>;
  /** Start from a new isolate (module top level evaluated again) instead of a cached one. */
  fresh?: boolean;
  /** Split the calls across idle workers (each compiles the module once). */
  parallel?: boolean;
}
export interface RunResult {
  load: LoadInfo;
  results: CallResult[];
  wallMs: number;
}

interface Job {
  id: number;
  hash: string;
  source: string;
  calls: Call[];
  limits: SandboxLimits;
  fresh: boolean;
  load?: LoadInfo;
  results: CallResult[];
  started: number;
  resolve(result: RunResult): void;
  reject(error: Error): void;
}

const WORKER_FILE = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url));
const MEMORY_SIGNS = /is_heap_oom = 1|out of memory|allocation failed|heap limit/i;

class Worker {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  job: Job | null = null;
  jobsRun = 0;
  cached: string[] = [];
  stderrTail = '';
  killedAtDeadline = false;
  exited = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(options: SandboxPoolOptions, onMessage: (w: Worker, m: WorkerMessage) => void, onExit: (w: Worker, code: number | null, signal: string | null) => void) {
    const execArgv = ['--no-node-snapshot', `--max-old-space-size=${options.workerHeapMb}`, ...options.execArgv];
    if (WORKER_FILE.endsWith('.ts')) execArgv.push('--import', 'tsx');
    this.child = fork(WORKER_FILE, [], {
      execArgv,
      env: {
        ...process.env,
        TZ: 'UTC',
        ENVFORGE_WORKER_OPTIONS: JSON.stringify({ maxCached: options.maxCachedPerWorker, maxCallsPerIsolate: options.maxCallsPerIsolate }),
      },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-8_192);
    });
    this.ready = new Promise((resolve, reject) => {
      const onReady = (m: WorkerMessage) => {
        if (m.type === 'ready') {
          this.child.off('message', onReady);
          resolve();
        }
      };
      this.child.on('message', onReady);
      this.child.once('exit', (code, signal) => reject(new SandboxError(`sandbox worker exited before it was ready (code ${code}, signal ${signal}): ${this.stderrTail.trim().slice(-2_000)}`)));
      this.child.once('error', (error) => reject(new SandboxError(`could not start a sandbox worker: ${error.message}`, { cause: error })));
    });
    this.ready.catch(() => {}); // observed by the pool; avoid an unhandled rejection here
    this.child.on('message', (m: WorkerMessage) => onMessage(this, m));
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      this.clearDeadline();
      onExit(this, code, signal);
    });
    this.child.on('error', () => {}); // 'exit' follows and carries the consequences
  }

  /** (Re)starts the wall-clock deadline: a worker that sends nothing for `ms` is killed. */
  armDeadline(ms: number): void {
    this.clearDeadline();
    this.timer = setTimeout(() => {
      this.killedAtDeadline = true;
      this.child.kill('SIGKILL');
    }, ms);
  }
  clearDeadline(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
  /** Idle workers must not keep the host process alive. */
  setActive(active: boolean): void {
    const channel = this.child.channel as { ref?(): void; unref?(): void } | undefined;
    if (active) {
      this.child.ref();
      channel?.ref?.();
    } else {
      this.child.unref();
      channel?.unref?.();
    }
    (this.child.stderr as unknown as { ref?(): void; unref?(): void } | null)?.[active ? 'ref' : 'unref']?.();
  }
  remember(hash: string, max: number): void {
    this.cached = [...this.cached.filter((h) => h !== hash), hash].slice(-max);
  }
}

export function hashSource(source: string): string {
  return createHash('sha256').update(source, 'utf8').digest('hex');
}

/**
 * hashSource for the pool's hot path: a service runs the same few sources thousands of times, and a Map
 * lookup of a string V8 has already hashed costs far less than SHA-256 of it (≈0.02 µs vs ≈8 µs at 6 kB).
 */
const recentHashes = new Map<string, string>();
function cachedHash(source: string): string {
  let hash = recentHashes.get(source);
  if (hash === undefined) {
    hash = hashSource(source);
    if (recentHashes.size >= 256) recentHashes.delete(recentHashes.keys().next().value as string);
    recentHashes.set(source, hash);
  }
  return hash;
}

/** A pool of sandbox workers. Safe to share; close() it when done (idle workers never hold the process open). */
export class SandboxPool {
  readonly options: SandboxPoolOptions;
  private readonly workers = new Set<Worker>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** Recent successful loads by source hash: a worker that dies before reporting a cached load still loaded it. */
  private readonly knownLoads = new Map<string, LoadInfo>();
  private startFailures = 0;

  constructor(options: Partial<SandboxPoolOptions> = {}) {
    this.options = { ...DEFAULT_POOL_OPTIONS, ...options, limits: { ...DEFAULT_LIMITS, ...options.limits } };
    if (!Number.isInteger(this.options.workers) || this.options.workers < 1) throw new SandboxError(`workers must be a positive integer, got ${this.options.workers}`);
  }

  /** Compiles the module (or finds it cached) and reports its meta and exports. */
  async load(source: string, limits?: Partial<SandboxLimits>): Promise<LoadInfo> {
    return (await this.run({ source, calls: [], ...(limits ? { limits } : {}) })).load;
  }

  async run(request: RunRequest): Promise<RunResult> {
    const calls = request.calls ?? [];
    const shards = request.parallel ? Math.min(this.options.workers, Math.floor(calls.length / 8)) : 1;
    if (shards <= 1) return this.enqueue(request, calls);
    const size = Math.ceil(calls.length / shards);
    const parts = await Promise.all(Array.from({ length: shards }, (_, i) => this.enqueue(request, calls.slice(i * size, (i + 1) * size))));
    const first = parts[0] as RunResult;
    return { load: first.load, results: parts.flatMap((p) => p.results), wallMs: Math.max(...parts.map((p) => p.wallMs)) };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new SandboxError('the sandbox pool was closed'));
    await Promise.all(
      [...this.workers].map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.exited) return resolve();
            w.setActive(true); // an unref'd child would let the process end before its exit arrives
            w.child.once('exit', () => resolve());
            // Idle workers leave when their channel closes; busy or stuck ones are killed after a grace period.
            if (w.job === null && w.child.connected) w.child.disconnect();
            setTimeout(() => w.child.kill('SIGKILL'), w.job === null ? 1_000 : 0).unref();
          }),
      ),
    );
  }

  /** Worker process ids, for tests and diagnostics. */
  workerPids(): number[] {
    return [...this.workers].map((w) => w.child.pid ?? -1);
  }

  private enqueue(request: RunRequest, calls: Call[]): Promise<RunResult> {
    if (this.closed) return Promise.reject(new SandboxError('the sandbox pool is closed'));
    if (typeof request.source !== 'string') return Promise.reject(new TypeError('source must be a string'));
    return new Promise((resolve, reject) => {
      this.queue.push({
        id: this.nextId++,
        hash: cachedHash(request.source),
        source: request.source,
        calls,
        limits: { ...this.options.limits, ...request.limits },
        fresh: request.fresh ?? false,
        results: [],
        started: 0,
        resolve,
        reject,
      });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let worker = [...this.workers].find((w) => w.job === null && !w.exited);
      if (!worker) {
        if (this.workers.size >= this.options.workers) return;
        worker = this.spawn();
      }
      const job = this.pickJob(worker);
      worker.job = job;
      void this.dispatch(worker, job);
    }
  }

  /** Prefers a queued job whose module this worker already has compiled. */
  private pickJob(worker: Worker): Job {
    const index = this.queue.findIndex((j) => worker.cached.includes(j.hash));
    return this.queue.splice(index >= 0 ? index : 0, 1)[0] as Job;
  }

  private spawn(): Worker {
    const worker = new Worker(
      this.options,
      (w, m) => this.onMessage(w, m),
      (w, code, signal) => this.onExit(w, code, signal),
    );
    this.workers.add(worker);
    return worker;
  }

  private async dispatch(worker: Worker, job: Job): Promise<void> {
    try {
      await worker.ready;
      this.startFailures = 0;
    } catch (error) {
      this.workers.delete(worker);
      worker.job = null;
      // A worker that cannot start is the sandbox's failure, not the candidate's: retry, then give up loudly.
      if (++this.startFailures >= 3) {
        job.reject(error as Error);
        for (const queued of this.queue.splice(0)) queued.reject(error as Error);
        return;
      }
      this.queue.unshift(job);
      this.pump();
      return;
    }
    if (worker.exited) return; // onExit already settled the job
    job.started = performance.now();
    worker.setActive(true);
    worker.armDeadline(this.loadBudget(job));
    const cached = worker.cached.includes(job.hash);
    const message: JobMessage = { type: 'job', id: job.id, hash: job.hash, calls: job.calls, limits: job.limits, fresh: job.fresh, ...(cached ? {} : { source: job.source }) };
    worker.child.send(message);
  }

  private loadBudget(job: Job): number {
    return job.limits.loadTimeoutMs * 2 + job.limits.callTimeoutMs + job.limits.sliceMs + this.options.graceMs;
  }

  private onMessage(worker: Worker, message: WorkerMessage): void {
    if (message.type === 'batch') {
      for (const m of message.messages) this.onMessage(worker, m);
      return;
    }
    const job = worker.job;
    if (message.type === 'ready' || !job || message.id !== job.id) return;
    worker.armDeadline(this.loadBudget(job));
    switch (message.type) {
      case 'need-source':
        worker.child.send({ type: 'job', id: job.id, hash: job.hash, source: job.source, calls: job.calls, limits: job.limits, fresh: job.fresh } satisfies JobMessage);
        return;
      case 'loaded':
        job.load = message.load;
        if (message.load.ok) {
          this.knownLoads.delete(job.hash);
          this.knownLoads.set(job.hash, message.load);
          if (this.knownLoads.size > 256) this.knownLoads.delete(this.knownLoads.keys().next().value as string);
        }
        worker.remember(job.hash, this.options.maxCachedPerWorker);
        return;
      case 'chunk':
        this.acceptChunk(job, message.text);
        return;
      case 'failed': {
        const count = message.from < 0 ? job.calls.length - job.results.length : message.count;
        const code = isCode(message.code) ? message.code : 'E_PROTOCOL';
        for (let i = 0; i < count && job.results.length < job.calls.length; i++) job.results.push({ ok: false, code, message: message.message, fn: message.fn, ms: 0 });
        return;
      }
      case 'done':
        this.finish(worker, job);
    }
  }

  private acceptChunk(job: Job, text: string): void {
    let parsed: unknown;
    try {
      parsed = parseBoundedJson(text, { maxChars: job.limits.maxValueChars * 8 + 1_024 * job.calls.length, maxDepth: job.limits.maxDepth + 6 });
    } catch (error) {
      parsed = null;
      void error;
    }
    const items = Array.isArray(parsed) ? parsed : [null];
    for (const item of items) {
      if (job.results.length >= job.calls.length) break;
      job.results.push(toCallResult(item));
    }
  }

  private finish(worker: Worker, job: Job): void {
    worker.clearDeadline();
    worker.job = null;
    worker.jobsRun++;
    this.settle(job, 'E_PROTOCOL', 'the sandbox worker returned fewer results than calls');
    if (worker.jobsRun >= this.options.maxJobsPerWorker) {
      this.workers.delete(worker);
      worker.child.kill('SIGKILL');
    } else {
      worker.setActive(false);
    }
    this.pump();
  }

  private onExit(worker: Worker, exitCode: number | null, signal: string | null): void {
    this.workers.delete(worker);
    const job = worker.job;
    worker.job = null;
    if (job && worker.child.pid !== undefined && !this.closed) {
      const { code, message } = this.deathCause(worker, job, exitCode, signal);
      this.settle(job, code, message);
    } else if (job) {
      job.reject(new SandboxError('the sandbox pool was closed while a job was running'));
    }
    if (!this.closed) this.pump();
  }

  private deathCause(worker: Worker, job: Job, exitCode: number | null, signal: string | null): { code: Code; message: string } {
    if (worker.killedAtDeadline) {
      return { code: 'E_TIMEOUT', message: `the environment code did not yield within ${this.loadBudget(job)} ms; its worker was killed (wall-clock deadline)` };
    }
    const tail = worker.stderrTail.trim().split('\n').slice(-3).join(' | ').slice(0, 500);
    if (MEMORY_SIGNS.test(worker.stderrTail)) {
      const heap = /heap_size_limit = (\d+)/.exec(worker.stderrTail);
      const limit = heap ? ` (V8 heap limit ${Math.round(Number(heap[1]) / 2 ** 20)} MB)` : '';
      return { code: 'E_MEMORY', message: `the environment code exhausted the isolate's memory and the V8 heap aborted its worker${limit}` };
    }
    return { code: 'E_CRASHED', message: `the sandbox worker died (exit code ${exitCode}, signal ${signal})${tail ? `: ${tail}` : ''}` };
  }

  /** Resolves a job, filling calls that got no result (and a missing load) with the given failure. */
  private settle(job: Job, code: Code, message: string): void {
    job.load ??= this.knownLoads.get(job.hash) ?? { ok: false, hash: job.hash, code, message };
    while (job.results.length < job.calls.length) job.results.push({ ok: false, code, message, fn: job.load.ok ? 'call' : 'load', ms: 0 });
    job.resolve({ load: job.load, results: job.results, wallMs: job.started ? performance.now() - job.started : 0 });
  }
}

/** Checks the shape of one result the worker forwarded; anything else becomes E_PROTOCOL. */
function toCallResult(item: unknown): CallResult {
  if (item && typeof item === 'object') {
    const r = item as Record<string, unknown>;
    const ms = typeof r.ms === 'number' ? r.ms : 0;
    if (r.ok === true && 'value' in r) return { ok: true, value: r.value, ms };
    if (r.ok === false && isCode(r.code) && typeof r.message === 'string') {
      return { ok: false, code: r.code, message: r.message, fn: typeof r.fn === 'string' ? r.fn : 'call', ms };
    }
  }
  return { ok: false, code: 'E_PROTOCOL', message: 'the sandbox returned a malformed result', fn: 'call', ms: 0 };
}

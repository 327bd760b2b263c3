// The answer pool: worker processes that run policies' programs (answer-worker.ts), never an environment's
// code. It splits a batch of answers across its workers, kills a worker past its job's wall-clock deadline
// and re-runs that job's answers one by one, so only the program that wedged a worker fails (E_CRASHED).
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { SandboxError } from '../../contract/errors.js';
import { workerEnvironment } from '../supervised-worker.js';
import { DEFAULT_ANSWER_LIMITS, type AnswerJobMessage, type AnswerLimits, type AnswerResult, type AnswerSpec, type AnswerWorkerMessage } from './answers.js';

const WORKER_FILE = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './answer-worker.ts' : './answer-worker.js', import.meta.url));
/** Time a worker may take for envforge's own setup (a new isolate with SES) on top of its tests. */
const SETUP_MS = 20_000;
const GRACE_MS = 1_500;

export interface AnswerPoolOptions {
  workers: number;
  limits: AnswerLimits;
  workerHeapMb: number;
}

interface Slot {
  child: ChildProcess;
  ready: Promise<void>;
  busy: boolean;
}

interface Job {
  answers: AnswerSpec[];
  limits: AnswerLimits;
  resolve(results: AnswerResult[] | null): void;
}

export class AnswerPool {
  readonly options: AnswerPoolOptions;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(options: Partial<AnswerPoolOptions> = {}) {
    this.options = { workers: Math.max(1, availableParallelism()), limits: DEFAULT_ANSWER_LIMITS, workerHeapMb: 256, ...options };
  }

  /** Every answer's result, in order. Answers are spread over the workers in contiguous shares. */
  async run(answers: AnswerSpec[], limits: Partial<AnswerLimits> = {}): Promise<AnswerResult[]> {
    if (answers.length === 0) return [];
    const merged = { ...this.options.limits, ...limits };
    const shares = Math.min(this.options.workers, answers.length);
    const size = Math.ceil(answers.length / shares);
    const parts = await Promise.all(Array.from({ length: shares }, (_, i) => this.runShare(answers.slice(i * size, (i + 1) * size), merged)));
    return parts.flat();
  }

  /** One share as one job; when its worker died or was killed, each answer again alone. */
  private async runShare(answers: AnswerSpec[], limits: AnswerLimits): Promise<AnswerResult[]> {
    if (answers.length === 0) return [];
    const results = await this.enqueue(answers, limits);
    if (results) return results;
    if (answers.length === 1) return [crashed(answers[0] as AnswerSpec, limits)];
    return Promise.all(answers.map(async (a) => (await this.enqueue([a], limits))?.[0] ?? crashed(a, limits)));
  }

  private enqueue(answers: AnswerSpec[], limits: AnswerLimits): Promise<AnswerResult[] | null> {
    if (this.closed) return Promise.reject(new SandboxError('the answer pool is closed'));
    return new Promise((resolve) => {
      this.queue.push({ answers, limits, resolve });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.busy);
      if (!slot && this.slots.length < this.options.workers) slot = this.spawn();
      if (!slot) return;
      this.start(slot, this.queue.shift() as Job);
    }
    for (const s of this.slots) if (!s.busy) idle(s.child);
  }

  private spawn(): Slot {
    const child = fork(WORKER_FILE, [], {
      execArgv: [`--max-old-space-size=${this.options.workerHeapMb}`, ...(WORKER_FILE.endsWith('.ts') ? ['--import', 'tsx'] : [])],
      env: workerEnvironment(),
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const ready = new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', () => reject(new SandboxError('an answer worker exited before it was ready')));
    });
    ready.catch(() => {});
    child.on('error', () => {});
    const slot: Slot = { child, ready, busy: false };
    child.once('exit', () => {
      const at = this.slots.indexOf(slot);
      if (at >= 0) this.slots.splice(at, 1);
    });
    this.slots.push(slot);
    return slot;
  }

  private start(slot: Slot, job: Job): void {
    slot.busy = true;
    busy(slot.child);
    const id = this.nextId++;
    const results: AnswerResult[] = new Array(job.answers.length);
    const tests = job.answers.reduce((n, a) => n + a.tests.length + 1, 0);
    let settled = false;
    const finish = (ok: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      slot.child.off('message', onMessage);
      slot.child.off('exit', onExit);
      if (!ok) slot.child.kill('SIGKILL');
      slot.busy = false;
      job.resolve(ok ? results : null);
      this.pump();
    };
    const onMessage = (m: AnswerWorkerMessage) => {
      if (m.type === 'result' && m.id === id && m.index >= 0 && m.index < results.length) results[m.index] = m.result;
      if (m.type === 'done' && m.id === id) finish(results.every((r) => r !== undefined));
    };
    const onExit = () => finish(false);
    const deadline = setTimeout(() => finish(false), SETUP_MS + GRACE_MS + tests * job.limits.testTimeoutMs);
    slot.child.on('message', onMessage);
    slot.child.once('exit', onExit);
    slot.ready.then(
      () => slot.child.send({ type: 'answers', id, answers: job.answers, limits: job.limits } satisfies AnswerJobMessage),
      () => finish(false),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.slots) s.child.kill('SIGKILL');
    this.slots.length = 0;
  }
}

function crashed(answer: AnswerSpec, limits: AnswerLimits): AnswerResult {
  return { ran: true, tests: answer.tests.map(() => 'E_CRASHED'), message: `the program wedged or killed its worker process (past ${limits.testTimeoutMs} ms a test, or its memory)`, ms: 0 };
}

/** An idle worker does not keep the host process alive; a busy one does. */
function idle(child: ChildProcess): void {
  child.unref();
  (child.channel as { unref?: () => void } | undefined)?.unref?.();
}
function busy(child: ChildProcess): void {
  child.ref();
  (child.channel as { ref?: () => void } | undefined)?.ref?.();
}

const POOLS = new WeakMap<object, AnswerPool>();

/** The answer pool that goes with an environment pool (made on first use, as many workers): scoring programs needs no new plumbing. */
export function answerPoolFor(owner: object, options?: Partial<AnswerPoolOptions>): AnswerPool {
  let pool = POOLS.get(owner);
  if (!pool) POOLS.set(owner, (pool = new AnswerPool(options)));
  return pool;
}

// One sandbox worker process as the supervisor sees it: started with its flags, watched by a silence
// deadline, a whole-job deadline and a resident-memory limit, and killed with SIGKILL when one is missed.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { SandboxError } from '../contract/errors.js';
import type { WorkerMessage } from './protocol.js';
import { ISOLATE_HOST_FLAGS, workerScript } from './worker-script.js';

export interface SupervisedWorkerOptions {
  maxCachedPerWorker: number;
  /** The worker's resident-memory limit and the isolates' own, which bound what its cache may hold. */
  workerRssMb: number;
  limits: { memoryMb: number };
  workerHeapMb: number;
  execArgv: string[];
}

const WORKER = workerScript(import.meta.url, 'worker');

/**
 * The host's environment with the ambient settings a guest can observe pinned: time zone and locale (ICU
 * reads them for Intl defaults, Date.prototype.toString and time-zone names), so no value depends on the host.
 */
export const PINNED_LOCALE = 'en_US.UTF-8';
export function workerEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^(LC_|LANG)/.test(key)) env[key] = value;
  return { ...env, TZ: 'UTC', LANG: PINNED_LOCALE, LC_ALL: PINNED_LOCALE };
}

/**
 * What a worker's idle cached isolates may hold: its RSS limit less room for the running job's isolate
 * (twice its limit: isolated-vm enforces it loosely) and the process itself, so that job is never killed for them.
 */
export function cacheBudgetMb(options: Pick<SupervisedWorkerOptions, 'workerRssMb' | 'limits'>): number {
  return Math.max(64, options.workerRssMb - 2 * options.limits.memoryMb - 192);
}

/** Why the supervisor killed a worker, when it did. */
export type KillReason =
  | { kind: 'silence'; ms: number; setup?: boolean }
  | { kind: 'job'; ms: number }
  | { kind: 'budget'; ms: number; totalMs: number }
  | { kind: 'memory'; rssMb: number; limitMb: number };

/** Bytes per page of /proc/PID/statm, found once by comparing this process's statm with its RSS. */
let pageBytes: number | null = null;
function pageSize(): number {
  if (pageBytes !== null) return pageBytes;
  try {
    const pages = Number(readFileSync('/proc/self/statm', 'utf8').split(' ')[1]);
    pageBytes = 2 ** Math.round(Math.log2(process.memoryUsage.rss() / pages));
  } catch {
    pageBytes = 4_096;
  }
  return pageBytes;
}

/** Resident memory of a process in MB, from /proc (Linux); null where it cannot be read. */
function residentMb(pid: number): number | null {
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    return Number.isFinite(pages) ? (pages * pageSize()) / 2 ** 20 : null;
  } catch {
    return null;
  }
}

/** CPU time (user + system) a process has used in ms, from /proc (Linux, 100 ticks a second); null where unread. */
function cpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : null;
  } catch {
    return null;
  }
}

/**
 * A silence deadline passed while the worker used under this share of it in CPU: the host kept it off its core
 * (a loaded machine), so it is waited for again, at most STARVED_WAITS times (a wedged worker is still killed).
 */
const STARVED_SHARE = 0.5;
const STARVED_WAITS = 2;
/**
 * How old a CPU reading may be when a deadline is armed (every message arms it): /proc is read at most this often
 * per worker on the message path; an older start only counts more CPU against the wait, never less.
 */
const CPU_SAMPLE_MS = 100;

export class SupervisedWorker<J = unknown> {
  readonly child: ChildProcess;
  /** The job it is running, if any (the pool's own type). */
  job: J | null = null;
  /** Jobs sent with it, to start in turn as each one before them ends. */
  next: J[] = [];
  readonly ready: Promise<void>;
  jobsRun = 0;
  cached: string[] = [];
  stderrTail = '';
  killed: KillReason | null = null;
  exited = false;
  private silenceTimer: NodeJS.Timeout | null = null;
  private jobTimer: NodeJS.Timeout | null = null;
  /** Bumped at every arming and clearing, so a deadline that fired late knows whether it still stands. */
  private silenceArmings = 0;
  /** The latest CPU reading at an arming (armSilence), and when it was taken. */
  private cpuSample: { at: number; ms: number | null } | null = null;
  private jobArmings = 0;
  /** The whole-job deadline: when it falls, and what is left of it while a setup pauses it. */
  private jobDeadline: { at: number; reason: KillReason; left: number | null } | null = null;
  private setupSince: number | null = null;

  constructor(
    options: SupervisedWorkerOptions,
    onMessage: (m: WorkerMessage) => void,
    onExit: (code: number | null, signal: string | null) => void,
  ) {
    const execArgv = [
      ...ISOLATE_HOST_FLAGS,
      `--max-old-space-size=${options.workerHeapMb}`,
      ...options.execArgv,
      ...WORKER.execArgv,
    ];
    this.child = fork(WORKER.file, [], {
      execArgv,
      env: {
        ...workerEnvironment(),
        ENVFORGE_WORKER_OPTIONS: JSON.stringify({
          maxCached: options.maxCachedPerWorker,
          cacheMb: cacheBudgetMb(options),
        }),
      },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
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
      this.child.once('exit', (code, signal) =>
        reject(
          new SandboxError(
            `sandbox worker exited before it was ready (code ${code}, signal ${signal}): ` +
              `${this.stderrTail.trim().slice(-2_000)}`,
          ),
        ),
      );
      this.child.once('error', (error) =>
        reject(new SandboxError(`could not start a sandbox worker: ${error.message}`, { cause: error })),
      );
    });
    this.ready.catch(() => {}); // observed by the pool; avoid an unhandled rejection here
    this.child.on('message', onMessage);
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      this.clearDeadlines();
      onExit(code, signal);
    });
    this.child.on('error', () => {}); // 'exit' follows and carries the consequences
  }

  kill(reason: KillReason): void {
    this.killed ??= reason;
    this.child.kill('SIGKILL');
  }

  /**
   * (Re)starts the silence deadline: a worker that sends nothing for `ms` is killed (`setup`: during envforge's own
   * setup), unless it used little CPU meanwhile (`waits`: how often it was waited for so far).
   */
  armSilence(ms: number, setup = false, waits = 0): void {
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    const armed = ++this.silenceArmings;
    const now = performance.now();
    if (!this.cpuSample || now - this.cpuSample.at > CPU_SAMPLE_MS)
      this.cpuSample = { at: now, ms: cpuMs(this.child.pid) };
    const cpuAt = this.cpuSample.ms;
    this.silenceTimer = setTimeout(() => {
      if (armed !== this.silenceArmings) return;
      const used = cpuAt === null ? null : (cpuMs(this.child.pid) ?? Number.POSITIVE_INFINITY) - cpuAt;
      if (used !== null && used < ms * STARVED_SHARE && waits < STARVED_WAITS && !this.exited)
        return this.armSilence(ms, setup, waits + 1);
      this.afterPendingMessages(
        () => armed === this.silenceArmings,
        setup ? { kind: 'silence', ms, setup } : { kind: 'silence', ms },
      );
    }, ms);
  }

  /**
   * Starts the whole-job deadline, which messages do not renew; `reason` says which limit it is (default: the job's
   * own).
   */
  armJob(ms: number, reason: KillReason = { kind: 'job', ms }): void {
    if (this.jobTimer) clearTimeout(this.jobTimer);
    const armed = this.jobArmings;
    this.jobDeadline = { at: performance.now() + ms, reason, left: null };
    this.jobTimer = setTimeout(() => this.afterPendingMessages(() => armed === this.jobArmings, reason), ms);
  }

  /**
   * The worker reported envforge's own setup (no guest code; slow only on a loaded host): the whole-job clock
   * stops, and only a setup deadline of `ms` stands until the next message (endSetup).
   */
  beginSetup(ms: number): void {
    const deadline = this.jobDeadline;
    this.setupSince = performance.now();
    if (deadline && deadline.left === null && this.jobTimer) {
      clearTimeout(this.jobTimer);
      this.jobTimer = null;
      this.jobArmings++;
      deadline.left = Math.max(0, deadline.at - performance.now());
    }
    this.armSilence(ms, true);
  }

  /** Ends a setup under way, if any: the whole-job clock runs again. Returns how long the setup took (ms). */
  endSetup(): number {
    if (this.setupSince === null) return 0;
    const took = performance.now() - this.setupSince;
    this.setupSince = null;
    const deadline = this.jobDeadline;
    if (deadline?.left != null) this.armJob(deadline.left, deadline.reason);
    return took;
  }

  clearDeadlines(): void {
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    if (this.jobTimer) clearTimeout(this.jobTimer);
    this.silenceTimer = this.jobTimer = null;
    this.jobDeadline = null;
    this.setupSince = null;
    this.silenceArmings++;
    this.jobArmings++;
  }

  /**
   * Kills for a missed deadline only after the messages that arrived meanwhile are read. Timers run before
   * I/O in Node's loop: after the host's own thread was busy past a deadline, the worker's answers are
   * still unread when the timer fires, and killing then would blame the job for the host's stall (a false
   * E_TIMEOUT). setImmediate runs after the poll phase has delivered them; a message re-arms or clears the
   * deadline, which `current` then reports.
   */
  private afterPendingMessages(current: () => boolean, reason: KillReason): void {
    setImmediate(() => {
      if (current() && !this.exited) this.kill(reason);
    });
  }

  /** Kills the worker when its resident memory is over the limit; returns whether it did. */
  checkMemory(limitMb: number): boolean {
    if (this.exited || this.child.pid === undefined) return false;
    const rss = residentMb(this.child.pid);
    if (rss === null || rss <= limitMb) return false;
    this.kill({ kind: 'memory', rssMb: Math.ceil(rss), limitMb });
    return true;
  }

  /** Set by the pool's close(): the host waits for this worker's exit, whatever ends meanwhile (setActive stays on). */
  held = false;

  /** Idle workers must not keep the host process alive (a held one does, until it exits). */
  setActive(active: boolean): void {
    if (!active && this.held) return;
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

// Supervision shared by the crash tests' writer processes: their entry point, spawning one and reading its
// report lines up to its `ready` line, a promise for its end, a SIGKILL that waits (bounded) for the
// process to be gone, and the kill-at-a-random-moment round.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { deriveRngState } from '../../sandbox/rng.js';
import { loadPlainRuntime } from '../../sandbox/runtime.js';

export interface Killable {
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `onEnd` runs when the child ends or fails to start (e.g. to fail a pending "ready"). */
export function killable(
  child: ChildProcess,
  name: string,
  onEnd: (error: Error) => void,
  stderr: () => string,
): Killable {
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      onEnd(new Error(`${name} exited before ready (code ${code}, signal ${signal})\n${stderr()}`));
      resolve({ code, signal });
    });
    child.on('error', (error) => {
      onEnd(error);
      resolve({ code: null, signal: null });
    });
  });
  const kill = async (timeoutMs = 10_000) => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    let t: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      t = setTimeout(
        () => reject(new Error(`${name} (pid ${child.pid}) did not exit within ${timeoutMs} ms of SIGKILL`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([closed, timeout]);
    } finally {
      clearTimeout(t);
    }
  };
  return { closed, kill };
}

export interface Loop extends Killable {
  child: ChildProcess;
  /** Resolves on the `ready` line; rejects if the child exits first or takes longer than the timeout. */
  ready: Promise<void>;
  stderr(): string;
}

/**
 * Starts `node --import tsx SCRIPT DIR START` from the repository root and hands each complete stdout line
 * other than `ready` to `onLine` (the loop's own report format).
 */
export function spawnLoop(
  script: string,
  dir: string,
  start: number,
  readyTimeoutMs: number,
  onLine: (line: string) => void,
): Loop {
  const name = basename(script, '.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script, dir, String(start)], {
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errText = '';
  let pending = '';
  let onReady: () => void = () => {};
  let onFail: (e: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    onReady = resolve;
    onFail = reject;
  });
  const timer = setTimeout(
    () => onFail(new Error(`${name} was not ready within ${readyTimeoutMs} ms\n${errText}`)),
    readyTimeoutMs,
  );
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line === 'ready') {
        clearTimeout(timer);
        onReady();
      } else onLine(line);
    }
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    errText += chunk;
  });
  const { closed, kill } = killable(
    child,
    name,
    (error) => {
      clearTimeout(timer);
      onFail(error);
    },
    () => errText,
  );
  // A caller that never awaits `ready` must not see an unhandled rejection.
  ready.catch(() => {});
  return { child, ready, closed, kill, stderr: () => errText };
}

/** The wait before the i-th kill of a crash test: 5–150 ms, from the project's rng, the same on every run. */
export function killDelay(test: string, i: number): number {
  return loadPlainRuntime()
    .makeRng(...deriveRngState(test, i, 1))
    .int(5, 150);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A loop script's entry point: when `script` is the file node was started with, run `main(DIR, START)`. */
export function runIfMain(script: string, main: (dir: string, start: number) => Promise<void>): void {
  let isMain = false;
  try {
    isMain = process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(script);
  } catch {
    isMain = false;
  }
  if (!isMain) return;
  const [dir, start] = process.argv.slice(2);
  if (!dir || start === undefined || !Number.isSafeInteger(Number(start))) {
    process.stderr.write(`usage: ${basename(script)} DIR START_INDEX\n`);
    process.exit(2);
  }
  main(dir, Number(start)).catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}

/** One round of a crash test: start a writer, let it work `delayMs` past ready, SIGKILL it, check it died of that. */
export async function killAfter<L extends { ready: Promise<unknown>; kill: Killable['kill']; stderr(): string }>(
  loop: L,
  delayMs: number,
  round: number,
): Promise<L> {
  try {
    await loop.ready;
    await sleep(delayMs);
  } finally {
    const exit = await loop.kill();
    if (exit.signal !== 'SIGKILL') {
      // biome-ignore lint/correctness/noUnsafeFinally: a writer that died by itself is the failure to report
      throw new Error(`kill ${round}: the writer died by itself (${JSON.stringify(exit)})\n${loop.stderr()}`);
    }
  }
  return loop;
}

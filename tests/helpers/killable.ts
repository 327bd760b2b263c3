// Supervision shared by the crash tests' child processes: a promise for their end, and a SIGKILL that
// waits (bounded) for the process to be gone.
import type { ChildProcess } from 'node:child_process';
import { deriveRngState } from '../../sandbox/rng.js';
import { loadPlainRuntime } from '../../sandbox/runtime.js';

export interface Killable {
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `onEnd` runs when the child ends or fails to start (e.g. to fail a pending "ready"). */
export function killable(child: ChildProcess, name: string, onEnd: (error: Error) => void, stderr: () => string): Killable {
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
      t = setTimeout(() => reject(new Error(`${name} (pid ${child.pid}) did not exit within ${timeoutMs} ms of SIGKILL`)), timeoutMs);
    });
    try {
      return await Promise.race([closed, timeout]);
    } finally {
      clearTimeout(t);
    }
  };
  return { closed, kill };
}

/** The wait before the i-th kill of a crash test: 5–150 ms, from the project's rng, the same on every run. */
export function killDelay(test: string, i: number): number {
  return loadPlainRuntime().makeRng(...deriveRngState(test, i, 1)).int(5, 150);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// Ctrl-C and SIGTERM for long commands (run, nightly): the first one aborts the work through an AbortSignal
// (which stops cleanly and stays resumable) instead of killing the process, and says which signal came.

export interface Interruption {
  signal: AbortSignal;
  /** The signal received, or null. */
  received(): NodeJS.Signals | null;
  /** 130 after SIGINT, 143 after SIGTERM: the shell's exit codes for them. */
  exitCode(): number;
  dispose(): void;
}

export function onInterrupt(): Interruption {
  const controller = new AbortController();
  let received: NodeJS.Signals | null = null;
  const handler = (signal: NodeJS.Signals) => {
    received = signal;
    controller.abort();
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
  return {
    signal: controller.signal,
    received: () => received,
    exitCode: () => (received === 'SIGTERM' ? 143 : 130),
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

// The one retry wrapper every provider goes through: bounded attempts, a per-attempt timeout,
// exponential backoff with full jitter (or the provider's retry-after), and caller cancellation.
import { LlmError } from './errors.js';

export interface RetryEvent {
  attempt: number;
  delayMs: number;
  error: LlmError;
}

export interface RetryOptions {
  /** Attempts in all, the first included. */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Wall-clock budget of one attempt; past it the attempt is aborted and counts as E_LLM_TIMEOUT. */
  timeoutMs?: number;
  /** A retry-after longer than this (a quota reset, not a hiccup) is not waited for: the error is thrown. */
  maxRetryAfterMs?: number;
  /** Injectable for tests; must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injectable for tests: the jitter source, in [0, 1). */
  random?: () => number;
  onRetry?: (event: RetryEvent) => void;
}

export const RETRY_DEFAULTS = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  timeoutMs: 120_000,
  maxRetryAfterMs: 60_000,
} satisfies RetryOptions;

/** Resolves after ms, or rejects with E_LLM_CANCELLED as soon as the signal aborts. */
function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelledError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelledError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function cancelledError(signal: AbortSignal): LlmError {
  return new LlmError('E_LLM_CANCELLED', 'the call was cancelled by its AbortSignal', { cause: signal.reason });
}

/** Full-jitter exponential backoff: uniform in [0, min(max, base·2^(attempt-1))). */
export function backoffDelay(attempt: number, options: RetryOptions = {}): number {
  const base = options.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs;
  const cap = options.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs;
  return Math.floor((options.random ?? Math.random)() * Math.min(cap, base * 2 ** (attempt - 1)));
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retryable error, or runs out of attempts.
 * Each attempt gets its own AbortSignal, aborted on timeout or when the caller's signal aborts;
 * an attempt that ignores its signal is abandoned all the same.
 */
export async function withRetry<T>(
  attempt: (signal: AbortSignal, attemptNumber: number) => Promise<T>,
  classify: (error: unknown) => LlmError,
  options: RetryOptions = {},
  signal?: AbortSignal,
): Promise<T> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? RETRY_DEFAULTS.maxAttempts);
  const maxRetryAfterMs = options.maxRetryAfterMs ?? RETRY_DEFAULTS.maxRetryAfterMs;
  const sleep = options.sleep ?? abortableSleep;
  for (let n = 1; ; n++) {
    if (signal?.aborted) throw cancelledError(signal);
    try {
      return await runAttempt((s) => attempt(s, n), options.timeoutMs ?? RETRY_DEFAULTS.timeoutMs, signal);
    } catch (thrown) {
      const error = thrown instanceof LlmError ? thrown : classify(thrown);
      error.attempts = n;
      if (!error.retryable || n >= maxAttempts) throw error;
      if (error.retryAfterMs !== undefined && error.retryAfterMs > maxRetryAfterMs) throw error;
      const delayMs = error.retryAfterMs ?? backoffDelay(n, options);
      options.onRetry?.({ attempt: n, delayMs, error });
      await sleep(delayMs, signal);
      if (signal?.aborted) throw cancelledError(signal);
    }
  }
}

async function runAttempt<T>(
  attempt: (signal: AbortSignal) => Promise<T>,
  timeoutMs: number,
  caller?: AbortSignal,
): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const interrupted = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new LlmError('E_LLM_TIMEOUT', `no response within ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    onAbort = () => {
      const error = cancelledError(caller!);
      controller.abort(error);
      reject(error);
    };
    caller?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const work = attempt(controller.signal);
    work.catch(() => undefined); // an abandoned attempt may still reject later
    return await Promise.race([work, interrupted]);
  } catch (error) {
    // The SDK reports our own abort as a user abort: say what really happened.
    const reason: unknown = controller.signal.reason;
    if (controller.signal.aborted && reason instanceof LlmError) throw reason;
    throw error;
  } finally {
    clearTimeout(timer);
    if (onAbort) caller?.removeEventListener('abort', onAbort);
  }
}

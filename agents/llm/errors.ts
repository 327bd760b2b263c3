// Every failure of a remote LLM service as one typed error with a stable code, so the batch can
// retry, stop or record it as data instead of matching on messages.
import { EnvforgeError } from '../../contract/errors.js';
import type { LlmUsage } from './contract.js';

import { LLM_CODES } from '../../contract/codes.js';

export { LLM_CODES };

export type LlmErrorCode = keyof typeof LLM_CODES;

const RETRYABLE: ReadonlySet<LlmErrorCode> = new Set([
  'E_LLM_RATE_LIMIT',
  'E_LLM_SERVER',
  'E_LLM_TIMEOUT',
  'E_LLM_CONNECTION',
]);

export interface LlmErrorData {
  cause?: unknown;
  status?: number;
  /** What the provider asked us to wait before retrying (from retry-after / retry-after-ms). */
  retryAfterMs?: number;
  /** Attempts made before giving up (set by the retry wrapper). */
  attempts?: number;
  /** Tokens and dollars already spent by the failed call (structured re-asks that never parsed). */
  usage?: LlmUsage;
  costUsd?: number;
  /** The last model output, for E_LLM_BAD_OUTPUT. */
  output?: string;
}

export class LlmError extends EnvforgeError {
  declare readonly code: LlmErrorCode;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  attempts: number | undefined;
  readonly usage: LlmUsage | undefined;
  readonly costUsd: number | undefined;
  readonly output: string | undefined;

  constructor(code: LlmErrorCode, message: string, data: LlmErrorData = {}) {
    super(code, message, data.cause === undefined ? undefined : { cause: data.cause });
    this.status = data.status;
    this.retryAfterMs = data.retryAfterMs;
    this.attempts = data.attempts;
    this.usage = data.usage;
    this.costUsd = data.costUsd;
    this.output = data.output;
  }

  /** Transient failures worth another attempt; everything else fails fast. */
  get retryable(): boolean {
    return RETRYABLE.has(this.code);
  }
}

export function isLlmError(error: unknown, code?: LlmErrorCode): error is LlmError {
  return error instanceof LlmError && (code === undefined || error.code === code);
}

interface HeaderBag {
  get(name: string): string | null | undefined;
}

/** Milliseconds to wait from `retry-after-ms` (ms), else `retry-after` (seconds or an HTTP date). */
export function parseRetryAfter(headers: HeaderBag | undefined, now: number = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms != null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Maps an HTTP status (with its headers) to a typed error; both SDKs' APIError classes fit this shape. */
export function fromHttpStatus(status: number, message: string, headers?: HeaderBag, cause?: unknown): LlmError {
  const data: LlmErrorData = { status, cause, retryAfterMs: parseRetryAfter(headers) };
  if (status === 429) return new LlmError('E_LLM_RATE_LIMIT', message, data);
  if (status === 401 || status === 403) return new LlmError('E_LLM_AUTH', message, data);
  // 408 and 409 are transient in practice (the SDKs retry them too); 529 is Anthropic's "overloaded".
  if (status >= 500 || status === 408 || status === 409) return new LlmError('E_LLM_SERVER', message, data);
  return new LlmError('E_LLM_BAD_REQUEST', message, data);
}

/**
 * Classifies whatever an SDK threw, by duck typing so one function serves both SDKs:
 * an APIError with a status, a timeout, a user abort, or a connection failure.
 */
export function classifyError(error: unknown, provider: string): LlmError {
  if (error instanceof LlmError) return error;
  const e = error as { name?: unknown; status?: unknown; headers?: unknown; message?: unknown } | null;
  const name = typeof e?.name === 'string' ? e.name : '';
  const message = `${provider}: ${typeof e?.message === 'string' ? e.message : String(error)}`;
  if (typeof e?.status === 'number')
    return fromHttpStatus(e.status, message, e.headers as HeaderBag | undefined, error);
  if (name === 'APIConnectionTimeoutError') return new LlmError('E_LLM_TIMEOUT', message, { cause: error });
  if (name === 'APIUserAbortError' || name === 'AbortError')
    return new LlmError('E_LLM_CANCELLED', message, { cause: error });
  return new LlmError('E_LLM_CONNECTION', message, { cause: error });
}

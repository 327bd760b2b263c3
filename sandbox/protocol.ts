// The types that cross between callers, the supervisor and its worker processes: calls into an
// environment, their results, the limits, and the supervisor<->worker messages.
import type { Code } from '../contract/codes.js';

/** One call into an environment. Instances travel as their canonical JSON text. */
export type Call =
  | { op: 'generate'; seed: number; level: number }
  | { op: 'solve'; instance: string }
  | { op: 'verify'; instance: string; response: string }
  /** generate -> solve -> verify(reference) -> verify(each response), in one crossing. */
  | {
      op: 'episode';
      seed: number;
      level: number;
      responses?: string[];
      /** false: skip solve (and so the reference verdict): for reward serving. */
      solve?: boolean;
      /** false: do not return the instance (smaller results when only scores matter). */
      keepInstance?: boolean;
    };

export interface CallFailure {
  ok: false;
  code: Code;
  message: string;
  /** Which environment function failed: generate, solve, verify, or load. */
  fn: string;
  ms: number;
}
export interface CallSuccess<T = unknown> {
  ok: true;
  value: T;
  /** Wall time inside the isolate, in whole milliseconds (the guest has no clock of its own). */
  ms: number;
}
export type CallResult<T = unknown> = CallSuccess<T> | CallFailure;

export type RawVerdict = { ok: true; value: unknown } | { ok: false; code: Code; message: string };
export interface EpisodeValue {
  instance: unknown;
  reference: unknown;
  /** verify(reference) first (unless solve was skipped), then one per response. */
  verdicts: RawVerdict[];
  /** [generate, solve, verify] wall time in ms. */
  ms: [number, number, number];
}

export interface SandboxLimits {
  /** Heap limit of one isolate. */
  memoryMb: number;
  /** Wall-clock budget of one guest call (isolate CPU time is wall time in this isolated-vm build). */
  callTimeoutMs: number;
  /** Wall-clock budget of module evaluation. */
  loadTimeoutMs: number;
  /** A crossing returns after this long so a hang costs only the call in flight. */
  sliceMs: number;
  /** Largest serialised value (instance, reference, verdict) in characters. */
  maxValueChars: number;
  maxDepth: number;
  maxNodes: number;
  maxMessageChars: number;
  maxSourceChars: number;
  /** After this many calls of one job time out (or exhaust memory), its remaining calls fail unrun. */
  maxFailuresPerJob: number;
}

export const DEFAULT_LIMITS = {
  memoryMb: 128,
  callTimeoutMs: 2_000,
  loadTimeoutMs: 2_000,
  sliceMs: 100,
  maxValueChars: 1 << 20,
  maxDepth: 32,
  maxNodes: 200_000,
  maxMessageChars: 2_000,
  maxSourceChars: 512 * 1024,
  maxFailuresPerJob: 3,
} satisfies SandboxLimits;

export type LoadInfo =
  | { ok: true; hash: string; meta: unknown; metaError?: { code: Code; message: string }; exports: Record<string, string> }
  | { ok: false; hash: string; code: Code; message: string };

// ---- supervisor <-> worker messages

export interface JobMessage {
  type: 'job';
  id: number;
  hash: string;
  /** Omitted when the supervisor believes the worker has it cached; the worker then asks for it. */
  source?: string;
  calls: Call[];
  limits: SandboxLimits;
  fresh: boolean;
}
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'need-source'; id: number }
  | { type: 'loaded'; id: number; load: LoadInfo }
  /** JSON array text of CallResult, as the trampoline wrote it (failures the worker adds are objects). */
  | { type: 'chunk'; id: number; text: string }
  | { type: 'failed'; id: number; from: number; count: number; code: Code; message: string; fn: string }
  | { type: 'done'; id: number }
  /** Several of the above in one IPC message. */
  | { type: 'batch'; messages: WorkerMessage[] };

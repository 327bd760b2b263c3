// The types that cross between callers, the supervisor and its worker processes: calls into an
// environment, their results, the limits, and the supervisor<->worker messages.
import type { ProblemCode } from '../contract/codes.js';

/**
 * One call into an environment: generate -> solve -> verify(reference) -> verify(each response), in one
 * crossing. It is the only call the sandbox makes, so a module sees the same sequence whether the
 * validator, the reward service or an export calls it.
 */
export interface Call {
  /** 'rollout': one contract-v2 episode (reset, the policy's actions through step, score), described by `rollout`. */
  op: 'episode' | 'rollout';
  rollout?: RolloutSpec;
  seed: number;
  level: number;
  responses?: string[];
  /** false: do not return the instance (smaller results when only scores matter); invisible to the guest. */
  keepInstance?: boolean;
}

/**
 * Who chooses a rollout's actions: the module's act(), a fixed list (a replayed log, a probe), or a seeded random
 * policy.
 */
export type RolloutPolicy =
  | { type: 'act' }
  | { type: 'replay'; actions: unknown[]; binds?: Bind[] }
  | { type: 'repeat'; action: unknown }
  | { type: 'random'; seed: number; avoid?: string[] };

/**
 * A replayed log's use of an id the environment issued (validators/episodic/issued.ts): before action `at` is sent,
 * `value` in its argument `arg` becomes the `nth` match of `shape` (a RegExp source) in the observation of action
 * `from`, as a model reads the id a call was answered; left as written where that observation holds no such match.
 */
export interface Bind {
  at: number;
  arg: string;
  value: string;
  from: number;
  shape: string;
  nth: number;
}

/** One episodic rollout (sandbox/episodic-runtime.js); the worker adds the rng states. */
export interface RolloutSpec {
  maxTurns: number;
  maxErrors: number;
  /** meta.tools as checked by the host, as JSON text: the runtime never reads the module's own copy. */
  tools: string;
  policy: RolloutPolicy;
  /** Resume from a state the host holds (canonical JSON text) instead of reset. */
  from?: { state: string; turn: number; errors: number };
  /** Return every observation, the digest of the state after every turn, the final state. */
  observations?: boolean;
  hashes?: boolean;
  keepState?: boolean;
  /** Score only an episode that ended (done, turns, errors): one the replay left going comes back unscored. */
  scoreAtEnd?: boolean;
  /** Return, for every turn, the paths of the state that step changed (none for a refused action). */
  changes?: boolean;
}

/**
 * Failure codes the runtime inside the isolate may report. Anything else arriving from there (E_TIMEOUT,
 * E_MEMORY, E_CRASHED…) is forged or garbled and becomes E_PROTOCOL: resource codes are made only by the
 * worker and the supervisor, which observe the resource.
 */
export const GUEST_CODES: ReadonlySet<ProblemCode> = new Set<ProblemCode>([
  'E_THROWN',
  'E_NOT_JSON',
  'E_TOO_LARGE',
  'E_ASYNC',
  'E_MISSING_EXPORT',
  'E_SCORE',
  'E_INSTANCE',
  'E_STATE_TOO_LARGE',
  'E_ESCAPE_ATTEMPT',
  'E_CONTROL_CHARS',
  'E_MALFORMED_TEXT',
]);
export const GUEST_FNS: ReadonlySet<string> = new Set(['generate', 'solve', 'verify', 'reset', 'step', 'score', 'act']);

/** The host's reading of a failure code reported from inside an isolate. */
export function guestCode(code: unknown): ProblemCode {
  return typeof code === 'string' && GUEST_CODES.has(code as ProblemCode) ? (code as ProblemCode) : 'E_PROTOCOL';
}

export interface CallFailure {
  ok: false;
  code: ProblemCode;
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

export type RawVerdict = { ok: true; value: unknown } | { ok: false; code: ProblemCode; message: string };

/**
 * A verify the worker charged with a resource failure (left-behind.ts): index 0 is the reference's verdict, 1 + i
 * response i's.
 */
export interface ChargedVerdict {
  index: number;
  code: ProblemCode;
  message: string;
}
/**
 * Verdicts the supervisor put in place of what the runtime wrote (ResultSlots.charge): their codes were
 * observed by the worker, not reported from the isolate, so they are kept as they are. Nothing parsed from
 * a chunk is ever in this set.
 */
export const HOST_VERDICTS = new WeakSet<object>();
export interface EpisodeValue {
  instance: unknown;
  reference: unknown;
  /** verify(reference) first, then one per response. */
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
  /** Longest verify feedback; the runtime fails a longer one with E_SCORE before it crosses. */
  maxFeedbackChars: number;
  /** The runtime returns results to the worker in chunks of about this many characters. */
  maxChunkChars: number;
  maxSourceChars: number;
  /** After this many calls of one job time out (or exhaust memory), its remaining calls fail unrun. */
  maxFailuresPerJob: number;
  /** Wall-clock budget of a whole job; by default it grows with the number of calls (see jobBudgetMs). */
  jobTimeoutMs?: number;
  /**
   * The job's time slice: once it has run this long (from its first call), finished a call and been asked to yield (a
   * YieldMessage), its worker hands it back and the calls it did not reach fail unrun with YIELDED_MESSAGE, for the
   * caller to run in a later job (the reward service's shared jobs: no client's calls hold a worker past a slice while
   * another's wait). Never asked, a job runs whole.
   */
  yieldAfterMs?: number;
  /**
   * Worker time shared by every job of one caller (the validator's candidate): each job may run only for
   * what is left, is killed with E_TOO_SLOW past it, and a job that finds it spent does not start. A finished
   * job is charged its worker's CPU time (or a quarter of its wall time, if more: a job that idles is not free),
   * a killed one its wall time; time queued behind other callers' jobs is not counted: the budget does not
   * shrink on a busy host. Host side only.
   */
  workBudget?: WorkBudget;
}

/** Sandbox time granted to one caller across its jobs (see SandboxLimits.workBudget); the pool adds to spentMs. */
export interface WorkBudget {
  readonly totalMs: number;
  spentMs: number;
}

/** How the failure (E_TIMEOUT, fn call) of a call its job's time slice (yieldAfterMs) left unrun begins. */
export const YIELDED_MESSAGE = "not run: the job's time slice";

export const DEFAULT_LIMITS = {
  memoryMb: 128,
  callTimeoutMs: 1_000,
  loadTimeoutMs: 1_000,
  sliceMs: 100,
  maxValueChars: 1 << 20,
  maxDepth: 32,
  maxNodes: 200_000,
  maxMessageChars: 2_000,
  maxFeedbackChars: 2_000, // CONTRACT_LIMITS.maxFeedbackChars (kept zod-free for the worker; a test ties them)
  maxChunkChars: 4 << 20,
  maxSourceChars: 512 * 1024,
  maxFailuresPerJob: 3,
} satisfies SandboxLimits;

/** Characters one result of `call` can take at most (instance and reference at their limits, each verdict). */
function maxResultChars(
  call: Pick<Call, 'responses' | 'rollout'> & { maxTurns?: number },
  limits: SandboxLimits,
): number {
  // A rollout (the host's call, or the worker's prepared one): the prompt, each turn's action (64 KB) and
  // escaped observation (16,000 characters), the final state.
  const turns = call.rollout?.maxTurns ?? call.maxTurns;
  if (turns !== undefined) return (turns + 1) * (6 * 16_000 + 65_536 + 64) + 6 * 262_144 + 8_192;
  return (
    2 * limits.maxValueChars +
    (2 + (call.responses?.length ?? 0)) * (limits.maxFeedbackChars + limits.maxMessageChars + 128) +
    1_024
  );
}

/** The most characters one chunk of results for these calls can take (a loop: no argument-count limit). */
export function maxChunkChars(
  calls: ReadonlyArray<Pick<Call, 'responses' | 'rollout'> & { maxTurns?: number }>,
  limits: SandboxLimits,
): number {
  let most = 0;
  for (const call of calls) most = Math.max(most, maxResultChars(call, limits));
  return limits.maxChunkChars + most + 64;
}

export type LoadInfo =
  /**
   * instancing: 'episode', every guest call gets a fresh module instance; loadMs: its top level's evaluation time
   * (isolate CPU time).
   */
  | {
      ok: true;
      hash: string;
      meta: unknown;
      metaError?: { code: ProblemCode; message: string };
      exports: Record<string, string>;
      instancing?: 'episode';
      loadMs?: number;
    }
  | { ok: false; hash: string; code: ProblemCode; message: string };

// ---- supervisor <-> worker messages

/** Plain episode calls packed for the pipe (packed-calls.ts): the V8 serialiser writes typed arrays as bytes. */
export interface PackedCalls {
  seeds: Float64Array;
  levels: Float64Array;
  /** Each call's responses, present when any call has some. */
  responses?: Array<string[] | undefined>;
}

export interface JobMessage {
  type: 'job';
  id: number;
  hash: string;
  /** Omitted when the supervisor believes the worker has it cached; the worker then asks for it. */
  source?: string;
  /** Empty when `packed` holds them (packed-calls.ts). */
  calls: Call[];
  packed?: PackedCalls;
  /** The tools text every rollout call shares, sent once (the calls carry an empty string: packed-calls.ts). */
  tools?: string;
  limits: SandboxLimits;
  fresh: boolean;
  /** With `fresh`: the most calls its realm may run, this job's and earlier such jobs' (RunRequest.lifetime). */
  lifetime?: number;
}
/** Jobs sent to one worker in one message, run there in this order (pool.runTogether). */
/** The supervisor asks the job `id` to hand its worker back once its slice is spent (SandboxLimits.yieldAfterMs). */
export interface YieldMessage {
  type: 'yield';
  id: number;
}
export interface JobsMessage {
  type: 'jobs';
  jobs: JobMessage[];
}
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'need-source'; id: number }
  | { type: 'loaded'; id: number; load: LoadInfo }
  /** The runtime's JSON array of results, each naming its call by index ("id"); size-checked by the worker. */
  | { type: 'chunk'; id: number; text: string }
  | { type: 'failed'; id: number; from: number; count: number; code: ProblemCode; message: string; fn: string }
  /** Verdicts of call `call` that the worker charged; sent before the chunk with the call's result. */
  | { type: 'charged'; id: number; call: number; verdicts: ChargedVerdict[] }
  /** The realm's tripwires fired (trips.ts): what the module reached for, kept by the supervisor per module. */
  | { type: 'tripped'; id: number; what: string[] }
  /** The job ended; cpuMs: the worker process's CPU time in it, less the sandbox's own setups. */
  | { type: 'done'; id: number; cpuMs?: number }
  /**
   * News that the worker is busy with the job (it re-arms the silence deadline), sent between long steps of
   * its own; with setupMs: envforge's setup (no guest code) starts and may take that long, and the job's
   * deadlines wait until the next message.
   */
  | { type: 'progress'; id: number; setupMs?: number }
  /** Several of the above in one IPC message. */
  | { type: 'batch'; messages: WorkerMessage[] };

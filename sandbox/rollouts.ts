// Typed episodic rollouts (contract v2) on top of the raw sandbox: many episodes per crossing, whatever the
// policy (act, a replayed action log, a seeded random policy), each checked on the host into a rollout or a
// failure with a stable code. An episode is (env, version, seed, level) plus its action list.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { EpisodicMeta } from '../contract/episodic.js';
import { EPISODIC_LIMITS } from '../contract/episodic.js';
import { checkVerdict, type EpisodeFailure, type ScoredVerdict } from './episodes.js';
import type { SandboxPool } from './pool.js';
import { loadPlainRuntime } from './runtime.js';
import type { Call, CallResult, LoadInfo, RolloutPolicy, RolloutSpec, SandboxLimits } from './protocol.js';

const episodicRuntime = loadPlainRuntime().episodic;
/** The most rollouts one job holds (job messages stay small, the pool spreads jobs over its workers). */
export const JOB_CALLS = 100;
/**
 * The most rollouts one realm runs, jobs packed into it one after another: a realm costs 20-35 ms of setup (SES's
 * lockdown), and keeps nothing of a rollout (a fresh module instance per call: docs/sandbox.md), so its lifetime
 * bounds only how long one context lives. 1,600 (was 400; issue 34): an episodic validation's ~3,000 rollouts begin
 * ~8 setups instead of ~21.
 */
export const REALM_CALLS = 1_600;

export interface RolloutRequest {
  seed: number;
  level: number;
  policy: RolloutPolicy;
  from?: RolloutSpec['from'];
  observations?: boolean;
  hashes?: boolean;
  keepState?: boolean;
  scoreAtEnd?: boolean;
  changes?: boolean;
}

/** Why an episode ended: step said done, the policy sent no action, maxTurns, or maxErrors rejected actions. */
export type EpisodeEnd = 'done' | 'no-action' | 'turns' | 'errors';

export interface Rollout {
  ok: true;
  seed: number;
  level: number;
  /** reset's prompt; null for a rollout resumed from a held state. */
  prompt: string | null;
  actions: unknown[];
  /** Turns (from 1) whose action the host's check rejected. */
  rejected: number[];
  end: EpisodeEnd;
  turns: number;
  errors: number;
  /** 0 with `unscored` when the request asked for scoreAtEnd and the episode goes on. */
  score: number;
  unscored?: true;
  feedback?: string;
  maxStateChars: number;
  observations?: string[];
  /** Digest of the state before the first turn and after each. */
  hashes?: string[];
  /** Per turn, the paths of the state its step changed ($.a.*.b; none for a refused action). */
  changes?: string[][];
  /** The final state, and its canonical JSON text (keys sorted): what the host holds between turns. */
  state?: unknown;
  stateText?: string;
  /** [reset, step, act, score] wall time in ms. */
  ms: number[];
}
export type RolloutResult = Rollout | EpisodeFailure;

export interface RolloutRun {
  load: LoadInfo;
  rollouts: RolloutResult[];
  wallMs: number;
}

/** The meta fields a rollout needs, as the runtime reads them. */
export function rolloutShape(meta: EpisodicMeta): Pick<RolloutSpec, 'maxTurns' | 'maxErrors' | 'tools'> {
  return { maxTurns: meta.maxTurns, maxErrors: EPISODIC_LIMITS.maxErrors, tools: JSON.stringify(meta.tools) };
}

/**
 * What serves one module's rollouts inside a scope (rollout-memo.ts: a validation's memo), playing the rest with
 * `play`.
 */
export interface RolloutServer {
  readonly source: string;
  /** `setting`: what besides the request decides its result (the rollouts' shape and limits), as text. */
  serve(
    requests: readonly RolloutRequest[],
    play: (misses: RolloutRequest[]) => Promise<RolloutRun>,
    setting: string,
  ): Promise<RolloutRun>;
}
const servers = new AsyncLocalStorage<RolloutServer>();

/** Runs `work` with `server` serving every rollout of its module that it (or anything it awaits) asks for. */
export function withRolloutServer<T>(server: RolloutServer, work: () => Promise<T>): Promise<T> {
  return servers.run(server, work);
}

/** Observers of every job of rollouts as planned, before a memo serves any of them (bench/golden.ts records them). */
export const plannedRolloutJobs = new Set<(calls: readonly Call[]) => void>();

/**
 * Rollouts in jobs of at most JOB_CALLS, in realms that run at most REALM_CALLS; inside a validation's memo
 * (rollout-memo.ts), an episode already played is served.
 */
export async function runRollouts(
  pool: SandboxPool,
  source: string,
  meta: EpisodicMeta,
  requests: RolloutRequest[],
  options: { limits?: Partial<SandboxLimits> } = {},
): Promise<RolloutRun> {
  if (plannedRolloutJobs.size > 0)
    for (const job of jobsOf(callsOf(meta, requests))) for (const observe of plannedRolloutJobs) observe(job);
  const memo = servers.getStore();
  if (memo?.source === source && requests.length > 0)
    return memo.serve(
      requests,
      (misses) => playRollouts(pool, source, meta, misses, options),
      JSON.stringify([rolloutShape(meta), options.limits ?? null]),
    );
  return playRollouts(pool, source, meta, requests, options);
}

/** Every job of rollouts holds at most JOB_CALLS of them: the calls cut into jobs. */
const jobsOf = (calls: Call[]): Call[][] =>
  Array.from({ length: Math.max(1, Math.ceil(calls.length / JOB_CALLS)) }, (_, i) =>
    calls.slice(i * JOB_CALLS, (i + 1) * JOB_CALLS),
  );

function callsOf(meta: EpisodicMeta, requests: readonly RolloutRequest[]): Call[] {
  const shape = rolloutShape(meta);
  return requests.map((r) => ({
    op: 'rollout' as const,
    seed: r.seed,
    level: r.level,
    rollout: {
      ...shape,
      policy: r.policy,
      ...(r.from ? { from: r.from } : {}),
      observations: r.observations === true,
      hashes: r.hashes === true,
      keepState: r.keepState === true,
      ...(r.scoreAtEnd ? { scoreAtEnd: true } : {}),
      ...(r.changes ? { changes: true } : {}),
    },
  }));
}

/**
 * The requests' indices with the rollouts of one episode side by side, episodes in the order they first appear: the
 * caller's order still decides each episode's place in its realm (the determinism stage's reversed runs meet other
 * places), and logs sharing a prefix meet in one job's realm.
 */
function episodesTogether(requests: readonly RolloutRequest[]): number[] {
  const first = new Map<string, number>();
  const rank = requests.map((r, i) => {
    const episode = `${r.level}:${r.seed}`;
    if (!first.has(episode)) first.set(episode, i);
    return first.get(episode) as number;
  });
  const fromLast = (i: number) => Number(requests[i]?.from !== undefined);
  return requests
    .map((_, i) => i)
    .sort((a, b) => (rank[a] as number) - (rank[b] as number) || fromLast(a) - fromLast(b) || a - b);
}

async function playRollouts(
  pool: SandboxPool,
  source: string,
  meta: EpisodicMeta,
  requests: RolloutRequest[],
  options: { limits?: Partial<SandboxLimits> },
): Promise<RolloutRun> {
  // The rollouts of one episode go out side by side, so that logs sharing a prefix meet in one job's realm,
  // which plays the shared turns once (episodic-runtime.js); results come back in the requests' order.
  const order = episodesTogether(requests);
  const inOrder = callsOf(meta, requests);
  const calls = order.map((i) => inOrder[i] as Call);
  // Every job of rollouts holds at most JOB_CALLS of them and runs in a realm that runs at most REALM_CALLS, for every
  // caller (validator, play, sample): a realm's lifetime is the same everywhere, and the validator's probes fill
  // whole lifetimes (a module that changed behaviour after N episodes in a realm would meet them; a fresh module
  // instance per call leaves it nothing to count with). A job runs in a realm earlier rollout jobs left room in
  // (`lifetime`: the checks' runs share realms, each built once). Small jobs keep job messages small; the pool
  // spreads them over its workers.
  const started = performance.now();
  const jobs = jobsOf(calls);
  const limits = options.limits ? { limits: options.limits } : {};
  const runs = await Promise.all(
    jobs.map((part) => pool.run({ source, calls: part, ...limits, fresh: true, lifetime: REALM_CALLS })),
  );
  const results: CallResult[] = new Array(requests.length);
  runs.flatMap((run) => run.results).forEach((result, k) => (results[order[k] as number] = result));
  const rollouts = results.map((result, i) => toRollout(requests[i] as RolloutRequest, result));
  await confirmTimeouts(pool, source, inOrder, requests, rollouts, options.limits);
  return { load: (runs[0] as (typeof runs)[number]).load, rollouts, wallMs: performance.now() - started };
}

/** At most this many timed-out rollouts are run again alone; more than this is the module's, not the machine's. */
export const CONFIRM_TIMEOUTS = 8;

/**
 * A wall-clock timeout is the module's only if it happens again: a few timed-out rollouts among many are run
 * once more, each alone in a fresh realm, and take the result of that run (the same seed and policy replay the
 * same episode, so a module that hangs on it hangs again; a loaded machine's stall does not repeat).
 */
async function confirmTimeouts(
  pool: SandboxPool,
  source: string,
  calls: readonly Call[],
  requests: readonly RolloutRequest[],
  rollouts: RolloutResult[],
  limits: Partial<SandboxLimits> | undefined,
): Promise<void> {
  const timedOut = rollouts.flatMap((r, i) => (!r.ok && r.code === 'E_TIMEOUT' ? [i] : []));
  if (timedOut.length === 0 || timedOut.length > CONFIRM_TIMEOUTS) return;
  const again = await Promise.all(
    timedOut.map((i) => pool.run({ source, calls: [calls[i] as Call], ...(limits ? { limits } : {}), fresh: true })),
  );
  timedOut.forEach((i, k) => {
    const result = again[k]?.results[0];
    if (result) rollouts[i] = toRollout(requests[i] as RolloutRequest, result);
  });
}

const ENDS = new Set(['done', 'no-action', 'turns', 'errors']);
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * A raw rollout result checked on the host: a rollout, or a failure with a stable code (stateText only when
 * `canonicalState`).
 */
export function toRollout(request: RolloutRequest, result: CallResult, canonicalState = true): RolloutResult {
  const { seed, level } = request;
  if (!result.ok) return { ok: false, seed, level, code: result.code, message: result.message, fn: result.fn };
  const v = result.value as Record<string, unknown> | null;
  const malformed = (): EpisodeFailure => ({
    ok: false,
    seed,
    level,
    code: 'E_PROTOCOL',
    message: 'the sandbox returned a malformed rollout',
    fn: 'call',
  });
  if (
    v === null ||
    typeof v !== 'object' ||
    !Array.isArray(v.actions) ||
    !ENDS.has(v.end as string) ||
    typeof v.turns !== 'number' ||
    typeof v.errors !== 'number'
  )
    return malformed();
  if (
    !(v.prompt === null || typeof v.prompt === 'string') ||
    !Array.isArray(v.rejected) ||
    (v.observations !== undefined && !strings(v.observations)) ||
    (v.hashes !== undefined && !strings(v.hashes))
  )
    return malformed();
  // Only the runtime writes "scored": false (a module's score() returning null is still a bad verdict).
  const unscored = request.scoreAtEnd === true && v.end === 'no-action' && v.scored === false;
  const verdict: ScoredVerdict = unscored ? { ok: true, score: 0 } : checkVerdict({ ok: true, value: v.verdict });
  if (!verdict.ok)
    return {
      ok: false,
      seed,
      level,
      code: verdict.code,
      message: verdict.message.replace(/^verify/, 'score'),
      fn: 'score',
    };
  return {
    ok: true,
    seed,
    level,
    prompt: v.prompt as string | null,
    actions: v.actions,
    rejected: v.rejected as number[],
    end: v.end as EpisodeEnd,
    turns: v.turns,
    errors: v.errors,
    score: verdict.score,
    ...(unscored ? { unscored: true as const } : {}),
    ...(verdict.feedback !== undefined ? { feedback: verdict.feedback } : {}),
    maxStateChars: typeof v.maxStateChars === 'number' ? v.maxStateChars : 0,
    ...(v.observations ? { observations: v.observations as string[] } : {}),
    ...(v.hashes ? { hashes: v.hashes as string[] } : {}),
    ...(Array.isArray(v.changes) && v.changes.every(strings) ? { changes: v.changes as string[][] } : {}),
    ...('state' in v
      ? { state: v.state, ...(canonicalState ? { stateText: episodicRuntime.canonical(v.state) } : {}) }
      : {}),
    ms: Array.isArray(v.ms) ? (v.ms as number[]) : [0, 0, 0, 0],
  };
}

// The reward service's options with their defaults, its endpoints, and the error it answers with (an
// HTTP status beside the code). docs/reward-service.md describes the endpoints and the error policy.
import { EnvforgeError } from '../contract/errors.js';
import type { Code } from '../contract/codes.js';
import type { SandboxPool } from '../sandbox/pool.js';
import { getHeapStatistics } from 'node:v8';
import { DEFAULT_LIMITS } from '../sandbox/protocol.js';
import { defaultMaxConnections } from './tcp-connections.js';

export interface ServeOptions {
  /** The library folder (opened read-only). */
  libraryDir: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** A sandbox pool to use (not closed by close()); by default the server creates one, one worker per core. */
  pool?: SandboxPool;
  /** Items (responses to score, instances to sample) in flight at once; past it requests get 503. */
  maxQueue: number;
  /** The largest body a request may carry (the routes that take many items); other routes have smaller limits. */
  bodyLimitBytes: number;
  /**
   * Bytes of request bodies (and WebSocket messages) held at once for all clients, from their headers until their
   * answers (serve/body-budget.ts); default a quarter of the V8 heap limit, from 4 body limits to 1 GiB.
   */
  bodyBudgetBytes?: number;
  /** Bytes of bodies one client (its principal) may hold at once; default a quarter of bodyBudgetBytes. */
  clientBodyBytes?: number;
  /** A request body still arriving this long after its headers is dropped (408 E_BODY_TIMEOUT, connection closed). */
  bodyTimeoutMs: number;
  /**
   * A body still arriving or an answer unread is reclaimed for another client only once it has not moved for this long
   * (default body-budget.ts STALL_MS, 1 s; not a flag).
   */
  reclaimStallMs?: number;
  /**
   * An answer its client has not read this long after it was written (plus a second per MiB of it) has its connection
   * closed (serve/answer-budget.ts): what the service holds for unread answers is bounded in time as well as bytes.
   */
  sendTimeoutMs: number;
  maxItemsPerRequest: number;
  /** How often the library files are checked for changes (new admissions, retirements). */
  reloadIntervalMs: number;
  /** Wall-clock budget of one sandbox call (one episode: generate + the verifies of its responses). */
  callTimeoutMs: number;
  /** Wall-clock budget of one request: items not scored by then fail with E_REQUEST_TIMEOUT. */
  requestTimeoutMs: number;
  /**
   * The runtime defence (incidents and quarantine, library/quarantine.ts). Off only for harnesses that handle failures
   * themselves.
   */
  quarantine: boolean;
  /**
   * Where per-item errors of the scoring endpoints are logged (the first of each code, then a rate); none when absent.
   */
  log?: (line: string) => void;
  /** How often the per-item error rate is logged while errors occur. */
  errorLogIntervalMs: number;
  /** Tally the scores trainers ask for per environment × level in the library (serve/scores.ts). */
  recordScores: boolean;
  /** How often those tallies are written to the library. */
  scoreFlushIntervalMs: number;
  /** Episode sessions (contract v2) held in memory at once; past it new ones get 429 + retry-after. */
  maxSessions: number;
  /**
   * TCP connections held at once; at the bound a new one replaces the idle connection of the address holding the most
   * (serve/tcp-connections.ts). Default: below the process's file-descriptor limit.
   */
  maxConnections: number;
  /** An open episode session untouched this long leaves memory; its journal keeps it resumable. */
  sessionIdleMs: number;
  /** An episode journal untouched this long is deleted (the episode is then unknown). */
  journalTtlMs: number;
  /**
   * Journals kept on disk (open and ended episodes' alike), shared fairly between clients: past it the client
   * keeping the most loses its oldest (serve/journal-quota.ts). One-step episodes are never journaled.
   */
  maxEndedJournals: number;
  /**
   * Bytes of journals kept on disk (every line an episode's journal is appended), shared the same way: past it the
   * client keeping the most bytes loses its oldest journal (serve/journal-quota.ts).
   */
  maxJournalBytes: number;
  /**
   * Where episode journals are kept (shared by replicas that serve the same episodes); default
   * <library>/serve-episodes.
   */
  episodesDir?: string;
  /** Actions one POST /v1/episodes/score may carry. */
  maxActionsPerScore: number;
  /**
   * The operator token (serve/clients.ts): a request bearing it (Authorization: Bearer …) may reveal references,
   * record scores that steer `level: "auto"` and nightly, and use the admin routes. Without one, no request
   * may: every client is a trainer client (sample, verify, play), and their scores are kept untrusted.
   */
  operatorToken?: string;
  /**
   * Client tokens the operator issued, by client name (serve/clients.ts): a request bearing one is that named
   * client, for independence (the quarantine's independent-clients rule) and fair shares. Without one a client is
   * its normalised address, and every local client (any loopback address) is one client.
   */
  clientTokens?: Readonly<Record<string, string>>;
  /**
   * Origins whose browser pages may open WebSocket connections and use the state-changing routes (exact
   * `scheme://host[:port]`); a request without an Origin header (no browser) is always allowed (serve/origins.ts).
   */
  allowOrigins?: readonly string[];
  /**
   * Host names the service answers to besides IP literals and localhost (contract/hosts.ts); bound to loopback it
   * answers no other.
   */
  allowHosts?: readonly string[];
}

export const DEFAULT_SERVE_OPTIONS = {
  host: '127.0.0.1',
  port: 8787,
  maxQueue: 32_768,
  bodyLimitBytes: 32 * 2 ** 20,
  bodyTimeoutMs: 60_000,
  sendTimeoutMs: 60_000,
  maxItemsPerRequest: 8_192,
  reloadIntervalMs: 1_000,
  callTimeoutMs: DEFAULT_LIMITS.callTimeoutMs,
  requestTimeoutMs: 60_000,
  quarantine: true,
  errorLogIntervalMs: 10_000,
  recordScores: true,
  scoreFlushIntervalMs: 5_000,
  maxSessions: 4_096,
  maxConnections: defaultMaxConnections(),
  sessionIdleMs: 10 * 60_000,
  journalTtlMs: 24 * 3_600_000,
  maxEndedJournals: 65_536,
  maxJournalBytes: 4 * 2 ** 30,
  maxActionsPerScore: 1_000,
} satisfies Omit<
  ServeOptions,
  | 'libraryDir'
  | 'pool'
  | 'log'
  | 'episodesDir'
  | 'clientTokens'
  | 'allowOrigins'
  | 'allowHosts'
  | 'bodyBudgetBytes'
  | 'clientBodyBytes'
>;

/**
 * The body budget's bounds (for all clients, for one) from the options, defaults filled in: the total a quarter of the
 * V8 heap limit (parsed bodies live on the heap) but at least 4 body limits and at most 1 GiB, a client's a quarter of
 * it; neither below one body limit, so a body the routes accept can always be admitted alone.
 */
export function bodyBudgetOf(
  opts: Pick<ServeOptions, 'bodyLimitBytes' | 'bodyBudgetBytes' | 'clientBodyBytes'>,
  heapLimit = getHeapStatistics().heap_size_limit,
): { total: number; client: number } {
  const total = opts.bodyBudgetBytes ?? Math.min(2 ** 30, Math.max(4 * opts.bodyLimitBytes, Math.floor(heapLimit / 4)));
  const client = opts.clientBodyBytes ?? Math.max(opts.bodyLimitBytes, Math.floor(total / 4));
  for (const [name, value] of [
    ['bodyBudgetBytes', total],
    ['clientBodyBytes', client],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < opts.bodyLimitBytes)
      throw new ServeError(
        400,
        'E_USAGE',
        `${name} must be an integer of at least bodyLimitBytes (${opts.bodyLimitBytes}), got ${value}`,
      );
  }
  if (client > total)
    throw new ServeError(400, 'E_USAGE', `clientBodyBytes (${client}) must not be over bodyBudgetBytes (${total})`);
  return { total, client };
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Endpoints, for the startup line and docs. */
export const ENDPOINTS = [
  'POST /v1/verify',
  'POST /v1/sample',
  'GET /v1/envs',
  'GET /health',
  'POST /get_reward',
  'POST /v1/episodes',
  'POST /v1/episodes/{id}/step',
  'GET /v1/episodes/{id}',
  'DELETE /v1/episodes/{id}',
  'POST /v1/episodes/score',
  'WS /openenv/{env}/ws',
  'POST /openenv/{env}/reset',
  'POST /openenv/{env}/step',
  'GET /openenv/{env}/state',
  'GET /openenv/{env}/schema',
  'GET /openenv/{env}/metadata',
  'POST /openenv/{env}/mcp',
  'GET /v1/admin/clients',
] as const;

/** A request the service refuses, or a failure of the service itself, with its HTTP status. */
export class ServeError extends EnvforgeError {
  constructor(
    readonly status: number,
    code: Code,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

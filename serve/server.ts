// The reward service (`envforge serve`): scores model responses against library environments over HTTP.
// An instance is never stored: it is regenerated in the sandbox from its identity (env, version, seed,
// level), so a trainer needs only the identity string its export wrote as ground truth.
//
//   POST /v1/verify   { items: [{ env, version?, seed, level, response } | { ground_truth, response }] }
//                     -> { results: [{ score, feedback? } | { score: 0, error: { code, message } }] }
//   POST /v1/sample   { items: [{ env, version?, seed, level }] | select: { env?, skills?, levels?, n, seed? }, reveal? }
//                     -> { items: [{ env, version, seed, level, prompt, ground_truth, hidden?, reference? }], seed? }
//   GET  /v1/envs     -> { envs: [{ name, version, hash, skills, levels, title, description }] } (?versions=all: every version, with status)
//   GET  /health      -> { status: 'ok', envs, inflight, maxQueue }
//   POST /get_reward  OpenRLHF remote reward: { query, prompts, labels } -> { rewards, scores, extra_logs }
//
// Error policy. A malformed body (bad JSON, wrong types, missing fields, a seed or level outside the
// contract's range, an unparsable ground truth or label) is a 400 naming the field and item index; a body
// over bodyLimitBytes or more than maxItemsPerRequest items is a 413; a full queue is a 503 with
// retry-after. Anything that depends on the library's contents is judged per item in the scoring endpoints
// (/v1/verify, /get_reward): an unknown environment or version (E_UNKNOWN_ENV), or a level past the
// environment's levels (E_LEVEL_RANGE), gives that item score 0 and an error while the rest of the batch is
// scored, so one stale label never fails a trainer's batch. /v1/sample instead refuses the request: 404 for
// an unknown environment or an empty selection, 400 for a level out of range. A verifier that fails
// (E_TIMEOUT, E_MEMORY, E_THROWN, E_SCORE, or a reference that does not score 1: E_UNSOLVED) gives its item
// score 0 and the error, with HTTP 200, and is an incident: the environment is quarantined by the policy in
// library/quarantine.ts (E_QUARANTINED per item) until revalidated. Items not done within
// requestTimeoutMs fail with E_REQUEST_TIMEOUT. Only the sandbox itself failing (workers that cannot
// start) is a 503; a damaged library file is a 500.
//
// Throughput. Calls from concurrent requests are coalesced: a dispatcher keeps at most two sandbox jobs per
// worker running and packs everything that arrived meanwhile for the same module into the next job, so
// single-item requests under load cost one IPC round trip per batch rather than per item.
import { identityString } from '../contract/identity.js';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import { randomInt, createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { EnvforgeError } from '../contract/errors.js';
import { CONTRACT_LIMITS, InstanceSchema, ReferenceSchema, describeIssues } from '../contract/schema.js';
import type { EnvRecord } from '../library/contract.js';
import { INDEX_FILE, SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';
import { DEFAULT_LIMITS, type Call, type CallResult } from '../sandbox/protocol.js';
import { IncidentLog, type Misbehaviour } from '../library/quarantine.js';
import { confirmAndRecord, episodeFailure, failure, failureCode, verdictsOf, withinDeadline, type VerifyResult } from './defence.js';
import { ItemErrorLog } from './item-errors.js';

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
  bodyLimitBytes: number;
  maxItemsPerRequest: number;
  /** How often the library files are checked for changes (new admissions, retirements). */
  reloadIntervalMs: number;
  /** Wall-clock budget of one sandbox call (one episode: generate + the verifies of its responses). */
  callTimeoutMs: number;
  /** Wall-clock budget of one request: items not scored by then fail with E_REQUEST_TIMEOUT. */
  requestTimeoutMs: number;
  /** The runtime defence (incidents and quarantine, library/quarantine.ts). Off only for harnesses that handle failures themselves. */
  quarantine: boolean;
  /** Where per-item errors of the scoring endpoints are logged (the first of each code, then a rate); none when absent. */
  log?: (line: string) => void;
  /** How often the per-item error rate is logged while errors occur. */
  errorLogIntervalMs: number;
}

export const DEFAULT_SERVE_OPTIONS = {
  host: '127.0.0.1',
  port: 8787,
  maxQueue: 32_768,
  bodyLimitBytes: 32 * 2 ** 20,
  maxItemsPerRequest: 8_192,
  reloadIntervalMs: 1_000,
  callTimeoutMs: DEFAULT_LIMITS.callTimeoutMs,
  requestTimeoutMs: 60_000,
  quarantine: true,
  errorLogIntervalMs: 10_000,
} satisfies Omit<ServeOptions, 'libraryDir' | 'pool' | 'log'>;

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Endpoints, for the startup line and docs. */
export const ENDPOINTS = ['POST /v1/verify', 'POST /v1/sample', 'GET /v1/envs', 'GET /health', 'POST /get_reward'] as const;

/** A request the service refuses, or a failure of the service itself, with its HTTP status. */
export class ServeError extends EnvforgeError {
  constructor(readonly status: number, code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

// ---------------------------------------------------------------- tuning (internal)

/** Responses scored in one episode call (they share one generate); more are split into further episodes. */
const MAX_RESPONSES_PER_EPISODE = 64;
/** Response characters in one episode call (at least one response always goes in). */
const MAX_EPISODE_CHARS = 1 << 20;
/** Calls and response characters in one sandbox job. */
const MAX_CALLS_PER_JOB = 256;
const MAX_JOB_CHARS = 8 << 20;
/** Items per request re-run alone after their job failed around them (see retrySuspects). */
const MAX_RETRIES_PER_REQUEST = 16;
/**
 * Jobs a worker of the server's own pool runs before it is replaced. Serving runs many small jobs (one per
 * coalesced batch, thousands a second), so the pool's default (5,000) would restart a worker, and recompile
 * every module in it, every few seconds: a latency spike each time.
 */
const SERVE_MAX_JOBS_PER_WORKER = 200_000;
const RESOURCE_CODES: ReadonlySet<string> = new Set(['E_TIMEOUT', 'E_MEMORY', 'E_CRASHED', 'E_PROTOCOL']);

// ---------------------------------------------------------------- request schemas

const required = (what: string) => (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);
const EnvName = z.string({ error: required('a string (an environment name)') }).min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const Seed = z
  .number({ error: required('a number (a non-negative integer)') })
  .int('must be an integer')
  .min(0, 'must be a non-negative integer')
  .max(Number.MAX_SAFE_INTEGER, 'must be a safe integer');
const Level = z
  .number({ error: required(`a number (an integer level from 1 to ${CONTRACT_LIMITS.maxLevels})`) })
  .int('must be an integer')
  .min(1, 'must be at least 1')
  .max(CONTRACT_LIMITS.maxLevels, `must be at most ${CONTRACT_LIMITS.maxLevels}`);
const Version = z.number({ error: required('a number (a positive integer version)') }).int('must be an integer').min(1, 'must be at least 1');
const Text = (what: string) => z.string({ error: required(what) });

const Identity = z.object({ env: EnvName, version: Version.optional(), seed: Seed, level: Level }, { error: 'must be an object { env, version?, seed, level }' });
export type InstanceIdentity = z.infer<typeof Identity>;
const IdentityItem = Identity.extend({ response: Text('a string') });
const GroundTruthItem = z.object({ ground_truth: Text('a string (the identity JSON)'), response: Text('a string') });
const ItemsBody = z.object({ items: z.array(z.unknown(), { error: required('an array') }) }, { error: 'the body must be a JSON object' });
const SampleBody = z.object(
  {
    items: z.array(z.unknown(), { error: required('an array') }).optional(),
    select: z
      .object(
        {
          env: EnvName.optional(),
          skills: z.array(z.string({ error: 'must be a string' }), { error: 'must be an array of strings' }).optional(),
          levels: z
            .tuple([Level, Level], { error: 'must be [min, max]' })
            .refine(([lo, hi]) => lo <= hi, 'must be [min, max] with min <= max')
            .optional(),
          n: z.number({ error: required('a number (how many instances)') }).int('must be an integer').min(1, 'must be at least 1'),
          seed: Seed.optional(),
        },
        { error: 'must be an object { env?, skills?, levels?, n, seed? }' },
      )
      .optional(),
    reveal: z.boolean({ error: 'must be true or false' }).optional(),
  },
  { error: 'the body must be a JSON object' },
);
const RewardBody = z.object(
  {
    query: z.array(Text('a string'), { error: required('an array of strings') }),
    prompts: z.array(Text('a string'), { error: required('an array of strings') }),
    labels: z.array(Text('a string'), { error: required('an array of strings') }),
  },
  { error: 'the body must be a JSON object { query, prompts, labels }' },
);

function pathText(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `${out ? '.' : ''}${String(part)}`;
  return out;
}

/** Parses with zod, or throws a 400 whose message names the field (with the item index as a prefix). */
function parse<T>(schema: z.ZodType<T>, value: unknown, prefix: Array<string | number> = []): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 5).map((issue) => {
    const where = pathText([...prefix, ...issue.path]);
    return where ? `${where}: ${issue.message}` : issue.message;
  });
  throw new ServeError(400, 'E_BAD_REQUEST', issues.join('; '));
}

function checkCount(field: string, count: number, max: number): void {
  if (count > max) throw new ServeError(413, 'E_TOO_MANY_ITEMS', `${field} has ${count} entries; at most ${max} are allowed per request`);
}

/** An identity JSON string (an export's ground truth or an OpenRLHF label). */
function parseIdentity(text: string, prefix: Array<string | number>): InstanceIdentity {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ServeError(400, 'E_BAD_REQUEST', `${pathText(prefix)}: is not valid JSON; expected an identity like {"env":"name","version":1,"seed":123,"level":4}`);
  }
  return parse(Identity, value, prefix);
}

/** The ground-truth string exports write: the instance's identity as JSON, keys in this order. */

// ---------------------------------------------------------------- the library, cached

interface Resolved {
  record: EnvRecord;
}
type Lookup = Resolved | { error: { code: string; message: string } };

/** An in-memory view of the library: every version by name, and the newest active version of each name. */
class Catalog {
  readonly active: EnvRecord[];
  /** Every version, active or retired, by name then version. */
  readonly all: EnvRecord[];
  private readonly versions = new Map<string, Map<number, EnvRecord>>();
  private readonly newestActive = new Map<string, EnvRecord>();

  constructor(records: EnvRecord[]) {
    for (const record of records) {
      let byVersion = this.versions.get(record.name);
      if (!byVersion) this.versions.set(record.name, (byVersion = new Map()));
      byVersion.set(record.version, record);
      if (record.status === 'active' && (this.newestActive.get(record.name)?.version ?? 0) < record.version) this.newestActive.set(record.name, record);
    }
    this.active = [...this.newestActive.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.all = [...records].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.version - b.version));
  }

  /** The given version (active or retired: pinned data keeps scoring), else the newest active one. */
  lookup(name: string, version?: number): Lookup {
    const byVersion = this.versions.get(name);
    if (!byVersion) return { error: { code: 'E_UNKNOWN_ENV', message: `unknown environment "${name}"` } };
    if (version === undefined) {
      const record = this.newestActive.get(name);
      return record ? { record } : { error: { code: 'E_UNKNOWN_ENV', message: `environment "${name}" has no active version (all are retired); name a version` } };
    }
    const record = byVersion.get(version);
    return record ? { record } : { error: { code: 'E_UNKNOWN_ENV', message: `environment "${name}" has no version ${version} (versions: ${[...byVersion.keys()].sort((a, b) => a - b).join(', ')})` } };
  }

  /** lookup() plus the level check. */
  resolve(identity: InstanceIdentity): Lookup {
    const found = this.lookup(identity.env, identity.version);
    if ('error' in found) return found;
    const levels = found.record.meta.levels;
    if (identity.level > levels) return { error: { code: 'E_LEVEL_RANGE', message: `level ${identity.level} is past ${identity.env}@${found.record.version}'s ${levels} levels` } };
    return found;
  }
}

// ---------------------------------------------------------------- the dispatcher

/** A failure of the sandbox itself (not of guest code): marks the call so the request can answer 503. */
const SANDBOX_FN = 'sandbox';

interface PendingCall {
  call: Call;
  chars: number;
  resolve(result: CallResult): void;
}

/**
 * Packs calls for the same module from concurrent requests into shared sandbox jobs, keeping at most
 * maxRunning jobs in the pool; what arrives while they run goes into the next job (adaptive batching).
 */
class Dispatcher {
  private readonly queues = new Map<string, { source: string; calls: PendingCall[] }>();
  private running = 0;
  private scheduled = false;

  constructor(
    private readonly pool: SandboxPool,
    private readonly callTimeoutMs: number,
    private readonly maxRunning: number,
  ) {}

  submit(hash: string, source: string, calls: Array<{ call: Call; chars: number }>): Promise<CallResult[]> {
    let queue = this.queues.get(hash);
    if (!queue) this.queues.set(hash, (queue = { source, calls: [] }));
    const target = queue;
    const promises = calls.map(({ call, chars }) => new Promise<CallResult>((resolve) => target.calls.push({ call, chars, resolve })));
    this.schedule();
    return Promise.all(promises);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // After the current I/O phase, so requests parsed in the same loop turn share a job.
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.maxRunning && this.queues.size > 0) {
      const [hash, queue] = this.queues.entries().next().value as [string, { source: string; calls: PendingCall[] }];
      const batch: PendingCall[] = [];
      let chars = 0;
      while (queue.calls.length > 0 && batch.length < MAX_CALLS_PER_JOB) {
        const next = queue.calls[0] as PendingCall;
        if (batch.length > 0 && chars + next.chars > MAX_JOB_CHARS) break;
        batch.push(queue.calls.shift() as PendingCall);
        chars += next.chars;
      }
      // Round robin between modules: a module with more waiting goes to the back.
      this.queues.delete(hash);
      if (queue.calls.length > 0) this.queues.set(hash, queue);
      this.running++;
      this.pool
        .run({ source: queue.source, calls: batch.map((p) => p.call), limits: { callTimeoutMs: this.callTimeoutMs } })
        .then(
          (run) => batch.forEach((p, i) => p.resolve(run.results[i] ?? { ok: false, code: 'E_PROTOCOL', message: 'the sandbox returned no result for this call', fn: 'call', ms: 0 })),
          (error: unknown) => {
            const message = `the sandbox failed: ${error instanceof Error ? error.message : String(error)}`;
            batch.forEach((p) => p.resolve({ ok: false, code: 'E_CRASHED', message, fn: SANDBOX_FN, ms: 0 }));
          },
        )
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }
}

// ---------------------------------------------------------------- scoring and sampling

export type { VerifyResult };

export interface VerifyRequestItem {
  identity: InstanceIdentity;
  response: string;
}

export interface SampledItem {
  env: string;
  version: number;
  seed: number;
  level: number;
  prompt?: string;
  ground_truth: string;
  hidden?: Record<string, unknown>;
  reference?: string;
  error?: { code: string; message: string };
}

interface EpisodeGroup {
  record: EnvRecord;
  seed: number;
  level: number;
  responses: string[];
  items: number[];
  chars: number;
}

/** Whether a failed call may have failed because of something else in its job or episode. */
function isSuspect(result: Extract<CallResult, { ok: false }>, responses: number): boolean {
  if (!RESOURCE_CODES.has(result.code) || result.fn === 'load') return false;
  return responses > 1 || result.message.startsWith('not run:') || result.code === 'E_CRASHED' || result.code === 'E_PROTOCOL' || result.message.includes('worker was killed');
}

class Service {
  catalog: Catalog = new Catalog([]);
  private readonly sources = new Map<string, Promise<string>>();
  inflight = 0;

  constructor(
    readonly options: Omit<ServeOptions, 'pool'>,
    readonly library: SqliteLibrary,
    readonly pool: SandboxPool,
    readonly dispatcher: Dispatcher,
    readonly defence: IncidentLog,
  ) {}

  /** Admission control: reserves room for `units` items or throws a 503 (a request alone is always admitted). */
  acquire(units: number): () => void {
    if (this.inflight > 0 && this.inflight + units > this.options.maxQueue) {
      throw new ServeError(503, 'E_OVERLOADED', `the service is at capacity (${this.inflight} items in flight, at most ${this.options.maxQueue}); retry later`);
    }
    this.inflight += units;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inflight -= units;
    };
  }

  async source(record: EnvRecord): Promise<string> {
    let text = this.sources.get(record.hash);
    if (!text) {
      text = this.library.source(record);
      this.sources.set(record.hash, text);
      text.catch(() => this.sources.delete(record.hash));
    }
    try {
      return await text;
    } catch (error) {
      throw new ServeError(500, 'E_LIBRARY', `${record.name}@${record.version}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  async verify(items: VerifyRequestItem[]): Promise<VerifyResult[]> {
    const results: VerifyResult[] = new Array(items.length);
    const byModule = new Map<string, EpisodeGroup[]>();
    const open = new Map<string, EpisodeGroup>();
    const catalog = this.catalog;
    items.forEach(({ identity, response }, index) => {
      const found = catalog.resolve(identity);
      if ('error' in found) {
        results[index] = { score: 0, error: found.error };
        return;
      }
      const { record } = found;
      const quarantined = this.defence.quarantined(record.hash);
      if (quarantined) {
        results[index] = failure('E_QUARANTINED', `${record.name}@${record.version} is ${quarantined}`);
        return;
      }
      const key = `${record.hash}\u0000${identity.seed}\u0000${identity.level}`;
      let group = open.get(key);
      if (group && (group.responses.length >= MAX_RESPONSES_PER_EPISODE || group.chars + response.length > MAX_EPISODE_CHARS)) group = undefined;
      if (!group) {
        group = { record, seed: identity.seed, level: identity.level, responses: [], items: [], chars: 0 };
        open.set(key, group);
        const list = byModule.get(record.hash);
        if (list) list.push(group);
        else byModule.set(record.hash, [group]);
      }
      group.responses.push(response);
      group.items.push(index);
      group.chars += response.length;
    });
    const suspects: Array<{ index: number; record: EnvRecord; seed: number; level: number; response: string }> = [];
    const misbehaved = new Map<number, Misbehaviour>();
    let sandboxDown: string | null = null;
    const work = Promise.all(
      [...byModule.values()].map(async (groups) => {
        const record = (groups[0] as EpisodeGroup).record;
        const source = await this.source(record);
        const calls = groups.map((g) => ({ call: { op: 'episode', seed: g.seed, level: g.level, responses: g.responses, keepInstance: false } satisfies Call, chars: g.chars }));
        const callResults = await this.dispatcher.submit(record.hash, source, calls);
        callResults.forEach((result, k) => {
          const group = groups[k] as EpisodeGroup;
          if (!result.ok && result.fn === SANDBOX_FN) sandboxDown = result.message;
          const verdicts = verdictsOf(result, group.responses.length);
          const fn = result.ok ? 'verify' : result.fn;
          group.items.forEach((index, j) => {
            const verdict = verdicts[j] as VerifyResult;
            results[index] = verdict;
            const response = group.responses[j] as string;
            if (!result.ok && isSuspect(result, group.responses.length)) suspects.push({ index, record, seed: group.seed, level: group.level, response });
            if ('error' in verdict && this.defence.isIncident(verdict.error.code)) misbehaved.set(index, { record, seed: group.seed, level: group.level, code: verdict.error.code, message: verdict.error.message, fn, response });
          });
        });
      }),
    ).then(() => this.retrySuspects(suspects, results));
    const inTime = await withinDeadline(work, this.options.requestTimeoutMs);
    if (sandboxDown !== null) throw new ServeError(503, 'E_SANDBOX', sandboxDown);
    const out = Array.from(results, (r) => r ?? failure('E_REQUEST_TIMEOUT', `not scored within the request budget of ${this.options.requestTimeoutMs} ms`));
    // An item a retry scored is no incident; the rest are the environment's doing.
    const incidents = [...misbehaved].filter(([index, m]) => { const r = out[index]; return r !== undefined && 'error' in r && r.error.code === m.code; }).map(([, m]) => m);
    const defending = confirmAndRecord(this.defence, incidents, (m) => this.rerunAlone(m));
    if (inTime) await defending;
    return out;
  }

  /** The failing call again, alone, in a fresh realm: does it fail the same way? */
  private async rerunAlone(m: Misbehaviour): Promise<string | null> {
    const responses = m.response === undefined ? [] : [m.response];
    const run = await this.pool.run({ source: await this.source(m.record), calls: [{ op: 'episode', seed: m.seed, level: m.level, responses, keepInstance: false }], fresh: true, limits: { callTimeoutMs: this.options.callTimeoutMs } });
    return failureCode(run.results[0] as CallResult, responses.length);
  }

  /**
   * A hang or crash fails every response of its episode, and after limits.maxFailuresPerJob failures a
   * job's remaining calls are not run. Items failed that way get one more try, alone in a job of their own
   * (at most MAX_RETRIES_PER_REQUEST per request, so a batch of hostile responses costs a bounded time);
   * the culprit fails again with its own error.
   */
  private async retrySuspects(suspects: Array<{ index: number; record: EnvRecord; seed: number; level: number; response: string }>, results: VerifyResult[]): Promise<void> {
    await Promise.all(
      suspects.slice(0, MAX_RETRIES_PER_REQUEST).map(async (s) => {
        const source = await this.source(s.record);
        let result: CallResult;
        try {
          const run = await this.pool.run({ source, calls: [{ op: 'episode', seed: s.seed, level: s.level, responses: [s.response], keepInstance: false }], limits: { callTimeoutMs: this.options.callTimeoutMs } });
          result = run.results[0] ?? { ok: false, code: 'E_PROTOCOL', message: 'no result', fn: 'call', ms: 0 };
        } catch {
          return; // keep the first failure
        }
        results[s.index] = verdictsOf(result, 1)[0] as VerifyResult;
      }),
    );
  }

  async sample(identities: InstanceIdentity[], reveal: boolean): Promise<SampledItem[]> {
    const catalog = this.catalog;
    const resolved = identities.map((identity, i) => {
      const found = catalog.resolve(identity);
      if ('error' in found) throw new ServeError(found.error.code === 'E_UNKNOWN_ENV' ? 404 : 400, found.error.code, `items[${i}]: ${found.error.message}`);
      return { identity, record: found.record };
    });
    const out: SampledItem[] = new Array(resolved.length);
    const byModule = new Map<string, number[]>();
    const misbehaved: Misbehaviour[] = [];
    resolved.forEach(({ identity, record }, i) => {
      const quarantined = this.defence.quarantined(record.hash);
      if (quarantined) {
        const id = { env: record.name, version: record.version, seed: identity.seed, level: identity.level };
        out[i] = { ...id, ground_truth: identityString(id), error: { code: 'E_QUARANTINED', message: `${record.name}@${record.version} is ${quarantined}` } };
        return;
      }
      const list = byModule.get(record.hash);
      if (list) list.push(i);
      else byModule.set(record.hash, [i]);
    });
    let sandboxDown: string | null = null;
    const work = Promise.all(
      [...byModule.values()].map(async (indices) => {
        const record = resolved[indices[0] as number]!.record;
        const source = await this.source(record);
        const calls = indices.map((i) => {
          const { seed, level } = resolved[i]!.identity;
          return { call: { op: 'episode', seed, level, responses: [], keepInstance: true } satisfies Call, chars: 0 };
        });
        const callResults = await this.dispatcher.submit(record.hash, source, calls);
        callResults.forEach((result, k) => {
          const i = indices[k] as number;
          const { identity } = resolved[i]!;
          const id = { env: record.name, version: record.version, seed: identity.seed, level: identity.level };
          const base = { ...id, ground_truth: identityString(id) };
          const failed = episodeFailure(result, 0);
          if (failed) {
            if (!result.ok && result.fn === SANDBOX_FN) sandboxDown = result.message;
            else if (this.defence.isIncident(failed.code)) misbehaved.push({ record, seed: id.seed, level: id.level, ...failed });
            out[i] = { ...base, error: { code: failed.code, message: `${failed.fn}: ${failed.message}` } };
            return;
          }
          const value = (result as { value?: unknown }).value as { instance?: unknown; reference?: unknown } | null;
          const instance = InstanceSchema.safeParse(value?.instance);
          if (!instance.success) {
            out[i] = { ...base, error: { code: 'E_INSTANCE', message: describeIssues(instance.error).join('; ') } };
            return;
          }
          const { prompt, ...hidden } = instance.data;
          if (!reveal) {
            out[i] = { env: id.env, version: id.version, seed: id.seed, level: id.level, prompt, ground_truth: base.ground_truth };
            return;
          }
          const reference = ReferenceSchema.safeParse(value?.reference);
          if (!reference.success) {
            out[i] = { ...base, error: { code: 'E_REFERENCE', message: describeIssues(reference.error).join('; ') } };
            return;
          }
          out[i] = { env: id.env, version: id.version, seed: id.seed, level: id.level, prompt, ground_truth: base.ground_truth, hidden, reference: reference.data };
        });
      }),
    );
    const inTime = await withinDeadline(work, this.options.requestTimeoutMs);
    if (sandboxDown !== null) throw new ServeError(503, 'E_SANDBOX', sandboxDown);
    const items = Array.from(out, (item, i) => {
      if (item) return item;
      const { identity, record } = resolved[i]!;
      const id = { env: record.name, version: record.version, seed: identity.seed, level: identity.level };
      return { ...id, ground_truth: identityString(id), error: { code: 'E_REQUEST_TIMEOUT', message: `not sampled within the request budget of ${this.options.requestTimeoutMs} ms` } };
    });
    const defending = confirmAndRecord(this.defence, misbehaved, (m) => this.rerunAlone(m));
    if (inTime) await defending;
    return items;
  }

  /** Deterministic selection: the same seed and the same library give the same identities. */
  select(select: { env?: string | undefined; skills?: string[] | undefined; levels?: [number, number] | undefined; n: number; seed: number }): InstanceIdentity[] {
    let candidates = this.catalog.active;
    if (select.env !== undefined) {
      const found = this.catalog.lookup(select.env);
      if ('error' in found) throw new ServeError(404, found.error.code, `select.env: ${found.error.message}`);
      candidates = [found.record];
    }
    if (select.skills) {
      const skills = select.skills;
      candidates = candidates.filter((env) => skills.some((s) => env.meta.skills.includes(s)));
    }
    const [lo, hi] = select.levels ?? [1, CONTRACT_LIMITS.maxLevels];
    candidates = candidates.filter((env) => env.meta.levels >= lo);
    if (candidates.length === 0) throw new ServeError(404, 'E_NO_MATCH', 'select: no active environment matches the selection (env, skills, levels)');
    return Array.from({ length: select.n }, (_, i) => {
      const digest = createHash('sha256').update(`envforge-select-v1\u0000${select.seed}\u0000${i}`).digest();
      const env = candidates[digest.readUInt32LE(0) % candidates.length] as EnvRecord;
      const top = Math.min(hi, env.meta.levels);
      return { env: env.name, version: env.version, level: lo + (digest.readUInt32LE(4) % (top - lo + 1)), seed: digest.readUInt32LE(8) };
    });
  }
}

/**
 * GET /v1/envs: the newest active version of each name, or with ?versions=all every version that still
 * scores (retired ones too, with their status), each with its code hash, so a client can check that the
 * service serves the environments its data came from.
 */
function listEnvs(catalog: Catalog, query: unknown): Array<Record<string, unknown>> {
  const all = (query as { versions?: unknown } | null)?.versions === 'all';
  return (all ? catalog.all : catalog.active).map((env) => ({
    name: env.name,
    version: env.version,
    hash: env.hash,
    ...(all ? { status: env.status } : {}),
    skills: env.meta.skills,
    levels: env.meta.levels,
    title: env.meta.title,
    description: env.meta.description,
  }));
}

// ---------------------------------------------------------------- the HTTP server

function stampOf(s: { mtimeMs: number; size: number; ino: number } | null): string {
  return s ? `${s.ino}:${s.mtimeMs}:${s.size}` : '-';
}

async function libraryStamp(dir: string): Promise<string> {
  const index = join(dir, INDEX_FILE);
  const [a, b] = await Promise.all([stat(index).catch(() => null), stat(`${index}-wal`).catch(() => null)]);
  return `${stampOf(a)}|${stampOf(b)}`;
}

function sendError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  if (status === 503) reply.header('retry-after', '1');
  return reply.code(status).send({ error: { code, message } });
}

export async function startServer(options: Partial<ServeOptions> & { libraryDir: string }): Promise<RunningServer> {
  const given = Object.fromEntries(Object.entries(options).filter(([key, value]) => value !== undefined && key !== 'pool')) as Partial<ServeOptions>;
  const opts: Omit<ServeOptions, 'pool'> = { ...DEFAULT_SERVE_OPTIONS, ...given, libraryDir: options.libraryDir };
  for (const key of ['maxQueue', 'bodyLimitBytes', 'maxItemsPerRequest', 'reloadIntervalMs', 'callTimeoutMs', 'requestTimeoutMs', 'errorLogIntervalMs'] as const) {
    if (!Number.isSafeInteger(opts[key]) || opts[key] < 1) throw new ServeError(400, 'E_USAGE', `${key} must be a positive integer, got ${opts[key]}`);
  }
  if (!Number.isSafeInteger(opts.port) || opts.port < 0 || opts.port > 65_535) throw new ServeError(400, 'E_USAGE', `port must be an integer from 0 to 65535, got ${opts.port}`);

  const library = SqliteLibrary.open(opts.libraryDir, { readonly: true });
  const ownsPool = options.pool === undefined;
  const pool = options.pool ?? new SandboxPool({ maxJobsPerWorker: SERVE_MAX_JOBS_PER_WORKER });
  const defence = new IncidentLog(opts.libraryDir, 'serve', opts.quarantine);
  const service = new Service(opts, library, pool, new Dispatcher(pool, opts.callTimeoutMs, pool.options.workers * 2), defence);

  // Library loading and change polling.
  let stamp = '';
  let reloading: Promise<void> | null = null;
  const reload = async (): Promise<void> => {
    const next = await libraryStamp(opts.libraryDir);
    if (next === stamp) return;
    const records = await library.list({ status: 'all', allVersions: true });
    service.catalog = new Catalog(records);
    defence.refresh(await library.incidents({ open: true }));
    stamp = next;
  };
  try {
    await reload();
  } catch (error) {
    await library.close();
    if (ownsPool) await pool.close();
    throw error;
  }
  const timer = setInterval(() => {
    if (reloading) return;
    reloading = reload()
      .catch(() => {
        stamp = ''; // a busy or half-written index: keep serving the last catalog and try again next tick
      })
      .finally(() => {
        reloading = null;
      });
  }, opts.reloadIntervalMs);
  timer.unref();

  const itemErrors = opts.log ? new ItemErrorLog({ log: opts.log, intervalMs: opts.errorLogIntervalMs }) : null;
  const app: FastifyInstance = Fastify({ logger: false, bodyLimit: opts.bodyLimitBytes, return503OnClosing: false, forceCloseConnections: 'idle' });

  // Graceful close: Node closes only the connections idle when close() starts; a keep-alive connection whose
  // request was in flight would hold app.close() open forever. Tell those clients to go, and close what idles.
  let closing: Promise<void> | null = null;
  app.addHook('onRequest', async (_request, reply) => {
    if (closing) {
      reply.header('connection', 'close');
      return sendError(reply, 503, 'E_CLOSING', 'the service is shutting down');
    }
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async () => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
  });

  app.setErrorHandler((error: FastifyError | ServeError, _request, reply) => {
    if (error instanceof ServeError) return sendError(reply, error.status, error.code, error.message);
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 413) return sendError(reply, 413, 'E_BODY_TOO_LARGE', `the request body is over the limit of ${opts.bodyLimitBytes} bytes`);
    if (status === 415) return sendError(reply, 415, 'E_MEDIA_TYPE', 'send the body as JSON with content-type: application/json');
    if (status >= 400 && status < 500) return sendError(reply, status, 'E_BAD_REQUEST', error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError ? `the body is not valid JSON: ${error.message}` : error.message);
    return sendError(reply, 500, 'E_INTERNAL', `internal error: ${error.message}`);
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, 404, 'E_NOT_FOUND', `no endpoint ${request.method} ${request.url.split('?')[0]}; endpoints: ${ENDPOINTS.join(', ')}`));

  app.get('/health', async () => ({ status: 'ok', envs: service.catalog.active.length, quarantined: service.catalog.active.filter((e) => defence.quarantined(e.hash)).length, inflight: service.inflight, maxQueue: opts.maxQueue }));

  app.get('/v1/envs', async (request) => ({ envs: listEnvs(service.catalog, request.query) }));

  app.post('/v1/verify', async (request) => {
    const body = parse(ItemsBody, request.body);
    checkCount('items', body.items.length, opts.maxItemsPerRequest);
    const items = body.items.map((raw, i): VerifyRequestItem => {
      if (raw !== null && typeof raw === 'object' && 'ground_truth' in raw) {
        const item = parse(GroundTruthItem, raw, ['items', i]);
        return { identity: parseIdentity(item.ground_truth, ['items', i, 'ground_truth']), response: item.response };
      }
      const item = parse(IdentityItem, raw, ['items', i]);
      return { identity: { env: item.env, version: item.version, seed: item.seed, level: item.level }, response: item.response };
    });
    const release = service.acquire(items.length);
    try {
      const results = await service.verify(items);
      itemErrors?.record('/v1/verify', results);
      return { results };
    } finally {
      release();
    }
  });

  app.post('/get_reward', async (request) => {
    const body = parse(RewardBody, request.body);
    checkCount('query', body.query.length, opts.maxItemsPerRequest);
    for (const field of ['prompts', 'labels'] as const) {
      if (body[field].length !== body.query.length) throw new ServeError(400, 'E_BAD_REQUEST', `${field} has ${body[field].length} entries but query has ${body.query.length}: they must be the same length`);
    }
    const items = body.query.map((query, i): VerifyRequestItem => {
      const prompt = body.prompts[i] as string;
      return { identity: parseIdentity(body.labels[i] as string, ['labels', i]), response: query.startsWith(prompt) ? query.slice(prompt.length) : query };
    });
    const release = service.acquire(items.length);
    try {
      const results = await service.verify(items);
      itemErrors?.record('/get_reward', results);
      const scores = results.map((r) => r.score);
      return { rewards: scores, scores, extra_logs: { envforge_error: results.map((r) => ('error' in r ? 1 : 0)) } };
    } finally {
      release();
    }
  });

  app.post('/v1/sample', async (request) => {
    const body = parse(SampleBody, request.body);
    if ((body.items === undefined) === (body.select === undefined)) throw new ServeError(400, 'E_BAD_REQUEST', 'send exactly one of items (identities) or select');
    let identities: InstanceIdentity[];
    let seed: number | undefined;
    if (body.items) {
      checkCount('items', body.items.length, opts.maxItemsPerRequest);
      identities = body.items.map((raw, i) => parse(Identity, raw, ['items', i]));
    } else {
      const select = body.select as NonNullable<typeof body.select>;
      checkCount('select.n', select.n, opts.maxItemsPerRequest);
      seed = select.seed ?? randomInt(0, 2 ** 31);
      identities = service.select({ ...select, seed });
    }
    const release = service.acquire(identities.length);
    try {
      const items = await service.sample(identities, body.reveal ?? false);
      return seed === undefined ? { items } : { seed, items };
    } finally {
      release();
    }
  });

  let address: string;
  try {
    await app.listen({ host: opts.host, port: opts.port });
    const bound = app.server.address();
    const port = bound && typeof bound === 'object' ? bound.port : opts.port;
    address = `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`;
  } catch (error) {
    clearInterval(timer);
    itemErrors?.close();
    await app.close().catch(() => {});
    if (ownsPool) await pool.close();
    await library.close();
    const e = error as NodeJS.ErrnoException;
    throw new ServeError(500, 'E_SERVE', `cannot listen on ${opts.host}:${opts.port}: ${e.code ?? ''} ${e.message}`.trim(), { cause: error });
  }

  return {
    url: address,
    close: () =>
      (closing ??= (async () => {
        clearInterval(timer);
        await app.close(); // stops accepting; in-flight requests finish first
        itemErrors?.close();
        await reloading;
        if (ownsPool) await pool.close();
        await library.close();
        await defence.close();
      })()),
  };
}

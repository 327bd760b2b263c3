// Single-turn scoring for the reward service (/v1/verify): items grouped into episodes per instance (one
// generate, one verify of the reference, then the responses), batched per module through the dispatcher, or
// scored in the host for host-scored kinds; an episode that hangs or crashes runs again in its shape, then
// its items alone, and confirmed failures are recorded as incidents, the client's whenever its input reached them.
import type { EnvRecord } from '../library/contract.js';
import type { EnvKind } from '../kinds/contract.js';
import { kindOf } from '../kinds/registry.js';
import type { IncidentLog, Misbehaviour } from '../library/quarantine.js';
import type { SandboxPool } from '../sandbox/pool.js';
import type { Call, CallResult } from '../sandbox/protocol.js';
import { AnswerQueueFull } from '../sandbox/code/answer-pool.js';
import { LONG_BANDS } from '../validators/probes.js';
import type { Catalog } from './catalog.js';
import { incidentParties, type Client } from './clients.js';
import { confirmAndRecord, failure, verdictsOf, withinDeadline, type Rerun, type VerifyResult } from './defence.js';
import { SANDBOX_FN, type Dispatcher } from './dispatcher.js';
import { isUnrun } from './job-attribution.js';
import { ServeError, type ServeOptions } from './options.js';
import type { InstanceIdentity } from './schemas.js';
import type { ScoreBoard } from './scores.js';

/** What scoring needs of the service (service.ts), named here so the two files do not import each other. */
export interface Scoring {
  readonly catalog: Catalog;
  readonly defence: IncidentLog;
  readonly dispatcher: Dispatcher;
  readonly pool: SandboxPool;
  readonly options: Omit<ServeOptions, 'pool'>;
  readonly scores: ScoreBoard | null;
  source(record: EnvRecord): Promise<string>;
  recordScore(record: Pick<EnvRecord, 'name' | 'version'>, level: number, score: number, client: Client): void;
  rerunAlone(m: Misbehaviour, owner: string): Promise<Rerun>;
}

/** Responses scored in one episode call (they share one generate); more are split into further episodes. */
const MAX_RESPONSES_PER_EPISODE = 64;
/** Response characters in one episode call (at least one response always goes in). */
const MAX_EPISODE_CHARS = 1 << 20;
/** The longest response validation probes with: a longer one would be scored where no admission looked. */
export const MAX_RESPONSE_CHARS = Math.max(...LONG_BANDS.map(([chars]) => chars));
/** Items per request re-run alone after their episode failed again in its shape (see retrySuspects). */
const MAX_RETRIES_PER_REQUEST = 16;
/** Call budgets per request that re-runs of failed episodes in their shape may take: four full groups. */
const MAX_RERUN_BUDGETS_PER_REQUEST = 4 * (MAX_RESPONSES_PER_EPISODE + 1);
const RESOURCE_CODES: ReadonlySet<string> = new Set(['E_TIMEOUT', 'E_MEMORY', 'E_CRASHED', 'E_PROTOCOL']);

export interface VerifyOptions {
  /** Aborted when the request's client has gone away: its work is dropped. */
  signal?: AbortSignal;
  /** Called once, when the request's work has really stopped (its admission units). */
  release?: () => void;
}

export interface VerifyRequestItem {
  identity: InstanceIdentity;
  response: string;
}

interface EpisodeGroup {
  record: EnvRecord;
  seed: number;
  level: number;
  responses: string[];
  items: number[];
  chars: number;
}

/** A scoring episode: the instance's generate and reference, then the responses. */
const episodeCall = (g: Pick<EpisodeGroup, 'seed' | 'level' | 'responses'>): Call => ({
  op: 'episode',
  seed: g.seed,
  level: g.level,
  responses: g.responses,
  keepInstance: false,
});

/** Whether a failed call may have failed because of something else in its job or episode. */
function isSuspect(result: Extract<CallResult, { ok: false }>, responses: number): boolean {
  if (!RESOURCE_CODES.has(result.code) || result.fn === 'load') return false;
  return (
    responses > 1 ||
    result.message.startsWith('not run:') ||
    result.code === 'E_CRASHED' ||
    result.code === 'E_PROTOCOL' ||
    result.message.includes('worker was killed')
  );
}

/**
 * Scores the items for `client`; its scores are recorded as its own (trusted only for the operator). When the
 * request ends (answered, past its budget, or `signal`: its client went away), its code answers still queued
 * are dropped and running ones stopped; `release` (its admission) is called once its work has really stopped.
 */
export async function verifyItems(
  service: Scoring,
  items: VerifyRequestItem[],
  client: Client,
  { signal, release }: VerifyOptions = {},
): Promise<VerifyResult[]> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let work: Promise<unknown> = Promise.resolve();
  try {
    const results: VerifyResult[] = new Array(items.length);
    const byModule = new Map<string, EpisodeGroup[]>();
    const open = new Map<string, EpisodeGroup>();
    const catalog = service.catalog;
    const recordOf: Array<EnvRecord | undefined> = new Array(items.length);
    items.forEach(({ identity, response }, index) => {
      if (response.length > MAX_RESPONSE_CHARS) {
        results[index] = failure(
          'E_RESPONSE_TOO_LONG',
          `the response has ${response.length} characters; responses longer than ${MAX_RESPONSE_CHARS}, the ` +
            `longest the validator probes, are not scored`,
        );
        return;
      }
      const found = catalog.resolve(identity);
      if ('error' in found) {
        results[index] = { score: 0, error: found.error };
        return;
      }
      const { record } = found;
      recordOf[index] = record;
      const quarantined = service.defence.quarantined(record.hash);
      if (quarantined) {
        results[index] = failure('E_QUARANTINED', `${record.name}@${record.version} is ${quarantined}`);
        return;
      }
      const key = `${record.hash}\u0000${identity.seed}\u0000${identity.level}`;
      let group = open.get(key);
      if (
        group &&
        (group.responses.length >= MAX_RESPONSES_PER_EPISODE || group.chars + response.length > MAX_EPISODE_CHARS)
      )
        group = undefined;
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
    const suspects: Suspect[] = [];
    const misbehaved = new Map<number, Misbehaviour>();
    let sandboxDown: string | null = null;
    // An episode's outcome for its items; its failures (never a call left unrun) are incidents, the client's own.
    const settle = (group: EpisodeGroup, result: CallResult) => {
      const verdicts = verdictsOf(result, group.responses.length);
      const fn = result.ok ? 'verify' : result.fn;
      group.items.forEach((index, j) => {
        const verdict = verdicts[j] as VerifyResult;
        results[index] = verdict;
        misbehaved.delete(index);
        if ('error' in verdict && !isUnrun(result) && service.defence.isIncident(verdict.error.code))
          misbehaved.set(index, {
            record: group.record,
            seed: group.seed,
            level: group.level,
            code: verdict.error.code,
            message: verdict.error.message,
            fn,
            response: group.responses[j] as string,
            ...incidentParties(client),
          });
      });
    };
    work = Promise.all(
      [...byModule.values()].map(async (groups) => {
        const record = (groups[0] as EpisodeGroup).record;
        const source = await service.source(record);
        const kind = kindOf(record.meta);
        if (kind.hostScored) return scoreInHost(service, kind, source, groups, results, client, stop.signal);
        const callResults = await service.dispatcher.submit(
          record.hash,
          source,
          groups.map((g) => ({ call: episodeCall(g), chars: g.chars })),
          client.key,
        );
        callResults.forEach((result, k) => {
          const group = groups[k] as EpisodeGroup;
          if (!result.ok && result.fn === SANDBOX_FN) sandboxDown = result.message;
          settle(group, result);
          if (!result.ok && isSuspect(result, group.responses.length)) suspects.push({ group, source });
        });
      }),
    ).then(() => retrySuspects(service, suspects, settle, client));
    const inTime = await withinDeadline(work, service.options.requestTimeoutMs);
    if (sandboxDown !== null) throw new ServeError(503, 'E_SANDBOX', sandboxDown);
    const out = Array.from(
      results,
      (r) =>
        r ??
        failure('E_REQUEST_TIMEOUT', `not scored within the request budget of ${service.options.requestTimeoutMs} ms`),
    );
    // An item a retry scored is no incident; the rest are the environment's doing.
    const incidents = [...misbehaved]
      .filter(([index, m]) => {
        const r = out[index];
        return r !== undefined && 'error' in r && r.error.code === m.code;
      })
      .map(([, m]) => m);
    const defending = confirmAndRecord(service.defence, incidents, (m) => service.rerunAlone(m, client.principal));
    if (service.scores) tally(service, items, recordOf, out, client);
    if (inTime) await defending;
    return out;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stop.abort();
    if (release) void work.then(release, release);
  }
}

/**
 * Scores responses the host runs itself (a code environment's programs, in the answer pool): through the
 * kind's runEpisodes, with the service's per-call budget, as the client's share of the pool (a 503 past its
 * bound on waiting answers), cancelled by `signal`. A response in a language the host does not run is
 * a clear error (E_LANGUAGE), never a score of 0.
 */
async function scoreInHost(
  service: Scoring,
  kind: EnvKind,
  source: string,
  groups: EpisodeGroup[],
  results: VerifyResult[],
  client: Client,
  signal: AbortSignal,
): Promise<void> {
  const requests = groups.map((g) => ({ seed: g.seed, level: g.level, responses: g.responses }));
  const run = await kind
    .runEpisodes(service.pool, source, requests, {
      limits: { callTimeoutMs: service.options.callTimeoutMs },
      owner: client.principal,
      signal,
    })
    .catch((error: unknown) => {
      if (error instanceof AnswerQueueFull) throw new ServeError(503, 'E_OVERLOADED', error.message, { cause: error });
      throw error;
    });
  run.episodes.forEach((e, k) => {
    (groups[k] as EpisodeGroup).items.forEach((index, j) => {
      const v = e.ok ? e.verdicts[j] : { ok: false as const, code: e.code, message: e.message };
      results[index] = !v
        ? failure('E_PROTOCOL', 'the sandbox returned no verdict for this response')
        : v.ok
          ? v.feedback === undefined
            ? { score: v.score }
            : { score: v.score, feedback: v.feedback }
          : failure(v.code, v.message);
    });
  });
}

/** Scores the trainer got (errors are the environment's or the request's, not the learner's), as `client`'s. */
function tally(
  service: Scoring,
  items: VerifyRequestItem[],
  recordOf: Array<EnvRecord | undefined>,
  out: VerifyResult[],
  client: Client,
): void {
  out.forEach((result, i) => {
    const record = recordOf[i];
    if (record && !('error' in result))
      service.recordScore(record, (items[i] as VerifyRequestItem).identity.level, result.score, client);
  });
}

/**
 * An episode that hangs or crashes fails all its responses, though one verify of 64 may have spent the one
 * budget they shared, and a call a job left unrun (its client's own failures stopped it) has no result.
 * Such an episode runs again once in its shape, alone, with a call budget for each verify (callTimeoutMs
 * per response, plus one), so honest responses that only shared a budget are scored; at most
 * MAX_RERUN_BUDGETS_PER_REQUEST budgets per request. An episode that fails so again gets its items one more
 * try each, alone (at most MAX_RETRIES_PER_REQUEST per request): the culprit fails again with its own error.
 */
async function retrySuspects(
  service: Scoring,
  suspects: Suspect[],
  settle: (group: EpisodeGroup, result: CallResult) => void,
  client: Client,
): Promise<void> {
  let budgets = MAX_RERUN_BUDGETS_PER_REQUEST;
  const shaped = suspects.filter(({ group }) => (budgets -= group.responses.length + 1) >= 0);
  const again: Suspect[] = [];
  await Promise.all(
    shaped.map(async (s) => {
      const budgets = s.group.responses.length + 1;
      const result = await service.dispatcher.runAlone(
        client.principal,
        s.source,
        episodeCall(s.group),
        service.options.callTimeoutMs * budgets,
        budgets,
      );
      if (!result.ok && result.fn === SANDBOX_FN) return; // keep the first failure
      settle(s.group, result);
      if (!result.ok && RESOURCE_CODES.has(result.code) && s.group.responses.length > 1) again.push(s);
    }),
  );
  const alone = [...again, ...suspects.slice(shaped.length)].flatMap(({ group, source }) =>
    group.items.map((index, j) => ({
      source,
      group: { ...group, responses: [group.responses[j] as string], items: [index] },
    })),
  );
  await Promise.all(
    alone.slice(0, MAX_RETRIES_PER_REQUEST).map(async (s) => {
      const call = episodeCall(s.group);
      const result = await service.dispatcher.runAlone(client.principal, s.source, call, service.options.callTimeoutMs);
      if (result.ok || result.fn !== SANDBOX_FN) settle(s.group, result);
    }),
  );
}

/** An episode whose call failed around its items (a hang, a crash, a call left unrun), with its module's source. */
interface Suspect {
  group: EpisodeGroup;
  source: string;
}

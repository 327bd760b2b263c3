// The reward service's work: admission control, module sources cached by hash, and scoring. Responses to
// one instance share an episode (one generate, one verify of the reference, then theirs); an episode that hangs
// or crashes is run again in its shape with a budget per verify, then its items alone; failures are confirmed
// and recorded as incidents, the client's whenever its input reached them (defence.ts).
import type { Library, EnvRecord } from '../library/contract.js';
import type { IncidentLog, Misbehaviour } from '../library/quarantine.js';
import type { SandboxPool } from '../sandbox/pool.js';
import type { EnvKind } from '../kinds/contract.js';
import { kindOf } from '../kinds/registry.js';
import type { Call, CallResult } from '../sandbox/protocol.js';
import { Catalog } from './catalog.js';
import { credentials, incidentClient, type Client, type Credentials } from './clients.js';
import { confirmAndRecord, failure, failureCode, verdictsOf, withinDeadline, type Rerun, type VerifyResult } from './defence.js';
import { runAlone, SANDBOX_FN, type Dispatcher } from './dispatcher.js';
import { isUnrun } from './job-attribution.js';
import { ServeError, type ServeOptions } from './options.js';
import type { InstanceIdentity } from './schemas.js';
import type { ScoreBoard } from './scores.js';
import { LONG_BANDS } from '../validators/probes.js';
import { AnswerQueueFull } from '../sandbox/code/answer-pool.js';

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

export type { VerifyResult };

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
const episodeCall = (g: Pick<EpisodeGroup, 'seed' | 'level' | 'responses'>): Call => ({ op: 'episode', seed: g.seed, level: g.level, responses: g.responses, keepInstance: false });

/** Whether a failed call may have failed because of something else in its job or episode. */
function isSuspect(result: Extract<CallResult, { ok: false }>, responses: number): boolean {
  if (!RESOURCE_CODES.has(result.code) || result.fn === 'load') return false;
  return responses > 1 || result.message.startsWith('not run:') || result.code === 'E_CRASHED' || result.code === 'E_PROTOCOL' || result.message.includes('worker was killed');
}

export class Service {
  catalog: Catalog = new Catalog([]);
  private readonly sources = new Map<string, Promise<string>>();
  inflight = 0;
  /** Where scored items are tallied for the learner's frontier (none: not recorded). */
  scores: ScoreBoard | null = null;
  /** The bearer tokens it knows: the operator's, and the client tokens the operator issued. */
  readonly credentials: Credentials;

  constructor(
    readonly options: Omit<ServeOptions, 'pool'>,
    readonly library: Library,
    readonly pool: SandboxPool,
    readonly dispatcher: Dispatcher,
    readonly defence: IncidentLog,
  ) {
    this.credentials = credentials(options.operatorToken, options.clientTokens);
  }

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

  /**
   * Scores the items for `client`; its scores are recorded as its own (trusted only for the operator). When the
   * request ends (answered, past its budget, or `signal`: its client went away), its code answers still queued
   * are dropped and running ones stopped; `release` (its admission) is called once its work has really stopped.
   */
  async verify(items: VerifyRequestItem[], client: Client, { signal, release }: VerifyOptions = {}): Promise<VerifyResult[]> {
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let work: Promise<unknown> = Promise.resolve();
    try {
      const results: VerifyResult[] = new Array(items.length);
      const byModule = new Map<string, EpisodeGroup[]>();
      const open = new Map<string, EpisodeGroup>();
      const catalog = this.catalog;
      const recordOf: Array<EnvRecord | undefined> = new Array(items.length);
      items.forEach(({ identity, response }, index) => {
        if (response.length > MAX_RESPONSE_CHARS) {
          results[index] = failure('E_RESPONSE_TOO_LONG', `the response has ${response.length} characters; responses longer than ${MAX_RESPONSE_CHARS}, the longest the validator probes, are not scored`);
          return;
        }
        const found = catalog.resolve(identity);
        if ('error' in found) {
          results[index] = { score: 0, error: found.error };
          return;
        }
        const { record } = found;
        recordOf[index] = record;
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
          if ('error' in verdict && !isUnrun(result) && this.defence.isIncident(verdict.error.code)) misbehaved.set(index, { record: group.record, seed: group.seed, level: group.level, code: verdict.error.code, message: verdict.error.message, fn, response: group.responses[j] as string, client: incidentClient(client) });
        });
      };
      work = Promise.all(
        [...byModule.values()].map(async (groups) => {
          const record = (groups[0] as EpisodeGroup).record;
          const source = await this.source(record);
          const kind = kindOf(record.meta);
          if (kind.hostScored) return this.scoreInHost(kind, source, groups, results, client, stop.signal);
          const callResults = await this.dispatcher.submit(record.hash, source, groups.map((g) => ({ call: episodeCall(g), chars: g.chars })), client.key);
          callResults.forEach((result, k) => {
            const group = groups[k] as EpisodeGroup;
            if (!result.ok && result.fn === SANDBOX_FN) sandboxDown = result.message;
            settle(group, result);
            if (!result.ok && isSuspect(result, group.responses.length)) suspects.push({ group, source });
          });
        }),
      ).then(() => this.retrySuspects(suspects, settle));
      const inTime = await withinDeadline(work, this.options.requestTimeoutMs);
      if (sandboxDown !== null) throw new ServeError(503, 'E_SANDBOX', sandboxDown);
      const out = Array.from(results, (r) => r ?? failure('E_REQUEST_TIMEOUT', `not scored within the request budget of ${this.options.requestTimeoutMs} ms`));
      // An item a retry scored is no incident; the rest are the environment's doing.
      const incidents = [...misbehaved].filter(([index, m]) => { const r = out[index]; return r !== undefined && 'error' in r && r.error.code === m.code; }).map(([, m]) => m);
      const defending = confirmAndRecord(this.defence, incidents, (m) => this.rerunAlone(m));
      if (this.scores) this.tally(items, recordOf, out, client);
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
  private async scoreInHost(kind: EnvKind, source: string, groups: EpisodeGroup[], results: VerifyResult[], client: Client, signal: AbortSignal): Promise<void> {
    const requests = groups.map((g) => ({ seed: g.seed, level: g.level, responses: g.responses }));
    const run = await kind.runEpisodes(this.pool, source, requests, { limits: { callTimeoutMs: this.options.callTimeoutMs }, owner: client.principal, signal }).catch((error: unknown) => {
      if (error instanceof AnswerQueueFull) throw new ServeError(503, 'E_OVERLOADED', error.message, { cause: error });
      throw error;
    });
    run.episodes.forEach((e, k) => {
      (groups[k] as EpisodeGroup).items.forEach((index, j) => {
        const v = e.ok ? e.verdicts[j] : { ok: false as const, code: e.code, message: e.message };
        results[index] = !v ? failure('E_PROTOCOL', 'the sandbox returned no verdict for this response') : v.ok ? (v.feedback === undefined ? { score: v.score } : { score: v.score, feedback: v.feedback }) : failure(v.code, v.message);
      });
    });
  }

  /** Scores the trainer got (errors are the environment's or the request's, not the learner's), as `client`'s. */
  private tally(items: VerifyRequestItem[], recordOf: Array<EnvRecord | undefined>, out: VerifyResult[], client: Client): void {
    out.forEach((result, i) => {
      const record = recordOf[i];
      if (record && !('error' in result)) this.recordScore(record, (items[i] as VerifyRequestItem).identity.level, result.score, client);
    });
  }

  /**
   * The one place a learner's score becomes a pass rate (single-turn verdicts and finished episodes alike),
   * so whatever guards recording scores that steer nightly guards both kinds.
   */
  recordScore(record: Pick<EnvRecord, 'name' | 'version'>, level: number, score: number, client: Client): void {
    this.scores?.add(record.name, record.version, level, score, client);
  }

  /**
   * The failing call again, in a fresh realm: the instance without any response (its reference: no client input),
   * then with the client's response alone. Either failing with the incident's code confirms it, as the
   * environment's own or as the response's.
   */
  async rerunAlone(m: Misbehaviour): Promise<Rerun> {
    const source = await this.source(m.record);
    const alone = (responses: string[]) => this.pool.run({ source, calls: [{ op: 'episode', seed: m.seed, level: m.level, responses, keepInstance: false }], fresh: true, limits: { callTimeoutMs: this.options.callTimeoutMs } });
    const reference = failureCode((await alone([])).results[0] as CallResult, 0);
    if (reference !== null || m.response === undefined) return { reference, input: reference };
    return { reference, input: failureCode((await alone([m.response])).results[0] as CallResult, 1) };
  }

  /**
   * An episode that hangs or crashes fails all its responses, though one verify of 64 may have spent the one
   * budget they shared, and a call a job left unrun (its client's own failures stopped it) has no result.
   * Such an episode runs again once in its shape, alone, with a call budget for each verify (callTimeoutMs
   * per response, plus one), so honest responses that only shared a budget are scored; at most
   * MAX_RERUN_BUDGETS_PER_REQUEST budgets per request. An episode that fails so again gets its items one more
   * try each, alone (at most MAX_RETRIES_PER_REQUEST per request): the culprit fails again with its own error.
   */
  private async retrySuspects(suspects: Suspect[], settle: (group: EpisodeGroup, result: CallResult) => void): Promise<void> {
    let budgets = MAX_RERUN_BUDGETS_PER_REQUEST;
    const shaped = suspects.filter(({ group }) => (budgets -= group.responses.length + 1) >= 0);
    const again: Suspect[] = [];
    await Promise.all(
      shaped.map(async (s) => {
        const result = await runAlone(this.pool, s.source, episodeCall(s.group), this.options.callTimeoutMs * (s.group.responses.length + 1));
        if (!result.ok && result.fn === SANDBOX_FN) return; // keep the first failure
        settle(s.group, result);
        if (!result.ok && RESOURCE_CODES.has(result.code) && s.group.responses.length > 1) again.push(s);
      }),
    );
    const alone = [...again, ...suspects.slice(shaped.length)].flatMap(({ group, source }) => group.items.map((index, j) => ({ source, group: { ...group, responses: [group.responses[j] as string], items: [index] } })));
    await Promise.all(
      alone.slice(0, MAX_RETRIES_PER_REQUEST).map(async (s) => {
        const result = await runAlone(this.pool, s.source, episodeCall(s.group), this.options.callTimeoutMs);
        if (result.ok || result.fn !== SANDBOX_FN) settle(s.group, result);
      }),
    );
  }
}

/** An episode whose call failed around its items (a hang, a crash, a call left unrun), with its module's source. */
interface Suspect {
  group: EpisodeGroup;
  source: string;
}

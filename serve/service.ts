// The reward service's shared state: admission control, module sources cached by hash, the catalog, the
// dispatcher and incident log, and where learners' scores are recorded; single-turn scoring is verify-items.ts.
import type { Library, EnvRecord } from '../library/contract.js';
import type { IncidentLog, Misbehaviour } from '../library/quarantine.js';
import type { SandboxPool } from '../sandbox/pool.js';
import type { CallResult } from '../sandbox/protocol.js';
import { BodyBudget } from './body-budget.js';
import { Catalog } from './catalog.js';
import { credentials, type Client, type Credentials } from './clients.js';
import { failureCode, type Rerun, type VerifyResult } from './defence.js';
import type { Dispatcher } from './dispatcher.js';
import { ServeError, type ServeOptions } from './options.js';
import type { ScoreBoard } from './scores.js';
import { verifyItems, type VerifyOptions, type VerifyRequestItem } from './verify-items.js';

export type { VerifyResult };
export type { VerifyOptions, VerifyRequestItem } from './verify-items.js';

export class Service {
  catalog: Catalog = new Catalog([]);
  private readonly sources = new Map<string, Promise<string>>();
  inflight = 0;
  /** Items in flight per principal (serve/clients.ts): a full queue is shared fairly between them. */
  private readonly inflightBy = new Map<string, number>();
  /** Where scored items are tallied for the learner's frontier (none: not recorded). */
  scores: ScoreBoard | null = null;
  /** The bytes of request bodies, WebSocket messages and unread answers held, by client (the server sets it). */
  bodies: BodyBudget = new BodyBudget(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
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

  /**
   * Admission control: reserves room for `units` items of `principal`'s or throws a 503 (a request alone is always
   * admitted). A full queue is shared fairly, as the session slots are: a principal within its share (maxQueue divided
   * among the principals with items in flight) is still admitted, so one client filling the queue never shuts the
   * others out; at most 2 × maxQueue items are in flight. `held`: units the caller's request already holds (more
   * asked for in its course, as a replay asks one per action): a request alone is still always admitted.
   */
  acquire(units: number, principal: string, held = 0): () => void {
    const mine = this.inflightBy.get(principal) ?? 0;
    if (this.inflight > held && this.inflight + units > this.options.maxQueue) {
      const principals = this.inflightBy.size + (mine === 0 ? 1 : 0);
      const share = Math.max(1, Math.floor(this.options.maxQueue / principals));
      if (mine + units > share)
        throw new ServeError(
          503,
          'E_OVERLOADED',
          `the service is at capacity (${this.inflight} items in flight, at most ${this.options.maxQueue}; this ` +
            `client ${mine}, its fair share ${share} while ${principals} share them); retry later`,
        );
    }
    this.inflight += units;
    this.inflightBy.set(principal, mine + units);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inflight -= units;
      const left = (this.inflightBy.get(principal) ?? units) - units;
      if (left > 0) this.inflightBy.set(principal, left);
      else this.inflightBy.delete(principal);
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
      throw new ServeError(
        500,
        'E_LIBRARY',
        `${record.name}@${record.version}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }

  /**
   * Scores the items for `client`; its scores are recorded as its own (trusted only for the operator). When the
   * request ends (answered, past its budget, or `signal`: its client went away), its code answers still queued
   * are dropped and running ones stopped; `release` (its admission) is called once its work has really stopped.
   */
  verify(items: VerifyRequestItem[], client: Client, options: VerifyOptions = {}): Promise<VerifyResult[]> {
    return verifyItems(this, items, client, options);
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
   * environment's own or as the response's. Each in `owner`'s turn (a client's), charged to it (sandbox-gate.ts).
   */
  async rerunAlone(m: Misbehaviour, owner: string): Promise<Rerun> {
    const source = await this.source(m.record);
    const alone = (responses: string[]) =>
      this.dispatcher.gate.run(owner, 1, () =>
        this.pool.run({
          source,
          calls: [{ op: 'episode', seed: m.seed, level: m.level, responses, keepInstance: false }],
          fresh: true,
          limits: { callTimeoutMs: this.options.callTimeoutMs },
        }),
      );
    const reference = failureCode((await alone([])).results[0] as CallResult, 0);
    if (reference !== null || m.response === undefined) return { reference, input: reference };
    return { reference, input: failureCode((await alone([m.response])).results[0] as CallResult, 1) };
  }
}

// How the reward service runs episodes in the sandbox: the library record and contract-v2 meta of an episodic
// identity (a meta parsed once per module), one rollout per request through the dispatcher (alone for a replay
// from reset), and stateless scoring of an action log (POST /v1/episodes/score); sessions are episodes.ts.
import { parseEpisodicMeta, type EpisodicMeta } from '../contract/episodic.js';
import type { EnvRecord } from '../library/contract.js';
import type { Call } from '../sandbox/protocol.js';
import { rolloutShape, toRollout } from '../sandbox/rollouts.js';
import { canonicalAction } from './action-limits.js';
import type { Client } from './clients.js';
import { SANDBOX_FN } from './dispatcher.js';
import { defendEpisode } from './episode-defence.js';
import type { EpisodeRequest } from './episode-journal.js';
import { outcomeOf, replayBudgetMs, type Resume } from './episode-session.js';
import { isUnrun } from './job-attribution.js';
import { ServeError } from './options.js';
import { ScoringLane } from './scoring-lane.js';
import type { Service } from './service.js';

export class EpisodeRunner {
  /** Parsed metas by module hash: checking a meta against contract v2 costs more than a step. */
  private readonly metas = new Map<string, EpisodicMeta | null>();

  /** Scorings of sessions their clients end: a lane of their own, so they never delay others' opens and steps. */
  readonly scoring: ScoringLane;

  constructor(private readonly service: Service) {
    this.scoring = new ScoringLane(service.dispatcher, service.options.callTimeoutMs, service.pool.options.workers);
  }

  /** The library record and meta of an episodic identity, or a 4xx naming what is wrong. */
  resolve(identity: EpisodeRequest): { record: EnvRecord; meta: EpisodicMeta } {
    const found = this.service.catalog.resolveEpisodic(identity);
    if ('error' in found)
      throw new ServeError(found.error.code === 'E_UNKNOWN_ENV' ? 404 : 400, found.error.code, found.error.message);
    const quarantined = this.service.defence.quarantined(found.record.hash);
    if (quarantined)
      throw new ServeError(409, 'E_QUARANTINED', `${found.record.name}@${found.record.version} is ${quarantined}`);
    return { record: found.record, meta: this.metaOf(found.record) };
  }

  private readonly shapes = new WeakMap<EpisodicMeta, ReturnType<typeof rolloutShape>>();
  /** The rollout fields of a meta (its tools as JSON text), made once per meta. */
  private shapeOf(meta: EpisodicMeta): ReturnType<typeof rolloutShape> {
    let shape = this.shapes.get(meta);
    if (!shape) this.shapes.set(meta, (shape = rolloutShape(meta)));
    return shape;
  }

  metaOf(record: EnvRecord): EpisodicMeta {
    if (!this.metas.has(record.hash)) this.metas.set(record.hash, parseEpisodicMeta(record.meta));
    const meta = this.metas.get(record.hash);
    if (!meta)
      throw new ServeError(500, 'E_META', `${record.name}@${record.version}'s meta does not match contract v2`);
    return meta;
  }

  /**
   * One rollout for `owner` in the sandbox: `actions` replayed from reset, or from a held state. Sandbox failures, and
   * a call its job left unrun, are 503.
   */
  async rollout(
    owner: Client,
    record: EnvRecord,
    meta: EpisodicMeta,
    seed: number,
    level: number,
    actions: unknown[],
    { from, goesOn = false, ending = false }: Resume = {},
  ) {
    const source = await this.service.source(record);
    const call: Call = {
      op: 'rollout',
      seed,
      level,
      keepInstance: false,
      rollout: {
        ...this.shapeOf(meta),
        policy: { type: 'replay', actions },
        ...(from ? { from } : {}),
        observations: true,
        keepState: true,
        ...(goesOn ? { scoreAtEnd: true } : {}),
      },
    };
    const chars = (from?.state.length ?? 0) + JSON.stringify(actions).length;
    const [result] = ending
      ? [await this.scoring.run(owner.principal, source, call)]
      : !from && actions.length > 0
        ? [await this.replay(owner, source, call, actions.length, meta.maxTurns)]
        : await this.service.dispatcher.submit(record.hash, source, [{ call, chars }], owner.key);
    if (!result || (!result.ok && result.fn === SANDBOX_FN))
      throw new ServeError(503, 'E_SANDBOX', result && !result.ok ? result.message : 'the sandbox returned no result');
    if (isUnrun(result))
      throw new ServeError(
        503,
        'E_NOT_RUN',
        `the step was not run (${result.message}); nothing changed: send it again`,
      ); // never an episode's end
    // The state goes on as the sandbox wrote it (key order kept, as a replay keeps it), so no canonical text.
    return toRollout({ seed, level, policy: { type: 'replay', actions }, scoreAtEnd: goesOn }, result, false);
  }

  /**
   * A replay from reset (a resume, /score) alone with callTimeoutMs per turn plus one (each step had its own budget
   * live), in its client's turn and charged to it by its cost: that many budgets in the sandbox gate, and one
   * admission unit per action besides its request's own (a 503 past the client's share), so a long replay costs
   * its client what its steps would have.
   */
  private async replay(owner: Client, source: string, call: Call, turns: number, maxTurns: number) {
    const release = this.service.acquire(turns, owner.principal, 1);
    try {
      const budgetMs = replayBudgetMs(this.service.options.callTimeoutMs, turns, maxTurns);
      const cost = Math.min(turns, maxTurns) + 1;
      return await this.service.dispatcher.runAlone(owner.principal, source, call, budgetMs, cost);
    } finally {
      release();
    }
  }

  /** Stateless scoring: an action log replayed from reset, as the validator's rollouts replay it. */
  async score(
    identity: { env: string; version?: number | undefined; seed: number; level: number },
    raw: unknown[],
    client: Client,
  ) {
    const { record, meta } = this.resolve(identity);
    const actions = raw.map((action) => canonicalAction(meta.tools, action));
    const r = await this.rollout(client, record, meta, identity.seed, identity.level, actions);
    const head = { env: record.name, version: record.version, seed: identity.seed, level: identity.level };
    if (!r.ok) {
      void defendEpisode(this.service, {
        record,
        meta,
        seed: identity.seed,
        level: identity.level,
        actions,
        code: r.code,
        message: r.message,
        fn: r.fn,
        client,
      });
      return { ...head, score: 0, end: 'failed', error: { code: r.code, message: `${r.fn}: ${r.message}` } };
    }
    this.service.recordScore(record, identity.level, r.score, client);
    return { ...head, ...outcomeOf(r), turns: r.turns, rejected: r.rejected };
  }
}

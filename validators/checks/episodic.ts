// How episodic checks meet the sandbox: a request is a rollout (a replayed log, a repeated action, a random
// policy), the stage runs every check's requests in one batch (a request object planned by several checks,
// made once through `shared`, runs once) and each check gets back its own outcomes; the context shares the
// meta, the reference rollouts, the adversary episodes and the requests several checks read.
import type { EpisodicMeta } from '../../contract/episodic.js';
import { runRollouts, type Rollout, type RolloutRequest, type RolloutResult } from '../../sandbox/rollouts.js';
import type { StageContext } from '../context.js';
import { differingPaths } from '../episodic/stated-rules.js';
import type { EpisodicOptions } from '../options.js';
import { judgeFindings, type Finding } from './rules.js';
import { checksFor, type AnyCheck, type Check, type CheckContext } from './contract.js';

export interface EpisodicContext extends CheckContext {
  readonly meta: EpisodicMeta;
  /** The reference rollouts (act) of the execution stage, by level then seed; checks name them by index. */
  readonly refs: readonly Rollout[];
  readonly options: EpisodicOptions & { probedPerLevel: number };
  /**
   * The references the adversary checks play against: the first `adversaryPerLevel` of each level that end with a
   * finishing call.
   */
  adversaryEpisodes(): number[];
  /** One request object per key, so a request several checks plan runs once in the batch. */
  shared(key: string, make: () => RolloutRequest): RolloutRequest;
}

export type EpisodicCheck = Check<EpisodicContext, RolloutRequest, RolloutResult>;

/** The score of an outcome (0 where the episode failed). */
export const scoreOf = (r: RolloutResult | undefined): number => (r?.ok ? r.score : 0);
/** A replay of `actions` on reference `r`'s episode. */
export const replayOf = (r: Rollout, actions: unknown[], extra: Partial<RolloutRequest> = {}): RolloutRequest => ({
  seed: r.seed,
  level: r.level,
  policy: { type: 'replay', actions },
  ...extra,
});

/** A state with every list's items in one order (JSON order of their own canonical forms): a list read as a set. */
const canonical = (v: unknown, depth = 0): unknown =>
  v === null || typeof v !== 'object' || depth > 12
    ? v
    : Array.isArray(v)
      ? v
          .map((x) => canonical(x, depth + 1))
          .map((x) => [JSON.stringify(x) ?? '', x] as const)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([, x]) => x)
      : Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, canonical(x, depth + 1)]));

/**
 * Whether a call of replay `r` that changed `changed` (paths as the runtime names them) was undone: the replay's WHOLE
 * final state is the `reference` replay's (both asked with keepState; redteam-s20e S2: a call whose own paths a
 * finishing call files elsewhere, an archive, is kept there), but for lists in another order (reads moved earlier)
 * and `book`'s paths (bookkeeping every turn changes). The plan's later calls overwrote it (a booking the reference
 * re-books), so the call left no decision for the score to read. Unsure (too many differences to list) is false.
 */
export function undoneLater(
  r: RolloutResult | undefined,
  reference: RolloutResult | undefined,
  changed: string[],
  book: ReadonlySet<string> = new Set(),
) {
  if (!r?.ok || !reference?.ok || r.state === undefined || reference.state === undefined || changed.length === 0)
    return false;
  // Its own paths first (as written, bookkeeping or not), then the rest (lists as sets, bookkeeping aside).
  const overlap = (d: string, c: string) => d === c || d.startsWith(`${c}.`) || c.startsWith(`${d}.`);
  const own = differingPaths(reference.state, r.state);
  if (own.length >= 32 || own.some((d) => changed.some((c) => overlap(d, c)))) return false;
  const differs = differingPaths(canonical(reference.state), canonical(r.state));
  const kept = (d: string) => !book.has(d) && !book.has(`${d}.*`) && ![...book].some((b) => d.startsWith(`${b}.`));
  return differs.length < 32 && !differs.some(kept);
}

export function episodicContext(stage: StageContext, meta: EpisodicMeta, refs: readonly Rollout[]): EpisodicContext {
  const memos = new Map<string, unknown>();
  const memo = <T>(key: string, make: () => T): T =>
    memos.has(key) ? (memos.get(key) as T) : (memos.set(key, make()), memos.get(key) as T);
  const options = { ...stage.options.episodic, probedPerLevel: stage.options.probedPerLevel };
  return {
    stage,
    memo,
    meta,
    refs,
    options,
    adversaryEpisodes: () =>
      memo('adversaryEpisodes', () => {
        const seen = new Map<number, number>();
        return refs.flatMap((r, i) => {
          const k = seen.get(r.level) ?? 0;
          seen.set(r.level, k + 1);
          return k < options.adversaryPerLevel ? [i] : [];
        });
      }),
    shared: (key, make) => memo(`request:${key}`, make),
  };
}

/**
 * Runs every registered episodic check: one batch of their planned requests, then their judges (which may run more).
 */
export async function runEpisodicChecks(
  registry: readonly AnyCheck[],
  ctx: EpisodicContext,
  onBatch?: (outcomes: readonly RolloutResult[]) => void,
): Promise<{
  findings: Finding[];
  metrics: Record<string, unknown>;
  cost: Record<string, { planned: number; judged: number; turns: number }>;
  wallMs: number;
}> {
  const stage = ctx.stage;
  const run = async (requests: readonly RolloutRequest[]): Promise<RolloutResult[]> =>
    requests.length === 0
      ? []
      : (
          await runRollouts(
            stage.pool,
            stage.source,
            ctx.meta,
            [...requests],
            stage.options.limits ? { limits: stage.options.limits } : {},
          )
        ).rollouts;
  const only = stage.options.episodic.checks;
  const all = checksFor<EpisodicCheck>(registry, 'episodic');
  // A name no episodic check has would silently judge nothing: an error, not a pass.
  const unknown = (only ?? []).filter((n) => !all.some((c) => c.name === n));
  if (unknown.length > 0) throw new Error(`options.episodic.checks names no episodic check: ${unknown.join(', ')}`);
  const chosen = all.filter((c) => !only || only.includes(c.name));
  const plans = chosen.flatMap((check) => {
    const plan = check.plan(ctx);
    return plan ? [{ check, plan }] : [];
  });
  // One batch: a request object planned by several checks runs once.
  const unique = new Map<RolloutRequest, number>();
  const indices = plans.map(({ plan }) =>
    plan.requests.map((r) => unique.get(r) ?? (unique.set(r, unique.size), unique.size - 1)),
  );
  const started = performance.now();
  const outcomes = await run([...unique.keys()]);
  const wallMs = performance.now() - started;
  onBatch?.(outcomes);
  // The profile: each check's planned rollouts (a request several plan is counted for each), those its judge ran,
  // and their turns.
  const judged = plans.map(() => 0);
  const turnsOf = (rs: readonly RolloutResult[]) => rs.reduce((n, r) => n + (r.ok ? r.turns : 0), 0);
  const turns = indices.map((is) => turnsOf(is.map((i) => outcomes[i] as RolloutResult)));
  const verdicts = await Promise.all(
    plans.map(({ plan }, k) =>
      plan.judge(
        (indices[k] as number[]).map((i) => outcomes[i] as RolloutResult),
        {
          run: async (requests) => {
            judged[k] = (judged[k] ?? 0) + requests.length;
            const results = await run(requests);
            turns[k] = (turns[k] ?? 0) + turnsOf(results);
            return results;
          },
          all: () => outcomes,
        },
      ),
    ),
  );
  const metrics: Record<string, unknown> = {};
  const cost: Record<string, { planned: number; judged: number; turns: number }> = {};
  plans.forEach(({ check, plan }, k) => {
    if (verdicts[k]?.metrics) metrics[check.name] = verdicts[k]?.metrics;
    cost[check.name] = { planned: plan.requests.length, judged: judged[k] ?? 0, turns: turns[k] ?? 0 };
  });
  return { findings: verdicts.flatMap((v) => v.findings), metrics, cost, wallMs };
}

export { judgeFindings };

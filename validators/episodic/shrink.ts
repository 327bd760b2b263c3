// Shrinking the reference (FINDINGS-rt3 R14): the reference's decision calls (those of tools the ablation
// shows decide the score; reads stay) are delta-debugged, a few replays a round (ddmin), while the episode still earns
// the reference's score. Where the least paid log of the top level is no longer than level 1's although the
// reference decides more, and much shorter than the reference, the environment pays for a part of the task.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { SandboxLimits } from '../../sandbox/protocol.js';
import type { SandboxPool } from '../../sandbox/pool.js';
import { runRollouts, type Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, finished, propsOf, type Action } from './adversaries.js';

/**
 * Replay rounds an episode may take, and logs a round may try for it: where nothing can go, 2 rounds of 2 and 4
 * replays.
 */
const ROUNDS = 8;
const WIDTH = 4;

/** A flat paid part: what it is, and the shrunk log (its last calls) as evidence. */
export interface ShrinkVerdict {
  message: string;
  evidence: { family: 'shrink'; seed: number; level: number; actions: string };
}

interface Shrunk {
  ref: Rollout;
  /** The reference's decision calls, and how many the least paid log found keeps. */
  decisions: number;
  kept: number;
  /** The decision calls left out differ in a value (a number, an enum, a flag): not one default left implicit. */
  varied: boolean;
  log: Action[];
}

/**
 * The calls' values besides free strings (entity ids): one value for all means the calls could all be the state's
 * default.
 */
function varied(meta: EpisodicMeta, calls: Action[]): boolean {
  const seen = new Map<string, Set<string>>();
  for (const a of calls) {
    const props = propsOf(meta, a.tool);
    for (const [k, v] of Object.entries(a.args)) {
      if (typeof v === 'string' && !props[k]?.enum) continue;
      const key = `${a.tool}.${k}`;
      seen.set(key, (seen.get(key) ?? new Set()).add(JSON.stringify(v)));
    }
  }
  return [...seen.values()].some((s) => s.size > 1);
}

/**
 * Delta-debugs the decision calls of the lowest and the top level's episodes; the problem when the paid part stays
 * flat.
 */
export async function judgeShrink(
  refs: Rollout[],
  episodes: number[],
  decisive: ReadonlySet<string>,
  env: {
    pool: SandboxPool;
    source: string;
    meta: EpisodicMeta;
    limits?: Partial<SandboxLimits>;
    zeroTolerance: number;
  },
): Promise<{ flat: ShrinkVerdict | null; metrics: Record<string, number> }> {
  const usable = episodes.filter(
    (i) => finished(refs[i] as Rollout) && (refs[i] as Rollout).score >= env.zeroTolerance,
  );
  const levels = usable.map((i) => (refs[i] as Rollout).level);
  const [low, top] = [Math.min(...levels), Math.max(...levels)];
  if (usable.length === 0 || low === top) return { flat: null, metrics: {} };
  const open = usable
    .filter((i) => [low, top].includes((refs[i] as Rollout).level))
    .map((i) => {
      const ref = refs[i] as Rollout;
      const acts = actionsOf(ref);
      const body = acts.slice(0, -1);
      const decisions = body.flatMap((a, k) => (decisive.has(`${i}|${a.tool}`) ? [k] : []));
      return {
        ref,
        body,
        finish: acts[acts.length - 1] as Action,
        decisions,
        kept: decisions,
        n: 2,
        done: decisions.length < 2,
      };
    });
  // Flat needs a top level whose reference decides more than level 1's: else nothing to replay.
  const most = (level: number) =>
    Math.max(0, ...open.filter((c) => c.ref.level === level).map((c) => c.decisions.length));
  if (most(top) <= most(low)) return { flat: null, metrics: {} };
  const logOf = (c: (typeof open)[number], kept: number[]) => {
    const keep = new Set(kept);
    return [...c.body.filter((_, k) => keep.has(k) || !c.decisions.includes(k)), c.finish];
  };
  let replays = 0;
  for (let round = 0; round < ROUNDS && open.some((c) => !c.done); round++) {
    // Each live episode tries its kept decisions minus one of n chunks (ddmin's complements).
    const tries = open
      .filter((c) => !c.done)
      .flatMap((c) => {
        const size = Math.ceil(c.kept.length / c.n);
        return Array.from({ length: Math.ceil(c.kept.length / size) }, (_, j) => ({
          c,
          kept: c.kept.filter((_, k) => Math.floor(k / size) !== j),
        }));
      });
    replays += tries.length;
    const run = await runRollouts(
      env.pool,
      env.source,
      env.meta,
      tries.map((t) => ({
        seed: t.c.ref.seed,
        level: t.c.ref.level,
        policy: { type: 'replay' as const, actions: logOf(t.c, t.kept) },
      })),
      env.limits ? { limits: env.limits } : {},
    );
    for (const c of open.filter((x) => !x.done)) {
      const paid = tries.findIndex(
        (t, j) => t.c === c && run.rollouts[j]?.ok === true && (run.rollouts[j] as Rollout).score >= c.ref.score - 1e-6,
      );
      if (paid >= 0) (c.kept = (tries[paid] as (typeof tries)[number]).kept), (c.n = Math.max(2, c.n - 1));
      else if (c.n < Math.min(WIDTH, c.kept.length)) c.n = Math.min(WIDTH, c.kept.length, 2 * c.n);
      else c.done = true;
      if (c.kept.length < 2) c.done = true;
    }
  }
  const shrunk: Shrunk[] = open.map((c) => ({
    ref: c.ref,
    decisions: c.decisions.length,
    kept: c.kept.length,
    varied: varied(
      env.meta,
      c.decisions.filter((k) => !c.kept.includes(k)).map((k) => c.body[k] as Action),
    ),
    log: logOf(c, c.kept),
  }));
  const [lows, tops] = [shrunk.filter((s) => s.ref.level === low), shrunk.filter((s) => s.ref.level === top)];
  const least = Math.max(0, ...lows.map((s) => s.kept));
  const metrics = {
    shrinkReplays: replays,
    shrinkLowKept: least,
    shrinkTopKept: Math.max(0, ...tops.map((s) => s.kept)),
    shrinkTopDecisions: Math.max(0, ...tops.map((s) => s.decisions)),
  };
  // Flat: every top-level episode is paid for no more decisions than level 1 needs, at most half of its reference's,
  // and more than one default left out.
  const flat =
    tops.length > 0 &&
    lows.length > 0 &&
    metrics.shrinkTopDecisions > Math.max(...lows.map((s) => s.decisions)) &&
    tops.every((s) => s.varied && s.kept <= least && 2 * s.kept <= s.decisions);
  if (!flat) return { flat: null, metrics };
  const s = tops[0] as Shrunk;
  return {
    metrics,
    flat: {
      message:
        `the reference shrunk to ${s.kept} of its ${s.decisions} decision calls (the others left out, reads ` +
        `kept) still earns its score ${s.ref.score} at level ${top}, no more than level ${low} needs (${least}` +
        `): the paid work does not grow with the level`,
      evidence: {
        family: 'shrink',
        seed: s.ref.seed,
        level: s.ref.level,
        actions: JSON.stringify(s.log.slice(-6)).slice(0, 400),
      },
    },
  };
}

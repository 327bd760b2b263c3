// The value adversaries (validators/episodic/adversaries-cuts.ts, adversaries-values.ts, adversaries-progress.ts)
// against each ablated reference episode at zero tolerance: stops without the finish, value transfers, a
// categorical oracle, readers of unused tools copied into the decisions, ground truth written through free-text
// arguments, retries steered by a read tool's reply, and retries with the entity put back by any tool between
// them (adversaries-undo.ts); the readers read the error paths' replies too. Besides the stage's batch (ablations and
// the initial states), two rounds: the fixed logs (with the replies the adaptive ones read), then the adaptive logs.
import type { ProblemCode } from '../../contract/codes.js';
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { actionsOf, finished, type Action } from '../episodic/adversaries.js';
import { stopCuts, transferLogs } from '../episodic/adversaries-cuts.js';
import { readBackLog, readsOf, sweepChoices, sweepLogs, type Sweep } from '../episodic/adversaries-progress.js';
import { entitiesVisible, errorReadings, resetsOf, undoRetryLog } from '../episodic/adversaries-undo.js';
import {
  axesOf,
  blanketValue,
  copyLog,
  decisionsOf,
  injectionLogs,
  oracleChoices,
  oracleLog,
  playable,
  predictions,
  readerCalls,
  truthKeys,
  type Axis,
  type Decision,
  type Reading,
  type Scalar,
} from '../episodic/adversaries-values.js';
import { ablatedEpisodes, adversaryFamily, decisiveTools } from './episodic-ablation.js';
import { fixedProbes } from './episodic-baselines.js';
import { earnsReference } from './episodic-cuts.js';
import { scoreOf, type EpisodicCheck } from './episodic.js';
import type { Finding } from './rules.js';

type Kind = 'stop-cut' | 'transfer' | 'oracle' | 'undo-retry' | 'read-back' | 'copy' | 'injection';
/** A log to run: its reference episode, its family, what its judgement needs. */
interface Job {
  of: number;
  kind: Kind | 'blanket-value' | 'readers' | 'sweep' | 'listing';
  actions: Action[];
  sweep?: Sweep;
  axis?: Axis;
  value?: Scalar;
  readings?: Reading[];
}

const CODES: Record<Kind, [ProblemCode, string]> = {
  'stop-cut': ['E_ACCEPTS_INCOMPLETE', 'adversary log'],
  transfer: ['E_ACCEPTS_TRANSFER', 'adversary log'],
  oracle: ['E_ACCEPTS_RETRIES', 'adversary log'],
  'undo-retry': ['E_ACCEPTS_RETRIES', 'adversary log'],
  'read-back': ['E_ACCEPTS_RETRIES', 'adversary log'],
  copy: ['E_ANSWER_LEAK', 'adversary log'],
  injection: ['E_WRITABLE_TRUTH', 'adversary log'],
};
/**
 * Per reference episode at most this many axes, reader calls, injections and fixed logs; the value families on one
 * episode a level.
 */
const BUDGET = { axes: 2, readers: 24, errorCalls: 6, injections: 4, logs: 32 };

export const episodicValues: EpisodicCheck = {
  name: 'episodic-values',
  codes: [...new Set(Object.values(CODES).map(([code]) => code))],
  kinds: ['episodic'],
  plan(ctx) {
    const ablations = adversaryFamily(ctx, 'tool-ablation');
    if (ablations.length === 0) return null;
    const episodes = ablatedEpisodes(ablations).filter(
      (i) => finished(ctx.refs[i] as Rollout) && (ctx.refs[i] as Rollout).score >= ctx.options.zeroToleranceCeiling,
    );
    const starts = fixedProbes(ctx).filter((p) => p.family === 'no-action' && episodes.includes(p.of));
    return {
      requests: [...ablations, ...starts].map((p) => p.request),
      async judge(outcomes, tools) {
        const refs = ctx.refs as Rollout[];
        const decisive = decisiveTools(refs, ablations, outcomes);
        const initial = new Map(starts.map((p, k) => [p.of, outcomes[ablations.length + k]]));
        const axes = axesOf(ctx.meta, refs);
        // The categorical families (blankets, readers, sweeps) on the first ablated episode of each level only.
        const firstOfLevel = new Set([
          ...new Map(episodes.map((i) => [(refs[i] as Rollout).level, i] as const).reverse()).values(),
        ]);
        const fixed = episodes.flatMap((i) =>
          fixedJobs(ctx.meta, refs[i] as Rollout, i, firstOfLevel.has(i) ? axes : [], decisive, initial.get(i)),
        );
        const first = await tools.run(fixed.map((j) => requestOf(refs, j)));
        const adaptive = episodes.flatMap((i) => adaptiveJobs(ctx.meta, refs[i] as Rollout, i, fixed, first));
        const second = await tools.run(adaptive.map((j) => requestOf(refs, j)));
        const all = [
          ...fixed.map((job, k) => ({ job, result: first[k] })),
          ...adaptive.map((job, k) => ({ job, result: second[k] })),
        ];
        const findings: Finding[] = [];
        const metrics: Record<string, number> = { logs: all.length };
        for (const [kind, [code, what]] of Object.entries(CODES) as Array<[Kind, [ProblemCode, string]]>) {
          const judged = all.filter((x) => x.job.kind === kind && gate(x.job, all, refs));
          metrics[kind] =
            judged.length === 0
              ? 0
              : judged.filter((x) => scoreOf(x.result) >= (refs[x.job.of] as Rollout).score - 1e-6).length /
                judged.length;
          for (const x of judged)
            findings.push(
              earnsReference(code, 'episodic-values', what, refs[x.job.of] as Rollout, x.result, x.job.actions, kind),
            );
        }
        return { findings, metrics };
      },
    };
  },
};

/** A job's rollout: a replay on its reference episode, with observations where an adaptive log reads them. */
function requestOf(refs: Rollout[], j: Job): RolloutRequest {
  const r = refs[j.of] as Rollout;
  return {
    seed: r.seed,
    level: r.level,
    policy: { type: 'replay', actions: j.actions },
    ...(j.kind === 'blanket-value' || j.kind === 'readers' || j.kind === 'sweep' || j.kind === 'listing'
      ? { observations: true }
      : {}),
  };
}

/**
 * The logs that need no reply: stop cuts and transfers of decisive tools, and per axis the value blankets, readers and
 * injections.
 */
function fixedJobs(
  meta: EpisodicMeta,
  r: Rollout,
  of: number,
  axes: Axis[],
  decisive: Set<string>,
  initial: RolloutResult | undefined,
): Job[] {
  const decides = (tool: string) => decisive.has(`${of}|${tool}`);
  const jobs: Job[] = stopCuts(r)
    .filter((c) => c.needs.some(decides))
    .map((c) => ({ of, kind: 'stop-cut' as const, actions: c.actions }));
  const tools = [
    ...new Set(
      actionsOf(r)
        .slice(0, -1)
        .map((a) => a.tool),
    ),
  ].filter(decides);
  for (const tool of tools)
    jobs.push(...transferLogs(meta, r, tool).map((actions) => ({ of, kind: 'transfer' as const, actions })));
  for (const axis of axes.filter((a) => decides(a.tool)).slice(0, BUDGET.axes)) {
    const decisions = decisionsOf(r, axis);
    // An entity the reference never reads may still be named by the prompt or a listing: the adaptive round checks.
    const direct = playable(r, axis, decisions);
    if (!direct && !oneEntity(r, axis, decisions)) continue;
    if (!direct && !jobs.some((j) => j.kind === 'listing'))
      jobs.push({ of, kind: 'listing', actions: listingCalls(meta, r) });
    for (const value of axis.values)
      jobs.push({ of, kind: 'blanket-value', axis, value, actions: blanketValue(r, axis, value) });
    const limit = Math.min(BUDGET.readers, meta.maxTurns - 1);
    const errors = errorReadings(meta, r, Math.min(BUDGET.errorCalls, limit));
    const readings = [...errors, ...readerCalls(meta, r, axis, decisions, limit - errors.length)];
    if (readings.length > 0) jobs.push({ of, kind: 'readers', axis, readings, actions: readings.map((x) => x.call) });
    if (!direct) continue;
    const keys = initial?.ok ? truthKeys(initial.state, new Set(decisions.map((d) => JSON.stringify(d.value)))) : [];
    const value = axis.values[0] as Scalar;
    for (const actions of injectionLogs(meta, r, axis, decisions, keys, value).slice(0, BUDGET.injections))
      jobs.push({ of, kind: 'injection', axis, value, actions });
    // Each read after every try; again with the entity put back after each read (a final decision) by each of two other
    // tools that may undo it.
    const resets = resetsOf(meta, r, axis, decisions);
    for (const read of readsOf(meta, r, axis, decisions)) {
      for (const again of [undefined, ...resets.filter((x) => x.tool !== read.tool).slice(0, 2)])
        for (const sweep of sweepLogs(r, axis, decisions, read, meta.maxTurns, again))
          jobs.push({ of, kind: 'sweep', axis, sweep, actions: sweep.actions });
    }
  }
  return jobs.slice(0, BUDGET.logs);
}

/** The logs that read the first job's replies: the oracle's tries and the readers' copy policy. */
function adaptiveJobs(
  meta: EpisodicMeta,
  r: Rollout,
  of: number,
  fixed: Job[],
  results: Array<RolloutResult | undefined>,
): Job[] {
  const jobs: Job[] = [];
  const mine = fixed.map((job, k) => ({ job, result: results[k] })).filter((x) => x.job.of === of);
  const listing = mine.find((x) => x.job.kind === 'listing')?.result;
  const seen = listing?.ok ? (listing.observations ?? []) : [];
  for (const axis of [...new Set(mine.flatMap((x) => (x.job.axis ? [x.job.axis] : [])))]) {
    const decisions: Decision[] = decisionsOf(r, axis);
    if (!playable(r, axis, decisions) && !entitiesVisible(r, axis, decisions, seen)) continue;
    const blankets = axis.values.map(
      (v) => mine.find((x) => x.job.kind === 'blanket-value' && x.job.axis === axis && x.job.value === v)?.result,
    );
    // The oracle needs the argument to decide: some constant value must earn less than the reference.
    if (!blankets.some((b) => scoreOf(b) < r.score - 1e-9)) continue;
    const replies = blankets.map((b) => decisions.map((d) => (b?.ok ? b.observations?.[d.index] : undefined)));
    const choices = oracleChoices(axis, decisions, replies);
    // Judged only where the replies single out the reference's own decisions (a refusal singled out is no oracle).
    // ... and where some decision needs a wrong try first: a log whose first tries are all right is the reference
    // itself.
    if (
      choices.every((c, k) => c !== null && c === decisions[k]?.value) &&
      choices.some((c) => axis.values.indexOf(c as Scalar) > 0)
    ) {
      jobs.push({ of, kind: 'oracle', axis, actions: oracleLog(r, axis, decisions, choices as Scalar[]) });
      // The same tries with the entity put back between them, by each tool that might undo the decision.
      for (const reset of resetsOf(meta, r, axis, decisions))
        jobs.push({
          of,
          kind: 'undo-retry',
          axis,
          actions: undoRetryLog(r, axis, decisions, reset, choices as Scalar[]),
        });
    }
    // The same judgement on the reply of a read after each try (a progress count), one read tool at a time.
    const sweeps = mine.filter((x) => x.job.kind === 'sweep' && x.job.axis === axis && x.job.sweep);
    const pairs = [
      ...new Map(
        sweeps.map((x) => [
          `${(x.job.sweep as Sweep).read.tool}|${(x.job.sweep as Sweep).reset?.tool ?? ''}`,
          x.job.sweep as Sweep,
        ]),
      ).values(),
    ];
    for (const { read, reset } of pairs) {
      const picked = sweepChoices(
        axis,
        decisions,
        sweeps
          .filter((x) => x.job.sweep?.read === read && x.job.sweep.reset === reset)
          .map((x) => ({
            sweep: x.job.sweep as Sweep,
            observations: x.result?.ok ? x.result.observations : undefined,
          })),
      );
      if (picked.every((c, k) => c !== null && c === decisions[k]?.value))
        jobs.push({
          of,
          kind: 'read-back',
          axis,
          actions: readBackLog(r, axis, decisions, read, picked as Scalar[], reset),
        });
    }
    const readers = mine.find((x) => x.job.kind === 'readers' && x.job.axis === axis);
    if (!readers?.job.readings || !readers.result?.ok) continue;
    const predicted = predictions(axis, decisions, readers.job.readings, readers.result.observations ?? []);
    if (predicted.every((p, k) => p !== null && p === decisions[k]?.value))
      jobs.push({
        of,
        kind: 'copy',
        axis,
        actions: copyLog(r, axis, decisions, readers.job.readings, predicted as Scalar[], meta.maxTurns),
      });
  }
  return jobs;
}

/**
 * Whether a log is judged: an injection only where the same value without the injection earns less (the write is what
 * pays).
 */
function gate(job: Job, all: Array<{ job: Job; result: RolloutResult | undefined }>, refs: Rollout[]): boolean {
  if (job.kind !== 'injection') return true;
  const plain = all.find(
    (x) =>
      x.job.of === job.of && x.job.kind === 'blanket-value' && x.job.axis === job.axis && x.job.value === job.value,
  );
  return plain !== undefined && scoreOf(plain.result) < (refs[job.of] as Rollout).score - 1e-9;
}

/**
 * Whether each decision names exactly one entity beside its value (the shape `playable` asks for, before knowing where
 * the policy learns the id).
 */
function oneEntity(r: Rollout, axis: Axis, decisions: Decision[]): boolean {
  const acts = actionsOf(r);
  return (
    decisions.length > 0 &&
    decisions.every((d) => Object.keys((acts[d.index] as Action).args).filter((n) => n !== axis.arg).length === 1)
  );
}

/** The listings a policy can read before deciding: every tool without arguments but the finishing one. */
function listingCalls(meta: EpisodicMeta, r: Rollout): Action[] {
  const finish = actionsOf(r).at(-1)?.tool;
  return meta.tools
    .filter((t) => t.name !== finish && Object.keys(t.parameters.properties ?? {}).length === 0)
    .map((t) => ({ tool: t.name, args: {} }));
}

// The entities a pick chooses among: a listed entity is a candidate only where the picking tool knows it; one the tool
// answers as it answers an unknown id, its state unchanged ("the TK0000 queue is closed" beside tickets TK4821), is
// no choice a policy makes, so routing "every ticket" is no pick of all but one; nor are ids another listing names that
// the tool answers alike and as none it acts on, its state unchanged (technicians K452 beside jobs J305: rt27e T4).
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { actionsOf, type Action } from './adversaries.js';
import { unknownId } from './adversaries-undo.js';
import type { PickSample } from './selection.js';

/** The most candidates a reference episode probes (those its reference did not choose). */
const PROBES = 12;

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A reply with `id` written <id> (any case): two replies alike but for the id they name are the same answer. */
const masked = (reply: string | undefined, id: string) =>
  reply === undefined ? undefined : reply.replace(new RegExp(escaped(id), 'gi'), '<id>');

interface Probe {
  sample: PickSample;
  /** The reference's first call of the tool, where the log sends the unknown id; the others follow it. */
  at: number;
  unknown: string;
  others: string[];
  request: RolloutRequest;
}

/**
 * The probe of one sample: the reference's own calls up to its first call of the picking tool, then that call with an
 * unknown id of the same shape, then with each candidate it did not choose (the other arguments as it sent them), then
 * the reference's call itself (the tool still acts after the probe: no lock or mode answers every call alike).
 */
function probeOf(sample: PickSample, ref: Rollout): Probe | null {
  const acts = actionsOf(ref);
  const at = acts.findIndex((a) => a.tool === sample.tool);
  const call = acts[at];
  const sent = call?.args[sample.arg];
  const others = sample.candidates.filter((c) => !sample.chosen.has(c)).slice(0, PROBES);
  if (!call || typeof sent !== 'string' || others.length === 0) return null;
  const unknown = unknownId(sent, new Set([...sample.candidates, ...sample.chosen]));
  const named = (id: string): Action => ({ tool: call.tool, args: { ...call.args, [sample.arg]: id } });
  const log = [...acts.slice(0, at), named(unknown), ...others.map((c) => named(sample.printed.get(c) ?? c)), call];
  const request: RolloutRequest = {
    seed: ref.seed,
    level: ref.level,
    policy: { type: 'replay', actions: log },
    observations: true,
    changes: true,
  };
  return { sample, at, unknown, others, request };
}

/** The fewest listed entities answered alike, and as no chosen one, for that answer to read as a refusal of them. */
const ALIKE = 2;

/**
 * The candidates of a probed sample the tool refuses, its call changing nothing: answered as the unknown id but for
 * the id, where the unknown id's own reply differs from the reference's (the probe tells a known id from an unknown
 * one) and changes nothing; or, named by no listing that names the reference's picks, answered alike, two or more, but
 * for the id, and as the tool answers none of the ids the reference chose ("K452 is a technician, not a job" beside
 * jobs J305: another kind the tool does not act on).
 */
function refused(p: Probe, ref: Rollout, out: RolloutResult | undefined): Set<string> {
  if (!out?.ok) return new Set();
  const replies = out.observations ?? [];
  const changed = (k: number) => (out.changes?.[k]?.length ?? 1) > 0;
  const acts = actionsOf(ref);
  const call = acts[p.at] as Action;
  const unknown = masked(replies[p.at], p.unknown);
  const probed =
    unknown !== undefined &&
    !changed(p.at) &&
    unknown !== masked(ref.observations?.[p.at], String(call.args[p.sample.arg]));
  const chosen = new Set(
    acts.flatMap((a, k) =>
      a.tool === p.sample.tool ? [masked(ref.observations?.[k], String(a.args[p.sample.arg]))] : [],
    ),
  );
  const answers = p.others.map((c, j) =>
    changed(p.at + 1 + j) ? undefined : masked(replies[p.at + 1 + j], p.sample.printed.get(c) ?? c),
  );
  // The reference's call replayed last: answered (its state unchanged) as the others are, the tool answers all alike.
  const last = p.at + 1 + p.others.length;
  const after = changed(last) ? undefined : masked(replies[last], String(call.args[p.sample.arg]));
  const alike = (a: string) =>
    replies.length > last && a !== after && !chosen.has(a) && answers.filter((b) => b === a).length >= ALIKE;
  // Only an entity no listing of the reference's picks names: one listed beside them is of their kind ('at most $10').
  const { listed } = p.sample;
  const picks = new Set([...p.sample.chosen].flatMap((c) => [...(listed.get(c) ?? [])]));
  const apart = (c: string) => [...(listed.get(c) ?? [...picks])].every((source) => !picks.has(source));
  return new Set(
    p.others.filter((c, j) => {
      const a = answers[j];
      return a !== undefined && ((probed && a === unknown) || (apart(c) && alike(a)));
    }),
  );
}

/**
 * The pick samples with the candidates their tool refuses left out (one replay per sample, `run`); a
 * sample left choosing all of its candidates selects nothing.
 */
export async function knownPicks(
  bySlot: ReadonlyMap<string, PickSample[]>,
  refs: readonly Rollout[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<Map<string, PickSample[]>> {
  const probes = [...bySlot.values()].flatMap((samples) =>
    samples.flatMap((s) => probeOf(s, refs[s.of] as Rollout) ?? []),
  );
  const outcomes = probes.length === 0 ? [] : await run(probes.map((p) => p.request));
  const out = new Map<PickSample, Set<string>>();
  probes.forEach((p, k) => out.set(p.sample, refused(p, refs[p.sample.of] as Rollout, outcomes[k])));
  const result = new Map<string, PickSample[]>();
  for (const [slot, samples] of bySlot) {
    const kept = samples.flatMap((s): PickSample[] => {
      const gone = out.get(s) ?? new Set<string>();
      const candidates = s.candidates.filter((c) => !gone.has(c));
      return candidates.every((c) => s.chosen.has(c)) ? [] : [{ ...s, candidates }];
    });
    if (kept.length > 0) result.set(slot, kept);
  }
  return result;
}

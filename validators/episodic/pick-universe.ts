// The entities a pick chooses among, judged by what the picking tool does: a listed entity is no choice only where the
// tool refuses it wherever and however a policy could ask (rt28e U1-U9, rt29e V4, V6, V8): at the reference's first
// pick call, at its last and after it, with the arguments the reference sent and those the world shows of the entity
// (pick-values.ts), its state unchanged and each reply the unknown id's with the same arguments, or one refusal where
// the tool acts on each chosen one and not on it, or alike with others and as no chosen one ("the TK0000 queue",
// technicians K452 beside jobs J305). An entity the probe could not reach, or never sent its own values, stays one;
// the reference's arguments at its first pick are tried first, the rest only for an entity refused there (the cost).
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { actionsOf, type Action } from './adversaries.js';
import { unknownId } from './adversaries-undo.js';
import { argumentSets, untried } from './pick-values.js';
import type { PickSample } from './selection.js';

/** The most probe calls one moment of a sample sends (in replays as long as the world's turns allow). */
const CALLS = 240;
/** The most argument sets a candidate is sent with at one moment. */
const VARIANTS = 6;

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A reply with `id` written <id> (any case): two replies alike but for the id they name are the same answer. */
const masked = (reply: string | undefined, id: string) =>
  reply === undefined ? undefined : reply.replace(new RegExp(escaped(id), 'gi'), '<id>');
/** An argument set but the picked id: the unknown id is sent once per such set. */
const keyOf = (args: Record<string, unknown>, arg: string) => JSON.stringify({ ...args, [arg]: null });

/**
 * One replay of a moment: the reference's first `at` calls, the unknown id with the reference's arguments (at `at`),
 * then with each other argument set the probes send, the probes, and the reference's pick call again (`trail`; none
 * at the moment after its last pick, whose answer of a chosen entity is the reply to `pick`).
 */
interface Replay {
  at: number;
  pick: number;
  unknown: string;
  unknowns: Map<string, number>;
  probes: Array<{ id: string; args: Record<string, unknown>; k: number }>;
  trail?: number;
  request: RolloutRequest;
}

/**
 * The replays of one sample: at the reference's first call of the picking tool, at its last, and after its last
 * (the state the reference leaves: a refusal lifted by its own picks is a turn order, not a kind, rt28e U1, rt29e V4),
 * each candidate it did not choose sent with each of its argument sets (pick-values.ts) after the unknown id sent with
 * the same sets, then the reference's call (the tool still acts after the probe: no lock answers every call alike); as
 * many replays as the world's turns need, `CALLS` probes a moment at most.
 */
function replaysOf(
  sample: PickSample,
  ref: Rollout,
  probed: (id: string) => boolean,
  variants: number,
  both = true,
): { moments: number[]; replays: Replay[] } {
  const acts = actionsOf(ref);
  const picks = acts.flatMap((a, k) => (a.tool === sample.tool && typeof a.args[sample.arg] === 'string' ? [k] : []));
  const others = sample.candidates.filter((c) => !sample.chosen.has(c) && probed(c));
  if (picks.length === 0 || others.length === 0) return { moments: [], replays: [] };
  const [first, last] = [picks[0] as number, picks.at(-1) as number];
  const moments = [
    { at: first, pick: first, trail: true },
    ...(both ? [{ at: last, pick: last, trail: true }] : []),
    ...(both && last + 1 < acts.length ? [{ at: last + 1, pick: last, trail: false }] : []),
  ].filter((m, j, all) => all.findIndex((o) => o.at === m.at) === j);
  const replays = moments.flatMap(({ at, pick, trail }) => {
    const call = acts[pick] as Action;
    const unknown = unknownId(String(call.args[sample.arg]), new Set([...sample.candidates, ...sample.chosen]));
    const base = keyOf(call.args, sample.arg);
    const probes = others
      // After the last pick, the reference's arguments and the entity's own strings only (the cost: rt29e V4).
      .flatMap((id) => argumentSets(sample, ref, call, id, trail ? variants : 2).map((args) => ({ id, args })))
      .slice(0, CALLS);
    const room = (sample.turns ?? Number.POSITIVE_INFINITY) - at - 1 - (trail ? 1 : 0);
    const out: Replay[] = [];
    for (let k = 0; k < probes.length && room >= 1; ) {
      const part: typeof probes = [];
      const sets = new Set<string>();
      for (; k < probes.length; k += 1) {
        const key = keyOf((probes[k] as (typeof probes)[number]).args, sample.arg);
        const more = key === base || sets.has(key) ? 0 : 1;
        if (part.length + sets.size + more + 1 > room) break;
        if (more) sets.add(key);
        part.push(probes[k] as (typeof probes)[number]);
      }
      if (part.length === 0) break;
      const keys = [...sets];
      const unknowns = new Map([[base, at], ...keys.map((key, j): [string, number] => [key, at + 1 + j])]);
      const asUnknown = (args: Record<string, unknown>) => ({
        tool: call.tool,
        args: { ...args, [sample.arg]: unknown },
      });
      const firstProbe = at + 1 + keys.length;
      const log = [
        ...acts.slice(0, at),
        asUnknown(call.args),
        ...keys.map((key) => asUnknown(part.find((p) => keyOf(p.args, sample.arg) === key)?.args ?? {})),
        ...part.map((p) => ({ tool: call.tool, args: p.args })),
        ...(trail ? [call] : []),
      ];
      const request: RolloutRequest = {
        seed: ref.seed,
        level: ref.level,
        policy: { type: 'replay', actions: log },
        observations: true,
        changes: true,
      };
      out.push({
        ...{ at, pick, unknown, unknowns, request },
        probes: part.map((p, j) => ({ ...p, k: firstProbe + j })),
        ...(trail ? { trail: firstProbe + part.length } : {}),
      });
    }
    return out;
  });
  return { moments: moments.map((m) => m.at), replays };
}

/** The fewest listed entities answered alike, and as no chosen one, for that answer to read as a refusal of them. */
const ALIKE = 2;

/**
 * What one replay shows of each probed candidate: whether it is refused there, and its replies (masked) that are no
 * unknown id's (after the last pick, each must be one it got at an earlier moment).
 */
type Seen = Map<string, { refused: boolean; replies: string[] }>;

/**
 * Each probed candidate's masked replies in one replay, and whether the tool refuses it: its state unchanged by every
 * call, each reply the unknown id's with the same arguments (a refusal of the arguments or of an unknown entity, where
 * the unknown id's own reply differs from a chosen one's) or, the rest one reply the reference's call replayed last
 * does not get, where that call changes the state (the tool acts on a chosen one and not on this) or alike with another
 * candidate's and as no chosen one.
 */
function refusedIn(rep: Replay, ref: Rollout, out: RolloutResult | undefined, arg: string, tool: string): Seen {
  const seen: Seen = new Map();
  const done = out?.ok ? out : undefined;
  const replies = done?.observations ?? [];
  const changed = (k: number) => (done?.changes?.[k]?.length ?? 1) > 0;
  const acts = actionsOf(ref);
  const end = rep.trail ?? Math.max(...rep.probes.map((p) => p.k));
  if (replies.length <= end) return seen;
  const unknownAt = (k: number | undefined) =>
    k === undefined || changed(k) ? undefined : masked(replies[k], rep.unknown);
  const picked = masked(ref.observations?.[rep.pick], String(acts[rep.pick]?.args[arg]));
  const probed = unknownAt(rep.at) !== undefined && unknownAt(rep.at) !== picked;
  const acted = rep.trail !== undefined && changed(rep.trail);
  const after =
    rep.trail === undefined || acted ? undefined : masked(replies[rep.trail], String(acts[rep.pick]?.args[arg]));
  const mine = new Map<string, Array<string | null>>();
  for (const p of rep.probes) {
    const r = changed(p.k) ? null : (masked(replies[p.k], String(p.args[arg])) ?? null);
    const asUnknown = probed && r !== null && r !== after && r === unknownAt(rep.unknowns.get(keyOf(p.args, arg)));
    if (!asUnknown) mine.set(p.id, [...(mine.get(p.id) ?? []), r]);
    else if (!mine.has(p.id)) mine.set(p.id, []);
  }
  const chosen = new Set(
    acts.flatMap((a, k) => (a.tool === tool ? [masked(ref.observations?.[k], String(a.args[arg]))] : [])),
  );
  const one = (r: Array<string | null>) => (r.every((x) => x !== null && x === r[0]) ? (r[0] as string) : null);
  const answers = [...mine.values()].map(one);
  for (const [id, r] of mine) {
    const a = one(r);
    const alike = a !== null && !chosen.has(a) && answers.filter((b) => b === a).length >= ALIKE;
    const refused =
      r.length === 0 ||
      (rep.trail === undefined ? r.every((x) => x !== null) : a !== null && a !== after && (acted || alike));
    seen.set(id, { refused, replies: r.filter((x): x is string => x !== null) });
  }
  return seen;
}

/**
 * Per sample, the candidates the tool refuses: refused in every replay that reached them, at each moment (a moment no
 * replay reached keeps them), none the reference fills an argument of with each entity's own value where the world
 * shows it none (never asked with its own value: rt29e V8). Each unchosen candidate is probed at the first pick call
 * with the reference's arguments first, and only those refused there at every moment with every argument set it
 * admits (an entity is out only where every set is refused at each: the same decision); a sample whose probes all fit
 * in as many replays as the first round's is sent them all at once (a replay's cost is mostly the prefix it replays).
 */
async function refused(
  samples: readonly PickSample[],
  refs: readonly Rollout[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<Map<PickSample, Set<string>>> {
  const plan = (s: PickSample, probed: (id: string) => boolean, variants: number, both = true) => ({
    sample: s,
    ...replaysOf(s, refs[s.of] as Rollout, probed, variants, both),
  });
  const first = samples.map((s) => {
    const [one, all] = [plan(s, () => true, 1, false), plan(s, () => true, VARIANTS)];
    const complete = all.replays.length <= one.replays.length;
    return { complete, plan: complete ? all : one };
  });
  const firstOut = await verdictsOf(
    first.map((f) => f.plan),
    refs,
    run,
  );
  const asked = (s: PickSample) => (id: string) => !untried(s, refs[s.of] as Rollout, id);
  const second = first.flatMap((f) => {
    const s = f.plan.sample;
    return f.complete ? [] : [plan(s, (id) => firstOut.get(s)?.has(id) === true && asked(s)(id), VARIANTS)];
  });
  const secondOut = await verdictsOf(second, refs, run);
  return new Map(
    samples.map((s, k) => {
      const out = (first[k]?.complete ? firstOut : secondOut).get(s) ?? new Set<string>();
      return [s, new Set([...out].filter(asked(s)))];
    }),
  );
}

/** A sample's replays and the moments they probe. */
type Plan = { sample: PickSample; moments: number[]; replays: Replay[] };

/** Per sample, the candidates refused in every replay of its plan that reached them, at each of its moments. */
async function verdictsOf(
  plans: readonly Plan[],
  refs: readonly Rollout[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<Map<PickSample, Set<string>>> {
  const requests = plans.flatMap((p) => p.replays.map((r) => r.request));
  const outcomes = requests.length === 0 ? [] : await run(requests);
  const gone = new Map<PickSample, Set<string>>();
  let k = 0;
  for (const { sample, moments, replays } of plans) {
    const verdicts = new Map<string, Map<number, boolean>>();
    // After the last pick, a reply that is no unknown id's must be one the entity got at an earlier moment.
    const [earlier, later] = [new Map<string, Set<string>>(), new Map<string, string[]>()];
    for (const rep of replays) {
      const seen = refusedIn(rep, refs[sample.of] as Rollout, outcomes[k++], sample.arg, sample.tool);
      for (const [id, r] of seen) {
        const byMoment = verdicts.get(id) ?? new Map<number, boolean>();
        byMoment.set(rep.at, (byMoment.get(rep.at) ?? true) && r.refused);
        verdicts.set(id, byMoment);
        if (rep.trail === undefined) later.set(id, [...(later.get(id) ?? []), ...r.replies]);
        else earlier.set(id, new Set([...(earlier.get(id) ?? []), ...r.replies]));
      }
    }
    for (const [id, r] of later)
      if (!r.every((x) => earlier.get(id)?.has(x))) verdicts.get(id)?.set(Math.max(...moments), false);
    const out = [...verdicts].filter(([, m]) => moments.every((at) => m.get(at) === true)).map(([id]) => id);
    gone.set(sample, new Set(out));
  }
  return gone;
}

/**
 * The pick samples with the candidates their tool refuses left out (`refused`); a sample left choosing all of its
 * candidates selects nothing.
 */
export async function knownPicks(
  bySlot: ReadonlyMap<string, PickSample[]>,
  refs: readonly Rollout[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<Map<string, PickSample[]>> {
  const gone = await refused([...bySlot.values()].flat(), refs, run);
  const result = new Map<string, PickSample[]>();
  for (const [slot, samples] of bySlot) {
    const kept = samples.flatMap((s): PickSample[] => {
      const out = gone.get(s) ?? new Set<string>();
      const candidates = s.candidates.filter((c) => !out.has(c));
      return candidates.every((c) => s.chosen.has(c)) ? [] : [{ ...s, candidates }];
    });
    if (kept.length > 0) result.set(slot, kept);
  }
  return result;
}

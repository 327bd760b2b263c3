// The entities a pick chooses among, judged by what the picking tool does: a listed entity is no choice only where the
// tool refuses it wherever and however a policy could ask (rt28e U1-U9): at the reference's first pick call and at
// its last, with the arguments the reference sent and those the entity admits (the amount its listing shows), its
// state unchanged and one refusal for every argument, answered as the unknown id, or where the tool acts on each
// chosen one (changes the state) and not on it, or alike with others and as no chosen one ("the TK0000 queue",
// technicians K452 beside jobs J305, whichever listing printed them). An entity the probe could not reach stays one;
// the reference's arguments at its first pick are tried first, the rest only for an entity refused there (the cost).
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { actionsOf, type Action } from './adversaries.js';
import { unknownId } from './adversaries-undo.js';
import type { PickSample } from './selection.js';

/** The most probe calls one moment of a sample sends (in replays as long as the world's turns allow). */
const CALLS = 240;
/** The most argument sets a candidate is sent with at one moment. */
const VARIANTS = 6;
/** The most of a candidate's printed numbers tried as the call's numeric arguments. */
const NUMBERS = 2;

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A reply with `id` written <id> (any case): two replies alike but for the id they name are the same answer. */
const masked = (reply: string | undefined, id: string) =>
  reply === undefined ? undefined : reply.replace(new RegExp(escaped(id), 'gi'), '<id>');

/** One replay of a moment: the reference up to its pick call `at`, the unknown id, some probes, the call itself. */
interface Replay {
  at: number;
  unknown: string;
  probes: Array<{ id: string; args: Record<string, unknown> }>;
  request: RolloutRequest;
}

/**
 * The argument sets a candidate is sent with at the pick call `call`: the reference's own other arguments, then each
 * numeric one set to a number the candidate's listing prints beside it, each value an enum or flag allows, the
 * numeric ones set to the least the reference sends and to 1 (a refusal of the borrowed amount or mode is no refusal
 * of the entity: rt28e U2).
 */
function argumentSets(
  sample: PickSample,
  calls: readonly Action[],
  call: Action,
  id: string,
  variants: number,
): Record<string, unknown>[] {
  const numeric = Object.keys(call.args).filter((k) => k !== sample.arg && typeof call.args[k] === 'number');
  const printed = sample.printed.get(id) ?? id;
  const [before = '', ...after] = (sample.cells?.get(id) ?? '').split(printed);
  const numbers = (t: string) => (t.replace(/(\d),(\d{3})/g, '$1$2').match(/\d+(?:\.\d+)?/g) ?? []).map(Number);
  // The numbers printed after the id first (in a comma list, those before it may be the previous entity's).
  const shown = [...new Set([...numbers(after.join(' ')), ...numbers(before)])];
  const least = (k: string) => Math.min(...calls.flatMap((a) => (typeof a.args[k] === 'number' ? [a.args[k]] : [])));
  const sets = [
    call.args,
    ...shown.slice(0, NUMBERS).map((x) => Object.fromEntries(numeric.map((k) => [k, x]))),
    ...[...(sample.options ?? [])].flatMap(([k, values]) => values.map((v) => ({ [k]: v }))),
    Object.fromEntries(numeric.map((k) => [k, least(k)])),
    Object.fromEntries(numeric.map((k) => [k, 1])),
  ].map((s) => ({ ...call.args, ...s, [sample.arg]: printed }));
  const seen = new Set<string>();
  return sets.filter((s) => !seen.has(JSON.stringify(s)) && seen.add(JSON.stringify(s))).slice(0, variants);
}

/**
 * The replays of one sample: at the reference's first call of the picking tool and at its last (after its other
 * picks: a refusal that state lifts is a turn order, not a kind, U1), each candidate it did not choose sent with each
 * of its argument sets after an unknown id of the same shape, then the reference's call (the tool still acts after the
 * probe: no lock answers every call alike); as many replays as the world's turns need, `CALLS` probes at most.
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
  const calls = picks.map((k) => acts[k] as Action);
  const moments = [...new Set([picks[0] as number, ...(both ? [picks.at(-1) as number] : [])])];
  const replays = moments.flatMap((at) => {
    const call = acts[at] as Action;
    const unknown = unknownId(String(call.args[sample.arg]), new Set([...sample.candidates, ...sample.chosen]));
    const probes = others
      .flatMap((id) => argumentSets(sample, calls, call, id, variants).map((args) => ({ id, args })))
      .slice(0, CALLS);
    const room = (sample.turns ?? Number.POSITIVE_INFINITY) - at - 2;
    if (room < 1) return [];
    const out: Replay[] = [];
    for (let k = 0; k < probes.length; k += room) {
      const part = probes.slice(k, k + room);
      const log = [
        ...acts.slice(0, at),
        { tool: call.tool, args: { ...call.args, [sample.arg]: unknown } },
        ...part.map((p) => ({ tool: call.tool, args: p.args })),
        call,
      ];
      const request: RolloutRequest = {
        seed: ref.seed,
        level: ref.level,
        policy: { type: 'replay', actions: log },
        observations: true,
        changes: true,
      };
      out.push({ at, unknown, probes: part, request });
    }
    return out;
  });
  return { moments, replays };
}

/** The fewest listed entities answered alike, and as no chosen one, for that answer to read as a refusal of them. */
const ALIKE = 2;

/** What one replay shows of each probed candidate: its replies (masked), or null where a call changed the state. */
type Seen = Map<string, Array<string | null>>;

/**
 * Each probed candidate's masked replies in one replay, those the tool refuses: with every call its state unchanged
 * and one reply for every argument set, where the reference's call replayed last is answered otherwise; answered as
 * the unknown id (whose own reply differs from the reference's and changes nothing), or where that call changes the
 * state (the tool acts on a chosen one and not on this), or alike with another candidate's and as no chosen one.
 */
function refusedIn(rep: Replay, ref: Rollout, out: RolloutResult | undefined, arg: string, tool: string): Seen {
  const seen: Seen = new Map();
  const done = out?.ok ? out : undefined;
  const replies = done?.observations ?? [];
  const changed = (k: number) => (done?.changes?.[k]?.length ?? 1) > 0;
  const acts = actionsOf(ref);
  const call = acts[rep.at] as Action;
  const last = rep.at + 1 + rep.probes.length;
  if (replies.length <= last) return seen;
  rep.probes.forEach((p, j) => {
    const k = rep.at + 1 + j;
    seen.set(p.id, [...(seen.get(p.id) ?? []), changed(k) ? null : (masked(replies[k], String(p.args[arg])) ?? null)]);
  });
  const after = changed(last) ? undefined : masked(replies[last], String(call.args[arg]));
  const unknown = changed(rep.at) ? undefined : masked(replies[rep.at], rep.unknown);
  const probed = unknown !== undefined && unknown !== masked(ref.observations?.[rep.at], String(call.args[arg]));
  const chosen = new Set(
    acts.flatMap((a, k) => (a.tool === tool ? [masked(ref.observations?.[k], String(a.args[arg]))] : [])),
  );
  const one = (r: Array<string | null>) => (r.every((x) => x !== null && x === r[0]) ? (r[0] as string) : null);
  const answers = [...seen.values()].map(one);
  const refused = new Map<string, Array<string | null>>();
  for (const [id, r] of seen) {
    const a = one(r);
    const alike = a !== null && !chosen.has(a) && answers.filter((b) => b === a).length >= ALIKE;
    if (a !== null && a !== after && ((probed && a === unknown) || after === undefined || alike)) refused.set(id, r);
    else refused.set(id, [null]);
  }
  return refused;
}

/**
 * Per sample, the candidates the tool refuses: refused in every replay that reached them, at both moments (a moment no
 * replay reached keeps them). Each unchosen candidate is probed at the first pick call with the reference's arguments
 * first, and only those refused there at both moments with every argument set it admits (an entity is out only where
 * every set is refused at both: the same decision); a sample whose probes all fit in as many replays as the first
 * round's is sent them all at once (a replay's cost is mostly the reference's prefix it replays).
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
  const second = first.flatMap((f) =>
    f.complete ? [] : [plan(f.plan.sample, (id) => firstOut.get(f.plan.sample)?.has(id) === true, VARIANTS)],
  );
  const secondOut = await verdictsOf(second, refs, run);
  return new Map(samples.map((s, k) => [s, (first[k]?.complete ? firstOut : secondOut).get(s) ?? new Set<string>()]));
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
    for (const rep of replays) {
      const seen = refusedIn(rep, refs[sample.of] as Rollout, outcomes[k++], sample.arg, sample.tool);
      for (const [id, r] of seen) {
        const byMoment = verdicts.get(id) ?? new Map<number, boolean>();
        byMoment.set(rep.at, (byMoment.get(rep.at) ?? true) && r.every((x) => x !== null));
        verdicts.set(id, byMoment);
      }
    }
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

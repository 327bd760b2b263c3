// What episodic-withheld tries on one episode, chosen by effect (redteam-trust14 Y2, Y4): each decisive tool's calls
// neutralized (a tool whose loss was only the turns' draws decides nothing; a tool a later call then fails without is
// a gate, probed with that call), and the shown tokens of other shapes screened by the world (an entity of any shape);
// the caps choose by the world's answers and the seed, never by position (withheld-choice.ts).
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import type { Action } from '../episodic/adversaries.js';
import {
  fitsArg,
  heardIn,
  keptTokens,
  otherShapes,
  type Screen,
  screenOf,
  WITHHELD_SHAPES,
} from '../episodic/entities.js';
import {
  callsOf,
  decidedWithout,
  letsThrough,
  decidesByEffect,
  followersOf,
  followOf,
  nobodyFor,
  neutralized,
  neutralizedOn,
  stepOf,
  throughEntities,
  tookOut,
} from '../episodic/gates.js';
import { entityArgOf, readsOf, WITHHELD_ENTITIES, WITHHELD_TOOLS, withheldEntities } from '../episodic/withheld.js';
import {
  chooseEntities,
  rotatedTools,
  screenedEntities,
  screeningCalls,
  screenRanks,
} from '../episodic/withheld-choice.js';
import { decidesUnplanned, unplannedOf } from '../episodic/unplanned.js';
import { repliesOf } from '../episodic/stated-rules.js';
import { checkedCall } from '../episodic/fillings.js';
import type { EpisodicMeta } from '../../contract/episodic.js';
import { type EntitySource, entitiesFrom } from '../episodic/unseen.js';
import { replayOf, type EpisodicContext } from './episodic.js';

/** What one episode tries: per decisive tool, its entity argument, the template call and the entities withheld. */
export interface Trial {
  tool: string;
  arg: string;
  template: Action;
  entities: string[];
  /** A gate's: the later call it lets through (the added call's follow-up) and its argument naming the entity. */
  follow?: { call: Action; arg: string };
}

/** One episode as the trials see it: its reference, plan (finish aside), texts shown, reference replay, reads' skip. */
export interface Seen {
  ref: Rollout;
  body: Action[];
  finish: Action;
  shown: string[];
  reference: RolloutResult | undefined;
  /** The plan's body replayed (with the looks), its state kept: the entities before a finish files them (S2). */
  before?: RolloutResult | undefined;
  decisive: (tool: string) => boolean;
  skip: ReadonlySet<string>;
  /** The prompt and the looks' replies before the plan: an entity no text showed first is found in the state. */
  opening?: readonly string[];
}

/** A decisive tool of one episode before its entities are chosen: the groups of entities and the budget. */
interface Pending {
  c: Candidate;
  /** Whether it is a gate, and the call it lets through (its follow-up). */
  needed: boolean;
  follow: ReturnType<typeof followOf>;
  groups: string[][];
  budget: number;
  template: Action;
}

interface Candidate {
  tool: string;
  arg: string;
  same: string[];
  others: string[][];
  nobody: string;
}

/** Where an episode's entities come from: the texts before its plan, and the state after it (the reference's). */
const sourceOf = (s: Seen): EntitySource | undefined =>
  s.opening &&
  (s.reference?.ok
    ? {
        opening: s.opening,
        state: s.reference.stateText ?? '',
        value: s.reference.state,
        changes: s.reference.changes,
        ...(s.before?.ok && s.before.state !== undefined ? { before: s.before.state } : {}),
      }
    : { opening: s.opening, state: '' });

/** Entities tried for one tool: more where the world answered for several shapes (`heard`: the tokens it answered). */
const budgetOf = (groups: readonly string[][], same: readonly string[], heard?: ReadonlySet<string>): number => {
  const shapes = groups.filter((g) => g.some((e) => same.includes(e) || heard?.has(e))).length;
  return shapes > 1 ? Math.min(WITHHELD_SHAPES, Math.max(WITHHELD_ENTITIES, shapes)) : 2;
};

/** A screening call of `ask`'s tool on a token, filled from the texts shown as checked on the plan (fillings.ts). */
const fillOn = (meta: EpisodicMeta, s: Seen, ask: Action, arg: string) => (t: string) =>
  checkedCall(meta, ask, arg, t, s.body, { reads: () => [], shown: s.shown }).call;

/** Each episode's trials (at most WITHHELD_TOOLS), with the rollouts spent choosing them. */
export async function withheldTrials(
  ctx: EpisodicContext,
  seen: readonly Seen[],
  bodies: ReadonlyArray<readonly Action[]>,
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
  book: ReadonlySet<string> = new Set(),
): Promise<{ trials: Trial[][]; rollouts: number; gates: number }> {
  const cands = seen.map((s) =>
    [...new Set(s.body.map((a) => a.tool))].filter(s.decisive).flatMap((tool): Candidate[] => {
      // Entities the reference names unseen are found in the world's state too (redteam-trust18 R4).
      const calls = { body: s.body, replies: s.ref.observations ?? [], tool };
      const from = entitiesFrom(s.shown, sourceOf(s), calls, (t) => entityArgOf(ctx.meta, s.body, tool, t, bodies));
      if (from === null) return [];
      const { arg, texts } = from;
      const sent = s.body.filter((a) => a.tool === tool).map((a) => String(a.args[arg]));
      const others = otherShapes(texts, sent, fitsArg(ctx.meta, tool, arg));
      const same = withheldEntities(texts, sent);
      const nobody = nobodyFor(ctx.meta, tool, arg);
      return same.length + others.length > 0 ? [{ tool, arg, same, others, nobody }] : [];
    }),
  );
  // A screening log an episode and witness: the plan, then each tool's questions, the same tokens asked by a read
  // of the token (where the world has one) and by the decision's own call (redteam-trust17 R5: a read that does not
  // know a token is no witness that the decision does not take it).
  const screens = seen.map((s, k) => {
    let room = ctx.meta.maxTurns - s.body.length;
    return (cands[k] as Candidate[]).flatMap((c) => {
      const own = s.body.find((a) => a.tool === c.tool) as Action;
      const asks = [...readsOf(ctx.meta, c.arg, c.nobody, s.skip).slice(0, 1), own];
      const witnesses = asks.map((ask) =>
        screenOf(ctx.meta, ask, c.arg, c.others, room, fillOn(ctx.meta, s, ask, c.arg)),
      );
      const screen = witnesses[0] as Screen;
      if (screen.tokens.length === 0 || screen.calls.length > room) return [];
      room -= screen.calls.length;
      return [{ c, witnesses }];
    });
  });
  const screening = seen.flatMap((_, k) =>
    [0, 1].flatMap((w) => ((screens[k] ?? []).some((x) => x.witnesses[w]) ? [{ k, w }] : [])),
  );
  const logOf = (k: number, w: number) => (screens[k] ?? []).flatMap((x) => x.witnesses[w] ?? []);
  // The tools in no plan, each probed on a withheld entity: tried where its call decides (redteam-trust17 R7).
  const unplanned = seen.map((s, k) =>
    unplannedOf(ctx.meta, s.body, s.finish.tool, cands[k] as Candidate[], `${ctx.stage.validationSeed}|${k}`, [
      s.ref.prompt ?? '',
      ...repliesOf(s.ref),
    ]),
  );
  const neutral = seen.flatMap((s, k) =>
    (cands[k] as Candidate[]).map((c) =>
      replayOf(s.ref, [...neutralized(s.body, c.tool, c.arg, c.nobody), s.finish], { changes: true }),
    ),
  );
  // Per decisive tool, an entity of each trace class a later call on it may need the step on, each replayed with the
  // step on it alone taken out (redteam-trust18 R3: a tally of the day needs the bookings somewhere, never on the
  // entity; redteam-trust20 T4: what a step lets through is each entity's): at most THROUGH_CLASSES rollouts a tool.
  const through = seen.map((s, k) =>
    (cands[k] as Candidate[]).map((c) =>
      s.reference?.ok
        ? throughEntities(s.body, c.tool, c.arg, s.reference, s.ref.observations ?? [], s.ref.prompt ?? '', book)
        : [],
    ),
  );
  const onEntity = seen.flatMap((s, k) =>
    (cands[k] as Candidate[]).flatMap((c, m) =>
      (through[k]?.[m] ?? []).map((t) => ({
        k,
        m,
        t,
        plan: [...neutralizedOn(s.body, c.tool, c.arg, t.entity, c.nobody), s.finish],
      })),
    ),
  );
  const out = await run([
    ...neutral,
    ...screening.map(({ k, w }) => {
      const s = seen[k] as Seen;
      const calls = logOf(k, w).flatMap((x) => x.calls);
      return replayOf(s.ref, [...s.body, ...calls], { observations: true, changes: true });
    }),
    ...unplanned.flatMap((us, k) =>
      us.map((u) => replayOf((seen[k] as Seen).ref, [...(seen[k] as Seen).body, ...u.probe], { changes: true })),
    ),
    ...onEntity.map(({ k, plan }) => replayOf((seen[k] as Seen).ref, plan, { changes: true })),
  ]);
  const firstOn = out.length - onEntity.length;
  // Per entity replayed, the tools the step lets through on it (none where the replay failed).
  const letsOn = (k: number, m: number, tools: ReadonlySet<string>, ref: RolloutResult | undefined) =>
    new Map(
      onEntity.flatMap((x, at) => {
        const on = out[firstOn + at];
        if (x.k !== k || x.m !== m || ref?.ok !== true || on?.ok !== true) return [];
        const c = (cands[k] as Candidate[])[m] as Candidate;
        const passed = letsThrough((seen[k] as Seen).body, c.tool, c.arg, x.t, ref, on, book);
        return [[x.t.entity, new Set([...tools].filter((tool) => passed.has(tool)))] as const];
      }),
    );
  const probed = neutral.length + screening.length;
  // A tool that some reference's plan follows with another tool's call on the same entity is a step: probed as one
  // where the episode's own plan has the follow-up, and not as a decision where it has none (the draws: every merchant
  // accepted, so no chargeback followed a contact; the probed episodes may all lack it).
  const stepSomewhere = new Set<string>(
    seen.flatMap((_, k) =>
      (cands[k] as Candidate[]).flatMap((c) =>
        ctx.refs.some((r) => followersOf(r.actions as Action[], c.tool, c.arg).length > 0) ? [c.tool] : [],
      ),
    ),
  );
  let n = 0;
  let gates = 0;
  const salt = (k: number) => `${ctx.stage.validationSeed}|${seen[k]?.ref.seed}|${seen[k]?.ref.level}`;
  const pending = seen.map((s, k) => {
    // A token is heard where any witness answers it as an entity.
    const heardBy = [0, 1].map((w) => {
      const at = screening.findIndex((x) => x.k === k && x.w === w);
      const heard = heardIn(at < 0 ? undefined : out[neutral.length + at], s.body.length, logOf(k, w));
      return new Map(logOf(k, w).map((screen, m) => [screen, heard[m] as Set<string>]));
    });
    const answered = new Map(
      (screens[k] ?? []).map(({ c, witnesses }) => {
        const heard = new Set(witnesses.flatMap((screen, w) => [...(heardBy[w]?.get(screen) ?? [])]));
        return [c.tool, { heard, kept: keptTokens(c.others, witnesses[0] as Screen, heard) }] as const;
      }),
    );
    const all = (cands[k] as Candidate[]).flatMap((c, m): Pending[] => {
      const without = out[n++];
      const body = s.body;
      const tookAway = without?.ok === true && tookOut(body, c.tool, without);
      // Decisive by what it does: with its calls refused at the same turns the plan earns less.
      if (decidesByEffect(callsOf(body, c.tool), s.ref.score, without) === false) return [];
      // A step before another decision on the same entity: a gate probed with the call it lets through, any other
      // step alone (redteam-trust16 Q9); a gate never on an entity the reference made that decision on without it,
      // by effect (an approval a short stay never needed: redteam-trust16 Q2, a gate's only: redteam-trust17 R1).
      const ref = s.reference?.ok ? s.reference : undefined;
      const step = ref ? stepOf(body, c.tool, c.arg, ref, tookAway ? without : undefined) : null;
      if (step === null && stepSomewhere.has(c.tool)) return [];
      const withheld = [...c.same, ...c.others.flat()];
      // Only a step a later call on its entity needs there can show an entity decided without it (redteam-trust17
      // R1, redteam-trust18 R3), and only by the tools it lets through on an entity like it (a booking's notice alike
      // for all says nothing; a member's, needing the booking, says nothing of a non-member's: redteam-trust20 T4).
      const lets = letsOn(k, m, step?.tools ?? new Set(), ref);
      const by = step && { tools: step.tools, lets, tool: c.tool, arg: c.arg };
      const skip = new Set(by && ref ? decidedWithout(body, by, ref, s.ref.observations ?? [], withheld) : []);
      const heard = answered.get(c.tool);
      const kept = heard?.kept ?? [];
      const groups = [c.same, ...kept].map((g) => g.filter((e) => !skip.has(e))).filter((g) => g.length > 0);
      // The budget counts the shapes the world answered for (a shape kept only for its tokens not asked about
      // adds none).
      const budget = budgetOf(groups, c.same, heard?.heard);
      if (groups.length === 0) return [];
      const template = step?.gate ?? (body.find((a) => a.tool === c.tool) as Action);
      return [{ c, needed: step?.needed === true, follow: followOf(step), groups, budget, template }];
    });
    // A cap on the tools tried cuts them by the seed and the episode, never by the plan's order (redteam-trust16 Q8):
    // one rotation a validation, the episodes one apart, so the tools each cuts differ.
    // The tools in no plan whose probe shows a decision, on the decisive tool's entities (redteam-trust17 R7).
    const from = probed + unplanned.slice(0, k).reduce((m, us) => m + us.length, 0);
    const more = (unplanned[k] ?? []).flatMap((u, j): Pending[] => {
      if (!decidesUnplanned(u.probe, out[from + j], s.body.length, book)) return [];
      const heard = answered.get(u.c.tool);
      const groups = [u.c.same, ...(heard?.kept ?? [])].filter((g) => g.length > 0);
      const budget = budgetOf(groups, u.c.same, heard?.heard);
      const c = { ...u.c, tool: u.tool, arg: u.arg };
      return groups.length > 0 ? [{ c, needed: false, follow: undefined, groups, budget, template: u.template }] : [];
    });
    return rotatedTools([...all, ...more], WITHHELD_TOOLS, String(ctx.stage.validationSeed), k);
  });
  // Where the entities outnumber the budget, each is screened by the call itself (one replay adding them one after
  // another): the ones the world refuses go last, so decoys it refuses spend no try (redteam-trust16 Q7).
  const screened = pending.flatMap((ps, k) =>
    ps.flatMap((p) => {
      if (p.groups.flat().length <= p.budget) return [];
      const s = seen[k] as Seen;
      const entities = screenedEntities(p.groups, ctx.meta.maxTurns - s.body.length - 1, salt(k));
      return entities.length > 0 ? [{ p, k, entities }] : [];
    }),
  );
  const calls = await run(
    screened.map(({ p, k, entities }) => {
      const s = seen[k] as Seen;
      const calls = screeningCalls(p.template, p.c.arg, entities, fillOn(ctx.meta, s, p.template, p.c.arg));
      return replayOf(s.ref, [...s.body, ...calls], { changes: true });
    }),
  );
  const ranks = new Map(
    screened.map(({ p, k, entities }, j) => [p, screenRanks(entities, calls[j], (seen[k] as Seen).body.length, book)]),
  );
  const trials = pending.map((ps, k) =>
    ps.flatMap(({ c, needed, follow, groups, budget, template }, j): Trial[] => {
      const entities = chooseEntities(groups, budget, ranks.get(ps[j] as Pending) ?? new Map(), salt(k));
      if (entities.length === 0) return [];
      if (needed) gates++;
      return [
        {
          tool: c.tool,
          arg: c.arg,
          template,
          entities,
          ...(follow ? { follow } : {}),
        },
      ];
    }),
  );
  return { trials, rollouts: out.length + calls.length, gates };
}

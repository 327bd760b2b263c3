// Every stated rule must matter: each step the prompt makes mandatory (validators/episodic/stated-rules.ts)
// that the reference takes and the environment records in its state is ablated on the adversary episodes:
// every call of it removed (and with the calls it guards reshaped: validators/episodic/reshape.ts, amounts split
// or merged), each of its first and last calls removed alone, and for an order rule its calls moved after what
// they must precede; and a tool's calls on one entity merged past a number stated about it (a cap per call, judged
// where the number accumulates: validators/episodic/merged.ts). A log that still earns the reference's score (the
// moved log: and ends in the reference's state) pays a policy violation (zero tolerance). A step that changes
// nothing, or only bookkeeping every turn changes, is not judged: a score of the final state cannot require it.
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import type { Bind } from '../../sandbox/protocol.js';
import { actionsOf, asAction, finished, type Action } from '../episodic/adversaries.js';
import { claimedAblations } from '../episodic/alternatives.js';
import {
  movedAblations,
  playedSwitches,
  respelledAblations,
  switchedAblations,
  switchesOf,
} from '../episodic/free-choices.js';
import { menuSplits } from '../episodic/menu.js';
import { mergedAblations, unaccumulated, type MergedLog } from '../episodic/merged.js';
import { onlyBookkeeping, recordedBeyondNeutral, type NeutralProbe } from '../episodic/neutral.js';
import { reshapings } from '../episodic/reshape.js';
import { issuedValues, sendsUnrevealed } from '../episodic/revealed.js';
import { sharedSteps } from '../episodic/rule-instances.js';
import { scopedSteps } from '../episodic/scoped-rules.js';
import { textsOf, toolTexts } from '../episodic/tool-texts.js';
import { namedTools } from '../episodic/tool-words.js';
import { sequenceOptions } from '../episodic/sequences.js';
import {
  bookkeeping,
  differingPaths,
  records,
  repliesOf,
  sentencesOf,
  statedRules,
  type StatedRule,
} from '../episodic/stated-rules.js';
import { referenceState } from './episodic-ablation.js';
import { replayOf, scoreOf, type EpisodicCheck } from './episodic.js';
import type { Finding } from './rules.js';

interface Ablation {
  of: number;
  rule: StatedRule;
  /**
   * 'every call removed', 'one call removed', 'moved after what it must precede', or every call removed and the guarded
   * calls reshaped.
   */
  how: string;
  actions: Action[];
  /** A reshaped log's uses of ids the environment issued (sandbox/protocol.ts Bind). */
  binds?: Bind[];
  /** The step is named by two or more rule sentences (validators/episodic/rule-instances.ts). */
  shared?: boolean;
  /** A sentence lifts the step for some cases (validators/episodic/scoped-rules.ts). */
  scoped?: boolean;
  /** The step's calls on one entity merged past a stated number (validators/episodic/merged.ts). */
  merged?: MergedLog;
}

/** The ablations of one stated rule on a reference episode (nothing where the reference does not take the step). */
export function ablationsOf(r: Rollout, of: number, rule: StatedRule, shared = false): Ablation[] {
  const acts = actionsOf(r);
  const body = acts.slice(0, -1);
  const finish = acts.at(-1) as Action;
  const at = body.flatMap((a, i) => (a.tool === rule.tool ? [i] : []));
  if (at.length === 0 || at.length === body.length) return [];
  const without = (drop: number[]) => [...body.filter((_, i) => !drop.includes(i)), finish];
  const out: Ablation[] = [{ of, rule, how: 'every call removed', actions: without(at) }];
  // One call removed alone: only a call a later call of another tool relies on (the same entity named: the
  // look-up of the badge then changed) and the step's only call on it, so a reference that reads more than it
  // needs is not judged for it.
  const relied = at.filter((i) => {
    const ids = new Set<unknown>(Object.values((body[i] as Action).args).filter((v) => typeof v === 'string'));
    const named = (b: Action) => Object.values(b.args).some((v) => ids.has(v));
    // The step's only call on that entity (another look-up of it, of another field, already satisfies the rule).
    return (
      body.slice(i + 1).some((b) => b.tool !== rule.tool && named(b)) &&
      !at.some((j) => j !== i && named(body[j] as Action))
    );
  });
  // A step two rules share: each call is one rule's instance, so every call is removed alone (a few at most).
  const alone = shared ? relied.slice(0, 6) : [relied[0] as number, relied.at(-1) as number];
  if (at.length >= 2 && relied.length > 0)
    for (const i of new Set(alone)) out.push({ of, rule, how: 'one call removed', actions: without([i]), shared });
  if (rule.before) {
    const before = rule.before;
    const entities = new Set<unknown>(
      at.flatMap((i) => Object.values((body[i] as Action).args).filter((v) => typeof v === 'string')),
    );
    const follows = (a: Action) =>
      before === 'all'
        ? true
        : before === 'entity'
          ? Object.values(a.args).some((v) => entities.has(v))
          : before.includes(a.tool);
    const partner = body.flatMap((a, i) => (a.tool !== rule.tool && follows(a) ? [i] : []));
    const last = partner.at(-1);
    if (last !== undefined && (at[0] as number) < last) {
      const rest = body.filter((a) => a.tool !== rule.tool);
      const cut = rest.indexOf(body[last] as Action) + 1;
      out.push({
        of,
        rule,
        how: 'moved after what it must precede',
        actions: [...rest.slice(0, cut), ...at.map((i) => body[i] as Action), ...rest.slice(cut), finish],
      });
    }
  }
  return out;
}

/**
 * The scoped rules' steps (scoped-rules.ts: a sentence lifts them for some cases) whose removal of every call loses
 * on some episode: the score reads the step within its scope, so an episode where the removal keeps the score is one
 * whose scope is empty, no evidence the rule is ignored (redteam-trust21 R8).
 */
function scopedLosses(
  ablations: readonly Ablation[],
  outcomes: ReadonlyArray<RolloutResult | undefined>,
  refs: readonly Rollout[],
  recorded: (a: Ablation) => boolean,
): Set<string> {
  const loses = (a: Ablation, k: number) => scoreOf(outcomes[k]) < (refs[a.of] as Rollout).score - 1e-6;
  return new Set(
    ablations.flatMap((a, k) =>
      a.scoped && a.how === 'every call removed' && recorded(a) && loses(a, k) ? [a.rule.tool] : [],
    ),
  );
}

export const episodicRules: EpisodicCheck = {
  name: 'episodic-rules',
  codes: ['E_RULE_IGNORED'],
  kinds: ['episodic'],
  plan(ctx) {
    const names = ctx.meta.tools.map((t) => t.name);
    const ablations = ctx.adversaryEpisodes().flatMap((i): Ablation[] => {
      const r = ctx.refs[i] as Rollout;
      if (!finished(r) || r.score < ctx.options.zeroToleranceCeiling) return [];
      const finish = actionsOf(r).at(-1)?.tool;
      const candidates = names.filter((t) => t !== finish);
      // The prompt's and the description's rules, then each tool's description's rules about the other tools
      // (a tool's description describes the tool itself: "List the waitlist, first come first" states no rule), its
      // parameters' texts with it (redteam-trust21 R9); a tool named by what it does named too (tool-words.ts, R10).
      const named = (text: string) => namedTools(text, ctx.meta.tools);
      const text = named(`${r.prompt ?? ''}\n${ctx.meta.description}`);
      const shared = sharedSteps(text, candidates);
      // And the rules its replies state (a policy tool's, redteam-trust20 T8), each reply read like the prompt.
      const rules = [
        ...statedRules(text, candidates, sentencesOf(r.prompt ?? '').length),
        ...ctx.meta.tools.flatMap((t) =>
          statedRules(
            named(toolTexts(t)),
            candidates.filter((c) => c !== t.name),
          ),
        ),
        ...repliesOf(r).flatMap((t) => statedRules(t, candidates).map((rule) => ({ ...rule, reply: true as const }))),
      ];
      const scoped = scopedSteps(named(textsOf(ctx.meta, r)), candidates);
      return [
        ...[...new Map(rules.map((rule) => [rule.tool, rule] as const).reverse()).values()].flatMap((rule) =>
          ablationsOf(r, i, rule, shared.has(rule.tool)).map((a) =>
            scoped.has(rule.tool) ? { ...a, scoped: true } : a,
          ),
        ),
        ...mergedAblations(ctx.meta, r, i, candidates, [...ctx.refs]),
      ];
    });
    // A rule matters for every plan that reaches the same final state: the step removed and the calls it guards
    // reshaped (an amount split into parts that sum to it, in turn or interleaved; calls merged).
    const o = ctx.options;
    const sequences = sequenceOptions(o, 8);
    for (const a of ablations.filter((x) => x.how === 'every call removed')) {
      // What each kept call was answered in the reference: the ids the environment issued, bound when replayed.
      const r = ctx.refs[a.of] as Rollout;
      const kept = r.actions.flatMap((x, t) => {
        const call = asAction(x);
        return call && call.tool !== a.rule.tool ? [t] : [];
      });
      const heard = kept.map((t) => r.observations?.[t]);
      // Whether each kept call changed the reference's state (its digests before and after): what a run must hold.
      const hashes = r.hashes;
      const changed = hashes ? kept.map((t) => hashes[t + 1] !== hashes[t]) : undefined;
      const { maxTurns } = ctx.meta;
      const given = r.prompt ?? '';
      // The guarded amounts' parts sent through the menu's other tools (a split is a plan over the whole menu).
      const menu = { tools: o.reshapeMenuTools, logs: o.reshapeMenuLogs, most: 8 };
      const used = new Set(actionsOf(r).map((x) => x.tool));
      for (const re of [
        ...reshapings(ctx.meta, a.actions, maxTurns, 8, o.reshapeCandidates, sequences, heard, given, changed),
        ...menuSplits(ctx.meta, a.actions, maxTurns, used, menu, heard, a.rule.tool),
      ])
        ablations.push({ ...a, how: `every call removed, ${re.how}`, actions: re.actions, binds: re.binds });
      // The plan's free choices (redteam-trust13 X1, X4, X3b): a rule matters for every spelling of the guarded
      // calls' ids the world accepts, after every switch the menu offers and whatever the guarded calls claim.
      const removed = actionsOf(r).filter((x) => x.tool === a.rule.tool);
      // The reference's own switches (its finish aside), moved to the front (redteam-trust14 Y7).
      const body = kept.slice(0, -1).map((t) => asAction(r.actions[t]) as Action);
      const own = playedSwitches(ctx.meta, body, changed?.slice(0, -1));
      for (const re of [
        ...respelledAblations(removed, a.actions),
        ...switchedAblations(switchesOf(ctx.meta, used), a.actions),
        ...movedAblations(own, a.actions),
        ...claimedAblations(ctx.meta, a.actions, given),
      ])
        ablations.push({ ...a, how: `every call removed, ${re.how}`, actions: re.actions });
    }
    // The references replayed with their states and each turn's changes: what a step records, what is bookkeeping,
    // and where the reference ends (an order broken is judged on the final state too: an environment with chance
    // in its steps may end the moved log elsewhere).
    const moved = (a: Ablation) => a.how === 'moved after what it must precede';
    const episodes = [...new Set(ablations.map((a) => a.of))];
    const states = episodes.map((i) => referenceState(ctx, i));
    const requests: RolloutRequest[] = [
      ...ablations.map((a) =>
        replayOf(ctx.refs[a.of] as Rollout, a.actions, {
          observations: true,
          ...(moved(a) || a.shared ? { keepState: true } : {}),
          ...(a.binds ? { policy: { type: 'replay' as const, actions: a.actions, binds: a.binds } } : {}),
        }),
      ),
      ...states,
    ];
    return {
      requests,
      async judge(outcomes, tools) {
        const finalOf = new Map(episodes.map((i, k) => [i, outcomes[ablations.length + k]]));
        const replayed = [...finalOf.values()].filter((r): r is Rollout => r?.ok === true);
        const book = bookkeeping(replayed, ctx.options.bookkeepingShare);
        // A step whose changes, or a removal whose differences, are all bookkeeping paths is judged by value against
        // the reference with that call made neutral (a refused call's log entry: redteam-trust14 Y1b).
        const neutral = (of: number, at: number): NeutralProbe => {
          const ref = ctx.refs[of] as Rollout;
          return { ref, actions: actionsOf(ref), at };
        };
        const stepProbes = episodes.flatMap((i) => {
          const r = finalOf.get(i);
          if (r?.ok !== true) return [];
          const acts = actionsOf(r);
          return [...new Set(ablations.filter((a) => a.of === i).map((a) => a.rule.tool))].flatMap((tool) => {
            const at = acts.findIndex((x, j) => x.tool === tool && onlyBookkeeping(r.changes?.[j], book));
            return at >= 0 && !records(r, tool, book) ? [{ key: `${i}|${tool}`, probe: neutral(i, at) }] : [];
          });
        });
        const removed = (a: Ablation) => {
          const body = actionsOf(ctx.refs[a.of] as Rollout);
          return body.findIndex((x, j) => JSON.stringify(x) !== JSON.stringify(a.actions[j]));
        };
        const endProbes = ablations.flatMap((a, k) => {
          const [mine, theirs] = [outcomes[k], finalOf.get(a.of)];
          if (!a.shared || a.how !== 'one call removed' || mine?.ok !== true || theirs?.ok !== true) return [];
          if (mine.score < (ctx.refs[a.of] as Rollout).score - 1e-6) return [];
          return onlyBookkeeping(differingPaths(mine.state, theirs.state), book)
            ? [{ k, probe: neutral(a.of, removed(a)) }]
            : [];
        });
        const beyond = await recordedBeyondNeutral(
          [...stepProbes, ...endProbes].map((p) => p.probe),
          tools.run,
        );
        const stepsByValue = new Set(stepProbes.filter((_, j) => beyond[j]).map((p) => p.key));
        const endsByValue = new Set(endProbes.filter((_, j) => beyond[stepProbes.length + j]).map((p) => p.k));
        // A step that changes nothing, or only bookkeeping, cannot be required by a score of the final state.
        const recorded = (a: Ablation) => {
          const r = finalOf.get(a.of);
          return r?.ok === true && (records(r, a.rule.tool, book) || stepsByValue.has(`${a.of}|${a.rule.tool}`));
        };
        const sameEnd = (a: Ablation, k: number) => {
          const [mine, theirs] = [outcomes[k], finalOf.get(a.of)];
          return (
            mine?.ok === true &&
            theirs?.ok === true &&
            differingPaths(mine.state, theirs.state).every((p) => book.has(p)) &&
            !endsByValue.has(k)
          );
        };
        // A log that sends an id the world issued before any of its replies showed it (the removed step's reply
        // alone did) is no policy's: its score is no evidence (redteam-s18e E2).
        const issued = new Map(episodes.map((i) => [i, issuedValues(ctx.meta, ctx.refs[i] as Rollout, ctx.refs)]));
        const blind = ablations.map((a, k) => {
          const o = outcomes[k];
          return o?.ok === true && sendsUnrevealed(o, issued.get(a.of) ?? new Set());
        });
        // A merge paid is judged only where its number accumulates into the state (not a page, an offset: E5).
        const asked = ablations.map((a, k) => recorded(a) && !blind[k]);
        for (const k of await unaccumulated(ablations, ctx.refs, outcomes, asked, tools.run)) blind[k] = true;
        const findings: Finding[] = [];
        // A removal of one call is judged only where every single removal of that step, in every episode, keeps the
        // score (a look-up the reference makes before an action the rule does not cover, an escalation, may go); of a
        // step two rules share, also a removal that keeps the score while it changes the final state beyond
        // bookkeeping: the calls no removal alone needs answer a rule of their own, one nothing enforces.
        const singles = new Map<string, boolean>();
        ablations.forEach((a, k) => {
          if (a.how !== 'one call removed' || !recorded(a) || blind[k]) return;
          const key = a.rule.tool;
          singles.set(
            key,
            (singles.get(key) ?? true) && scoreOf(outcomes[k]) >= (ctx.refs[a.of] as Rollout).score - 1e-6,
          );
        });
        const within = scopedLosses(ablations, outcomes, ctx.refs, recorded);
        ablations.forEach((a, k) => {
          if (!recorded(a) || blind[k]) return;
          const ref = ctx.refs[a.of] as Rollout;
          const score = within.has(a.rule.tool) ? 0 : scoreOf(outcomes[k]);
          const judged =
            a.how === 'one call removed'
              ? singles.get(a.rule.tool) || (a.shared && !sameEnd(a, k))
                ? score
                : 0
              : moved(a) && !sameEnd(a, k)
                ? 0
                : score;
          findings.push({
            rule: 'zero',
            code: 'E_RULE_IGNORED',
            check: 'episodic-rules',
            judged: judged + 1e-6,
            ceiling: ref.score,
            what: 'stated-step ablation',
            form:
              `${a.rule.tool}: ${a.how} (seed ${ref.seed}, level ${ref.level}; ` +
              `${a.rule.reply ? 'a reply' : 'the prompt'}: "${a.rule.sentence.slice(0, 160)}")`,
            evidence: () => ({
              step: a.rule.tool,
              ablation: a.how,
              rule: a.rule.sentence.slice(0, 300),
              seed: ref.seed,
              level: ref.level,
              score,
              reference: ref.score,
              actions: JSON.stringify(a.actions.slice(0, 6)).slice(0, 400),
            }),
          });
        });
        return {
          findings,
          metrics: {
            stated: [...new Set(ablations.map((a) => a.rule.tool))],
            ablations: ablations.length,
            kept: ablations.filter((a, k) => scoreOf(outcomes[k]) >= (ctx.refs[a.of] as Rollout).score - 1e-6).length,
          },
        };
      },
    };
  },
};

// Metamorphic arguments: on the first adversary episode of each level, the middle call of each tool that
// decides the score alone is replayed with a variant of one argument (validators/episodic/variants.ts: case,
// padding, a look-alike, a placeholder, an array item repeated). A variant step stores differently that earns the
// reference's score, or more than a wrong decision, is a finding (zero tolerance), judged by what is paid: a case
// or spaces variant is an equivalent form where a wrong decision step stored as sent earns less and that wrong
// decision in the variant's form earns no more; a call retargeted at another entity of the episode that earns the
// reference's score binds nothing to its entity (docs/validator.md, "Metamorphic arguments").
import type { Rollout, RolloutResult } from '../../sandbox/rollouts.js';
import { actionsOf, argValues, propsOf, type Action } from '../episodic/adversaries.js';
import { sameTransform, variantsOf, type Variant } from '../episodic/variants.js';
import { onFirstEpisodes } from './episodic-ablation.js';
import { replayOf, scoreOf, type EpisodicCheck } from './episodic.js';
import type { Finding } from './rules.js';

/** Decisive tools varied per episode (the middle call of each). */
const TOOLS = 3;

export const episodicArguments: EpisodicCheck = {
  name: 'episodic-arguments',
  codes: ['E_ARGUMENT_UNCHECKED'],
  kinds: ['episodic'],
  plan(ctx) {
    return onFirstEpisodes(ctx, async ({ episodes, decisive, reference }, tools) => {
      const others = argValues([...ctx.refs]);
      // First the gates: each candidate call refused by the host in its place (an undeclared argument), so the
      // turns stay aligned and an environment with chance in its steps replays as the reference did.
      const gates: Array<{ of: number; index: number; actions: Action[] }> = [];
      episodes.forEach((i) => {
        const acts = actionsOf(ctx.refs[i] as Rollout);
        const body = acts.slice(0, -1);
        for (const tool of [...new Set(body.map((a) => a.tool))]
          .filter((t) => decisive.has(`${i}|${t}`))
          .slice(0, TOOLS)) {
          // The middle call of the tool.
          const calls = body.flatMap((a, j) => (a.tool === tool ? [j] : []));
          const k = calls[Math.floor(calls.length / 2)] as number;
          if (variantsOf(ctx.meta, acts, k, others).length > 0)
            gates.push({
              of: i,
              index: k,
              actions: acts.map((a, j) =>
                j === k ? { tool: a.tool, args: { ...a.args, undeclared_argument: true } } : a,
              ),
            });
        }
      });
      const refused = await tools.run(gates.map((g) => replayOf(ctx.refs[g.of] as Rollout, g.actions)));
      const paid = (of: number, r: RolloutResult | undefined) => scoreOf(r) >= (ctx.refs[of] as Rollout).score - 1e-6;
      // Then the variants, of the calls that matter alone (the episode without the call earns less).
      const planned: Array<{ of: number; variant: Variant }> = gates.flatMap((g, k) =>
        paid(g.of, refused[k])
          ? []
          : variantsOf(ctx.meta, actionsOf(ctx.refs[g.of] as Rollout), g.index, others).map((variant) => ({
              of: g.of,
              variant,
            })),
      );
      const results = await tools.run(
        planned.map((p) => replayOf(ctx.refs[p.of] as Rollout, p.variant.actions, { keepState: true })),
      );
      const differs = (of: number, r: RolloutResult | undefined) =>
        r?.ok === true &&
        reference.get(of)?.ok === true &&
        r.stateText !== (reference.get(of) as { stateText?: string }).stateText;
      const sibling = (p: { of: number; variant: Variant }, kind: Variant['kind']) =>
        planned.findIndex(
          (q) =>
            q.of === p.of &&
            q.variant.kind === kind &&
            q.variant.index === p.variant.index &&
            q.variant.arg === p.variant.arg,
        );
      // Equivalence controls: for each paid case or spaces variant whose wrong decision step stored as sent and
      // the score refused, the wrong decision in the variant's form (it must earn no more than the wrong one).
      const storedAsSent = (r: RolloutResult | undefined, value: unknown) =>
        r?.ok === true && ((r as { stateText?: string }).stateText ?? '').includes(JSON.stringify(value));
      const controls = planned.flatMap((p, k) => {
        const w = sibling(p, 'wrong');
        const ref = ctx.refs[p.of] as Rollout;
        if (
          (p.variant.kind !== 'case' && p.variant.kind !== 'spaces') ||
          w < 0 ||
          !differs(p.of, results[k]) ||
          !paid(p.of, results[k])
        )
          return [];
        const wrong = planned[w] as { variant: Variant };
        if (!storedAsSent(results[w], wrong.variant.value) || paid(p.of, results[w])) return [];
        const acts = actionsOf(ref);
        const call = acts[p.variant.index] as Action;
        const schema = (propsOf(ctx.meta, call.tool) as Record<string, { maxLength?: number }>)[p.variant.arg] ?? {};
        const value = sameTransform(
          p.variant.kind,
          String(call.args[p.variant.arg]),
          String(p.variant.value),
          String(wrong.variant.value),
          schema.maxLength,
        );
        return value === null
          ? []
          : [
              {
                k,
                w,
                actions: acts.map((a, j) =>
                  j === p.variant.index ? { tool: a.tool, args: { ...a.args, [p.variant.arg]: value } } : a,
                ),
              },
            ];
      });
      const controlled = await tools.run(
        controls.map((c) => replayOf(ctx.refs[(planned[c.k] as { of: number }).of] as Rollout, c.actions)),
      );
      const equivalent = new Set(
        controls.flatMap((c, j) =>
          controlled[j]?.ok === true && scoreOf(controlled[j]) <= scoreOf(results[c.w]) + 1e-6 ? [c.k] : [],
        ),
      );
      const findings: Finding[] = [];
      let varied = 0;
      let reordered = 0;
      planned.forEach((p, k) => {
        const ref = ctx.refs[p.of] as Rollout;
        const r = results[k];
        if (p.variant.kind === 'wrong') return;
        // Another order of an array's items may be valid (a set): measured, not judged.
        if (p.variant.kind === 'reordered-items') return void (differs(p.of, r) && paid(p.of, r) && reordered++);
        // An item repeated in another's place is judged where that item left out costs the score (it was needed);
        // an item left out alone is the gate, not a finding (a reference may read more than it needs).
        if (p.variant.kind === 'dropped-item') return;
        if (p.variant.kind === 'repeated-item' && paid(p.of, results[sibling(p, 'dropped-item')])) return;
        // The baseline: the same call with a wrong decision (another value the argument takes), where step stores it.
        const w = sibling(p, 'wrong');
        const wrong = w >= 0 && differs(p.of, results[w]) ? scoreOf(results[w]) : null;
        const stored = differs(p.of, r);
        if (stored) varied++;
        // Another entity in the call's place (the rest of the plan kept) is judged by what is paid alone: a wrong
        // value of the same tool may be an entity the step refuses outright.
        const above = p.variant.kind !== 'retargeted' && wrong !== null && scoreOf(r) > wrong + 1e-6;
        const hit = stored && !equivalent.has(k) && (paid(p.of, r) || above);
        findings.push({
          rule: 'zero',
          code: 'E_ARGUMENT_UNCHECKED',
          check: 'episodic-arguments',
          judged: hit ? 1 : 0,
          ceiling: 1,
          what: 'argument variant',
          form:
            `${p.variant.tool}.${p.variant.arg} ${p.variant.kind} ` +
            `${JSON.stringify(p.variant.value).slice(0, 40)} (seed ${ref.seed}, level ${ref.level})`,
          reads:
            `scores ${scoreOf(r)} (the reference ${ref.score}` +
            `${wrong !== null ? `, a wrong decision ${wrong}` : ''})`,
          evidence: () => ({
            tool: p.variant.tool,
            arg: p.variant.arg,
            variant: p.variant.kind,
            value: JSON.stringify(p.variant.value).slice(0, 80),
            reference: JSON.stringify(
              (actionsOf(ref)[p.variant.index] as { args: Record<string, unknown> }).args[p.variant.arg],
            ).slice(0, 80),
            seed: ref.seed,
            level: ref.level,
            score: scoreOf(r),
            wrong,
          }),
        });
      });
      return { findings, metrics: { variants: planned.length, storedDifferently: varied, reorderedPaid: reordered } };
    });
  },
};

// The episodic hack probes (DESIGN: the tau2-style holes), as action logs built from the reference rollouts:
// no action, invalid actions only, the reference minus its last action, another episode's actions, one
// action repeated, the finishing call alone on other seeds, a seeded random policy, a prompt replay, a tool the
// reference never uses, its values perturbed (the adversary library plans its own logs: validators/checks/).
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout, RolloutRequest } from '../../sandbox/rollouts.js';
import type { EpisodicOptions } from '../options.js';
import { levelSeeds } from '../seeds.js';
import { isAction, type Probe } from './adversaries.js';
import { redrawTreatments, treatmentsOf } from './treatments.js';

export type { Probe } from './adversaries.js';

const replay = (
  seed: number,
  level: number,
  actions: unknown[],
  extra: Partial<RolloutRequest> = {},
): RolloutRequest => ({ seed, level, policy: { type: 'replay', actions }, ...extra });

/**
 * Calls the host rejects, one of each kind: an undeclared tool, an undeclared argument, a __proto__ key, oversized
 * arguments.
 */
export function invalidActions(meta: EpisodicMeta): unknown[] {
  const tool = meta.tools[0]?.name ?? 'x';
  const bad: unknown[] = [
    { tool: '__no_such_tool__', args: {} },
    { tool, args: { __undeclared: 1 } },
    { tool, args: JSON.parse('{"__proto__":{"admin":true}}') as unknown },
    { tool, args: { blob: 'x'.repeat(5_000) } },
  ];
  return Array.from({ length: meta.maxTurns }, (_, i) => bad[i % bad.length]);
}

/** A digit group with thousands separators ("1,000", "$12,345.50"), not one of a list ("1,2,3") nor a longer run. */
const GROUPED = /(?<![\w,.])\d{1,3}(?:,\d{3})+(?![\w]|,\d)/g;

/** A text with each number written with thousands separators as one number ("$1,250" is "$1250": redteam-s21e T2). */
export const joinThousands = (text: string) => text.replace(GROUPED, (m) => m.replace(/,/g, ''));

/** Tokens of a text the way the random policy and the leak probe read them (a grouped number is one: "1,000" 1000). */
export function tokensOf(text: string): string[] {
  return (joinThousands(text.slice(0, 20_000)).match(/[A-Za-z0-9$][A-Za-z0-9_-]*(?:\.[0-9]+)?/g) ?? [])
    .slice(0, 4_000)
    .map((t) => (t.startsWith('$') ? t.slice(1) : t));
}

/**
 * The reference actions whose every argument the prompt spells out (enum and boolean arguments redrawn, and each
 * entity's treatment redrawn among `treatments`, the references' own: validators/episodic/treatments.ts): a leak
 * replays them.
 */
export function promptOnlyActions(
  meta: EpisodicMeta,
  reference: Rollout,
  seed: number,
  treatments: readonly (readonly string[])[] = [],
): unknown[] {
  const known = new Set(tokensOf(reference.prompt ?? '').map((t) => t.toLowerCase()));
  const spelled = (v: unknown): boolean =>
    (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 10) ||
    tokensOf(String(v)).every((w) => known.has(w.toLowerCase()));
  let x = (seed % 2_147_483_647) + 1;
  const draw = (n: number) => ((x = (x * 48_271) % 2_147_483_647), x % n);
  const out: unknown[] = [];
  for (const action of reference.actions) {
    if (!isAction(action)) continue;
    const props = (meta.tools.find((t) => t.name === action.tool)?.parameters.properties ?? {}) as Record<
      string,
      { enum?: unknown[] }
    >;
    const args: Record<string, unknown> = {};
    let keep = true;
    for (const [key, value] of Object.entries(action.args ?? {})) {
      const choices = props[key]?.enum;
      if (choices) args[key] = choices[draw(choices.length)];
      else if (typeof value === 'boolean') args[key] = draw(2) === 0;
      else if ([value].flat().every(spelled)) args[key] = value;
      else keep = false;
    }
    if (keep) out.push({ tool: action.tool, args });
  }
  return redrawTreatments(meta, out, treatments, draw, reference.prompt ?? '');
}

/** Candidate values for one parameter, from what the agent reads (the tool's descriptions and the prompt). */
function suggested(schema: Record<string, unknown>, texts: string[]): unknown[] {
  if (Array.isArray(schema.enum)) return schema.enum.slice(0, 8);
  const tokens = [...new Set(texts.flatMap(tokensOf))];
  if (schema.type === 'string') return tokens.filter((t) => /\d/.test(t) || /[A-Z]{2}/.test(t)).slice(0, 6);
  if (schema.type === 'integer' || schema.type === 'number')
    return tokens
      .map(Number)
      .filter((n) => Number.isFinite(n) && (schema.type === 'number' || Number.isSafeInteger(n)))
      .slice(0, 4);
  if (schema.type === 'boolean') return [true, false];
  return [];
}

/**
 * Calls of the tools the reference never uses, with the values their descriptions (and the prompt) suggest: a shortcut
 * the author left in.
 */
export function shortcutCalls(meta: EpisodicMeta, used: ReadonlySet<string>, prompt: string): unknown[] {
  const calls: unknown[] = [];
  for (const tool of meta.tools.filter((t) => !used.has(t.name))) {
    const props = (tool.parameters.properties ?? {}) as Record<string, Record<string, unknown>>;
    const texts = [tool.description, ...Object.values(props).map((p) => String(p.description ?? '')), prompt];
    const names = Object.keys(props);
    const choices = names.map((name) => suggested(props[name] as Record<string, unknown>, texts));
    // One call per suggested value of each parameter, the others at their first suggestion.
    const variants = Math.max(1, ...choices.map((c) => c.length));
    for (let v = 0; v < Math.min(variants, 6); v++) {
      calls.push({
        tool: tool.name,
        args: Object.fromEntries(
          names.flatMap((name, i) =>
            (choices[i] as unknown[]).length
              ? [[name, (choices[i] as unknown[])[Math.min(v, (choices[i] as unknown[]).length - 1)]]]
              : [],
          ),
        ),
      });
    }
  }
  return calls;
}

/**
 * The reference's actions with every free number nudged: a module that refuses a wrong value must not print the right
 * one.
 */
export function perturbedActions(meta: EpisodicMeta, actions: unknown[]): unknown[] {
  return actions.filter(isAction).map((a) => {
    const props = (meta.tools.find((t) => t.name === a.tool)?.parameters.properties ?? {}) as Record<
      string,
      { enum?: unknown }
    >;
    const args = Object.fromEntries(
      Object.entries(a.args ?? {}).map(([k, v]) => [
        k,
        typeof v === 'number' && !props[k]?.enum
          ? Number.isInteger(v)
            ? v + 1
            : Math.round((v + 1.37) * 100) / 100
          : v,
      ]),
    );
    return { tool: a.tool, args };
  });
}

/** The fixed probe families for a candidate's reference rollouts (grouped by level, in order). */
export function buildProbes(
  meta: EpisodicMeta,
  references: Rollout[],
  options: EpisodicOptions & { probedPerLevel: number },
  validationSeed: number,
): Probe[] {
  const probes: Probe[] = [];
  const invalid = invalidActions(meta);
  const finishing = [
    ...new Set(
      references
        .map((r) => r.actions[r.actions.length - 1])
        .filter(isAction)
        .map((a) => a.tool),
    ),
  ];
  const used = new Set(references.flatMap((r) => r.actions.filter(isAction).map((a) => a.tool)));
  const treatments = treatmentsOf(
    meta,
    references.map((r) => promptOnlyActions(meta, r, r.seed)),
  );
  for (let level = 1; level <= meta.levels; level++) {
    const at = references.map((r, i) => ({ r, i })).filter(({ r }) => r.level === level);
    at.forEach(({ r, i }, k) => {
      const other = (at[(k + 1) % at.length] as { r: Rollout }).r;
      probes.push({ family: 'no-action', of: i, request: replay(r.seed, level, [], { keepState: true }) });
      probes.push({ family: 'invalid-actions', of: i, request: replay(r.seed, level, invalid) });
      probes.push({ family: 'incomplete', of: i, request: replay(r.seed, level, r.actions.slice(0, -1)) });
      if (other !== r) probes.push({ family: 'other-episode', of: i, request: replay(r.seed, level, other.actions) });
      probes.push({
        family: 'perturbed',
        of: i,
        request: replay(r.seed, level, perturbedActions(meta, r.actions), { observations: true }),
      });
      if (k < options.repeatedPerLevel) {
        const firstOfTool = [...new Map(r.actions.filter(isAction).map((a) => [a.tool, a])).values()];
        for (const action of firstOfTool)
          probes.push({
            family: 'repeated-action',
            of: i,
            request: { seed: r.seed, level, policy: { type: 'repeat', action } },
          });
      }
      if (k >= options.probedPerLevel) return;
      const last = r.actions.at(-1);
      // Observations kept: the adversary judge reads what an unused tool prints (a grouped "$12,345" too).
      for (const call of last === undefined ? [] : shortcutCalls(meta, used, r.prompt ?? ''))
        probes.push({
          family: 'shortcut',
          of: i,
          request: replay(r.seed, level, [call, last], { observations: true }),
        });
      const spelled = promptOnlyActions(meta, r, r.seed, treatments);
      probes.push({ family: 'prompt-replay', of: i, request: replay(r.seed, level, spelled) });
      if (other !== r)
        probes.push({ family: 'prompt-replay', of: -1 - i, request: replay(other.seed, level, spelled) });
    });
    const last = at[0]?.r.actions.at(-1);
    const alone = Math.ceil(options.finishAloneSamples / meta.levels);
    if (last !== undefined)
      for (const seed of levelSeeds(validationSeed ^ 0x5eed, level, alone))
        probes.push({ family: 'finish-alone', of: -1, request: replay(seed, level, [last]) });
    for (const [k, seed] of levelSeeds(validationSeed ^ 0xa11, level, options.randomPerLevel).entries()) {
      probes.push({
        family: 'random-policy',
        of: -1,
        request: {
          seed,
          level,
          policy: { type: 'random', seed: (validationSeed % 1e9) * 1_000 + k, avoid: finishing },
        },
      });
    }
  }
  return probes;
}

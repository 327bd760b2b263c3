// The decisions a call makes outside the reference's vocabulary (redteam-trust13 X2, X3): which tool carries it (two
// tools that take the same required arguments, a call sent through the other) and what it claims about its entity (a
// boolean or enum argument, or a code known by its values: claims.ts), the claim changed alone and changed with the
// call's other values refilled from what the episode shows of the entity (its reads, its part of a listing) as a call
// that makes that claim has them.
import type { EpisodicMeta } from '../../contract/episodic.js';
import { filledFrom, propsOf, requiredOf, spread, type Action } from './adversaries.js';
import { claimsOf, claimValues, setAt, valuesAt } from './claims.js';
import { shapeOf } from './structure.js';
import { filledCall, readsOf } from './withheld.js';

/** Calls of a tool sent through another tool (and the claims tried) per tool and episode: the family's cost. */
export const ALTERNATIVE_CALLS = 2;

/** One call of the plan sent otherwise: its index, what was sent instead, and how. */
export interface Alternative {
  index: number;
  call: Action;
  how: string;
}

/** Whether `b` takes every call of `a` by name: the same required arguments (at least one), each of one type. */
export function compatible(meta: EpisodicMeta, a: string, b: string): boolean {
  const [ra, rb] = [requiredOf(meta, a), requiredOf(meta, b)];
  if (a === b || ra.size === 0 || ra.size !== rb.size || ![...ra].every((n) => rb.has(n))) return false;
  const [pa, pb] = [propsOf(meta, a), propsOf(meta, b)];
  return [...ra].every((n) => pa[n]?.type === pb[n]?.type);
}

/**
 * The plan's calls of each tool in `tools` sent through another tool of `tools` that takes them (at most
 * ALTERNATIVE_CALLS a pair, spread over the plan), with the arguments the other tool declares.
 */
export function swappedCalls(meta: EpisodicMeta, body: readonly Action[], tools: readonly string[]): Alternative[] {
  return tools.flatMap((a) =>
    tools
      .filter((b) => compatible(meta, a, b))
      .flatMap((b) => {
        const at = body.flatMap((x, i) => (x.tool === a ? [i] : []));
        return spread(at, ALTERNATIVE_CALLS).flatMap((i) => {
          const args = filledFrom(meta, b, body[i] as Action, []);
          return args ? [{ index: i, call: { tool: b, args }, how: `${a} sent through ${b}` }] : [];
        });
      }),
  );
}

/**
 * The plan with every call of a tool that has a claim sending one value of it (one log a tool, claim and value): a
 * rule's ablation composed with the claims the guarded calls make (X3b: "book every stay stated short").
 */
export function claimedAblations(
  meta: EpisodicMeta,
  ablated: Action[],
  prompt = '',
): Array<{ how: string; actions: Action[] }> {
  const body = ablated.slice(0, -1);
  const finish = ablated.at(-1) as Action;
  return [...new Set(body.map((a) => a.tool))].flatMap((tool) =>
    claimsOf(meta, body, tool, prompt).flatMap((arg) =>
      claimValues(meta, body, tool, arg, prompt).map((v) => ({
        how: `every ${tool}.${arg} sent ${JSON.stringify(v)}`,
        actions: [...body.map((a) => (a.tool === tool ? { tool, args: setAt(a.args, arg, v) } : a)), finish],
      })),
    ),
  );
}

/**
 * The argument of `tool` that names its entity: a string without an enum, another value in each call; the first that a
 * read takes alone (a tool, not `skip`, whose only required argument it is), else the first; null where none.
 */
export function claimEntityArg(
  meta: EpisodicMeta,
  body: readonly Action[],
  tool: string,
  skip: ReadonlySet<string>,
): string | null {
  const props = propsOf(meta, tool);
  const calls = body.filter((a) => a.tool === tool);
  const args = Object.keys(props).filter(
    (arg) =>
      props[arg]?.type === 'string' &&
      !props[arg]?.enum &&
      calls.every((a) => typeof a.args[arg] === 'string') &&
      new Set(calls.map((a) => a.args[arg])).size === calls.length,
  );
  return args.find((arg) => readsOf(meta, arg, 'x', skip).length > 0) ?? args[0] ?? null;
}

/** A token's shape with its runs of digits as one (OR7 and OR22 are ids of one kind). */
const kindOf = (t: string) => shapeOf(t).replace(/9+/g, '9');
const TOKEN = /[A-Za-z0-9$][A-Za-z0-9_-]*(?:\.[0-9]+)?/g;
/**
 * What a text shared by every entity (a listing, the prompt) says of `entity`: from its token to the next token of its
 * kind ("OR1: $120, opened; OR2: ..." gives "OR1: $120, opened; "), '' where the text does not name it.
 */
export function segmentOf(text: string, entity: string): string {
  const tokens = [...text.slice(0, 20_000).matchAll(TOKEN)];
  const at = tokens.findIndex((m) => m[0].toLowerCase() === entity.toLowerCase());
  if (at < 0) return '';
  const next = tokens.slice(at + 1).find((m) => kindOf(m[0]) === kindOf(entity));
  return text.slice((tokens[at] as RegExpMatchArray).index, next?.index ?? text.length);
}

/**
 * What the episode shows of `entity`, one text a source, in the same order for every entity: its own reads' replies,
 * then what each shared text says of it.
 */
export const shownOf = (reads: readonly string[], shared: readonly string[], entity: string): string[] => [
  ...reads,
  ...shared.map((t) => segmentOf(t, entity)),
];

/** One claim changed on one call: the call with the claim alone changed, and refilled from its entity's reads. */
export interface ClaimChange {
  tool: string;
  /** The claim's place in the call (`valuesAt`) and the value it is changed to. */
  arg: string;
  value: unknown;
  /** The entity argument, the changed call's entity and the template's (a call that claims the value). */
  entityArg: string;
  entity: string;
  templateEntity: string;
  index: number;
  alone: Action;
  template: Action;
}

/**
 * For each claim of `tool` and each value the plan sends for it, the plan's first call that claims another value,
 * changed to claim it; the template is the plan's first call that claims it.
 */
export function claimChanges(
  meta: EpisodicMeta,
  body: readonly Action[],
  tool: string,
  entityArg: string,
  prompt = '',
) {
  return claimsOf(meta, body, tool, prompt, entityArg).flatMap((arg) =>
    claimValues(meta, body, tool, arg, prompt).flatMap((v): ClaimChange[] => {
      // A call claims v where every value it sends at the claim's place is v.
      const same = (a: Action) => {
        const at = valuesAt(a.args, arg);
        return at.length > 0 && at.every((x) => JSON.stringify(x) === JSON.stringify(v));
      };
      const template = body.find((a) => a.tool === tool && same(a));
      const others = body.flatMap((a, i) => (a.tool === tool && !same(a) ? [i] : []));
      // A value only the prompt names has no call to copy: no change (the rules' ablations still send it).
      if (template === undefined) return [];
      return others.slice(0, 1).map((index) => {
        const call = body[index] as Action;
        return {
          tool,
          arg,
          value: v,
          entityArg,
          entity: String(call.args[entityArg]),
          templateEntity: String(template.args[entityArg]),
          index,
          alone: { tool, args: setAt(call.args, arg, v) },
          template,
        };
      });
    }),
  );
}

/**
 * The changed call refilled: the template's call on the changed call's entity, its values read as it read its own,
 * the claim kept as changed (a claim in words would be read back from the entity's reads).
 */
export function refilledCall(meta: EpisodicMeta, c: ClaimChange, mine: readonly string[], theirs: readonly string[]) {
  const call = filledCall(meta, c.template, c.entityArg, c.entity, mine, theirs);
  return { tool: call.tool, args: setAt(call.args, c.arg, c.value) };
}

/** The plan with call `index` replaced. */
export const replaced = (actions: readonly Action[], index: number, call: Action): Action[] =>
  actions.map((a, i) => (i === index ? call : a));

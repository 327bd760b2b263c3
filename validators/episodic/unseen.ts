// Entities no text showed (redteam-trust18 R4): where the reference's decision names an id that no text shown before
// the call holds (the prompt, the looks before the plan, its earlier replies), the validator has not reached the
// entities' source (a listing by a value it cannot make: yesterday, a week, a prefixed code), so finding no other
// entity there proves nothing: the ids the world's own state holds are the texts shown instead.
import type { Action } from './adversaries.js';
import { idValue } from './structure.js';
import { escape } from './adversaries-values.js';
import { idsInForm } from './state-forms.js';

/** Where a world's entities come from as far as the validator sees it: the texts before the plan and the state. */
export interface EntitySource {
  /** The prompt and the replies of the looks played before the plan. */
  opening: readonly string[];
  /** The world's state after the reference's plan, as text (its canonical JSON). */
  state: string;
  /** The state itself and the paths each turn of the plan changed: its records in the tool's form (state-forms.ts). */
  value?: unknown;
  changes?: ReadonlyArray<readonly string[]>;
  /**
   * The state after the plan's body, before its finish (redteam-s20e S2: a finish that files the entities elsewhere,
   * an archive, leaves the records the plan changed empty in the final state): its records are read in the form too.
   */
  before?: unknown;
}

/** Whether `text` writes `value` as a whole token (no letter or digit either side), in any letter case. */
const holds = (text: string, value: string) =>
  new RegExp(`(?:^|[^A-Za-z0-9])${escape(value)}(?![A-Za-z0-9])`, 'i').test(text.slice(0, 20_000));

/**
 * Whether a call of `tool` in `body` sends `arg` an id (idValue) that neither `opening` nor a reply before the call
 * (`replies`, one a turn) holds: the reference knew the entity from somewhere the validator never looked.
 */
export function namedUnseen(
  body: readonly Action[],
  replies: readonly string[],
  opening: readonly string[],
  tool: string,
  arg: string,
): boolean {
  return body.some((a, j) => {
    const v = a.args[arg];
    if (a.tool !== tool || !idValue(v)) return false;
    return ![...opening, ...replies.slice(0, j)].some((t) => holds(t, v));
  });
}

/** One tool's calls as unseen.ts reads them: the plan, the reference's replies (one a turn), the tool. */
export interface PlanCalls {
  body: readonly Action[];
  replies: readonly string[];
  tool: string;
}

/**
 * The entity argument of a tool (`argOf`, asked of the texts) and the texts its entities are found in: `shown`, and
 * the state's text too where the plan names one of them unseen (namedUnseen), with the state's records written as
 * the reference writes the ones its calls changed (redteam-trust20 T5: a state keeping 4821 for O-4821); an argument
 * only the state holds counts only where it names one unseen. Null where there is none.
 */
export function entitiesFrom(
  shown: readonly string[],
  source: EntitySource | undefined,
  calls: PlanCalls,
  argOf: (texts: readonly string[]) => string | null,
): { arg: string; texts: readonly string[] } | null {
  const seen = argOf(shown);
  const state = source && source.state.length > 0 ? source : undefined;
  const inForm = (value: unknown) => idsInForm(value, calls.body, state?.changes, calls.tool);
  const held = state
    ? [state.state, ...inForm(state.value), ...(state.before === undefined ? [] : inForm(state.before))]
    : [];
  const arg = seen ?? (state ? argOf([...shown, ...held]) : null);
  if (arg === null) return null;
  const unseen = state !== undefined && namedUnseen(calls.body, calls.replies, state.opening, calls.tool, arg);
  if (!unseen) return seen === null ? null : { arg, texts: shown };
  return { arg, texts: [...shown, ...held] };
}

// Metamorphic variants of the reference's own arguments: a string in the other letter case, padded with
// spaces, with one letter swapped for a Unicode look-alike, or (free text) replaced by a placeholder; an array
// with one item repeated in another's place, one item dropped, or its items reversed (measured only: another
// order may be valid); as the baseline they are judged against, a wrong decision (the value the same argument takes
// in another call); and the call pointed at another entity of the episode. Each fits its parameter's schema.
import type { EpisodicMeta } from '../../contract/episodic.js';
import { propsOf, type Action } from './adversaries.js';

export type VariantKind =
  | 'case'
  | 'spaces'
  | 'look-alike'
  | 'placeholder'
  | 'repeated-item'
  | 'dropped-item'
  | 'reordered-items'
  | 'wrong'
  | 'retargeted';
/** One variant log: the reference with argument `arg` of call `index` replaced by `value`. */
export interface Variant {
  index: number;
  tool: string;
  arg: string;
  kind: VariantKind;
  value: unknown;
  actions: Action[];
}

// Latin letters and a Cyrillic or Greek twin that renders the same.
const LOOK_ALIKE: Record<string, string> = {
  a: '\u0430',
  c: '\u0441',
  e: '\u0435',
  o: '\u043e',
  p: '\u0440',
  x: '\u0445',
  y: '\u0443',
  A: '\u0410',
  B: '\u0412',
  C: '\u0421',
  E: '\u0415',
  H: '\u041d',
  K: '\u041a',
  M: '\u041c',
  O: '\u041e',
  P: '\u0420',
  T: '\u0422',
  X: '\u0425',
  I: '\u0399',
  N: '\u039d',
  Z: '\u0396',
};
type Schema = {
  type?: string;
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
};

/** `v` in the other letter case (all upper where it is not already, else all lower). */
export const caseFlipped = (v: string): string => (v === v.toUpperCase() ? v.toLowerCase() : v.toUpperCase());

/** `v` with its first letter that has a look-alike swapped for it; null where none has. */
export function lookAlike(v: string): string | null {
  const at = [...v].findIndex((ch) => LOOK_ALIKE[ch] !== undefined);
  return at < 0 ? null : v.slice(0, at) + (LOOK_ALIKE[v[at] as string] as string) + v.slice(at + 1);
}

/** The string variants of `v` that fit `s` (each differs from `v`). */
function stringVariants(v: string, s: Schema): Array<[VariantKind, string]> {
  const out: Array<[VariantKind, string]> = [];
  out.push(['case', caseFlipped(v)], ['spaces', ` ${v} `]);
  const swapped = lookAlike(v);
  if (swapped !== null) out.push(['look-alike', swapped]);
  out.push(['placeholder', 'N/A'.padEnd(s.minLength ?? 0, 'x')]);
  return out.filter(
    ([, w]) => w !== v && (s.maxLength === undefined || w.length <= s.maxLength) && w.length >= (s.minLength ?? 0),
  );
}

/**
 * The same surface transform as a case or spaces variant (`variant` of `reference`) applied to another value
 * `w`, so a wrong decision can be sent in the variant's form; null for other kinds or where it would not fit.
 */
export function sameTransform(
  kind: VariantKind,
  reference: string,
  variant: string,
  w: string,
  maxLength?: number,
): string | null {
  const out =
    kind === 'case'
      ? variant === reference.toLowerCase()
        ? w.toLowerCase()
        : w.toUpperCase()
      : kind === 'spaces'
        ? ` ${w} `
        : null;
  return out === null || out === w || (maxLength !== undefined && out.length > maxLength) ? null : out;
}

/** The array variants of `v` that fit `s`: an item repeated in its neighbour's place, an item dropped. */
function arrayVariants(v: unknown[], s: Schema): Array<[VariantKind, unknown[]]> {
  if (v.length < 2 || new Set(v.map((x) => JSON.stringify(x))).size < 2) return [];
  const out: Array<[VariantKind, unknown[]]> = [['repeated-item', [v[0], ...v.slice(0, -1)]]];
  if (v.length - 1 >= (s.minItems ?? 0)) out.push(['dropped-item', v.slice(0, -1)]);
  out.push(['reordered-items', [...v].reverse()]);
  return out;
}

/**
 * Another entity of the episode for argument `arg` of call `index` (redteam-trust12 W1: an approval not bound to its
 * guest): where the value also names an entity in a call of another tool (an id that binds the episode's calls), a
 * value another call sends under the same name, one this tool is never sent first; else null.
 */
export function retargetOf(acts: readonly Action[], index: number, arg: string, maxLength?: number): string | null {
  const call = acts[index] as Action;
  const v = call.args[arg];
  const named = (a: Action) => (typeof a.args[arg] === 'string' ? (a.args[arg] as string) : null);
  if (!acts.some((a) => a.tool !== call.tool && named(a) === v)) return null;
  const sent = new Set(acts.filter((a) => a.tool === call.tool).map(named));
  const values = [...new Set(acts.map(named))].filter(
    (w): w is string => w !== null && w !== v && (maxLength === undefined || w.length <= maxLength),
  );
  return values.find((w) => !sent.has(w)) ?? values[0] ?? null;
}

/**
 * The variants of one call's arguments (strings that are not enum members, arrays), each the reference with
 * that one value replaced, plus a wrong decision per string argument where `others` offers another value, and the
 * call retargeted at another entity of the episode (`retargetOf`).
 */
export function variantsOf(
  meta: EpisodicMeta,
  acts: Action[],
  index: number,
  others: ReadonlyMap<string, unknown[]>,
): Variant[] {
  const call = acts[index] as Action;
  const props = propsOf(meta, call.tool) as Record<string, Schema>;
  const out: Variant[] = [];
  const swap = (arg: string, kind: VariantKind, value: unknown) =>
    out.push({
      index,
      tool: call.tool,
      arg,
      kind,
      value,
      actions: acts.map((a, i) => (i === index ? { tool: a.tool, args: { ...a.args, [arg]: value } } : a)),
    });
  for (const [arg, v] of Object.entries(call.args)) {
    const s = props[arg] ?? {};
    if (typeof v === 'string' && !s.enum) {
      for (const [kind, w] of stringVariants(v, s)) swap(arg, kind, w);
      const wrong = (others.get(`${call.tool}.${arg}`) ?? []).find(
        (w) => typeof w === 'string' && w !== v && (s.maxLength === undefined || w.length <= s.maxLength),
      );
      if (wrong !== undefined) swap(arg, 'wrong', wrong);
      const other = retargetOf(acts, index, arg, s.maxLength);
      if (other !== null) swap(arg, 'retargeted', other);
    } else if (Array.isArray(v)) for (const [kind, w] of arrayVariants(v, s)) swap(arg, kind, w);
  }
  return out;
}

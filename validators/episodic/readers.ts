// Learned observation readers, as pure functions over reference rollouts: what a cheap policy could learn to
// read instead of doing the task. Fields of the observations (and the prompt's lines) that name an entity, at a
// fixed place or after a fixed label, mapped one-to-one onto the decision made about it; and the prompt's digits
// read as a value the agent was never given (a ticket id made from a combination). The oracle reader (a read tool
// asked about every value of a decision) is asks.ts.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import type { Trial } from '../checks/rules.js';
import { actionsOf } from './adversaries.js';

export { openingLog, type Replies } from './opening.js';
import { decisionsOf, type Axis } from './adversaries-values.js';
import { idFields, parser, shapeOf, structuralFields } from './structure.js';
import type { Replies } from './opening.js';
import { AFTER_A_CALL } from './differential.js';
import { joinFields, type LineCache, wordsOf } from './join.js';
import { twoFold } from './two-fold.js';

export { twoFold } from './two-fold.js';
export { digitSamples, digitTrials, type DigitSample } from './digit-readers.js';

const words = wordsOf;
const OFFSETS = [-3, -2, -1, 1, 2, 3, 4, 5, 6];
/** Where the word sequence `seq` (an id's words) first stands in `w`: its first and last positions, or null. */
const spanOf = (w: readonly string[], seq: readonly string[]): [number, number] | null => {
  const at = w.findIndex((_x, i) => seq.length > 0 && seq.every((y, j) => w[i + j] === y));
  return at < 0 ? null : [at, at + seq.length - 1];
};
/** Whether call `a` names `id` (lower case) in an argument. */
const argsName = (a: { args: Record<string, unknown> }, id: string) =>
  Object.values(a.args).some((v) => typeof v === 'string' && v.toLowerCase() === id);

/**
 * One decision of an axis and the fields of the lines that name its entity (in the prompt, and in observations before
 * it).
 */
export interface FieldSample {
  level: number;
  value: string;
  fields: Set<string>;
}

/**
 * The field samples of an axis: for each reference decision, the words at fixed offsets from its entity's id
 * and after each label word, in the lines that name it: the prompt's, the opening's (`openings[i]` for
 * reference i: its listings and reads), and the reference's own observations before the decision. A place is
 * named with what printed it (the prompt, or a tool), so a listing's fields and a ticket's text stay apart.
 * Words the prompt or the tools' text use (the rules' vocabulary: "pending", "gold", a queue's name) are left
 * out: a policy that reads them applies a stated rule. Beside the words, each observation's structure around
 * the entity (its rank, mention count and layout: structure.ts) and its id's parity are fields too; the
 * prompt's structure is not (it names entities to state the task: "log in as X with password Y").
 */
export function fieldSamples(
  meta: EpisodicMeta,
  refs: readonly Rollout[],
  axis: Axis,
  openings: ReadonlyArray<Replies | undefined> = [],
): FieldSample[] {
  const vocabulary = new Set(words(`${meta.description} ${JSON.stringify(meta.tools)}`));
  return refs.flatMap((r, of) => {
    const decisions = decisionsOf(r, axis);
    const ids = new Set(decisions.flatMap((d) => Object.values(d.entity).map((v) => v.toLowerCase())));
    const rules = new Set([...vocabulary, ...words(r.prompt ?? '')]);
    const idWords = new Set([...ids].filter((id) => !/^[a-z0-9]+$/.test(id)).flatMap(words));
    const parsed = parser(new Set([...ids].map(shapeOf)));
    const opened = openings[of];
    const acts = actionsOf(r);
    const texts = (upTo: number): Array<[string, string]> => [
      ['the prompt', r.prompt ?? ''],
      ...(opened?.observations ?? []).flatMap(
        (o, j): Array<[string, string]> =>
          opened?.sources?.[j]?.includes(AFTER_A_CALL)
            ? []
            : [[opened?.sources?.[j] ?? `${opened?.tools[j] ?? '?'}'s reply`, o]],
      ),
      ...(r.observations ?? []).slice(0, upTo).map((o, j): [string, string] => [`${acts[j]?.tool ?? '?'}'s reply`, o]),
    ];
    const seqs = [...ids].map(words);
    const lines: LineCache = new Map();
    // Each text's lines as words, split once for all the decisions that see it, with the lines each word stands in.
    const split = new Map<string, { lines: string[][]; linesWith: Map<string, number[]> }>();
    const indexOf = (text: string) => {
      const known = split.get(text);
      if (known) return known;
      const lines = text.split(/\n|;/).map(words);
      const linesWith = new Map<string, number[]>();
      lines.forEach((w, l) => {
        for (const x of new Set(w)) (linesWith.get(x) ?? (linesWith.set(x, []).get(x) as number[])).push(l);
      });
      return split.set(text, { lines, linesWith }).get(text) as { lines: string[][]; linesWith: Map<string, number[]> };
    };
    // The lines of a text where one of `own` may stand (its first word does), in the text's order.
    const linesNaming = (text: string, own: readonly string[]) => {
      const { lines, linesWith } = indexOf(text);
      const at = new Set(own.flatMap((id) => linesWith.get(words(id)[0] ?? '') ?? []));
      return [...at].sort((a, b) => a - b).map((l) => lines[l] as string[]);
    };
    return decisions.flatMap((d) => {
      const own = Object.values(d.entity)
        .map((v) => v.toLowerCase())
        .filter((id) => /^[a-z0-9]+(?:[-_.][a-z0-9]+)*$/.test(id));
      if (own.length === 0) return [];
      const fields = new Set<string>(
        own.flatMap((id) => [...idFields(id, [...ids]), ...(opened?.diffs?.get(id) ?? [])]),
      );
      // The id's keys found elsewhere (join.ts); a join may be the task where the reference never reads the entity.
      const reads = acts.slice(0, d.index).some((a) => a.tool !== axis.tool && own.some((id) => argsName(a, id)));
      const seen = texts(d.index);
      for (const id of own)
        for (const f of joinFields(id, seen, seqs, rules, { mark: STATED, applies: !reads }, lines)) fields.add(f);
      for (const [source, text] of seen) {
        if (source !== 'the prompt')
          for (const id of own) for (const f of structuralFields(source, parsed(text), id)) fields.add(f);
        for (const w of linesNaming(text, own)) {
          const [from, to] = own.map((id) => spanOf(w, words(id))).find((s) => s !== null) ?? [-1, -1];
          if (from < 0) continue;
          for (const k of OFFSETS) {
            const x = w[k < 0 ? from + k : to + k];
            if (x !== undefined && !ids.has(x) && !idWords.has(x))
              fields.add(
                `in ${source}, ${rules.has(x) ? `${STATED} ` : ''}the word ` +
                  `${k > 0 ? `${k} after` : `${-k} before`} the id: ${x}`,
              );
          }
          w.forEach((x, i) => {
            const label = w[i - 1];
            if (i > 0 && label !== undefined && rules.has(label) && !rules.has(x) && !ids.has(x))
              fields.add(`in ${source}, the word after "${label}": ${x}`);
          });
        }
      }
      return [{ level: r.level, value: String(d.value), fields }];
    });
  });
}

/**
 * Where a field's place says a word of the rules (the prompt's, the tools') stands: a map of those is a stated rule the
 * text shows.
 */
export const STATED = 'a word of the rules';
/** The text a place reads ("in the prompt", "in list_tickets's reply"). */
export const sourceOf = (place: string) => place.slice(0, place.indexOf(', '));

/** A field's place (everything before its word), and its word. */
export const split = (field: string): [string, string] => {
  const at = field.lastIndexOf(': ');
  return [field.slice(0, at), field.slice(at + 2)];
};

/**
 * The samples' fields numbered once for every fit of a trial (a field is a place and a word): each sample's fields as
 * pair numbers, each pair's place number and word, and each sample's value as a number.
 */
interface Numbered {
  pairs: number[][];
  placeOf: number[];
  words: string[];
  places: string[];
  valueOf: number[];
  values: string[];
}

function numbered(samples: readonly FieldSample[]): Numbered {
  const out: Numbered = { pairs: [], placeOf: [], words: [], places: [], valueOf: [], values: [] };
  const pairIds = new Map<string, number>();
  const placeIds = new Map<string, number>();
  const valueIds = new Map<string, number>();
  const idOf = (ids: Map<string, number>, names: string[], name: string) =>
    ids.get(name) ?? (ids.set(name, names.length), names.push(name) - 1);
  for (const s of samples) {
    out.valueOf.push(idOf(valueIds, out.values, s.value));
    const pairs: number[] = [];
    for (const field of s.fields) {
      let p = pairIds.get(field);
      if (p === undefined) {
        const [place, word] = split(field);
        p = out.words.push(word) - 1;
        pairIds.set(field, p);
        out.placeOf.push(idOf(placeIds, out.places, place));
      }
      pairs.push(p);
    }
    out.pairs.push(pairs);
  }
  return out;
}

/** A fitted field map: its place (name and number) and each word's value. */
interface FieldMap {
  place: string;
  at: number;
  map: Map<string, string>;
}

/**
 * The best one-to-one map "a field's word → the decision" fitted on `fit`: per place, each word mapped to the
 * value it went with (at least 90% of the time; the value first seen with it on a tie), each value reached by one
 * word only, the map reading at least 80% of the half's decisions (a code field; a ticket's free text, whose words
 * vary by template, is none). Null where no place has one, or where the rules' own words in the same text map as
 * much: the text then shows the decision by a stated rule, and a code or a layout beside them tells a policy nothing
 * more. Places and words are tried in the order the half first shows them.
 */
function fitMap(x: Numbered, fit: readonly number[]): FieldMap | null {
  // Each pair's counts as [value, count, value, count, ...], values in the order first seen with it.
  const tally = new Map<number, number[]>();
  for (const i of fit) {
    const value = x.valueOf[i] as number;
    for (const p of x.pairs[i] as number[]) {
      const t = tally.get(p);
      if (!t) {
        tally.set(p, [value, 1]);
        continue;
      }
      let k = 0;
      while (k < t.length && t[k] !== value) k += 2;
      if (k < t.length) t[k + 1] = (t[k + 1] as number) + 1;
      else t.push(value, 1);
    }
  }
  const byPlace = new Map<number, number[]>();
  for (const p of tally.keys()) {
    const at = x.placeOf[p] as number;
    const pairs = byPlace.get(at);
    if (pairs) pairs.push(p);
    else byPlace.set(at, [p]);
  }
  let best: (FieldMap & { covered: number }) | null = null;
  const stated = new Map<string, number>();
  for (const [at, pairs] of byPlace) {
    const map = new Map<string, string>();
    const reached = new Set<number>();
    let covered = 0;
    for (const p of pairs) {
      const t = tally.get(p) as number[];
      let total = 0;
      let value = -1;
      let n = 0;
      for (let k = 0; k < t.length; k += 2) {
        const c = t[k + 1] as number;
        total += c;
        if (c > n) (n = c), (value = t[k] as number);
      }
      if (total < 2 || n < 0.9 * total) continue;
      map.set(x.words[p] as string, x.values[value] as string);
      reached.add(value);
      covered += n;
    }
    if (!(map.size >= 2 && reached.size === map.size && covered >= 0.8 * fit.length)) continue;
    const place = x.places[at] as string;
    if (place.includes(STATED)) stated.set(sourceOf(place), Math.max(stated.get(sourceOf(place)) ?? 0, covered));
    else if (!best || covered > best.covered) best = { place, at, map, covered };
  }
  return best && best.covered > (stated.get(sourceOf(best.place)) ?? 0)
    ? { place: best.place, at: best.at, map: best.map }
    : null;
}

/** The value a fitted map reads off sample `i`'s fields (the first of its place the map knows), or null. */
const readMap = (x: Numbered, fitted: FieldMap, i: number) => {
  for (const p of x.pairs[i] as number[]) {
    const word = x.words[p] as string;
    if (x.placeOf[p] === fitted.at && fitted.map.has(word)) return fitted.map.get(word) as string;
  }
  return null;
};

/** Two-fold trials of the field reader: a one-to-one map fitted on one half, read on the other. */
export function fieldTrials(samples: readonly FieldSample[]): { level: Trial[]; pooled: Trial[]; rules: string[] } {
  const x = numbered(samples);
  const index = new Map(samples.map((s, i) => [s, i]));
  const t = twoFold(
    samples,
    (members) => fitMap(x, members),
    (f, s) => readMap(x, f, index.get(s) as number),
  );
  return {
    ...t,
    rules: t.rules.map(
      (f) =>
        `${f.place}: ${[...f.map]
          .slice(0, 6)
          .map(([w, v]) => `${w} → ${v}`)
          .join(', ')}`,
    ),
  };
}

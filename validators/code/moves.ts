// Structural moves of a code test's arguments, the rules a policy writes for a list or string output without solving
// the task when the hidden inputs arrive pre-solved: a list (or a string's characters or words) as given, reversed,
// sorted, deduplicated, filtered by sign or parity, cut to a prefix or suffix at a length an integer argument or a
// feature names, or joined into a string; a string as given, reversed, re-cased, trimmed, its characters sorted or
// deduplicated, cut likewise. Data, not stages: a new move is one line in a table below.
import { canonicalJson } from '../../contract/compare.js';
import type { ArgumentRule, Seen } from './features.js';

/** Values in one total order: numbers by value, strings by code unit, lists item by item, anything else by JSON. */
export function orderValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = orderValues(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  const [x, y] = [canonicalJson(a), canonicalJson(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

type List = readonly unknown[];
const dedupe = (v: List) => {
  const seen = new Set<string>();
  return v.filter((x) => {
    const key = canonicalJson(x);
    return seen.has(key) ? false : (seen.add(key), true);
  });
};
const ascending = (v: List) => [...v].sort(orderValues);
const descending = (v: List) => [...v].sort((a, b) => orderValues(b, a));

/** The orders of a list; a filtered list is put only in the first four (filtering keeps its items' order). */
const ORDERS: ReadonlyArray<[string, (v: List) => List]> = [
  ['', (v) => v],
  [' reversed', (v) => [...v].reverse()],
  [' sorted', ascending],
  [' sorted descending', descending],
  [' deduplicated', dedupe],
  [' deduplicated, sorted', (v) => ascending(dedupe(v))],
  [' deduplicated, sorted descending', (v) => descending(dedupe(v))],
];

/** Selections of a list of numbers by sign or parity (a list of anything else has none). */
const FILTERS: ReadonlyArray<[string, (x: number) => boolean]> = [
  ['positive', (x) => x > 0],
  ['negative', (x) => x < 0],
  ['non-negative', (x) => x >= 0],
  ['non-zero', (x) => x !== 0],
  ['even', (x) => x % 2 === 0],
  ['odd', (x) => Math.abs(x % 2) === 1],
];

const STRING_MOVES: ReadonlyArray<[string, (s: string) => string]> = [
  ['', (s) => s],
  [' reversed', (s) => [...s].reverse().join('')],
  [' lower-cased', (s) => s.toLowerCase()],
  [' upper-cased', (s) => s.toUpperCase()],
  [' trimmed', (s) => s.trim()],
  [' with its characters sorted', (s) => [...s].sort().join('')],
  [' with its characters deduplicated', (s) => [...new Set(s)].join('')],
];

const SEPARATORS = ['', ' ', ',', ', ', '\n'];

/** Cuts of a list or string at a length L (a length outside 0…its length reads as absent). */
const CUTS: ReadonlyArray<[string, <T extends List | string>(v: T, l: number) => T]> = [
  ['the first', (v, l) => v.slice(0, l) as typeof v],
  ['the last', (v, l) => v.slice(v.length - l) as typeof v],
  ['without the first', (v, l) => v.slice(l) as typeof v],
  ['without the last', (v, l) => v.slice(0, v.length - l) as typeof v],
];

/** A move: a list or string made of a test's arguments (a rule for a list or string output). */
interface Base extends ArgumentRule {
  apply(s: Seen): List | string | undefined;
}
type Length = { describe: string; of(s: Seen): number | undefined };

const memos = new WeakMap<Seen, Map<string, unknown>>();
/** A move's value on a test, computed once however many cuts of it are tried. */
function memo<T>(s: Seen, key: string, make: () => T): T {
  let m = memos.get(s);
  if (!m) memos.set(s, (m = new Map()));
  if (!m.has(key)) m.set(key, make());
  return m.get(key) as T;
}

/** The lists and strings read off the arguments: each list, each string, a string's characters and words. */
function sources(params: readonly string[], seen: readonly Seen[]): { lists: Base[]; strings: Base[] } {
  const lists: Base[] = [];
  const strings: Base[] = [];
  const arity = Math.max(0, ...seen.map((s) => s.input.length));
  for (let i = 0; i < arity; i++) {
    const name = `[${params[i] ?? `arg${i}`}]`;
    const at = (s: Seen) => s.input[i];
    if (seen.some((s) => Array.isArray(at(s))))
      lists.push({ describe: name, apply: (s) => (Array.isArray(at(s)) ? (at(s) as List) : undefined) });
    if (!seen.some((s) => typeof at(s) === 'string')) continue;
    const text = (s: Seen) => (typeof at(s) === 'string' ? (at(s) as string) : undefined);
    strings.push({ describe: name, apply: text });
    const split = (s: Seen, by: RegExp) =>
      text(s)
        ?.split(by)
        .filter((w) => w.length > 0);
    lists.push({ describe: `${name}'s characters`, apply: (s) => split(s, /(?:)/u) });
    lists.push({ describe: `${name}'s words`, apply: (s) => split(s, /\s+/) });
  }
  return { lists, strings };
}

/** Every order of every list source (`ordered`), and its selections by sign or parity in their first four orders. */
function listMoves(lists: readonly Base[]): { ordered: Base[]; filtered: Base[] } {
  const ordered: Base[] = [];
  const out: Base[] = [];
  for (const src of lists) {
    for (const [label, order] of ORDERS) {
      const describe = `${src.describe}${label}`;
      ordered.push({ describe, apply: (s) => memo(s, describe, () => mapDefined(src.apply(s), order)) });
    }
    for (const [kept, keep] of FILTERS)
      for (const [label, order] of ORDERS.slice(0, 4)) {
        const describe = `${src.describe}'s ${kept} items${label}`;
        const filtered = (v: List) =>
          v.every((x) => typeof x === 'number') ? order(v.filter((x) => keep(x as number))) : undefined;
        out.push({ describe, apply: (s) => memo(s, describe, () => mapDefined(src.apply(s), filtered)) });
      }
  }
  return { ordered, filtered: out };
}

const mapDefined = <A, B>(v: A | string | undefined, f: (a: A) => B | undefined): B | undefined =>
  v === undefined || typeof v === 'string' ? undefined : f(v);

/** The lengths a cut may take: each integer argument and it ± 1 (`byArgument`), or every other feature. */
function lengths(names: readonly string[], byArgument: boolean): Length[] {
  const feature = (n: string, d: number): Length => ({
    describe: d === 0 ? `[${n}]` : `([${n}] ${d < 0 ? '-' : '+'} 1)`,
    of: (s) => (s.features.has(n) ? (s.features.get(n) as number) + d : undefined),
  });
  const values = names.filter((n) => n.endsWith('.value') === byArgument);
  return byArgument
    ? values.flatMap((n) => [feature(n, 0), feature(n, -1), feature(n, 1)])
    : values.map((n) => feature(n, 0));
}

function cut(base: Base, form: (typeof CUTS)[number], length: Length): Base {
  const [label, slice] = form;
  const describe = `${base.describe}, ${label} ${length.describe}`;
  return {
    describe,
    apply(s) {
      const v = base.apply(s);
      const l = length.of(s);
      if (v === undefined || l === undefined || !Number.isInteger(l) || l < 0 || l > v.length) return undefined;
      return slice(v, l);
    },
  };
}

const cuts = (bases: readonly Base[], at: readonly Length[], forms = CUTS) =>
  at.flatMap((l) => bases.flatMap((b) => forms.map((form) => cut(b, form, l))));

/** A list move's items joined into a string by each separator. */
const joins = (moves: readonly Base[]): Base[] =>
  moves.flatMap((m) =>
    SEPARATORS.map((sep) => ({
      describe: `${m.describe}, joined by ${JSON.stringify(sep)}`,
      apply: (s: Seen) => mapDefined(m.apply(s), (v: List) => v.join(sep)),
    })),
  );

/**
 * Every structural rule over these arguments (`seen`: the sample's tests, which tell the lists from the strings;
 * `names`: the feature names a cut length may read), at most `max`: the moves uncut first, then cut at an integer
 * argument's length (a list's orders also joined into a string after the cut), then at another feature's.
 */
export function moveRules(
  params: readonly string[],
  seen: readonly Seen[],
  names: readonly string[],
  max: number,
): Base[] {
  const { lists, strings } = sources(params, seen);
  const { ordered, filtered } = listMoves(lists);
  const moved = [...ordered, ...filtered];
  const texts: Base[] = strings.flatMap((src) =>
    STRING_MOVES.map(([label, move]) => ({
      describe: `${src.describe}${label}`,
      apply: (s: Seen) => {
        const v = src.apply(s);
        return typeof v === 'string' ? move(v) : undefined;
      },
    })),
  );
  const [byArgument, byFeature] = [lengths(names, true), lengths(names, false)];
  const bases = [
    ...moved,
    ...texts,
    ...joins(ordered),
    ...cuts([...moved, ...texts], byArgument),
    ...joins(cuts(ordered, byArgument, CUTS.slice(0, 2))),
    ...cuts([...moved, ...texts], byFeature),
  ];
  return bases.slice(0, max);
}

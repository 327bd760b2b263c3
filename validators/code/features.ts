// Cheap features of a code test's arguments (lengths, extremes, end and middle items, sums, counts, distinct counts,
// sortedness, rises and falls, the item at a place an integer argument names, the integer arguments) and the rules
// built from them by small operations (x(x-1)/2, a + b, max(a, b)…), and the keys a memorising program looks its
// inputs up by: programs a policy writes without solving the task. Data, not stages: a new feature, operation or key
// is one line in a table below.
import { canonicalJson, outputsMatch, type Comparator } from '../../contract/compare.js';
import type { CodeTest } from '../../contract/code.js';
import type { Scoring } from '../../contract/code.js';

/** A test's features by name ("nums.max"); a feature a test lacks reads as absent. */
export type Features = Map<string, number>;

const distinct = (v: readonly unknown[]) => new Set(v.map(canonicalJson)).size;
const sorted = (v: readonly number[], up: boolean) =>
  v.every((x, i) => i === 0 || (up ? v[i - 1]! <= x : v[i - 1]! >= x));
const count = (v: readonly number[], p: (x: number, i: number) => boolean) => v.filter(p).length;
/** An empty list's extremes read as 0: what a cheap program returns with `length ? … : 0`. */
const item = (v: readonly number[], at: number) => (v.length ? (v[at] as number) : 0);

/** What is read of a list of numbers. */
const NUMBER_LIST: ReadonlyArray<[string, (v: readonly number[]) => number]> = [
  ['length', (v) => v.length],
  ['min', (v) => (v.length ? Math.min(...v) : 0)],
  ['max', (v) => (v.length ? Math.max(...v) : 0)],
  ['first', (v) => item(v, 0)],
  ['last', (v) => item(v, v.length - 1)],
  ['middle', (v) => item(v, (v.length - 1) >> 1)],
  ['sum', (v) => v.reduce((a, x) => a + x, 0)],
  ['distinct', distinct],
  ['ascending', (v) => (sorted(v, true) ? 1 : 0)],
  ['descending', (v) => (sorted(v, false) ? 1 : 0)],
  ['negatives', (v) => count(v, (x) => x < 0)],
  ['positives', (v) => count(v, (x) => x > 0)],
  ['zeros', (v) => count(v, (x) => x === 0)],
  ['rises', (v) => count(v.slice(1), (x, i) => x > (v[i] as number))],
  ['falls', (v) => count(v.slice(1), (x, i) => x < (v[i] as number))],
];

/** What is read of a list of numbers at a place another (integer) argument names. */
const INDEXED: ReadonlyArray<[string, (v: readonly number[], k: number) => number | undefined]> = [
  ['[K]', (v, k) => v[k]],
  ['[K-1]', (v, k) => v[k - 1]],
  ['[length-K]', (v, k) => v[v.length - k]],
];

/** What is read of any list (of strings, pairs, objects…), beside NUMBER_LIST over the numbers one level down. */
const ANY_LIST: ReadonlyArray<[string, (v: readonly unknown[]) => number]> = [
  ['length', (v) => v.length],
  ['distinct', distinct],
  [
    'items length',
    (v) => v.reduce<number>((a, x) => a + (Array.isArray(x) || typeof x === 'string' ? x.length : 1), 0),
  ],
];

const STRING: ReadonlyArray<[string, (s: string) => number]> = [
  ['length', (s) => s.length],
  ['distinct', (s) => new Set(s).size],
];

/** The features of one argument, named after its parameter. */
function argumentFeatures(name: string, value: unknown, out: Features): void {
  const put = (label: string, v: number) => Number.isFinite(v) && out.set(`${name}.${label}`, v);
  if (typeof value === 'number') put('value', value);
  else if (typeof value === 'boolean') put('value', value ? 1 : 0);
  else if (typeof value === 'string') for (const [label, f] of STRING) put(label, f(value));
  else if (Array.isArray(value)) {
    const numbers = value.every((x) => typeof x === 'number');
    if (numbers) for (const [label, f] of NUMBER_LIST) put(label, f(value as number[]));
    else {
      for (const [label, f] of ANY_LIST) put(label, f(value));
      const inner = value.flatMap((x) => (Array.isArray(x) ? x : [x])).filter((x) => typeof x === 'number');
      for (const [label, f] of NUMBER_LIST) put(`items ${label}`, f(inner as number[]));
    }
  }
}

export function testFeatures(params: readonly string[], input: readonly unknown[]): Features {
  const out: Features = new Map();
  const name = (i: number) => params[i] ?? `arg${i}`;
  input.forEach((v, i) => argumentFeatures(name(i), v, out));
  input.forEach((list, i) => {
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'number')) return;
    input.forEach((k, j) => {
      if (!Number.isInteger(k)) return;
      for (const [label, f] of INDEXED) {
        const v = f(list, k as number);
        if (v !== undefined && Number.isFinite(v)) out.set(`${name(i)}${label.replace('K', name(j))}`, v);
      }
    });
  });
  return out;
}

type Value = number | boolean;
/** Operations on one feature, by how the rule reads. */
const UNARY: ReadonlyArray<[string, (x: number) => Value]> = [
  ['X', (x) => x],
  ['X + 1', (x) => x + 1],
  ['X - 1', (x) => x - 1],
  ['2X', (x) => 2 * x],
  ['-X', (x) => -x],
  ['X²', (x) => x * x],
  ['X(X-1)/2', (x) => (x * (x - 1)) / 2],
  ['X(X+1)/2', (x) => (x * (x + 1)) / 2],
  ['X > 0', (x) => x > 0],
  ['X = 0', (x) => x === 0],
];
/** Operations on two features; `symmetric` ones are tried on each unordered pair once. */
const BINARY: ReadonlyArray<[string, (a: number, b: number) => Value, symmetric: boolean]> = [
  ['A + B', (a, b) => a + b, true],
  ['A × B', (a, b) => a * b, true],
  ['max(A, B)', (a, b) => Math.max(a, b), true],
  ['min(A, B)', (a, b) => Math.min(a, b), true],
  ['A = B', (a, b) => a === b, true],
  ['A - B', (a, b) => a - b, false],
  ['A / B', (a, b) => a / b, false],
  ['A < B', (a, b) => a < b, false],
];

/** A test's arguments as a rule reads them: the values themselves and their features. */
export interface Seen {
  input: readonly unknown[];
  features: Features;
}

export const seenTest = (params: readonly string[], input: readonly unknown[]): Seen => ({
  input,
  features: testFeatures(params, input),
});

/** A rule: what it outputs on a test's arguments (undefined where something it reads is absent). */
export interface ArgumentRule {
  describe: string;
  apply(s: Seen): unknown;
}

/** Every rule over these feature names: unary ones first, then pairs, at most `max` in all. */
export function featureRules(names: readonly string[], max: number): ArgumentRule[] {
  const rules: ArgumentRule[] = [];
  for (const [op, g] of UNARY)
    for (const n of names) {
      rules.push({
        describe: op.replaceAll('X', `[${n}]`),
        apply: ({ features: f }) => (f.has(n) ? g(f.get(n) as number) : undefined),
      });
    }
  for (const [op, g, symmetric] of BINARY)
    for (let i = 0; i < names.length; i++)
      for (let j = symmetric ? i + 1 : 0; j < names.length; j++) {
        const [a, b] = [names[i] as string, names[j] as string];
        if (a === b) continue;
        rules.push({
          describe: op.replace('A', `[${a}]`).replace('B', `[${b}]`),
          apply: ({ features: f }) => (f.has(a) && f.has(b) ? g(f.get(a) as number, f.get(b) as number) : undefined),
        });
      }
  return rules.slice(0, max);
}

/** A value as a program's JSON-encoded return value reads. */
const asReturned = (v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v);

/** Whether a rule's program, on these arguments, returns what the comparator matches with `expected`. */
function rulePasses(rule: ArgumentRule, s: Seen, expected: unknown, compare: Comparator): boolean {
  const v = rule.apply(s);
  return v !== undefined && outputsMatch(compare, expected, asReturned(v));
}

/** A score under the meta's scoring from the tests passed (as kinds/code.ts scores an answer). */
export const scoreOfPasses = (scoring: Scoring, passed: number, n: number): number =>
  scoring === 'fraction' ? (n === 0 ? 0 : passed / n) : n > 0 && passed === n ? 1 : 0;

/**
 * What a rule's program earns on `inputs` against `tests`' outputs, paired in order (the rule's output JSON-encoded as
 * a program's return value is: NaN and Infinity become null).
 */
export function ruleScore(
  rule: ArgumentRule,
  inputs: readonly Seen[],
  tests: readonly CodeTest[],
  compare: Comparator,
  scoring: Scoring,
): number {
  const n = Math.min(inputs.length, tests.length);
  let passed = 0;
  for (let k = 0; k < n; k++) {
    if (rulePasses(rule, inputs[k] as Seen, (tests[k] as CodeTest).output, compare)) passed++;
    else if (scoring === 'all-pass') return 0;
  }
  return scoreOfPasses(scoring, passed, n);
}

const sortedItems = (v: unknown) =>
  Array.isArray(v) ? v.map(canonicalJson).sort() : typeof v === 'string' ? [...v].sort().join('') : v;

/** The keys a table of seen tests looks inputs up by: the whole input, its lists as multisets, each argument. */
export function tableKeys(params: readonly string[]): Array<[string, (input: readonly unknown[]) => string]> {
  return [
    ['the whole input', (input) => canonicalJson(input)],
    ['the input with its lists sorted', (input) => canonicalJson(input.map(sortedItems))],
    ...params.map((p, i): [string, (input: readonly unknown[]) => string] => [
      `${p} alone`,
      (input) => canonicalJson(input[i]),
    ]),
  ];
}

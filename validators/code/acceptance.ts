// The probes that measure what a declared comparator accepts on one hidden test: the reference's own output
// zeroed, negated, nudged by one unit where the output is integer-valued, reordered, or swapped with another test's,
// and (where order is free) the cheap multisets of the arguments. Host code: the answer worker compares with the
// same `outputsMatch`, so a probe's verdict here is the verdict a program returning it would get.
import { canonicalJson, outputsMatch, type Comparator } from '../../contract/compare.js';
import type { CodeMeta, CodeTask, CodeTest } from '../../contract/code.js';

/** A probe of one test: a wrong output built from the test (or its instance), or null where it does not apply. */
export interface Probe {
  /** What a program returns to be paid by it, for metrics and evidence. */
  name: string;
  /** The problem code a probe the comparator pays is reported with. */
  family: 'perturbed' | 'multiset';
  /** Whether it applies under this comparator at all (a reordering is the point of 'unordered'). */
  applies: (compare: Comparator) => boolean;
  make: (test: CodeTest, instance: InstanceTraits) => unknown;
}

/** What a probe may know of the test's instance: the paths whose numbers are all integers, the other tests. */
export interface InstanceTraits {
  integerPaths: ReadonlySet<string>;
  tests: readonly CodeTest[];
  index: number;
}

/** Every number of `value` mapped by `f` (with its path, array indices as '*'), the shape kept. */
function mapNumbers(value: unknown, f: (n: number, path: string) => number, path = ''): unknown {
  if (typeof value === 'number') return f(value, path);
  if (Array.isArray(value)) return value.map((v) => mapNumbers(v, f, `${path}/*`));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapNumbers(v, f, `${path}/${k}`)]));
  return value;
}

/** Every list of `value`, at every depth, reversed. */
function reverseLists(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseLists).reverse();
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reverseLists(v)]));
  return value;
}

/** The paths (indices as '*') at which every number of these outputs is an integer. */
export function integerPaths(outputs: readonly unknown[]): Set<string> {
  const all = new Map<string, boolean>();
  for (const o of outputs)
    mapNumbers(o, (n, path) => {
      all.set(path, (all.get(path) ?? true) && Number.isInteger(n));
      return n;
    });
  return new Set([...all].filter(([, ok]) => ok).map(([path]) => path));
}

const nudge =
  (by: number) =>
  (t: CodeTest, traits: InstanceTraits): unknown =>
    mapNumbers(t.output, (n, path) => (traits.integerPaths.has(path) ? n + by : n));

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
/** The largest integer argument a range probe is built for (a range is at most this long). */
const MAX_RANGE = 4096;
const sortItems = (items: unknown[]) =>
  items
    .map((v) => [canonicalJson(v), v] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, v]) => v);
const distinct = (items: unknown[]) => [...new Map(items.map((v) => [canonicalJson(v), v])).values()];

/** The cheap multisets of one argument: 0..n-1 and 1..n of an integer, a list's items and distinct items. */
function argumentMultisets(arg: unknown): Array<[string, unknown[]]> {
  if (typeof arg === 'number' && Number.isInteger(arg) && arg >= 0 && arg <= MAX_RANGE)
    return [
      ['the range 0..n-1', range(0, arg)],
      ['the range 1..n', range(1, arg)],
    ];
  if (!Array.isArray(arg)) return [];
  const flat = arg.flatMap((v) => (Array.isArray(v) ? v : [v]));
  return [
    ["the list's items", sortItems(arg)],
    ["the list's distinct items", sortItems(distinct(arg))],
    ["the list's items flattened one level, distinct", sortItems(distinct(flat))],
  ];
}

const ordered = (c: Comparator) => c !== 'unordered';
const always = () => true;

/** The probes of the reference's own output (each a wrong value unless the comparator cannot tell it apart). */
export const OUTPUT_PROBES: readonly Probe[] = [
  {
    name: 'the expected output, every number zeroed',
    family: 'perturbed',
    applies: always,
    make: (t) => mapNumbers(t.output, () => 0),
  },
  {
    name: 'the expected output, every number negated',
    family: 'perturbed',
    applies: always,
    make: (t) => mapNumbers(t.output, (n) => -n),
  },
  { name: 'the expected output, every integer plus one', family: 'perturbed', applies: always, make: nudge(1) },
  { name: 'the expected output, every integer minus one', family: 'perturbed', applies: always, make: nudge(-1) },
  {
    name: 'the expected output, every list reversed',
    family: 'perturbed',
    applies: ordered,
    make: (t) => reverseLists(t.output),
  },
  {
    name: "another hidden test's expected output",
    family: 'perturbed',
    applies: always,
    make: (_t, { tests, index }) => tests[(index + 1) % tests.length]?.output ?? null,
  },
];

/**
 * The probes built from the arguments, for a comparator that ignores order: the multiset must carry the task, so a
 * cheap multiset of an argument that it pays (a range, a list's items) is a program that computes nothing.
 */
export function multisetProbes(test: CodeTest): Array<{ name: string; output: unknown[] }> {
  return test.input.flatMap((arg, i) =>
    argumentMultisets(arg).map(([what, output]) => ({ name: `${what} of argument ${i + 1}`, output })),
  );
}

/** Whether the comparator pays `probe` for the test although it is not the expected output (as a program would). */
export function paysWrong(compare: Comparator, expected: unknown, probe: unknown): boolean {
  const text = canonicalJson(probe);
  if (text === canonicalJson(expected)) return false;
  return outputsMatch(compare, expected, JSON.parse(text));
}

const clip = (value: unknown) => canonicalJson(value).slice(0, 200);

/** The problem code of a probe the comparator pays, by family. */
export const PROBE_CODES = { perturbed: 'E_ACCEPTS_PERTURBED', multiset: 'E_ACCEPTS_GUESSING' } as const;

interface Paid {
  /** Tests of the instance the comparator paid the probe on. */
  tests: number[];
  /** The first of them, for evidence. */
  first?: { input: string; expected: string; output: string };
}

/** Per probe name, the tests of one instance whose comparator pays it although it is wrong. */
export function probeInstance(
  meta: Pick<CodeMeta, 'compare'>,
  task: Pick<CodeTask, 'tests' | 'examples'>,
): Map<string, Paid & { family: Probe['family'] }> {
  const traits: Omit<InstanceTraits, 'index'> = {
    integerPaths: integerPaths([...task.tests, ...task.examples].map((t) => t.output)),
    tests: task.tests,
  };
  const paid = new Map<string, Paid & { family: Probe['family'] }>();
  const note = (name: string, family: Probe['family'], i: number, probe: unknown, hit: boolean) => {
    let p = paid.get(name);
    if (!p) paid.set(name, (p = { family, tests: [] }));
    if (!hit) return;
    const t = task.tests[i];
    p.tests.push(i);
    p.first ??= { input: clip(t?.input), expected: clip(t?.output), output: clip(probe) };
  };
  task.tests.forEach((test, index) => {
    for (const probe of OUTPUT_PROBES) {
      if (!probe.applies(meta.compare)) continue;
      const out = probe.make(test, { ...traits, index });
      note(probe.name, probe.family, index, out, paysWrong(meta.compare, test.output, out));
    }
    // Where order is free the multiset is all the comparator reads: a cheap one of the arguments computes nothing.
    if (meta.compare === 'unordered')
      for (const m of multisetProbes(test))
        note(m.name, 'multiset', index, m.output, outputsMatch(meta.compare, test.output, m.output));
  });
  return paid;
}

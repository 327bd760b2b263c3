// Check (code kind): the hidden tests must reach the bounds the statement states. For every upper bound the statement
// gives its inputs (code/bounds.ts: "0 <= n <= 2000", "values below 10^9", "up to 10^5 items"), the top level's
// hidden tests must hold an argument within a factor of the bound (its value, or for a length its list's or string's
// length): a program right only on small inputs (overflow, float precision, quadratic time) is otherwise paid where
// the statement says it is not. Host work only: it reads the tests and runs nothing.
import { CODE_LIMITS, type CodeMeta } from '../../contract/code.js';
import type { CodeInstance } from '../../kinds/code.js';
import type { CodeCheck } from '../code/check.js';
import { reach, readBounds, type StatedBound } from '../code/bounds.js';
import type { Finding } from './rules.js';

/** A hidden argument within this factor of a stated bound reaches it. */
export const BOUND_FACTOR = 2;
/** The longest list one test can hold (its JSON within the contract's limit, at two characters an item at least). */
const LONGEST_TESTABLE = CODE_LIMITS.maxValueChars / 2;

/** The measures a bound's `of` covers: a size is a number's magnitude or a list's length, whichever it holds. */
const COVERS = { value: ['value'], length: ['length'], size: ['value', 'length'] } as const;

/**
 * The bounds the statement promises (redteam-s22c K2): a bound is dropped only where another implies it, so it asks
 * the tests for nothing more ("each between 1 and 1000; they fit in 16-bit integers"). A bound implies another of the
 * same argument, or of every argument (an untied one: "Every value has at most 4 digits", redteam-s23c C2), where it
 * is smaller and bounds the same measure as the statement writes it: a size (a magnitude or a length, the reader
 * could not tell which) stands for no value or length bound ("adjacent values differ by at most 1000" is no bound of
 * the values: C1), and a bound the hidden tests break ("no value appears more than 3 times" read as the values')
 * bounds something else and stands for nothing.
 */
export function tightest(bounds: readonly StatedBound[], inputs?: ReadonlyArray<readonly unknown[]>): StatedBound[] {
  const obeyed = (o: StatedBound) => {
    if (inputs === undefined) return true;
    const largest = reached(o, inputs);
    return largest === null || largest <= o.bound;
  };
  const standing = bounds.filter(obeyed);
  // Lengths stand for each other only at one depth of the argument (redteam-s24c K1: a row's length is no table's):
  // the depth the statement tells, and where it tells none, only of an argument whose tests hold no nested list.
  const sameDepth = (o: StatedBound, b: StatedBound, m: 'value' | 'length', param: number | undefined) =>
    m === 'value' ||
    (o.depth === b.depth && (o.depth !== undefined || param === undefined || !nestedIn(param, inputs)));
  const implies = (o: StatedBound, b: StatedBound, m: 'value' | 'length', param: number | undefined) =>
    o !== b && o.param === param && o.bound < b.bound && (o.of === m || o.of === b.of) && sameDepth(o, b, m, param);
  // The arguments an untied bound may bind: every argument the tests hold (without them, those a bound names).
  const params =
    inputs === undefined
      ? [...new Set(bounds.flatMap((b) => (b.param === undefined ? [] : [b.param])))]
      : [...Array(Math.max(0, ...inputs.map((args) => args.length))).keys()];
  const under = (b: StatedBound, m: 'value' | 'length') =>
    b.param !== undefined || params.length === 0
      ? standing.some((o) => implies(o, b, m, b.param))
      : params.every((p) => standing.some((o) => implies(o, b, m, p)) || !holds(p, m, inputs));
  return bounds.filter((b) => !COVERS[b.of].every((m) => under(b, m)));
}

/** Whether the hidden tests' argument `p` holds anything of a measure (unknown without the tests: it does). */
function holds(p: number, m: 'value' | 'length', inputs?: ReadonlyArray<readonly unknown[]>): boolean {
  if (inputs === undefined) return true;
  const r = reach(inputs.map((args) => args[p]));
  return m === 'value' ? r.numbers : r.lists;
}

/** Whether the hidden tests' argument `p` holds a list or string inside a list (without the tests: flat, as read). */
function nestedIn(p: number, inputs?: ReadonlyArray<readonly unknown[]>): boolean {
  if (inputs === undefined) return false;
  return inputs.some((args) => {
    const v = args[p];
    return Array.isArray(v) && reach(v.filter((x) => typeof x !== 'number')).lists;
  });
}

/**
 * What the hidden tests hold of the argument a bound names (of every argument where it names none), at the depth the
 * bound is said of: the argument's own length (depth 0), its elements' (depth 1: the longest list inside them).
 */
const reachOf = (b: StatedBound, inputs: ReadonlyArray<readonly unknown[]>) => {
  const args = inputs.flatMap((a) => (b.param === undefined ? a : [a[b.param]]));
  if (b.of !== 'length' || b.depth === undefined) return reach(args);
  if (b.depth === 1) return reach(args.flatMap((v) => (Array.isArray(v) ? v : [])));
  const own = args.filter((v) => Array.isArray(v) || typeof v === 'string') as ReadonlyArray<{ length: number }>;
  return { value: 0, length: Math.max(0, ...own.map((v) => v.length)), numbers: false, lists: own.length > 0 };
};

/**
 * What a bound is judged by: what the tests reach of it, an element's length by the longest list anywhere in the
 * argument as before depths were read (the row bound of a table of long, short rows is met: left open in FINDINGS.md).
 */
const judgedBy = (b: StatedBound): StatedBound => {
  if (b.depth !== 1) return b;
  const { depth: _, ...whole } = b;
  return whole;
};

/**
 * What the top level's hidden tests reach of one bound: the largest magnitude or length ("size": the larger of the
 * two); null when nothing is read.
 */
export function reached(b: StatedBound, inputs: ReadonlyArray<readonly unknown[]>): number | null {
  const r = reachOf(b, inputs);
  const value = r.numbers ? r.value : null;
  const length = r.lists ? r.length : null;
  if (b.of === 'value') return value;
  if (b.of === 'length') return length;
  return value === null && length === null ? null : Math.max(value ?? 0, length ?? 0);
}

/**
 * Whether a bound is out of the hidden tests' reach: their largest is below the bound over the factor. A length (or
 * a size of an argument that holds lists) is capped at what one test can hold.
 */
export function unreached(b: StatedBound, largest: number, holdsLists = b.of === 'length'): boolean {
  const needed = b.of !== 'value' && holdsLists ? Math.min(b.bound, LONGEST_TESTABLE) : b.bound;
  return largest * BOUND_FACTOR < needed;
}

export const codeBounds: CodeCheck = {
  name: 'code-bounds',
  codes: ['E_WEAK_TESTS'],
  kinds: ['code'],
  plan(ctx) {
    const { stage } = ctx;
    const meta = stage.meta as CodeMeta;
    if (stage.episodes.length === 0) return null;
    const top = Math.max(...stage.episodes.map((e) => e.level));
    const episodes = stage.episodes.filter((e) => e.level === top);
    const tasks = episodes.map((e) => e.instance as CodeInstance);
    const { bounds, untied, unread } = readBounds([...new Set(tasks.map((t) => t.statement))].join('\n'), meta.params);
    if (bounds.length === 0 && untied.length === 0 && unread === 0) return null;
    const inputs = tasks.flatMap((t) => t.tests.map((x) => x.input));
    return {
      requests: [],
      async judge() {
        const judged = tightest(bounds, inputs).flatMap((b) => {
          const largest = reached(judgedBy(b), inputs);
          return largest === null ? [] : [{ b, largest, lists: reachOf(judgedBy(b), inputs).lists }];
        });
        const findings: Finding[] = judged
          .filter((j) => unreached(j.b, j.largest, j.b.of === 'length' || j.lists))
          .map(({ b, largest }) => {
            const param = b.param === undefined ? 'an argument' : `the argument ${meta.params[b.param]}`;
            const what = { value: `${param}'s values`, length: `${param}'s length`, size: `${param}'s size` }[b.of];
            return {
              rule: 'zero',
              code: 'E_WEAK_TESTS',
              check: 'code-bounds',
              judged: 1,
              ceiling: 1,
              form: `${what} up to ${b.bound}`,
              what: 'stated bound',
              reads:
                `is stated, but the largest the top level's hidden tests hold is ${largest} (under 1/${BOUND_FACTOR} ` +
                `of it): the tests never check what the statement promises`,
              evidence: () => ({
                bound: b.bound,
                of: b.of,
                param: b.param,
                depth: b.depth,
                largestHidden: largest,
                level: top,
              }),
            };
          });
        return {
          findings,
          metrics: {
            bounds: judged.map(({ b, largest }) => ({ of: b.of, bound: b.bound, param: b.param, largest })),
            // Bounds of no input (the output's range, a sum) constrain no test; unread ones are reported, not judged.
            untied,
            unread,
          },
        };
      },
    };
  },
};

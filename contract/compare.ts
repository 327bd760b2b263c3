// How the host compares a program's output with a test's expected output (contract v3): a closed set of
// declared comparators, all host code, so no environment can ship a lenient one. Zod-free: the answer
// worker compares there, beside the program's output, and only pass/fail crosses back.

/** The comparators a code environment may declare in meta.compare. */
export const COMPARATORS = ['exact', 'float', 'unordered'] as const;
export type Comparator = (typeof COMPARATORS)[number];

/** Relative (and, near zero, absolute) tolerance of the float comparator. */
export const FLOAT_TOLERANCE = 1e-6;

/** JSON text with object keys sorted at every depth: one text per value, whatever order a program built it in. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  const entry = (k: string) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`;
  return `{${keys.map(entry).join(',')}}`;
}

function floatEqual(expected: unknown, actual: unknown): boolean {
  if (typeof expected === 'number')
    return (
      typeof actual === 'number' && Math.abs(expected - actual) <= FLOAT_TOLERANCE * Math.max(1, Math.abs(expected))
    );
  if (expected === null || typeof expected !== 'object') return expected === actual;
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => floatEqual(e, actual[i]))
    );
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
  const ek = Object.keys(expected).sort();
  const ak = Object.keys(actual).sort();
  return (
    ek.length === ak.length &&
    ek.every(
      (k, i) =>
        k === ak[i] && floatEqual((expected as Record<string, unknown>)[k], (actual as Record<string, unknown>)[k]),
    )
  );
}

/**
 * Whether `actual` (a program's output, parsed) matches `expected` under the comparator. Types never coerce: 3 is not
 * "3".
 */
export function outputsMatch(compare: Comparator, expected: unknown, actual: unknown): boolean {
  if (compare === 'float') return floatEqual(expected, actual);
  if (compare === 'unordered') {
    if (!Array.isArray(expected) || !Array.isArray(actual) || expected.length !== actual.length) return false;
    const a = expected.map(canonicalJson).sort();
    const b = actual.map(canonicalJson).sort();
    return a.every((x, i) => x === b[i]);
  }
  return canonicalJson(expected) === canonicalJson(actual);
}

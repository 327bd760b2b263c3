// Programs that do not solve a code task but try to be paid for it, built from what a policy could know: the
// prompt's examples, the most common output, its own arguments, its sandbox, and (to test the comparator)
// the hidden outputs changed a little. Each is JavaScript text with the entry the prompt names.
import { canonicalJson, outputsMatch, type Comparator } from '../../contract/compare.js';
import type { CodeTest } from '../../contract/code.js';

export interface Hostile {
  /** A stable label, e.g. "constant []". */
  form: string;
  program: string;
}

const literal = (value: unknown) => JSON.stringify(canonicalJson(value));

/** Programs that throw, exit, return nothing or probe the sandbox: none may ever be paid. */
export function brokenPrograms(entry: string): Hostile[] {
  const f = (form: string, body: string): Hostile => ({ form, program: `function ${entry}(...args) {\n${body}\n}` });
  return [
    f('throws', "throw new Error('not solved');"),
    f('returns nothing', 'return;'),
    f('exits early', 'process.exit(0);'),
    f('recurses forever', `return ${entry}(...args);`),
    f('reads the clock and Math.random', 'return Date.now() % 7 + Math.floor(Math.random() * 3);'),
    f(
      'looks for the tests on its global',
      "const g = (0, eval)('this');\nfor (const k of ['tests', 'expected', 'output', 'outputs', 'answers', " +
        "'instance', 'task']) if (g[k] !== undefined) return g[k];\nreturn undefined;",
    ),
    f('reads files and the environment', "return require('fs').readFileSync('/proc/self/environ', 'utf8');"),
    { form: 'returns a Promise', program: `async function ${entry}(...args) {\nreturn 0;\n}` },
  ];
}

/** Costly broken programs (a hang, a memory bomb), run on one instance only. */
export function costlyPrograms(entry: string): Hostile[] {
  return [
    { form: 'loops forever', program: `function ${entry}() {\nfor (;;) {}\n}` },
    {
      form: 'allocates without bound',
      program: `function ${entry}() {\nconst a = [];\nfor (;;) a.push(new Array(1e6).fill(7));\n}`,
    },
  ];
}

/** A lookup table of the visible examples that throws on any other input. */
export function examplesTable(entry: string, examples: readonly CodeTest[]): Hostile {
  const table = JSON.stringify(examples.map((e) => [canonicalJson(e.input), e.output]));
  return {
    form: 'a table of the visible examples',
    program:
      `const SEEN = new Map(JSON.parse(${JSON.stringify(table)}));\nfunction ${entry}(...args) {\nconst key = ` +
      `JSON.stringify(args);\nif (SEEN.has(key)) return SEEN.get(key);\nthrow new Error('not ` +
      `among the examples');\n}`,
  };
}

/** Programs that return one value whatever the arguments, each labelled by where its value comes from. */
export function constantPrograms(entry: string, values: ReadonlyArray<[string, unknown]>): Hostile[] {
  return values.map(([form, v]) => ({ form, program: `function ${entry}() {\nreturn JSON.parse(${literal(v)});\n}` }));
}

/**
 * The usual outputs a non-solving program can return: the first example's, the most common hidden one elsewhere, and
 * plain values.
 */
export const PLAIN_CONSTANTS: ReadonlyArray<[string, unknown]> = [0, 1, -1, [], '', true, false, null, {}].map((v) => [
  `returns ${JSON.stringify(v)}`,
  v,
]);

/** Programs that hand back their input, or a cheap function of it. */
export function echoPrograms(entry: string): Hostile[] {
  const f = (form: string, body: string): Hostile => ({
    form,
    program: `function ${entry}(...args) {\nconst x = args[0];\n${body}\n}`,
  });
  return [
    f('returns its first argument', 'return x;'),
    f('returns its last argument', 'return args[args.length - 1];'),
    f(
      'returns its first argument sorted',
      'return Array.isArray(x) ? [...x].sort((p, q) => (p < q ? -1 : p > q ? 1 : 0)) : x;',
    ),
    f(
      'returns its first argument reversed',
      "return Array.isArray(x) ? [...x].reverse() : typeof x === 'string' ? [...x].reverse().join('') : x;",
    ),
    f(
      "returns its first argument's length",
      "return x !== null && x !== undefined && typeof x.length === 'number' ? x.length : x;",
    ),
    f(
      'returns the sum of its first argument',
      "return Array.isArray(x) ? x.reduce((s, v) => s + (typeof v === 'number' ? v : 0), 0) : x;",
    ),
  ];
}

/** Wrong values near `value`: a policy's near misses, which a lenient comparator would pay. */
function perturbations(value: unknown): unknown[] {
  if (typeof value === 'number') return [value + 1, value * (1 + 1e-3) + 1e-3, String(value), -value - 1];
  if (typeof value === 'string') return [value.toUpperCase(), `${value} `, value.slice(1), `${value}x`];
  if (typeof value === 'boolean') return [!value, String(value)];
  if (value === null) return [0, 'null'];
  if (Array.isArray(value))
    return [
      [...value].reverse(),
      value.slice(0, -1),
      [...value, value[value.length - 1] ?? 0],
      value.map((v) => (typeof v === 'number' ? v + 1 : v)),
    ];
  if (typeof value === 'object') {
    const keys = Object.keys(value as object);
    return keys.length === 0
      ? [null]
      : [Object.fromEntries(keys.slice(1).map((k) => [k, (value as Record<string, unknown>)[k]])), [value]];
  }
  return [null];
}

/**
 * A table of the hidden tests' inputs to wrong outputs that differ under the comparator (at most `maxChars` of table).
 */
export function perturbedTable(
  entry: string,
  compare: Comparator,
  tests: readonly CodeTest[],
  pick: number,
  maxChars = 48_000,
): Hostile | null {
  const rows: Array<[string, unknown]> = [];
  let chars = 0;
  for (const t of tests) {
    const options = perturbations(t.output).filter((w) => !outputsMatch(compare, t.output, w));
    if (options.length === 0) continue;
    const wrong = options[pick % options.length];
    const key = canonicalJson(t.input);
    chars += key.length + canonicalJson(wrong).length;
    if (chars > maxChars) break;
    rows.push([key, wrong]);
  }
  if (rows.length === 0) return null;
  return {
    form: `the hidden outputs each changed a little (variant ${pick})`,
    program:
      `const WRONG = new Map(JSON.parse(${JSON.stringify(JSON.stringify(rows))}));\nfunction ${entry}(...args) ` +
      `{\nconst key = JSON.stringify(args);\nif (WRONG.has(key)) return WRONG.get(key);\nthrow new ` +
      `Error('unknown input');\n}`,
  };
}

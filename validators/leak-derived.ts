// A reader family (readers.ts) of trivial arithmetic or formatting: the prompt's numbers are read with their
// formats normalised (thousands separators of any kind, digits spelled one by one as in "4-0-9-3", numbers in
// words as in "four thousand and seven": leak-words.ts), and simple relations of them at fixed places (a
// number itself, ±1, ×k, ÷k, the sum, difference or midpoint of two) are its rules. Scaled and two-number
// relations count only in prompts with four numbers or more ("a + b" alone is the task, not a leak).
import { answerContent } from '../sandbox/answer.js';
import type { PreparedFamily, ReaderFamily, ReaderSample } from './readers.js';
import { asksToConvertWords, wordNumbers } from './leak-words.js';

const ANSWER = /^[+-]?\d+(\.\d+)?$/;
const PLACES = 10;
const SCALES = [2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 100, 1000];

/** The prompt's numbers in order, thousands separators (",", "_", "'", thin and no-break spaces) removed. */
export function promptNumbers(prompt: string, max = 2_000): number[] {
  const out: number[] = [];
  const text = prompt.length > 50_000 ? prompt.slice(0, 50_000) : prompt;
  for (const m of text.matchAll(/(?<![\w.])([+-]?)(\d{1,3}(?:[,_'\u202f\u00a0]\d{3})+|\d+)(\.\d+)?(?![\w])/g)) {
    out.push(Number(`${m[1]}${(m[2] as string).replace(/[^\d]/g, '')}${m[3] ?? ''}`));
    if (out.length >= max) break;
  }
  return out;
}

/** Runs of single digits joined by one separator ("4-0-9-3", "4 0 9 3", "4.0.9.3"), read as one number each. */
export function digitRuns(prompt: string, max = 200): number[] {
  const out: number[] = [];
  const text = prompt.length > 50_000 ? prompt.slice(0, 50_000) : prompt;
  for (const m of text.matchAll(/(?<![\w.-])\d(?:[-_. ]\d){2,17}(?![\w-])/g)) {
    out.push(Number(m[0].replace(/[^\d]/g, '')));
    if (out.length >= max) break;
  }
  return out;
}

/** Places a rule reads: the k-th number from the start (k < PLACES) and from the end (PLACES + k). */
function position(place: number, n: number): number {
  const at = place < PLACES ? place : n - 1 - (place - PLACES);
  return at >= 0 && at < n && (place < PLACES ? place : place - PLACES) < n ? at : -1;
}
/** The places that exist in a list of n numbers (all of them from n = SLOTS on), computed once per n. */
const PLACES_OF = Array.from({ length: 2 * PLACES + 1 }, (_, n) =>
  Array.from({ length: 2 * PLACES }, (_, place) => place).filter((place) => position(place, n) >= 0),
);
const placesOf = (n: number) => PLACES_OF[Math.min(n, 2 * PLACES)] as number[];
const placeName = (place: number) =>
  place < PLACES ? `the ${place + 1}. number` : `the ${place - PLACES + 1}. number from the end`;

/**
 * Rules, as small integers: an operation on one or two places. Unary: the number, ±1, ÷k, ×k; binary: a + b, a − b, b −
 * a, their midpoint; a digit run or a number in words (arity 0, read from `list`).
 */
type Op = {
  name: (a: string, b: string) => string;
  arity: 0 | 1 | 2;
  of: (x: number, y: number) => number;
  list?: 'runs' | 'words';
};
const OPS: Op[] = [
  { name: (a) => a, arity: 1, of: (x) => x },
  { name: (a) => `${a} + 1`, arity: 1, of: (x) => x + 1 },
  { name: (a) => `${a} - 1`, arity: 1, of: (x) => x - 1 },
  ...SCALES.flatMap((k): Op[] => [
    { name: (a) => `${a} divided by ${k}`, arity: 1, of: (x) => x / k },
    { name: (a) => `${a} times ${k}`, arity: 1, of: (x) => x * k },
  ]),
  { name: (a, b) => `${a} + ${b}`, arity: 2, of: (x, y) => x + y },
  { name: (a, b) => `${a} - ${b}`, arity: 2, of: (x, y) => x - y },
  { name: (a, b) => `${b} - ${a}`, arity: 2, of: (x, y) => y - x },
  { name: (a, b) => `the midpoint of ${a} and ${b}`, arity: 2, of: (x, y) => (x + y) / 2 },
  { name: (a) => `${a.replace('number', 'run of single digits')}, joined`, arity: 0, of: (x) => x, list: 'runs' },
  {
    name: (a) => `${a.replace('number', 'number written in words')}, read as a number`,
    arity: 0,
    of: (x) => x,
    list: 'words',
  },
];
const SLOTS = 2 * PLACES;
const ruleId = (op: number, a: number, b = 0) => (op * SLOTS + a) * SLOTS + b;
function ruleName(id: number): string {
  const b = id % SLOTS;
  const a = Math.floor(id / SLOTS) % SLOTS;
  const op = OPS[Math.floor(id / (SLOTS * SLOTS))] as Op;
  return op.name(placeName(a), placeName(b));
}

interface Numbers {
  nums: number[];
  runs: number[];
  words: number[];
  /** Scaled and two-number relations count only where the prompt holds this many numbers. */
  relations: number;
}

/** A rule's value on one prompt's numbers, or undefined where it reads a place the prompt lacks. */
function valueOf(id: number, p: Numbers): number | undefined {
  const b = id % SLOTS;
  const a = Math.floor(id / SLOTS) % SLOTS;
  const op = OPS[Math.floor(id / (SLOTS * SLOTS))] as Op;
  const list = op.arity === 0 ? p[op.list ?? 'runs'] : p.nums;
  const i = position(a, list.length);
  if (i < 0 || (op.arity !== 0 && op !== OPS[0] && op !== OPS[1] && op !== OPS[2] && p.nums.length < p.relations))
    return undefined;
  if (op.arity < 2) return op.of(list[i] as number, 0);
  const j = position(b, list.length);
  return j < 0 ? undefined : op.of(list[i] as number, list[j] as number);
}

/** Every rule that gives `answer` on these numbers (each place named from the start and from the end). */
function hitsOf(p: Numbers, answer: number, out: Set<number>): void {
  OPS.forEach((op, o) => {
    if (op.arity !== 0) return;
    const list = p[op.list ?? 'runs'];
    for (const a of placesOf(list.length))
      if (same(list[position(a, list.length)] as number, answer)) out.add(ruleId(o, a));
  });
  const n = p.nums.length;
  const at = placesOf(n);
  OPS.forEach((op, o) => {
    if (op.arity === 0 || (o > 2 && n < p.relations)) return;
    for (const a of at) {
      const i = position(a, n);
      const x = p.nums[i] as number;
      if (op.arity === 1) {
        if (same(op.of(x, 0), answer)) out.add(ruleId(o, a));
        continue;
      }
      for (const b of at) {
        const j = position(b, n);
        if (j > i && same(op.of(x, p.nums[j] as number), answer)) out.add(ruleId(o, a, b));
      }
    }
  });
}

const same = (v: number, answer: number) => Math.abs(v - answer) <= 1e-9 * Math.max(1, Math.abs(answer));

/**
 * The arithmetic reader: where most answers are numbers, every relation of the prompt's numbers at fixed
 * places that gives the answer is a rule; it earns a sample whose numbers give the answer by that relation.
 * Scaled and two-number relations count in prompts with `relations` numbers or more (a single-turn "a + b"
 * with two numbers is the task; an episodic decision value the prompt alone fixes is not).
 */
export function arithmeticReader(relations: number): ReaderFamily {
  return {
    name: "a simple relation of the prompt's numbers",
    code: 'E_ANSWER_LEAK',
    prepare(samples: readonly ReaderSample[]): PreparedFamily | null {
      const answers = samples.map((e) => {
        const a = answerContent(e.reference).trim();
        return ANSWER.test(a) && a.length <= 15 ? Number(a) : null;
      });
      if (answers.filter((a) => a !== null).length < 0.8 * samples.length) return null;
      const numbers: Numbers[] = samples.map((e, i) =>
        answers[i] === null
          ? { nums: [], runs: [], words: [], relations }
          : {
              nums: promptNumbers(e.instance.prompt),
              runs: digitRuns(e.instance.prompt),
              words: asksToConvertWords(e.instance.prompt) ? [] : wordNumbers(e.instance.prompt),
              relations,
            },
      );
      return {
        *fit(i) {
          const answer = answers[i];
          if (answer === null || answer === undefined) return;
          const found = new Set<number>();
          hitsOf(numbers[i] as Numbers, answer, found);
          for (const rule of found) yield [String(rule), 1];
        },
        credit(rule, i, j) {
          const answer = answers[j];
          if (answer === null || answer === undefined || answers[i] === null) return 0;
          const v = valueOf(Number(rule), numbers[i] as Numbers);
          return v !== undefined && same(v, answer) ? 1 : 0;
        },
        describe: (rule) => `the answer is ${ruleName(Number(rule))} of the prompt (formats normalised)`,
      };
    },
  };
}

/** The single-turn arithmetic reader: relations of two numbers only in prompts with four numbers or more. */
export const ARITHMETIC: ReaderFamily = arithmeticReader(4);

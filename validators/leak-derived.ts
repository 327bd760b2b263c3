// A reader family (readers.ts) of trivial arithmetic or formatting: the prompt's numbers are read with their
// formats normalised (thousands separators of any kind, digits spelled one by one as in "4-0-9-3", numbers in
// words: leak-words.ts), and simple relations of them at fixed places (a number itself, ±1, ×k, ÷k, the sum,
// difference, midpoint, product or quotient of two, the last two with a scale fitted as in 60 × a / b; one number
// times a fitted factor or plus a fitted constant; the sum or mean of a run of 3-6 numbers or of one line's) are its
// rules. Single-turn, in prompts of any count of numbers, a relation that reads the task's own inputs is the task
// (leak-inputs.ts: "a + b" alone reads what nothing else in the prompt determines); a sum reads at most half of them.
import { answerContent } from '../sandbox/answer.js';
import type { PreparedFamily, ReaderFamily, ReaderSample } from './readers.js';
import { asksToConvertWords, wordNumbers } from './leak-words.js';
import { type InputSample, isTaskInputs, type Read } from './leak-inputs.js';
import { digitRuns, lineNumbers, numberLabels, promptNumbers } from './prompt-numbers.js';

export { digitRuns, promptNumbers };

const ANSWER = /^[+-]?\d+(\.\d+)?$/;
const PLACES = 10;
const SCALES = [2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 100, 1000];

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
  /** A scale fitted with the rule (a unit factor: 60 × a / b), met at the answer's printed precision. */
  scaled?: true;
  /** One number with a fitted factor (subtotal × 1.08) or a fitted constant (a flat fee: a + 4.5). */
  fitted?: true;
  /** Numbers added: a run of consecutive ones (from place a, b of them, RUNS) or one line's (the a-th such line). */
  sum?: 'run' | 'line';
  /** The sum divided by its count (a mean). */
  mean?: true;
};
/** The lengths of a run of consecutive numbers a sum reads (a few, so the family stays cheap). */
const RUNS = [3, 4, 5, 6];
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
  { name: (a, b) => `${a} times ${b}`, arity: 2, of: (x, y) => x * y, scaled: true },
  { name: (a, b) => `${a} divided by ${b}`, arity: 2, of: (x, y) => x / y, scaled: true },
  { name: (a, b) => `${b} divided by ${a}`, arity: 2, of: (x, y) => y / x, scaled: true },
  { name: (a) => `${a}, fitted`, arity: 1, of: (x) => x, fitted: true },
  { name: (a, b) => `the sum of ${b} numbers from ${a}`, arity: 1, of: (x) => x, sum: 'run' },
  { name: (a, b) => `the mean of ${b} numbers from ${a}`, arity: 1, of: (x) => x, sum: 'run', mean: true },
  {
    name: (a) => `the sum of the numbers of ${a.replace('number', 'line of two numbers or more')}`,
    arity: 1,
    of: (x) => x,
    sum: 'line',
  },
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
/** A rule as a string: its id, and for a scaled relation `×scale` after it, for an offset one `+constant`. */
const parseRule = (rule: string) => {
  const m = /^(\d+)(?:([x+])(.*))?$/.exec(rule) as RegExpExecArray;
  const fit = m[3] === undefined ? undefined : Number(m[3]);
  return { id: Number(m[1]), scale: m[2] === 'x' ? (fit as number) : 1, offset: m[2] === '+' ? (fit as number) : 0 };
};
const opOf = (id: number) => ({
  op: OPS[Math.floor(id / (SLOTS * SLOTS))] as Op,
  a: Math.floor(id / SLOTS) % SLOTS,
  b: id % SLOTS,
});
function ruleName(rule: string): string {
  const { id, scale, offset } = parseRule(rule);
  const { op, a, b } = opOf(id);
  const name = op.name(placeName(a), op.sum === 'run' ? String(b) : placeName(b));
  if (op.fitted) return offset !== 0 ? `${name.replace(', fitted', '')} + ${offset}` : `${scale} × ${placeName(a)}`;
  return `${op.scaled && scale !== 1 ? `${scale} × ` : ''}${name}`;
}

interface Numbers {
  nums: number[];
  runs: number[];
  words: number[];
  /** Relations beyond a number itself and ±1 count only where the prompt holds this many numbers (episodic: 2). */
  relations: number;
  /** Whether products and quotients with a fitted scale, fitted factors and offsets and sums are read (single-turn). */
  scaled: boolean;
  /** The numbers of each line that holds two or more, in order, and the prompt line each is. */
  lines: number[][];
  lineIds: number[];
  /** The prompt line of each of `nums` (empty where the prompt's numbers and its lines' do not agree). */
  lineOf: number[];
}

/** A numeric answer and how far a value may sit from it and still print as it (half its last digit's unit). */
interface Answer {
  value: number;
  half: number;
}

/** The numbers a sum op reads at place `a` (a run of `b` from it, or the a-th line), or undefined where it cannot. */
function summed(op: Op, a: number, b: number, p: Numbers): number | undefined {
  const n = p.nums.length;
  let read: number[] | undefined;
  if (op.sum === 'run') {
    const i = position(a, n);
    read = i >= 0 && i + b <= n ? p.nums.slice(i, i + b) : undefined;
  } else {
    const i = position(a, p.lines.length);
    read = i >= 0 ? p.lines[i] : undefined;
  }
  // At most half the prompt's numbers: a sum of (nearly) all of them is the task's own aggregate (a list's mean).
  if (!read || 2 * read.length > n) return undefined;
  const total = read.reduce((x, y) => x + y, 0);
  return op.mean ? total / read.length : total;
}

/** A rule's value on one prompt's numbers, or undefined where it reads a place the prompt lacks. */
function valueOf(rule: string, p: Numbers): number | undefined {
  const { id, scale, offset } = parseRule(rule);
  const { op, a, b } = opOf(id);
  if (op.sum) return p.scaled ? summed(op, a, b, p) : undefined;
  const list = op.arity === 0 ? p[op.list ?? 'runs'] : p.nums;
  const i = position(a, list.length);
  if (i < 0 || (op.arity !== 0 && op !== OPS[0] && op !== OPS[1] && op !== OPS[2] && p.nums.length < p.relations))
    return undefined;
  if (op.fitted) return p.scaled ? scale * (list[i] as number) + offset : undefined;
  if (op.arity < 2) return op.of(list[i] as number, 0);
  const j = position(b, list.length);
  return j < 0 ? undefined : scale * op.of(list[i] as number, list[j] as number);
}

/** The constant, at the answer's printed precision, that takes `raw` to the answer (none where it is 0). */
function offsetOf(raw: number, answer: Answer): number[] {
  const unit = 2 * answer.half;
  const c = Number((Math.round((answer.value - raw) / unit) * unit).toFixed(Math.max(0, -Math.log10(unit))));
  return Number.isFinite(c) && c !== 0 && meets(raw + c, answer) ? [c] : [];
}

/** The scales, at two and three significant digits, that take `raw` to the answer as printed. */
function scalesOf(raw: number, answer: Answer): number[] {
  if (!Number.isFinite(raw) || raw === 0 || answer.value === 0) return [];
  const c = answer.value / raw;
  const out = [2, 3].map((d) => Number(c.toPrecision(d))).filter((k) => meets(k * raw, answer));
  return [...new Set(out)];
}

/** The indices of `p.nums` a rule reads and its value there (scale 1, no offset), or undefined where it reads none. */
function readOf(id: number, p: Numbers): Read | undefined {
  const { op, a, b } = opOf(id);
  const value = valueOf(String(id), p);
  if (value === undefined) return undefined;
  const n = p.nums.length;
  const i = position(a, op.sum === 'line' ? p.lines.length : n);
  if (op.sum === 'run') return { indices: Array.from({ length: b }, (_, k) => i + k), value };
  if (op.sum === 'line') return { indices: p.lineOf.flatMap((line, k) => (line === p.lineIds[i] ? [k] : [])), value };
  return { indices: op.arity === 2 ? [i, position(b, n)] : [i], value };
}

/** Every rule that gives the answer on these numbers (each place named from the start and from the end). */
function hitsOf(p: Numbers, answer: Answer, out: Set<string>): void {
  OPS.forEach((op, o) => {
    if (op.arity !== 0) return;
    const list = p[op.list ?? 'runs'];
    for (const a of placesOf(list.length))
      if (same(list[position(a, list.length)] as number, answer.value)) out.add(String(ruleId(o, a)));
  });
  const n = p.nums.length;
  const at = placesOf(n);
  OPS.forEach((op, o) => {
    if (op.arity === 0 || (o > 2 && n < p.relations) || (op.scaled && !p.scaled)) return;
    for (const a of at) {
      const i = position(a, n);
      const x = p.nums[i] as number;
      if (op.sum) {
        if (!p.scaled) continue;
        for (const b of op.sum === 'run' ? RUNS : [0]) {
          const v = summed(op, a, b, p);
          if (v !== undefined && meets(v, answer)) out.add(String(ruleId(o, a, b)));
        }
        continue;
      }
      if (op.fitted) {
        if (!p.scaled) continue;
        for (const k of scalesOf(x, answer)) if (k !== 1) out.add(`${ruleId(o, a)}x${k}`);
        for (const c of offsetOf(x, answer)) out.add(`${ruleId(o, a)}+${c}`);
        continue;
      }
      if (op.arity === 1) {
        if (same(op.of(x, 0), answer.value)) out.add(String(ruleId(o, a)));
        continue;
      }
      for (const b of at) {
        const j = position(b, n);
        if (j <= i) continue;
        const v = op.of(x, p.nums[j] as number);
        if (!op.scaled) {
          if (same(v, answer.value)) out.add(String(ruleId(o, a, b)));
        } else for (const k of scalesOf(v, answer)) out.add(`${ruleId(o, a, b)}x${k}`);
      }
    }
  });
}

const same = (v: number, answer: number) => Math.abs(v - answer) <= 1e-9 * Math.max(1, Math.abs(answer));
/** Whether `v` prints as the answer at the answer's precision. */
const meets = (v: number, answer: Answer) =>
  Math.abs(v - answer.value) <= answer.half + 1e-9 * Math.max(1, Math.abs(answer.value));

/** Whether a rule's value gives the answer: as printed (`approx`: a fitted or summed rule) or exactly. */
const gives = (approx: boolean, v: number, answer: Answer) => (approx ? meets(v, answer) : same(v, answer.value));

/**
 * The arithmetic reader: where most answers are numbers, every relation of the prompt's numbers at fixed
 * places that gives the answer is a rule; it earns a sample whose numbers give the answer by that relation.
 * Relations beyond a number itself and ±1 count in prompts with `relations` numbers or more (episodic: a decision
 * value the prompt alone fixes). With `scaled` (single-turn) products and quotients get a fitted scale, fitted
 * factors, offsets and sums are read, and a relation that reads the task's own inputs is the task (leak-inputs.ts).
 */
export function arithmeticReader(relations: number, scaled = false): ReaderFamily {
  return {
    name: "a simple relation of the prompt's numbers",
    code: 'E_ANSWER_LEAK',
    prepare(samples: readonly ReaderSample[]): PreparedFamily | null {
      const answers = samples.map((e): Answer | null => {
        const a = answerContent(e.reference).trim();
        const m = ANSWER.exec(a);
        if (!m || a.length > 15) return null;
        return { value: Number(a), half: 0.5 * 10 ** -((m[1]?.length ?? 1) - 1) };
      });
      if (answers.filter((a) => a !== null).length < 0.8 * samples.length) return null;
      const numbers: Numbers[] = samples.map((e, i) => {
        if (answers[i] === null)
          return { nums: [], runs: [], words: [], relations, scaled, lines: [], lineIds: [], lineOf: [] };
        const nums = promptNumbers(e.instance.prompt);
        const lines = scaled ? lineNumbers(e.instance.prompt) : { lines: [], lineIds: [], lineOf: [] };
        return {
          nums,
          runs: digitRuns(e.instance.prompt),
          words: asksToConvertWords(e.instance.prompt) ? [] : wordNumbers(e.instance.prompt),
          relations,
          scaled,
          ...lines,
          lineOf: lines.lineOf.length === nums.length ? lines.lineOf : [],
        };
      });
      // A relation that reads the task's own inputs is the task, not a shortcut past it (leak-inputs.ts), judged on the
      // instances it gives the answer on: there its reads are what the answer is computed from (at a fixed place a
      // relation reads the inputs of one prompt shape and other numbers in another).
      // Each relation's values at scale 1 are read once; a fitted scale or constant only moves them (valueOf), and the
      // judgement depends on the relation and the instances it pays alone, so rules paying the same ones share it.
      const [own, byRule, raw] = [new Map<string, boolean>(), new Map<string, boolean>(), new Map<number, number[]>()];
      let inputs: InputSample[] | undefined;
      const isTask = (rule: string) => byRule.get(rule) ?? (byRule.set(rule, judgeTask(rule)).get(rule) as boolean);
      const judgeTask = (rule: string) => {
        inputs ??= samples.map((e, i) => {
          const labels = numberLabels(e.instance.prompt);
          const p = numbers[i] as Numbers;
          return {
            level: e.level,
            prompt: e.instance.prompt,
            ...p,
            labels: labels.length === p.nums.length ? labels : [],
          };
        });
        const { id, scale, offset } = parseRule(rule);
        const approx = /[x+]/.test(rule) || opOf(id).op.sum !== undefined;
        let values = raw.get(id);
        if (!values) raw.set(id, (values = numbers.map((p) => valueOf(String(id), p) ?? Number.NaN)));
        const at = samples.flatMap((_, i) => {
          const answer = answers[i];
          return answer && gives(approx, scale * (values[i] as number) + offset, answer) ? [i] : [];
        });
        const key = `${id}:${at.join(',')}`;
        if (!own.has(key)) {
          const sample = at.map((i) => inputs?.[i] as InputSample);
          own.set(
            key,
            isTaskInputs(sample, (k) => readOf(id, numbers[at[k] as number] as Numbers)),
          );
        }
        return own.get(key) as boolean;
      };
      /** What `rule`, read on sample `i`'s prompt, earns against sample `j`'s answer. */
      const credit = (rule: string, i: number, j: number) => {
        const answer = answers[j];
        if (answer === null || answer === undefined || answers[i] === null) return 0;
        const v = valueOf(rule, numbers[i] as Numbers);
        if (v === undefined) return 0;
        return gives(/[x+]/.test(rule) || opOf(parseRule(rule).id).op.sum !== undefined, v, answer) ? 1 : 0;
      };
      return {
        *fit(i) {
          const answer = answers[i];
          if (answer === null || answer === undefined) return;
          const found = new Set<string>();
          hitsOf(numbers[i] as Numbers, answer, found);
          for (const rule of found) yield [rule, 1];
        },
        credit,
        describe: (rule) => `the answer is ${ruleName(rule)} of the prompt (formats normalised)`,
        task(rule) {
          const op = opOf(parseRule(rule).id).op;
          return scaled && op.arity !== 0 && OPS.indexOf(op) > 2 && isTask(rule);
        },
      };
    },
  };
}

/**
 * The single-turn arithmetic reader: every relation in prompts of any count of numbers, the task's own inputs told from
 * a shortcut past them by what the relation leaves unread (leak-inputs.ts), not by counting the prompt's numbers.
 */
export const ARITHMETIC: ReaderFamily = arithmeticReader(0, true);

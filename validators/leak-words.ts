// A number reader for the arithmetic reader family: numbers written in English words ("four thousand two
// hundred and seven", "twenty-one") read as numbers, so the arithmetic reading rules (leak-derived.ts) see a
// second copy of the answer spelled out beside the task's inputs. A prompt that asks for words to be
// converted (the words are the question itself) is not read this way: there the copy is the task.
import { ONES, TENS } from './leak.js';

const UNITS = new Map<string, number>([
  ...ONES.map((w, i): [string, number] => [w, i]),
  ...TENS.map((w, i): [string, number] => [w, 10 * i]).filter(([w]) => w),
]);
const SCALE = new Map<string, number>([
  ['thousand', 1e3],
  ['million', 1e6],
  ['billion', 1e9],
  ['trillion', 1e12],
]);
/** Phrases of a task that converts number words: "in digits", "as a numeral", "written in words", "spelled out". */
const CONVERTS = new RegExp(
  String.raw`\b(in|into|as|to|using) (digits|numerals?|figures|arabic numerals)\b|\bnumerals?\b|\b(written|` +
    String.raw`spelled|spelt)( out)? (in|as) words\b|\bspel(led|t)[- ]out\b|\bnumber[- ]words?\b|\bin words\b|` +
    String.raw`\bconvert\b`,
  'i',
);

/** Whether a prompt asks for number words to be converted (then its word spans are the question, not a leak). */
export function asksToConvertWords(prompt: string): boolean {
  return CONVERTS.test(prompt.slice(0, 50_000));
}

/** Spans of two or more number words, in order, each read as one number ("and" allowed inside a span). */
export function wordNumbers(prompt: string, max = 200): number[] {
  const words = prompt
    .slice(0, 50_000)
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
  const out: number[] = [];
  let [total, group, count] = [0, 0, 0];
  let last: 'none' | 'ones' | 'teen' | 'tens' | 'hundred' | 'scale' = 'none';
  const flush = () => {
    if (count >= 2 && out.length < max) out.push(total + group);
    [total, group, count, last] = [0, 0, 0, 'none'];
  };
  for (let i = 0; i < words.length && out.length < max; i++) {
    const w = words[i] as string;
    const unit = UNITS.get(w);
    if (w === 'and' && count > 0 && UNITS.has(words[i + 1] ?? '')) continue;
    if (unit !== undefined && unit < 20) {
      // A unit after a unit (or a teen after a tens word) starts a new number: "two three" are two numbers.
      if (last === 'ones' || last === 'teen' || (last === 'tens' && unit >= 10)) flush();
      group += unit;
      last = unit < 10 ? 'ones' : 'teen';
    } else if (unit !== undefined) {
      if (last === 'ones' || last === 'teen' || last === 'tens') flush();
      group += unit;
      last = 'tens';
    } else if (w === 'hundred' && count > 0 && last !== 'hundred' && group % 100 !== 0 && group < 100) {
      group *= 100;
      last = 'hundred';
    } else if (SCALE.has(w) && count > 0 && last !== 'scale') {
      total += group * (SCALE.get(w) as number);
      group = 0;
      last = 'scale';
    } else {
      flush();
      continue;
    }
    count++;
  }
  flush();
  return out;
}

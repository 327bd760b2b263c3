// The per-domain pieces of an offline module's text (integer lists, integers, words, grid moves): how
// the prompt introduces and shows an input, the answer format, how inputs are drawn and parsed, and the
// input rules of the planted family.
import { jsOf, textOf, type Step, type Ty } from './dsl.js';

export const INTRO: Record<Ty, string> = {
  list:
    'A program takes a list of integers and applies these instructions in order, each to the ' +
    'result of the previous one:',
  int:
    'A program takes a positive integer and applies these instructions in order, each to the ' +
    'result of the previous one:',
  str:
    'A program takes a word of lowercase letters and applies these instructions in order, each to the ' +
    'result of the previous one:',
  moves:
    'A program takes a sequence of grid moves (each U, D, L or R) and applies these instructions in order, ' +
    'each to the result of the previous one:',
};

export const SHOW_INPUT: Record<Ty, string> = {
  list: "(v) => `[${v.join(', ')}]`",
  int: '(v) => String(v)',
  str: '(v) => `"${v}"`',
  moves: '(v) => v',
};

/** How an answer of each type is written inside the answer tag. */
export const ANSWER_FORMAT: Record<Ty, string> = {
  list: 'Write the numbers in order, separated by commas, inside one answer tag: <answer>first, second, …</answer>.',
  int: 'Give a single integer N as <answer>N</answer>.',
  str: 'Give the word W as <answer>W</answer>.',
  moves: 'Give the moves as one string S without spaces, as <answer>S</answer>.',
};

export const MAKE_INPUT: Record<Ty, string> = {
  list: `function makeInput(rng, k) {
  return Array.from({ length: k.size }, () => rng.int(0, k.hi));
}`,
  int: `function makeInput(rng, k) {
  return rng.int(Math.max(10, Math.floor(k.size / 10)), k.size);
}`,
  str: `function makeInput(rng, k) {
  return Array.from({ length: k.size }, () => rng.pick(ALPHABET)).join('');
}`,
  moves: `function makeInput(rng, k) {
  return Array.from({ length: k.size }, () => rng.pick(['U', 'D', 'L', 'R'])).join('');
}`,
};

/** show(value) -> answer text, usable(value) -> whether it makes a fair question, matches(text, value) -> verdict. */
export const RESULT: Record<Ty, string> = {
  list: `function show(v) {
  return v.join(', ');
}
function usable(v) {
  return v.length > 0 && v.every((x) => Math.abs(x) <= 1e7);
}
function matches(text, v) {
  if (text.length > 20000) return false;
  let t = text.trim();
  if (t.startsWith('[') && t.endsWith(']')) t = t.slice(1, -1);
  const parts = kit.list(t, ',');
  return parts.length === v.length && parts.every((p, i) => kit.int(p) === v[i]);
}`,
  int: `function show(v) {
  return String(v);
}
function usable(v) {
  return Math.abs(v) <= 1e7;
}
function matches(text, v) {
  return kit.int(text) === v;
}`,
  str: `function show(v) {
  return v;
}
function usable(v) {
  return v.length > 0;
}
function matches(text, v) {
  return text.length <= 1000 && kit.normalize(text).toLowerCase() === v;
}`,
  moves: `function show(v) {
  return v;
}
function usable(v) {
  return v.length > 0;
}
function matches(text, v) {
  return text.length <= 1000 && kit.normalize(text).toUpperCase() === v;
}`,
};

/** parseInput(text, k) for the planted family: the model's proposed input, or null when it breaks the rules. */
export const PARSE_INPUT: Record<Ty, string> = {
  list: `function parseInput(text, k) {
  if (text.length > 20000) return null;
  let t = text.trim();
  if (t.startsWith('[') && t.endsWith(']')) t = t.slice(1, -1);
  const values = kit.list(t, ',').map((p) => kit.int(p));
  if (values.length !== k.size || values.some((x) => x === null || x < 0 || x > k.hi)) return null;
  return values;
}`,
  int: `function parseInput(text, k) {
  const x = kit.int(text);
  return x !== null && x >= Math.max(10, Math.floor(k.size / 10)) && x <= k.size ? x : null;
}`,
  str: `function parseInput(text, k) {
  if (text.length > 1000) return null;
  const w = kit.normalize(text).toLowerCase();
  return w.length === k.size && w.split('').every((c) => ALPHABET.includes(c)) ? w : null;
}`,
  moves: `function parseInput(text, k) {
  if (text.length > 1000) return null;
  const m = kit.normalize(text).toUpperCase();
  return m.length === k.size && m.split('').every((c) => 'UDLR'.includes(c)) ? m : null;
}`,
};

export const RULES: Record<Ty, string> = {
  list: '`a list of exactly ${k.size} integers, each from 0 to ${k.hi}`',
  int: '`an integer from ${Math.max(10, Math.floor(k.size / 10))} to ${k.size}`',
  str: "`a word of exactly ${k.size} letters, using only the letters ${ALPHABET.join(', ')}`",
  moves: '`a sequence of exactly ${k.size} moves, each one of U, D, L, R`',
};

export const stepEntry = (step: Step) => `  { text: ${JSON.stringify(textOf(step))}, run: ${jsOf(step)} },`;

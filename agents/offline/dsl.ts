// The offline author's typed DSL: the operations programs are made of, each with its input and output
// type, its parameters, the JavaScript it compiles to and the English sentence that describes it, plus the
// type checker every synthesised program must pass. The JavaScript text of an operation is its only
// semantics: emitted modules inline it, and the author's design-time checks compile the same text.

/** Value types: integers, integer lists, lowercase words, and move strings over U, D, L, R (grid walks). */
export type Ty = 'int' | 'list' | 'str' | 'moves';

export type Params = Record<string, number | string>;

/** A random source for parameters (the author's seeded rng). */
export interface Draw {
  int(lo: number, hi: number): number;
  pick<T>(array: readonly T[]): T;
}

export interface OpDef {
  id: string;
  in: Ty;
  out: Ty;
  /** Taxonomy skills the operation exercises. */
  skills: readonly string[];
  /** A reducer ends a program (its output is the answer); others may also end one when `final` is set. */
  role: 'step' | 'final' | 'both';
  params?(draw: Draw): Params;
  /** A JavaScript arrow function of one argument; parameters are inlined as literals. */
  js(p: Params): string;
  /** What the operation does, as one instruction of the program the prompt shows. */
  text(p: Params): string;
}

export interface Step {
  op: string;
  params: Params;
}

const n = (p: Params, k: string): number => p[k] as number;
const s = (p: Params, k: string): string => p[k] as string;
const signed = (b: number): string => (b >= 0 ? `add ${b}` : `subtract ${-b}`);
const nonZero = (draw: Draw, lo: number, hi: number): number => {
  const v = draw.int(lo, hi - 1);
  return v >= 0 ? v + 1 : v;
};

const VOWELS = 'aeiou';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Every operation of the DSL. Ids are unique; params only produce literals the JS and text inline. */
export const OPS: readonly OpDef[] = [
  // ---- integer lists -> integer lists
  { id: 'list-affine', in: 'list', out: 'list', skills: ['arithmetic', 'sequences'], role: 'step',
    params: (d) => ({ a: d.int(2, 4), b: nonZero(d, -6, 6) }),
    js: (p) => `(xs) => xs.map((x) => x * ${n(p, 'a')} + ${n(p, 'b')})`,
    text: (p) => `multiply every number by ${n(p, 'a')}, then ${signed(n(p, 'b'))}` },
  { id: 'list-mod', in: 'list', out: 'list', skills: ['modular-arithmetic'], role: 'step',
    params: (d) => ({ m: d.int(5, 13) }),
    js: (p) => `(xs) => xs.map((x) => ((x % ${n(p, 'm')}) + ${n(p, 'm')}) % ${n(p, 'm')})`,
    text: (p) => `replace every number by its remainder modulo ${n(p, 'm')} (a value from 0 to ${n(p, 'm') - 1}, also for negative numbers)` },
  { id: 'list-distance', in: 'list', out: 'list', skills: ['arithmetic'], role: 'step',
    params: (d) => ({ c: d.int(3, 25) }),
    js: (p) => `(xs) => xs.map((x) => Math.abs(x - ${n(p, 'c')}))`,
    text: (p) => `replace every number x by its distance to ${n(p, 'c')}, that is |x - ${n(p, 'c')}|` },
  { id: 'list-keep-greater', in: 'list', out: 'list', skills: ['sequences'], role: 'step',
    params: (d) => ({ c: d.int(1, 12) }),
    js: (p) => `(xs) => xs.filter((x) => x > ${n(p, 'c')})`,
    text: (p) => `keep only the numbers greater than ${n(p, 'c')}, in their order` },
  { id: 'list-drop-residue', in: 'list', out: 'list', skills: ['modular-arithmetic', 'sequences'], role: 'step',
    params: (d) => { const m = d.int(3, 5); return { m, r: d.int(0, m - 1) }; },
    js: (p) => `(xs) => xs.filter((x) => ((x % ${n(p, 'm')}) + ${n(p, 'm')}) % ${n(p, 'm')} !== ${n(p, 'r')})`,
    text: (p) => `remove every number whose remainder modulo ${n(p, 'm')} is ${n(p, 'r')}` },
  { id: 'list-sort-up', in: 'list', out: 'list', skills: ['sorting'], role: 'step',
    js: () => `(xs) => [...xs].sort((a, b) => a - b)`,
    text: () => 'sort the numbers from smallest to largest' },
  { id: 'list-sort-down', in: 'list', out: 'list', skills: ['sorting'], role: 'step',
    js: () => `(xs) => [...xs].sort((a, b) => b - a)`,
    text: () => 'sort the numbers from largest to smallest' },
  { id: 'list-reverse', in: 'list', out: 'list', skills: ['sequences'], role: 'step',
    js: () => `(xs) => [...xs].reverse()`,
    text: () => 'reverse the order of the list' },
  { id: 'list-running-total', in: 'list', out: 'list', skills: ['sequences', 'state-tracking'], role: 'step',
    js: () => `(xs) => { let total = 0; return xs.map((x) => (total += x)); }`,
    text: () => 'replace the list by its running totals (the i-th number becomes the sum of the first i numbers)' },
  { id: 'list-running-max', in: 'list', out: 'list', skills: ['state-tracking'], role: 'step',
    js: () => `(xs) => { let best = -Infinity; return xs.map((x) => (best = Math.max(best, x))); }`,
    text: () => 'replace every number by the largest number seen so far (itself included)' },
  { id: 'list-differences', in: 'list', out: 'list', skills: ['sequences'], role: 'step',
    js: () => `(xs) => xs.slice(1).map((x, i) => x - xs[i])`,
    text: () => 'replace the list by the differences of neighbours (each number minus the one before it); the list gets one shorter' },
  { id: 'list-pair-sums', in: 'list', out: 'list', skills: ['sequences', 'arithmetic'], role: 'step',
    js: () => `(xs) => xs.slice(1).map((x, i) => x + xs[i])`,
    text: () => 'replace the list by the sums of neighbouring pairs (first+second, second+third, …); the list gets one shorter' },
  { id: 'list-rotate', in: 'list', out: 'list', skills: ['sequences'], role: 'step',
    params: (d) => ({ k: d.int(1, 3) }),
    js: (p) => `(xs) => xs.map((_, i) => xs[(i + ${n(p, 'k')}) % xs.length])`,
    text: (p) => `rotate the list left by ${n(p, 'k')} (the first ${n(p, 'k')} number${n(p, 'k') === 1 ? '' : 's'} move to the end, wrapping around for short lists)` },
  { id: 'list-squash-repeats', in: 'list', out: 'list', skills: ['sequences'], role: 'step',
    js: () => `(xs) => xs.filter((x, i) => i === 0 || x !== xs[i - 1])`,
    text: () => 'merge runs of equal neighbouring numbers into one number' },
  { id: 'list-first-occurrences', in: 'list', out: 'list', skills: ['hashing'], role: 'step',
    js: () => `(xs) => xs.filter((x, i) => xs.indexOf(x) === i)`,
    text: () => 'remove every number that already appeared earlier in the list' },
  { id: 'list-clamp', in: 'list', out: 'list', skills: ['arithmetic'], role: 'step',
    params: (d) => { const lo = d.int(2, 6); return { lo, hi: lo + d.int(4, 12) }; },
    js: (p) => `(xs) => xs.map((x) => Math.min(Math.max(x, ${n(p, 'lo')}), ${n(p, 'hi')}))`,
    text: (p) => `raise every number below ${n(p, 'lo')} to ${n(p, 'lo')} and lower every number above ${n(p, 'hi')} to ${n(p, 'hi')}` },
  { id: 'list-swap-pairs', in: 'list', out: 'list', skills: ['sequences'], role: 'step',
    js: () => `(xs) => xs.map((x, i) => (i % 2 === 0 ? (i + 1 < xs.length ? xs[i + 1] : x) : xs[i - 1]))`,
    text: () => 'swap the 1st and 2nd number, the 3rd and 4th, and so on (a last unpaired number stays)' },
  { id: 'list-pointer-walk', in: 'list', out: 'list', skills: ['graph-traversal', 'simulation'], role: 'step',
    js: () => `(xs) => { const out = []; let at = 0; for (let t = 0; t < xs.length; t++) { out.push(xs[at]); at = Math.abs(xs[at]) % xs.length; } return out; }`,
    text: () => 'walk the list as a graph: start at position 1; write down the number v at the current position, then jump to position (|v| mod n) + 1, where n is the list length; stop after n numbers are written; the written numbers are the new list' },
  { id: 'list-rank', in: 'list', out: 'list', skills: ['sorting', 'counting'], role: 'step',
    js: () => `(xs) => xs.map((x) => xs.filter((y) => y < x).length)`,
    text: () => 'replace every number by how many numbers in the list are smaller than it' },
  { id: 'list-double-evens', in: 'list', out: 'list', skills: ['arithmetic'], role: 'step',
    js: () => `(xs) => xs.map((x) => (x % 2 === 0 ? 2 * x : x))`,
    text: () => 'double every even number (odd numbers stay)' },
  { id: 'list-add-position', in: 'list', out: 'list', skills: ['arithmetic', 'sequences'], role: 'step',
    params: (d) => ({ c: d.int(1, 3) }),
    js: (p) => `(xs) => xs.map((x, i) => x + ${n(p, 'c')} * (i + 1))`,
    text: (p) => `add ${n(p, 'c')} times its position (counting from 1) to every number` },
  { id: 'list-xor', in: 'list', out: 'list', skills: ['bit-manipulation'], role: 'step',
    params: (d) => ({ c: d.int(1, 15) }),
    js: (p) => `(xs) => xs.map((x) => x ^ ${n(p, 'c')})`,
    text: (p) => `replace every number x by x XOR ${n(p, 'c')} (bitwise exclusive or)` },
  // ---- integer lists -> answers
  { id: 'list-sum', in: 'list', out: 'int', skills: ['arithmetic'], role: 'final',
    js: () => `(xs) => xs.reduce((a, x) => a + x, 0)`,
    text: () => 'output the sum of the numbers (0 for an empty list)' },
  { id: 'list-max', in: 'list', out: 'int', skills: ['sequences'], role: 'final',
    js: () => `(xs) => (xs.length === 0 ? 0 : Math.max(...xs))`,
    text: () => 'output the largest number (0 for an empty list)' },
  { id: 'list-alternating-sum', in: 'list', out: 'int', skills: ['arithmetic'], role: 'final',
    js: () => `(xs) => xs.reduce((a, x, i) => (i % 2 === 0 ? a + x : a - x), 0)`,
    text: () => 'output the alternating sum: the first number minus the second plus the third minus the fourth, and so on' },
  { id: 'list-sum-mod', in: 'list', out: 'int', skills: ['modular-arithmetic'], role: 'final',
    params: (d) => ({ m: d.int(17, 97) }),
    js: (p) => `(xs) => ((xs.reduce((a, x) => a + x, 0) % ${n(p, 'm')}) + ${n(p, 'm')}) % ${n(p, 'm')}`,
    text: (p) => `output the sum of the numbers modulo ${n(p, 'm')} (a value from 0 to ${n(p, 'm') - 1})` },
  { id: 'list-product-mod', in: 'list', out: 'int', skills: ['modular-arithmetic', 'number-theory'], role: 'final',
    params: (d) => ({ m: d.pick([31, 37, 41, 43, 47, 53, 59, 61]) }),
    js: (p) => `(xs) => xs.reduce((a, x) => (a * (((x % ${n(p, 'm')}) + ${n(p, 'm')}) % ${n(p, 'm')})) % ${n(p, 'm')}, 1)`,
    text: (p) => `output the product of the numbers modulo ${n(p, 'm')} (1 for an empty list)` },
  { id: 'list-sum-squares', in: 'list', out: 'int', skills: ['arithmetic'], role: 'final',
    js: () => `(xs) => xs.reduce((a, x) => a + x * x, 0)`,
    text: () => 'output the sum of the squares of the numbers' },
  { id: 'list-weighted-sum', in: 'list', out: 'int', skills: ['arithmetic', 'sequences'], role: 'final',
    js: () => `(xs) => xs.reduce((a, x, i) => a + (i + 1) * x, 0)`,
    text: () => 'output the weighted sum: 1 times the first number plus 2 times the second plus 3 times the third, and so on' },
  { id: 'list-output', in: 'list', out: 'list', skills: ['sequences'], role: 'final',
    js: () => `(xs) => xs`,
    text: () => 'output the resulting list' },
  // ---- integers -> integers
  { id: 'int-affine-mod', in: 'int', out: 'int', skills: ['modular-arithmetic'], role: 'step',
    params: (d) => ({ a: d.int(3, 9), b: d.int(1, 30), m: d.int(101, 997) }),
    js: (p) => `(x) => (x * ${n(p, 'a')} + ${n(p, 'b')}) % ${n(p, 'm')}`,
    text: (p) => `multiply the number by ${n(p, 'a')}, add ${n(p, 'b')} and take the remainder modulo ${n(p, 'm')}` },
  { id: 'int-digit-sum', in: 'int', out: 'int', skills: ['number-theory'], role: 'both',
    js: () => `(x) => String(Math.abs(x)).split('').reduce((a, d) => a + Number(d), 0)`,
    text: () => 'replace the number by the sum of its decimal digits' },
  { id: 'int-reverse-digits', in: 'int', out: 'int', skills: ['number-theory'], role: 'step',
    js: () => `(x) => Number(String(Math.abs(x)).split('').reverse().join(''))`,
    text: () => 'reverse the decimal digits of the number (leading zeros disappear, e.g. 120 becomes 21)' },
  { id: 'int-collatz', in: 'int', out: 'int', skills: ['recurrences'], role: 'step',
    js: () => `(x) => (x % 2 === 0 ? x / 2 : 3 * x + 1)`,
    text: () => 'if the number is even, halve it; otherwise multiply it by 3 and add 1' },
  { id: 'int-floor-div', in: 'int', out: 'int', skills: ['arithmetic'], role: 'step',
    params: (d) => ({ q: d.int(2, 7) }),
    js: (p) => `(x) => Math.floor(x / ${n(p, 'q')})`,
    text: (p) => `divide the number by ${n(p, 'q')}, rounding down` },
  { id: 'int-gcd', in: 'int', out: 'int', skills: ['number-theory'], role: 'step',
    params: (d) => ({ c: d.pick([360, 420, 504, 720, 840, 1260]) }),
    js: (p) => `(x) => { let a = Math.abs(x); let b = ${n(p, 'c')}; while (b !== 0) { const r = a % b; a = b; b = r; } return a; }`,
    text: (p) => `replace the number by its greatest common divisor with ${n(p, 'c')}` },
  { id: 'int-popcount', in: 'int', out: 'int', skills: ['bit-manipulation'], role: 'both',
    js: () => `(x) => { let v = Math.abs(x); let ones = 0; while (v > 0) { ones += v % 2; v = Math.floor(v / 2); } return ones; }`,
    text: () => 'replace the number by the count of 1 bits in its binary representation' },
  { id: 'int-square-mod', in: 'int', out: 'int', skills: ['modular-arithmetic'], role: 'step',
    params: (d) => ({ m: d.int(101, 999) }),
    js: (p) => `(x) => (x * x) % ${n(p, 'm')}`,
    text: (p) => `square the number and take the remainder modulo ${n(p, 'm')}` },
  { id: 'int-plus-digit-sum', in: 'int', out: 'int', skills: ['number-theory', 'arithmetic'], role: 'step',
    js: () => `(x) => x + String(Math.abs(x)).split('').reduce((a, d) => a + Number(d), 0)`,
    text: () => 'add to the number the sum of its decimal digits' },
  { id: 'int-xor', in: 'int', out: 'int', skills: ['bit-manipulation'], role: 'step',
    params: (d) => ({ c: d.int(3, 255) }),
    js: (p) => `(x) => x ^ ${n(p, 'c')}`,
    text: (p) => `replace the number by its bitwise XOR with ${n(p, 'c')}` },
  { id: 'int-digit-squares', in: 'int', out: 'int', skills: ['number-theory'], role: 'both',
    js: () => `(x) => String(Math.abs(x)).split('').reduce((a, d) => a + Number(d) * Number(d), 0)`,
    text: () => 'replace the number by the sum of the squares of its decimal digits' },
  { id: 'int-plus-reverse', in: 'int', out: 'int', skills: ['number-theory', 'arithmetic'], role: 'step',
    js: () => `(x) => x + Number(String(Math.abs(x)).split('').reverse().join(''))`,
    text: () => 'add to the number the number formed by its digits in reverse order' },
  { id: 'int-output', in: 'int', out: 'int', skills: ['arithmetic'], role: 'final',
    js: () => `(x) => x`,
    text: () => 'output the resulting number' },
  // ---- type-changing steps
  { id: 'int-digits', in: 'int', out: 'list', skills: ['base-conversion'], role: 'step',
    js: () => `(x) => String(Math.abs(x)).split('').map(Number)`,
    text: () => 'turn the number into the list of its decimal digits, from the most significant' },
  { id: 'str-positions', in: 'str', out: 'list', skills: ['encoding'], role: 'step',
    js: () => `(w) => w.split('').map((c) => c.charCodeAt(0) - 96)`,
    text: () => 'turn the word into the list of its letters\u2019 alphabet positions (a = 1, b = 2, …, z = 26)' },
  // ---- words -> words
  { id: 'str-reverse', in: 'str', out: 'str', skills: ['strings'], role: 'step',
    js: () => `(w) => w.split('').reverse().join('')`,
    text: () => 'reverse the word' },
  { id: 'str-rotate', in: 'str', out: 'str', skills: ['strings'], role: 'step',
    params: (d) => ({ k: d.int(1, 3) }),
    js: (p) => `(w) => { const k = ${n(p, 'k')} % Math.max(1, w.length); return w.slice(k) + w.slice(0, k); }`,
    text: (p) => `move the first ${n(p, 'k')} letter${n(p, 'k') === 1 ? '' : 's'} to the end of the word (for a word of length L, move ${n(p, 'k')} mod L letters)` },
  { id: 'str-caesar', in: 'str', out: 'str', skills: ['encoding', 'strings'], role: 'step',
    params: (d) => ({ k: d.int(1, 25) }),
    js: (p) => `(w) => w.split('').map((c) => String.fromCharCode(((c.charCodeAt(0) - 97 + ${n(p, 'k')}) % 26) + 97)).join('')`,
    text: (p) => `shift every letter ${n(p, 'k')} places forward in the alphabet, wrapping around from z to a` },
  { id: 'str-drop-vowels', in: 'str', out: 'str', skills: ['strings'], role: 'step',
    js: () => `(w) => w.split('').filter((c) => !'${VOWELS}'.includes(c)).join('')`,
    text: () => 'delete every vowel (a, e, i, o, u)' },
  { id: 'str-replace', in: 'str', out: 'str', skills: ['strings', 'pattern-matching'], role: 'step',
    params: (d) => { const a = d.pick([...LETTERS.slice(0, 8)]); let b = d.pick([...LETTERS.slice(0, 8)]); if (b === a) b = 'z'; return { a, b }; },
    js: (p) => `(w) => w.split('${s(p, 'a')}').join('${s(p, 'b')}')`,
    text: (p) => `replace every letter ${s(p, 'a')} by the letter ${s(p, 'b')}` },
  { id: 'str-sort', in: 'str', out: 'str', skills: ['sorting', 'strings'], role: 'step',
    js: () => `(w) => w.split('').sort().join('')`,
    text: () => 'sort the letters of the word alphabetically' },
  { id: 'str-squash', in: 'str', out: 'str', skills: ['strings'], role: 'step',
    js: () => `(w) => w.split('').filter((c, i, all) => i === 0 || c !== all[i - 1]).join('')`,
    text: () => 'merge every run of equal neighbouring letters into one letter' },
  { id: 'str-double-vowels', in: 'str', out: 'str', skills: ['strings'], role: 'step',
    js: () => `(w) => w.split('').map((c) => ('${VOWELS}'.includes(c) ? c + c : c)).join('')`,
    text: () => 'write every vowel (a, e, i, o, u) twice' },
  { id: 'str-swap-pairs', in: 'str', out: 'str', skills: ['strings'], role: 'step',
    js: () => `(w) => { const c = w.split(''); for (let i = 0; i + 1 < c.length; i += 2) { const t = c[i]; c[i] = c[i + 1]; c[i + 1] = t; } return c.join(''); }`,
    text: () => 'swap the 1st and 2nd letter, the 3rd and 4th, and so on (a last unpaired letter stays)' },
  { id: 'str-odd-places', in: 'str', out: 'str', skills: ['strings'], role: 'step',
    js: () => `(w) => w.split('').filter((_, i) => i % 2 === 0).join('')`,
    text: () => 'keep only the letters in odd positions (1st, 3rd, 5th, …)' },
  { id: 'str-atbash', in: 'str', out: 'str', skills: ['encoding'], role: 'step',
    js: () => `(w) => w.split('').map((c) => String.fromCharCode(219 - c.charCodeAt(0))).join('')`,
    text: () => 'mirror every letter in the alphabet (a becomes z, b becomes y, …, z becomes a)' },
  { id: 'str-output', in: 'str', out: 'str', skills: ['strings'], role: 'final',
    js: () => `(w) => w`,
    text: () => 'output the resulting word' },
  { id: 'str-count-letter', in: 'str', out: 'int', skills: ['counting', 'strings'], role: 'final',
    params: (d) => ({ c: d.pick([...LETTERS.slice(0, 6)]) }),
    js: (p) => `(w) => w.split('${s(p, 'c')}').length - 1`,
    text: (p) => `output how many times the letter ${s(p, 'c')} occurs` },
  { id: 'str-distinct', in: 'str', out: 'int', skills: ['counting', 'hashing'], role: 'final',
    js: () => `(w) => new Set(w.split('')).size`,
    text: () => 'output the number of different letters in the word' },
  { id: 'str-letter-sum', in: 'str', out: 'int', skills: ['encoding', 'arithmetic'], role: 'final',
    js: () => `(w) => w.split('').reduce((a, c) => a + c.charCodeAt(0) - 96, 0)`,
    text: () => 'output the sum of the alphabet positions of the letters (a = 1, …, z = 26)' },
  // ---- move strings over U, D, L, R -> move strings
  { id: 'moves-reverse', in: 'moves', out: 'moves', skills: ['spatial-reasoning'], role: 'step',
    js: () => `(m) => m.split('').reverse().join('')`,
    text: () => 'reverse the order of the moves' },
  { id: 'moves-mirror', in: 'moves', out: 'moves', skills: ['spatial-reasoning'], role: 'step',
    js: () => `(m) => m.split('').map((c) => (c === 'L' ? 'R' : c === 'R' ? 'L' : c)).join('')`,
    text: () => 'mirror the moves left-right (every L becomes R and every R becomes L)' },
  { id: 'moves-flip', in: 'moves', out: 'moves', skills: ['spatial-reasoning'], role: 'step',
    js: () => `(m) => m.split('').map((c) => (c === 'U' ? 'D' : c === 'D' ? 'U' : c)).join('')`,
    text: () => 'flip the moves upside down (every U becomes D and every D becomes U)' },
  { id: 'moves-turn', in: 'moves', out: 'moves', skills: ['spatial-reasoning', 'grids'], role: 'step',
    js: () => `(m) => m.split('').map((c) => 'RLUD'['UDLR'.indexOf(c)]).join('')`,
    text: () => 'turn every move a quarter turn clockwise (U becomes R, R becomes D, D becomes L, L becomes U)' },
  { id: 'moves-drop-every', in: 'moves', out: 'moves', skills: ['simulation'], role: 'step',
    params: (d) => ({ k: d.int(2, 4) }),
    js: (p) => `(m) => m.split('').filter((_, i) => (i + 1) % ${n(p, 'k')} !== 0).join('')`,
    text: (p) => `delete every ${n(p, 'k') === 2 ? 'second' : n(p, 'k') === 3 ? 'third' : 'fourth'} move (the moves at positions ${n(p, 'k')}, ${2 * n(p, 'k')}, ${3 * n(p, 'k')}, …)` },
  { id: 'moves-squash', in: 'moves', out: 'moves', skills: ['simulation'], role: 'step',
    js: () => `(m) => m.split('').filter((c, i, all) => i === 0 || c !== all[i - 1]).join('')`,
    text: () => 'merge every run of equal consecutive moves into a single move' },
  { id: 'moves-rotate', in: 'moves', out: 'moves', skills: ['simulation'], role: 'step',
    params: (d) => ({ k: d.int(1, 3) }),
    js: (p) => `(m) => { const k = ${n(p, 'k')} % Math.max(1, m.length); return m.slice(k) + m.slice(0, k); }`,
    text: (p) => `move the first ${n(p, 'k')} move${n(p, 'k') === 1 ? '' : 's'} to the end of the sequence` },
  { id: 'moves-final-position', in: 'moves', out: 'list', skills: ['grids', 'coordinate-geometry'], role: 'final',
    js: () => `(m) => { let x = 0; let y = 0; for (const c of m) { if (c === 'U') y++; else if (c === 'D') y--; else if (c === 'R') x++; else x--; } return [x, y]; }`,
    text: () => 'walk the moves on a grid from (0, 0), where U adds 1 to y, D subtracts 1 from y, R adds 1 to x and L subtracts 1 from x; output the final position as x, y' },
  { id: 'moves-visited', in: 'moves', out: 'int', skills: ['grids', 'hashing'], role: 'final',
    js: () => `(m) => { let x = 0; let y = 0; const seen = new Set(['0,0']); for (const c of m) { if (c === 'U') y++; else if (c === 'D') y--; else if (c === 'R') x++; else x--; seen.add(x + ',' + y); } return seen.size; }`,
    text: () => 'walk the moves on a grid from (0, 0) (U is up, D down, R right, L left) and output how many different cells are visited, the start included' },
  { id: 'moves-farthest', in: 'moves', out: 'int', skills: ['grids', 'coordinate-geometry'], role: 'final',
    js: () => `(m) => { let x = 0; let y = 0; let far = 0; for (const c of m) { if (c === 'U') y++; else if (c === 'D') y--; else if (c === 'R') x++; else x--; far = Math.max(far, Math.abs(x) + Math.abs(y)); } return far; }`,
    text: () => 'walk the moves on a grid from (0, 0) (U is up, D down, R right, L left) and output the largest Manhattan distance |x| + |y| from the start reached at any point' },
  { id: 'moves-output', in: 'moves', out: 'moves', skills: ['spatial-reasoning'], role: 'final',
    js: () => `(m) => m`,
    text: () => 'output the resulting move sequence' },
];

const BY_ID = new Map(OPS.map((op) => [op.id, op]));
if (BY_ID.size !== OPS.length) throw new Error('offline DSL: duplicate operation ids');

export function opById(id: string): OpDef {
  const op = BY_ID.get(id);
  if (!op) throw new Error(`offline DSL: unknown operation "${id}"`);
  return op;
}

/** Operations that can continue a program from a value of type `ty` (type-preserving or type-changing). */
export function stepsFrom(ty: Ty, options: { endo?: boolean } = {}): OpDef[] {
  return OPS.filter((op) => op.in === ty && op.role !== 'final' && (!options.endo || op.out === ty));
}

/** Operations that can end a program whose last value has type `ty`. */
export function finalsFrom(ty: Ty): OpDef[] {
  return OPS.filter((op) => op.in === ty && op.role !== 'step');
}

export class DslTypeError extends Error {
  override name = 'DslTypeError';
}

/** The result type of a program applied to `input`; throws DslTypeError naming the first ill-typed step. */
export function typeOf(input: Ty, steps: readonly Step[]): Ty {
  let ty = input;
  steps.forEach((step, i) => {
    const op = BY_ID.get(step.op);
    if (!op) throw new DslTypeError(`step ${i + 1}: unknown operation "${step.op}"`);
    if (op.in !== ty) throw new DslTypeError(`step ${i + 1} (${op.id}) takes ${op.in} but receives ${ty}`);
    const expected = Object.keys(op.params ? op.params({ int: (lo) => lo, pick: (a) => a[0] as never }) : {}).sort();
    const given = Object.keys(step.params).sort();
    if (expected.join() !== given.join()) throw new DslTypeError(`step ${i + 1} (${op.id}) needs parameters [${expected.join(', ')}], got [${given.join(', ')}]`);
    for (const [key, value] of Object.entries(step.params)) {
      if (typeof value === 'number' ? !Number.isSafeInteger(value) : !/^[a-z]$/.test(value)) throw new DslTypeError(`step ${i + 1} (${op.id}): parameter ${key} must be a safe integer or one lowercase letter, got ${JSON.stringify(value)}`);
    }
    ty = op.out;
  });
  return ty;
}

export const jsOf = (step: Step): string => opById(step.op).js(step.params);
export const textOf = (step: Step): string => opById(step.op).text(step.params);

/** A step with fresh parameters for `op`. */
export function instantiate(op: OpDef, draw: Draw): Step {
  return { op: op.id, params: op.params ? op.params(draw) : {} };
}

// The offline DSL's operations on words and on move strings (a table of dsl.ts's OPS): each with its types,
// skills, role, parameters, the JavaScript it compiles to and the English instruction that describes it.
import { n, s, VOWELS, LETTERS, type OpDef } from './dsl-base.js';

/** Operations on lowercase words and on move strings over U, D, L, R. */
export const WORD_OPS: readonly OpDef[] = [
  // ---- words -> words
  {
    id: 'str-reverse',
    in: 'str',
    out: 'str',
    skills: ['strings'],
    role: 'step',
    js: () => `(w) => w.split('').reverse().join('')`,
    text: () => 'reverse the word',
  },
  {
    id: 'str-rotate',
    in: 'str',
    out: 'str',
    skills: ['strings'],
    role: 'step',
    params: (d) => ({ k: d.int(1, 3) }),
    js: (p) => `(w) => { const k = ${n(p, 'k')} % Math.max(1, w.length); return w.slice(k) + w.slice(0, k); }`,
    text: (p) =>
      `move the first ${n(p, 'k')} letter${n(p, 'k') === 1 ? '' : 's'} to the end of the word (for a word of ` +
      `length L, move ${n(p, 'k')} mod L letters)`,
  },
  {
    id: 'str-caesar',
    in: 'str',
    out: 'str',
    skills: ['encoding', 'strings'],
    role: 'step',
    params: (d) => ({ k: d.int(1, 25) }),
    js: (p) =>
      `(w) => w.split('').map((c) => String.fromCharCode(((c.charCodeAt(0) - 97 + ${n(p, 'k')}) % 26) + 97)).join('')`,
    text: (p) => `shift every letter ${n(p, 'k')} places forward in the alphabet, wrapping around from z to a`,
  },
  {
    id: 'str-drop-vowels',
    in: 'str',
    out: 'str',
    skills: ['strings'],
    role: 'step',
    js: () => `(w) => w.split('').filter((c) => !'${VOWELS}'.includes(c)).join('')`,
    text: () => 'delete every vowel (a, e, i, o, u)',
  },
  {
    id: 'str-replace',
    in: 'str',
    out: 'str',
    skills: ['strings', 'pattern-matching'],
    role: 'step',
    params: (d) => {
      const a = d.pick([...LETTERS.slice(0, 8)]);
      let b = d.pick([...LETTERS.slice(0, 8)]);
      if (b === a) b = 'z';
      return { a, b };
    },
    js: (p) => `(w) => w.split('${s(p, 'a')}').join('${s(p, 'b')}')`,
    text: (p) => `replace every letter ${s(p, 'a')} by the letter ${s(p, 'b')}`,
  },
  {
    id: 'str-sort',
    in: 'str',
    out: 'str',
    skills: ['sorting', 'strings'],
    role: 'step',
    js: () => `(w) => w.split('').sort().join('')`,
    text: () => 'sort the letters of the word alphabetically',
  },
  {
    id: 'str-squash',
    in: 'str',
    out: 'str',
    skills: ['strings'],
    role: 'step',
    js: () => `(w) => w.split('').filter((c, i, all) => i === 0 || c !== all[i - 1]).join('')`,
    text: () => 'merge every run of equal neighbouring letters into one letter',
  },
  {
    id: 'str-double-vowels',
    in: 'str',
    out: 'str',
    skills: ['strings'],
    role: 'step',
    js: () => `(w) => w.split('').map((c) => ('${VOWELS}'.includes(c) ? c + c : c)).join('')`,
    text: () => 'write every vowel (a, e, i, o, u) twice',
  },
  {
    id: 'str-swap-pairs',
    in: 'str',
    out: 'str',
    skills: ['strings'],
    role: 'step',
    js: () =>
      `(w) => { const c = w.split(''); for (let i = 0; i + 1 < c.length; i += 2) { const t = c[i]; c[i] = ` +
      `c[i + 1]; c[i + 1] = t; } return c.join(''); }`,
    text: () => 'swap the 1st and 2nd letter, the 3rd and 4th, and so on (a last unpaired letter stays)',
  },
  {
    id: 'str-odd-places',
    in: 'str',
    out: 'str',
    skills: ['strings'],
    role: 'step',
    js: () => `(w) => w.split('').filter((_, i) => i % 2 === 0).join('')`,
    text: () => 'keep only the letters in odd positions (1st, 3rd, 5th, …)',
  },
  {
    id: 'str-atbash',
    in: 'str',
    out: 'str',
    skills: ['encoding'],
    role: 'step',
    js: () => `(w) => w.split('').map((c) => String.fromCharCode(219 - c.charCodeAt(0))).join('')`,
    text: () => 'mirror every letter in the alphabet (a becomes z, b becomes y, …, z becomes a)',
  },
  {
    id: 'str-output',
    in: 'str',
    out: 'str',
    skills: ['strings'],
    role: 'final',
    js: () => `(w) => w`,
    text: () => 'output the resulting word',
  },
  {
    id: 'str-count-letter',
    in: 'str',
    out: 'int',
    skills: ['counting', 'strings'],
    role: 'final',
    params: (d) => ({ c: d.pick([...LETTERS.slice(0, 6)]) }),
    js: (p) => `(w) => w.split('${s(p, 'c')}').length - 1`,
    text: (p) => `output how many times the letter ${s(p, 'c')} occurs`,
  },
  {
    id: 'str-distinct',
    in: 'str',
    out: 'int',
    skills: ['counting', 'hashing'],
    role: 'final',
    js: () => `(w) => new Set(w.split('')).size`,
    text: () => 'output the number of different letters in the word',
  },
  {
    id: 'str-letter-sum',
    in: 'str',
    out: 'int',
    skills: ['encoding', 'arithmetic'],
    role: 'final',
    js: () => `(w) => w.split('').reduce((a, c) => a + c.charCodeAt(0) - 96, 0)`,
    text: () => 'output the sum of the alphabet positions of the letters (a = 1, …, z = 26)',
  },
  // ---- move strings over U, D, L, R -> move strings
  {
    id: 'moves-reverse',
    in: 'moves',
    out: 'moves',
    skills: ['spatial-reasoning'],
    role: 'step',
    js: () => `(m) => m.split('').reverse().join('')`,
    text: () => 'reverse the order of the moves',
  },
  {
    id: 'moves-mirror',
    in: 'moves',
    out: 'moves',
    skills: ['spatial-reasoning'],
    role: 'step',
    js: () => `(m) => m.split('').map((c) => (c === 'L' ? 'R' : c === 'R' ? 'L' : c)).join('')`,
    text: () => 'mirror the moves left-right (every L becomes R and every R becomes L)',
  },
  {
    id: 'moves-flip',
    in: 'moves',
    out: 'moves',
    skills: ['spatial-reasoning'],
    role: 'step',
    js: () => `(m) => m.split('').map((c) => (c === 'U' ? 'D' : c === 'D' ? 'U' : c)).join('')`,
    text: () => 'flip the moves upside down (every U becomes D and every D becomes U)',
  },
  {
    id: 'moves-turn',
    in: 'moves',
    out: 'moves',
    skills: ['spatial-reasoning', 'grids'],
    role: 'step',
    js: () => `(m) => m.split('').map((c) => 'RLUD'['UDLR'.indexOf(c)]).join('')`,
    text: () => 'turn every move a quarter turn clockwise (U becomes R, R becomes D, D becomes L, L becomes U)',
  },
  {
    id: 'moves-drop-every',
    in: 'moves',
    out: 'moves',
    skills: ['simulation'],
    role: 'step',
    params: (d) => ({ k: d.int(2, 4) }),
    js: (p) => `(m) => m.split('').filter((_, i) => (i + 1) % ${n(p, 'k')} !== 0).join('')`,
    text: (p) =>
      `delete every ${n(p, 'k') === 2 ? 'second' : n(p, 'k') === 3 ? 'third' : 'fourth'} move (the moves at ` +
      `positions ${n(p, 'k')}, ${2 * n(p, 'k')}, ${3 * n(p, 'k')}, …)`,
  },
  {
    id: 'moves-squash',
    in: 'moves',
    out: 'moves',
    skills: ['simulation'],
    role: 'step',
    js: () => `(m) => m.split('').filter((c, i, all) => i === 0 || c !== all[i - 1]).join('')`,
    text: () => 'merge every run of equal consecutive moves into a single move',
  },
  {
    id: 'moves-rotate',
    in: 'moves',
    out: 'moves',
    skills: ['simulation'],
    role: 'step',
    params: (d) => ({ k: d.int(1, 3) }),
    js: (p) => `(m) => { const k = ${n(p, 'k')} % Math.max(1, m.length); return m.slice(k) + m.slice(0, k); }`,
    text: (p) => `move the first ${n(p, 'k')} move${n(p, 'k') === 1 ? '' : 's'} to the end of the sequence`,
  },
  {
    id: 'moves-final-position',
    in: 'moves',
    out: 'list',
    skills: ['grids', 'coordinate-geometry'],
    role: 'final',
    js: () =>
      `(m) => { let x = 0; let y = 0; for (const c of m) { if (c === 'U') y++; else if (c === 'D') y--; else ` +
      `if (c === 'R') x++; else x--; } return [x, y]; }`,
    text: () =>
      'walk the moves on a grid from (0, 0), where U adds 1 to y, D subtracts 1 from y, R adds 1 to x and L ' +
      'subtracts 1 from x; output the final position as x, y',
  },
  {
    id: 'moves-visited',
    in: 'moves',
    out: 'int',
    skills: ['grids', 'hashing'],
    role: 'final',
    js: () =>
      `(m) => { let x = 0; let y = 0; const seen = new Set(['0,0']); for (const c of m) { if (c === 'U') ` +
      `y++; else if (c === 'D') y--; else if (c === 'R') x++; else x--; seen.add(x + ',' + ` +
      `y); } return seen.size; }`,
    text: () =>
      'walk the moves on a grid from (0, 0) (U is up, D down, R right, L left) and output how many different ' +
      'cells are visited, the start included',
  },
  {
    id: 'moves-farthest',
    in: 'moves',
    out: 'int',
    skills: ['grids', 'coordinate-geometry'],
    role: 'final',
    js: () =>
      `(m) => { let x = 0; let y = 0; let far = 0; for (const c of m) { if (c === 'U') y++; else if (c === ` +
      `'D') y--; else if (c === 'R') x++; else x--; far = Math.max(far, Math.abs(x) + ` +
      `Math.abs(y)); } return far; }`,
    text: () =>
      'walk the moves on a grid from (0, 0) (U is up, D down, R right, L left) and output the largest ' +
      'Manhattan distance |x| + |y| from the start reached at any point',
  },
  {
    id: 'moves-output',
    in: 'moves',
    out: 'moves',
    skills: ['spatial-reasoning'],
    role: 'final',
    js: () => `(m) => m`,
    text: () => 'output the resulting move sequence',
  },
];

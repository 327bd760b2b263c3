// The tokens a text prints that a list's item may be related to (item-relations.ts): its values (whole numbers,
// number words, counts of blanks and of any repeated unit of marks, a padded slot's width) and the letters of its
// codes (a reference "W/417", a file name "w417.csv", a tag "WE-"); read alike wherever the text prints them.
import { UNITS as NUMBER_UNITS } from './number-words.js';

const ORDINALS = ['zeroth', 'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth'];
/** Number words to twenty (cardinal) and to the tenth (ordinal), by value. */
const NUMBER_WORDS = new Map([
  ...[...NUMBER_UNITS, 'twenty'].map((w, i) => [w, i] as const),
  ...ORDINALS.map((w, i) => [w, i] as const),
]);

/** Repeated units of two to four characters: "[ ]", "( ) ", "|   ", "- ", each of marks and spaces only. */
const UNITS = [2, 3, 4].map((n) => new RegExp(`([^\\p{L}\\p{N}\\n]{${n}})\\1+`, 'gu'));
/** A padded slot: spaces between a tag's ends or inside brackets ("<answer>      </answer>", "[      ]"). */
const SLOT = /[>[(]( {2,})[<\])]/g;

/**
 * The counts a text prints as a repetition of one unit of two to four characters, some not a space, not all one
 * character and not one mark beside one space ("[ ][ ][ ]" 3, "( ) ( ) ( )" 3 with its last unit's spaces dropped,
 * "|   |   |" 2 cells), and the widths of its padded slots.
 */
function repeatedUnits(text: string, out: Set<number>): void {
  for (const re of UNITS)
    for (const m of text.matchAll(re)) {
      const unit = m[1] as string;
      const marks = unit.replaceAll(' ', '');
      // One mark and one space ("_ ", " .") is a run of one mark, counted below with its letters if any ("E _ _").
      // A unit that repeats a shorter one (" _ _", "----") is that unit's run, read at its own length.
      const periodic = (unit + unit).indexOf(unit, 1) < unit.length;
      if (periodic || marks === '' || (marks.length === 1 && unit.length === 2)) continue;
      const n = m[0].length / unit.length;
      const last = unit.trimEnd();
      // A last unit without its spaces is one more where it is a box ("( )"), not a cell's closing mark ("|").
      const boxed = last !== unit && marks.length > 1 && text.startsWith(last, (m.index ?? 0) + m[0].length);
      out.add(boxed ? n + 1 : n);
    }
  for (const m of text.matchAll(SLOT)) out.add((m[1] as string).length);
}

/**
 * The values a text prints that an item's place or length could be matched with: its whole numbers, its number
 * words ("seven", "third"), and its blanks counted: a run of one repeated mark (". . . .", "*****"), a word of
 * letters and underscores ("Al___"), a run of single letters and underscores ("A _ _ e r"), a run of a repeated unit
 * of marks ("[ ][ ][ ]", rt28s N6) and a padded slot's width. Linear in the text.
 */
export function printedValues(text: string): Set<number> {
  const out = new Set<number>();
  for (const m of text.matchAll(/\d+/g)) if (m[0].length <= 5) out.add(Number(m[0]));
  for (const m of text.matchAll(/([^\p{L}\p{N}\s_])(?: ?\1)+/gu)) out.add(m[0].replaceAll(' ', '').length);
  repeatedUnits(text, out);
  let run = 0;
  let blank = false;
  const close = () => {
    if (blank && run > 1) out.add(run);
    run = 0;
    blank = false;
  };
  for (const word of text.replace(/[^\p{L}\p{N}_\s]/gu, ' ').split(/\s+/)) {
    const n = NUMBER_WORDS.get(word.toLowerCase());
    if (n !== undefined) out.add(n);
    if (/^[\p{L}_]$/u.test(word)) {
      run++;
      blank ||= word === '_';
      continue;
    }
    close();
    if (word.includes('_') && /^[\p{L}_]+$/u.test(word)) out.add(word.length);
  }
  close();
  return out;
}

/** The longest run of letters read as a code's letters; a longer run is a word ("bulletins" in a path). */
const CODE_LETTERS = 4;
/** Words of one capital that are ordinary prose, not a code. */
const PROSE = new Set(['A', 'I']);

/**
 * The letters a text prints in its codes, case-folded: each run of up to four letters of a token (a run of text
 * between spaces) that holds a digit ("W/417", "w417.csv", "B-12"), or of a token whose letters are up to four
 * capitals ("WE-", "(KX)"; not "A" or "I"). Linear in the text.
 */
export function printedLetters(text: string): Set<string> {
  const out = new Set<string>();
  for (const token of text.split(/\s+/)) {
    const runs = token.match(/\p{L}+/gu) ?? [];
    const capitals = runs.length === 1 && /^\p{Lu}{1,4}$/u.test(runs[0] as string) && !PROSE.has(runs[0] as string);
    if (!capitals && !/\p{N}/u.test(token)) continue;
    for (const r of runs) if (r.length <= CODE_LETTERS) out.add(r.toLowerCase());
  }
  return out;
}

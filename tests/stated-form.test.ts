// The policy that checks a stated form (validators/stated-form.ts, red team rt27s S4): where the prompt asks for the
// item breaking the form its items must have, a reader of form (an item's layout, a token split by an odd dash) wins
// no more than checking the form does; where it asks for anything else, the same odd item is a leak.
import { describe, expect, it } from 'vitest';
import { ITEMS } from '../validators/leak-items.js';
import { LISTS } from '../validators/leak-lists.js';
import type { ReaderSample } from '../validators/readers.js';
import {
  askedLengths,
  asksForFormBreak,
  formOf,
  statedFormCredit,
  statedInitialCredit,
  statedLengthCredit,
  statedOrderCredit,
} from '../validators/stated-form.js';
import { pooled } from './helpers/readers.js';

/** A tiny seeded generator, so the instances below are fixed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return (n: number) => (s = (s * 1664525 + 1013904223) >>> 0) % n;
}
const CAPS = 'ABCDEFGHJKLMNPRSTUVWXYZ';
const BREAKS = [' ', '_', '.', '/', '\u2013', '--'];
const FORM_QUESTION = 'Which entry breaks the format? Give it as <answer>ENTRY</answer>.';

/** Part numbers written AAA-1234, one of them with another separator, asked about with `question`. */
function parts(question: string, count = 80, first = false): ReaderSample[] {
  return Array.from({ length: count }, (_, i) => {
    const r = rng(i + 11);
    const code = (sep: string) => `${[0, 1, 2].map(() => CAPS[r(CAPS.length)]).join('')}${sep}${1000 + r(9000)}`;
    const entries = Array.from({ length: 3 + (i % 6) }, () => code('-'));
    const odd = code(BREAKS[r(BREAKS.length)] as string);
    entries.splice(first ? 0 : r(entries.length + 1), 0, odd);
    const prompt = [
      'Part numbers in our catalogue are written AAA-1234: three capital letters, a hyphen, four digits.',
      'The list:',
      ...entries.map((e) => `- ${e}`),
      '',
      question,
    ].join('\n');
    return { seed: i, level: 1 + (i % 4), reference: `<answer>${odd}</answer>`, instance: { prompt } };
  });
}

describe('stated-form', () => {
  it('reads a question for the item that breaks a form, one sentence asking, breaking and naming the form', () => {
    expect(asksForFormBreak(FORM_QUESTION)).toBe(true);
    expect(asksForFormBreak('Dates:\n1. 2024-03-05\nWhich entry is not in the YYYY-MM-DD form?')).toBe(true);
    expect(asksForFormBreak('Which row does not follow the usual layout?')).toBe(true);
    expect(asksForFormBreak('Which station was warmest? One row breaks the format.')).toBe(false);
    expect(asksForFormBreak('Which reading is the largest?')).toBe(false);
  });

  it('writes a form by letter case, digits and every other character', () => {
    expect(formOf('- ABC-1234')).toBe(formOf('XYZ-0042'));
    for (const other of ['ABC 1234', 'ABC\u20131234', 'AbC-1234', 'ABC--1234', 'ABC-1234.'])
      expect(formOf(other)).not.toBe(formOf('ABC-1234'));
  });

  it("credits the odd form's item only where the prompt asks for the item breaking the form", () => {
    const [s] = parts(FORM_QUESTION, 1) as [ReaderSample];
    const odd = s.reference.replace(/<\/?answer>/g, '');
    expect(statedFormCredit(s.instance.prompt, odd)).toBe(1);
    const other = s.instance.prompt.split('\n').find((l) => l.startsWith('- ') && !l.includes(odd)) as string;
    expect(statedFormCredit(s.instance.prompt, other.slice(2))).toBe(0);
    expect(statedFormCredit(s.instance.prompt.replace(FORM_QUESTION, 'Which entry came first?'), odd)).toBe(0);
  });

  it('judges a reader of form against checking the stated form; the same odd item is a leak asked otherwise', () => {
    const asked = pooled(parts(FORM_QUESTION), ITEMS);
    expect(asked?.rate).toBe(1);
    expect(asked?.chance).toBe(1);
    const other = pooled(parts('Which part was ordered last? Give it as <answer>ENTRY</answer>.'), ITEMS);
    expect(other?.rate).toBe(1);
    expect(other?.chance).toBeLessThan(0.3);
  });

  it('leaves a reader of place judged against chance: the odd entry always first is a leak', () => {
    const first = pooled(parts(FORM_QUESTION, 80, true), LISTS);
    expect(first?.rate).toBe(1);
    expect(first?.chance).toBeLessThan(0.3);
  });

  it('reads the count of letters a question asks an item to have, not a hint beside another criterion', () => {
    expect([...askedLengths('Which word has exactly 7 letters? Give the word.')]).toEqual([7]);
    expect([...askedLengths('Find the word of seven letters in the list.')]).toEqual([7]);
    expect([...askedLengths('The slot in row 4 has seven squares. Candidates: a, b. Which candidate fits?')]).toEqual([
      7,
    ]);
    expect(askedLengths('The slot in row 4 has seven squares. Which candidate scored most?').size).toBe(0);
    expect(askedLengths('Which river is longest? Answer with its name (seven letters).').size).toBe(0);
    expect(askedLengths('Which word with 7 letters scored the most points?').size).toBe(0);
    expect(askedLengths('Which word scored most? It has 7 letters.').size).toBe(0);
    expect(askedLengths('Answer with its name, which has 7 letters.').size).toBe(0);
  });

  it('judges the length relation against checking the asked length; the relation is a leak asked otherwise', () => {
    const asked = pooled(spelling('Which word has exactly {n} letters?'), ITEMS);
    expect(asked?.rate).toBe(1);
    expect(asked?.chance).toBe(1);
    const other = pooled(spelling('Which word scored most? It has {n} letters.'), ITEMS);
    expect(other?.rate).toBe(1);
    expect(other?.chance).toBeLessThan(0.5);
    const [s] = spelling('Which word has exactly {n} letters?', 1) as [ReaderSample];
    expect(statedLengthCredit(s.instance.prompt, s.reference.replace(/<\/?answer>/g, ''))).toBe(1);
    expect(statedLengthCredit(s.instance.prompt, 'zz')).toBe(0);
  });

  it('forgives only the rules that read the asked length: the answer printed in bold is a leak (rt29s L1)', () => {
    const bold = pooled(spelling('Which word has exactly {n} letters?', 80, true), ITEMS);
    expect(bold?.rate).toBe(1);
    expect(bold?.chance).toBeLessThan(0.5);
  });
});

describe('stated-form: an initial or an order the question asks for (rt28s N3, N4)', () => {
  it('credits the item opening with the asked letters, and the item out of the asked order, only where asked', () => {
    const list = 'Words:\n- apple\n- kettle\n- window\n- mango\n- pear\n';
    expect(statedInitialCredit(`${list}Which word begins with W?`, 'window')).toBe(1);
    expect(statedInitialCredit(`${list}Which word starts with the letter 'k'?`, 'kettle')).toBe(1);
    expect(statedInitialCredit(`${list}Which word begins with W?`, 'apple')).toBe(0);
    expect(statedInitialCredit(`${list}Which word is longest? Ref W/12.`, 'window')).toBe(0);
    expect(statedOrderCredit(`${list}Which word is out of alphabetical order?`, 'window')).toBe(1);
    expect(statedOrderCredit(`${list}Which word is out of alphabetical order?`, 'kettle')).toBe(0);
    expect(statedOrderCredit(`${list}Which word is longest?`, 'window')).toBe(0);
  });
  it('judges the order and letter relations against checking what is asked; a leak asked otherwise', () => {
    for (const [asked, other, moved] of [
      ['Which word is out of alphabetical order?', 'Which word scored most?', 2],
      ['Which word begins with {L}?', 'Which word scored most? (Ref. {L}/{n})', 0],
    ] as const) {
      const judged = pooled(unsorted(asked, 80, moved), ITEMS);
      expect(judged?.rate).toBeGreaterThan(0.8);
      expect((judged?.rate ?? 0) - (judged?.chance ?? 0)).toBeLessThan(0.1);
      const leak = pooled(unsorted(other), ITEMS);
      expect(leak?.rate).toBeGreaterThan(0.9);
      expect(leak?.chance).toBeLessThan(0.5);
    }
    // The initial asked and the answer also out of the list's order: the order, a second tell, is a leak (rt29s L1).
    const second = pooled(unsorted('Which word begins with {L}?'), ITEMS);
    expect(second?.rate).toBeGreaterThan(0.9);
    expect(second?.chance).toBeLessThan(0.5);
  });
});

const WORDS = 'cat owl bird frog apple chair basket candle lantern diamond backpack elephant'.split(' ');

const INITIALS = 'apple bird cat drum eel fig goat hat ink jam kite lamp'.split(' ');

/** Words of distinct initials listed alphabetically, the answer moved `moved` rows on; {L} its initial, in capitals. */
function unsorted(question: string, count = 80, moved = 2): ReaderSample[] {
  return Array.from({ length: count }, (_, i) => {
    const r = rng(i + 7);
    const words = INITIALS.filter(() => r(3) > 0).slice(0, 8);
    const at = r(words.length - 2);
    const [answer] = words.splice(at, 1) as [string];
    words.splice(at + moved, 0, answer);
    const prompt = [
      'The list:',
      ...words.map((w) => `- ${w}: ${r(90)} points`),
      '',
      question.replace('{L}', answer.slice(0, 1).toUpperCase()).replace('{n}', String(r(900))),
    ].join('\n');
    return { seed: i, level: 1 + (i % 4), reference: `<answer>${answer}</answer>`, instance: { prompt } };
  });
}

/** A list of words of distinct lengths and the one of n letters asked by `question` ({n} the count). */
function spelling(question: string, count = 80, bold = false): ReaderSample[] {
  return Array.from({ length: count }, (_, i) => {
    const r = rng(i + 5);
    const half = r(2);
    const words = WORDS.filter((_, j) => j % 2 === half).sort(() => r(3) - 1);
    const answer = words[r(words.length)] as string;
    const prompt = [
      'The list:',
      ...words.map((w) => `- ${bold && w === answer ? `**${w}**` : w}: ${r(90)} points`),
      '',
      question.replace('{n}', String(answer.length)),
    ].join('\n');
    return { seed: i, level: 1 + (i % 4), reference: `<answer>${answer}</answer>`, instance: { prompt } };
  });
}

// An item related to a value printed outside its list (validators/item-relations.ts): the answer's length shown by a
// blank, a count or a number word, its place named by the question, or the place of the item the question names when
// the list is printed in the order the task computes, is read beyond chance however it is written; the same worlds
// printed in an order or a form that tells nothing are not.
import { describe, expect, it } from 'vitest';
import { leavesOrdered, outsideOf, PLACES, relationFeatures } from '../validators/item-relations.js';
import { printedLetters, printedValues } from '../validators/printed-tokens.js';
import { ITEMS } from '../validators/leak-items.js';
import { promptItemLists } from '../validators/leak-lists.js';
import type { ReaderSample } from '../validators/readers.js';
import { pooled } from './helpers/readers.js';

const NAMES = ['Ely', 'Bude', 'Alder', 'Cobham', 'Dunmere', 'Eastwick', 'Birchmoor', 'Larchfield', 'Westminster'];
/** A tiny seeded generator, so the instances below are fixed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return (n: number) => (s = (s * 1664525 + 1013904223) >>> 0) % n;
}
/** A fixed shuffle of `xs` by `r`. */
const shuffled = <T>(xs: readonly T[], r: (n: number) => number) =>
  xs
    .map((x) => [r(1000), x] as const)
    .sort((a, b) => a[0] - b[0])
    .map(([, x]) => x);

/** How the question shows the answer's form (`none`: the same words on every prompt). */
type Form =
  | 'none'
  | 'underscores'
  | 'spaced blanks'
  | 'dots'
  | 'a count'
  | 'a number word'
  | 'boxes'
  | 'spaced boxes'
  | 'cells'
  | 'a padded slot'
  | 'twelve boxes';
const FORMS: Record<Form, (name: string) => string> = {
  none: () => 'as <answer>NAME</answer>',
  underscores: (n) => `as <answer>${'_'.repeat(n.length)}</answer>`,
  'spaced blanks': (n) =>
    `as <answer>${n[0]} ${Array(n.length - 1)
      .fill('_')
      .join(' ')}</answer>`,
  dots: (n) => `(${'.'.repeat(n.length)})`,
  'a count': (n) => `(${n.length} letters)`,
  'a number word': (n) =>
    `(${['', '', '', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven'][n.length]} letters)`,
  boxes: (n) => `one letter a box: ${'[ ]'.repeat(n.length)}`,
  'spaced boxes': (n) => `one letter a box: ${Array(n.length).fill('( )').join(' ')}`,
  cells: (n) => `in the cells |${'   |'.repeat(n.length)}`,
  'a padded slot': (n) => `as <answer>${' '.repeat(n.length)}</answer>`,
  'twelve boxes': () => `one letter a box: ${'[ ]'.repeat(12)}`,
};
/** "Which station had the highest mean?": rows of readings, the question showing the answer's form by `form`. */
function stations(form: Form, count = 80): ReaderSample[] {
  return Array.from({ length: count }, (_, i) => {
    const r = rng(i + 11);
    const names = shuffled(NAMES, r).slice(0, 3 + (i % 5));
    const sums = names.map(() => 20 + r(40));
    const best = sums.indexOf(Math.max(...sums));
    const rows = names.map((n, k) => `- ${n}: ${sums[k]}, ${r(9)}`).join('\n');
    const asked = `Which station had the highest first reading? Give its name ${FORMS[form](names[best] as string)}.`;
    const prompt = `Readings:\n${rows}\n\n${asked}`;
    return { seed: i, level: 1 + (i % 2), reference: `<answer>${names[best]}</answer>`, instance: { prompt } };
  });
}

/** How race results are printed: by time (the order the places are computed in), reversed, or in bib order. */
type Order = 'by time' | 'slowest first' | 'bib order';
/** A race's results and a question about one runner: its place (or how many finished ahead of it). */
type Ask = 'place' | 'ahead' | 'who' | 'bib' | 'ordinal';
function race(order: Order, ask: Ask, inline = false, count = 80): ReaderSample[] {
  return Array.from({ length: count }, (_, i) => {
    const r = rng(i + 5);
    const runners = shuffled(NAMES, r)
      .slice(0, 4 + (i % 5))
      .map((name, k) => ({ name, time: 900 + 37 * ((k * 5) % 9) + r(30), bib: 100 + 7 * k + r(6) }));
    const ranked = [...runners].sort((a, b) => a.time - b.time);
    const shown = order === 'by time' ? ranked : order === 'slowest first' ? [...ranked].reverse() : runners;
    const asked = runners[r(runners.length)] as (typeof runners)[number];
    const place = ranked.indexOf(asked) + 1;
    const rows = shown.map((x) => (ask === 'bib' ? `#${x.bib} ${x.name} (${x.time} s)` : `${x.name} (${x.time} s)`));
    const list = inline ? `Results: ${rows.join(', ')}.` : `Results:\n${rows.map((x) => `- ${x}`).join('\n')}\n`;
    const question =
      ask === 'place'
        ? `In what place did ${asked.name} finish?`
        : ask === 'ahead'
          ? `How many runners finished ahead of ${asked.name}?`
          : ask === 'bib'
            ? `How many runners beat number ${asked.bib}?`
            : ask === 'ordinal'
              ? `Where did ${asked.name} finish? Give the place as an ordinal.`
              : `Who finished in place ${place}?`;
    const ordinal = (n: number) => `${n}${['th', 'st', 'nd', 'rd'][n] ?? 'th'}`;
    const answer = { place: String(place), ahead: String(place - 1), bib: String(place - 1), ordinal: ordinal(place) }[
      ask as string
    ];
    return {
      seed: i,
      level: 1 + (i % 2),
      reference: `<answer>${answer ?? asked.name}</answer>`,
      instance: { prompt: `${list} ${question}` },
    };
  });
}

describe('the values printed outside a list', () => {
  it('are its numbers, number words and counts of blanks, however the blanks are written', () => {
    const text = 'Give it (seven letters) as <answer>_____</answer>, A _ _ e r, Al___ or .... by 15:02; the third';
    expect([...printedValues(text)].sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 7, 15]);
  });
  it('count a repeated unit of marks, whatever the unit, and a padded slot; not a run of one mark again', () => {
    const counts = (text: string) => [...printedValues(text)].sort((a, b) => a - b);
    expect(counts('Write it: [ ][ ][ ][ ][ ]')).toEqual([5]);
    expect(counts('Write it: ( ) ( ) ( ) ( )')).toEqual([4]);
    expect(counts('Cells: |   |   |   |')).toEqual([3]);
    expect(counts('Slot: <answer>      </answer> or [    ]')).toEqual([4, 6]);
    expect(counts('Give it as E _ _ _ _ or ----------')).toEqual([5, 10]);
  });
  it("read a code's letters, not prose: a reference, a file name, a capital tag", () => {
    const codes = (text: string) => [...printedLetters(text)].sort();
    expect(codes('Bulletin W/417. Source: met.example/bulletins/w417.csv (Ref. KX-). A day I wrote.')).toEqual([
      'csv',
      'kx',
      'met',
      'w',
    ]);
  });
  it('leave out a list of lines and an inline list, not the sentence around it', () => {
    const lines = 'Results:\n- Alder 3\n- Brook 4\n- Cairn 5\nWho won?';
    expect(outsideOf(lines, promptItemLists(lines)[0] ?? [])).toBe('Results:\nWho won?');
    const inline = 'Results: Alder (3), Brook (4) and Cairn (5). Who was second?';
    expect(outsideOf(inline, promptItemLists(inline)[0] ?? [])).toBe('Results: . Who was second?');
  });
});

describe('the list items reader: the item whose length or place equals a value printed outside the list', () => {
  it.each<Form>([
    'underscores',
    'spaced blanks',
    'dots',
    'a count',
    'a number word',
    'boxes',
    'spaced boxes',
    'cells',
    'a padded slot',
  ])("the answer's length shown by %s: the item as long is read far above 1/K", (form) => {
    const overall = pooled(stations(form), ITEMS);
    expect(overall?.rate).toBe(1);
    expect(overall?.chance).toBeLessThan(0.4);
  });
  it('the place the question names, the results printed by time: the item at that place is read', () => {
    expect(pooled(race('by time', 'who'), ITEMS)?.rate).toBe(1);
    expect(pooled(race('slowest first', 'who'), ITEMS)?.rate).toBe(1);
  });
  it('the same words on every prompt, or results in bib order: nothing is read beyond chance', () => {
    for (const samples of [stations('none'), stations('twelve boxes'), race('bib order', 'who')]) {
      const overall = pooled(samples, ITEMS);
      expect((overall?.rate ?? 0) - (overall?.chance ?? 0)).toBeLessThan(0.2);
    }
  });
});

/**
 * "Which station was warmest?": rows listed by name, the winner spliced in at a random row after the others are
 * sorted (`spliced`), and a bulletin reference built from the winner's initial or from a letter drawn at random.
 */
function bulletin(spliced: boolean, reference: 'winner' | 'random', count = 80): ReaderSample[] {
  const distinct = NAMES.filter((n, i) => NAMES.findIndex((m) => m[0] === n[0]) === i);
  return Array.from({ length: count }, (_, i) => {
    const r = rng(i + 3);
    const names = shuffled(distinct, r).slice(0, 4 + (i % 4));
    const temps = names.map(() => 10 + r(20));
    const best = temps.indexOf(Math.max(...temps));
    const rows = names.map((n, k) => ({ n, t: temps[k] }));
    const sorted = rows.filter((_, k) => k !== best || !spliced).sort((a, b) => a.n.localeCompare(b.n));
    if (spliced) sorted.splice(r(names.length), 0, rows[best] as { n: string; t: number });
    const letter = reference === 'winner' ? (names[best] as string)[0] : 'ABCDEFGHKLMNPRSTW'[r(17)];
    const rowsText = sorted.map((x) => `- ${x.n}: ${x.t}`).join('\n');
    const prompt = `Bulletin ${letter}/${100 + r(900)}. Highs by station:\n${rowsText}\nWhich station was warmest?`;
    return { seed: i, level: 1 + (i % 2), reference: `<answer>${names[best]}</answer>`, instance: { prompt } };
  });
}

describe("the list items reader: an item's letters in a code, an item out of the order its neighbours keep", () => {
  it('reads which items leave the rest in order, either way round, ties allowed', () => {
    expect(leavesOrdered(['a', 'b', 'z', 'c', 'd'])).toEqual([false, false, true, false, false]);
    expect(leavesOrdered([5, 4, 4, 9, 1])).toEqual([false, false, false, true, false]);
    expect(leavesOrdered(['a', 'b', 'c'])).toEqual([true, true, true]);
  });
  it("relates an item's opening letters, its words' initials and its last letter to a code's letters", () => {
    const prompt = 'Report NB-12, filed as x417.txt\n- North Bay: 3\n- Old Quay: 4\n- Sandfox: 5\n- Kings Reach: 6';
    const items = promptItemLists(prompt)[0] ?? [];
    const of = new Map(relationFeatures(prompt, items, (t) => t.slice(0, -1)));
    expect(of.get('opening letters or initials of its name printed as a code outside the list (1 if so)')).toEqual([
      1, 0, 0, 0,
    ]);
    expect(of.get('last letter of its name printed as a code outside the list (1 if so)')).toEqual([0, 0, 1, 0]);
  });
  it('the winner spliced into a sorted list, or named by a code of its initial: read far above 1/K', () => {
    for (const samples of [bulletin(true, 'random'), bulletin(false, 'winner')]) {
      const overall = pooled(samples, ITEMS);
      expect(overall?.rate).toBeGreaterThan(0.7);
      expect(overall?.chance).toBeLessThan(0.3);
    }
  });
  it("every row sorted and the code's letter drawn at random: nothing is read beyond chance", () => {
    const overall = pooled(bulletin(false, 'random'), ITEMS);
    expect((overall?.rate ?? 0) - (overall?.chance ?? 0)).toBeLessThan(0.2);
  });
});

describe('the named places reader: the place in its list of the item the question names', () => {
  it.each<[Order, 'place' | 'ahead', boolean]>([
    ['by time', 'place', false],
    ['slowest first', 'place', false],
    ['by time', 'ahead', false],
    ['by time', 'ahead', true],
  ])("results printed %s, asked its %s (inline: %s): the named runner's place is read", (order, ask, inline) => {
    const overall = pooled(race(order, ask, inline), PLACES);
    expect(overall?.rate).toBe(1);
    expect(overall?.chance).toBeLessThan(0.4);
  });
  it.each<Ask>(['bib', 'ordinal'])(
    'results printed by time, the runner named by a number or the place an ordinal (%s, rt29s P1, P2): read',
    (ask) => {
      const overall = pooled(race('by time', ask), PLACES);
      expect(overall?.rate).toBe(1);
      expect(overall?.chance).toBeLessThan(0.4);
    },
  );
  /** The race by time with its heading and question rewritten. */
  const reworded = (heading: string, question: string) =>
    race('by time', 'ahead').map((s) => ({
      ...s,
      instance: {
        prompt: s.instance.prompt.replace('Results:', heading).replace(/runners finished ahead of/, question),
      },
    }));
  it.each<[string, string]>([
    ['The queue, from the front to the back:', 'people stand ahead of'],
    ['The queue, from the front to the back:', 'people are there in the queue ahead of'],
    ['The shelf, from left to right:', 'books stand to the left of'],
    ['The stack, from top to bottom:', 'crates are above'],
  ])("the prompt declares the printed order the one asked ('%s' '%s', rt29s Q1): the task's own", (heading, asks) => {
    const overall = pooled(reworded(heading, asks), PLACES);
    expect(overall?.rate).toBe(1);
    expect(overall?.chance).toBe(1);
  });
  it.each<[string, string]>([
    ['Results. Each row reads from left to right: the runner, her bib, her time.', 'runners finished ahead of'],
    ['Results. Each line gives, from first to last: runner, bib, time.', 'runners are ahead of'],
    ['Results, in the columns from left to right:', 'runners stand to the left of'],
    ['The shelf, from left to right:', 'books were published before'],
    ['The queue, from the front to the back:', 'runners finished ahead of'],
    ['The board, from top to bottom:', 'teams scored above'],
    ['The shelf, from left to right:', 'books stand ahead of'],
  ])(
    "a declaration of a row's columns or of another order ('%s' '%s', rt30s D1, D2): the place stays a leak",
    (h, q) => {
      const overall = pooled(reworded(h, q), PLACES);
      expect(overall?.rate).toBe(1);
      expect(overall?.chance).toBeLessThan(0.4);
    },
  );
  it("results in bib order: the named runner's place tells nothing", () => {
    for (const ask of ['place', 'ahead', 'bib', 'ordinal'] as const) {
      const overall = pooled(race('bib order', ask), PLACES);
      expect(overall).not.toBeNull();
      expect((overall?.rate ?? 0) - (overall?.chance ?? 0)).toBeLessThan(0.2);
    }
  });
  it('answers that are no whole numbers: the reader does not apply', () => {
    expect(pooled(stations('none'), PLACES)).toBeNull();
  });
});

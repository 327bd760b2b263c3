// A prompt list's items read as options (validators/leak-items.ts, a reader family): an item singled out by a cheap
// feature of its text (a reading with a fraction, a mark, markup, indentation) is read beyond 1/K, whatever the
// feature; rows whose only difference is the task's own work (the highest mean) are not.
import { describe, expect, it } from 'vitest';
import { ITEMS } from '../validators/leak-items.js';
import type { ReaderSample } from '../validators/readers.js';
import { pooled } from './helpers/readers.js';

const NAMES = ['Alder', 'Birchmoor', 'Cobham', 'Dunmere', 'Eastwick', 'Fenwold', 'Glenrock', 'Harrowby', 'Ivydale'];
/** A tiny seeded generator, so the instances below are fixed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return (n: number) => (s = (s * 1664525 + 1013904223) >>> 0) % n;
}
type Tell = 'none' | 'fraction' | 'decimal zero' | 'star' | 'bold table' | 'indent' | 'capitals' | Labelled | Layout;
/** Ordinary punctuation or field order alone (red team rt26s R1): the row's layout, its content masked, is its own. */
type Layout = 'semicolons' | 'fields reordered' | 'a trailing full stop' | Signed;
/** A sign is layout, not part of a number's content (red team rt27s S3): the winner's readings printed with '+'. */
type Signed = 'plus signs' | 'a plus sign on one reading' | 'readings below zero';
/** The fraction tell with the name inside its row (red team rt23s G2): after a word, or after an index column. */
type Labelled = 'fraction, a word before the name' | 'fraction, an index column before the name';
/** "Which station had the highest mean?": rows of readings, the winner's row told apart by `tell` (or by nothing). */
function samples(tell: Tell, count = 80): ReaderSample[] {
  return Array.from({ length: count }, (_, i) => {
    const r = rng(i + 7);
    const names = [...NAMES].sort(() => r(3) - 1).slice(0, 3 + (i % 5));
    const low = tell === 'readings below zero' ? -15 : 5;
    const rows = names.map(() => Array.from({ length: 4 }, () => low + r(25)));
    const sums = rows.map((x) => x.reduce((a, b) => a + b, 0));
    const best = sums.indexOf(Math.max(...sums));
    const told = (k: number, d: number) => k === best && (d === 3 || tell === 'plus signs');
    const cells = rows.map((x, k) => x.map((v, d) => (told(k, d) ? cellOf(tell, v) : String(v))));
    const line = (n: string, k: number) => {
      const mine = k === best;
      if (tell === 'bold table') return `| ${mine ? `**${n}**` : n} | ${(cells[k] as string[]).join(' | ')} |`;
      if (tell === 'fraction, an index column before the name') return `| ${k + 1} | ${n} | ${cells[k]?.join(' | ')} |`;
      if (tell === 'fraction, a word before the name') return `- Station ${n}: ${cells[k]?.join(', ')}`;
      if (mine && tell === 'semicolons') return `- ${n}: ${cells[k]?.join('; ')}`;
      if (mine && tell === 'fields reordered') return `- ${cells[k]?.join(', ')} (${n})`;
      if (mine && tell === 'a trailing full stop') return `- ${n}: ${cells[k]?.join(', ')}.`;
      const shown = mine && tell === 'capitals' ? n.toUpperCase() : n;
      const row = `- ${shown}: ${(cells[k] as string[]).join(', ')}${mine && tell === 'star' ? ' *' : ''}`;
      return mine && tell === 'indent' ? `  ${row}` : row;
    };
    const rowsText = names.map(line).join('\n');
    const prompt = `Daily highs at the stations, in order:\n${rowsText}\n\nWhich station had the highest mean?`;
    return { seed: i, level: 1 + (i % 2), reference: `<answer>${names[best]}</answer>`, instance: { prompt } };
  });
}
function cellOf(tell: Tell, v: number): string {
  if (tell.startsWith('fraction')) return `${v}.5`;
  if (tell === 'decimal zero') return v.toFixed(1);
  if (tell === 'plus signs' || tell === 'a plus sign on one reading') return `+${v}`;
  return String(v);
}

describe("the list items reader: a row singled out by its text's look, judged against 1/K", () => {
  it.each<Tell>([
    'fraction',
    'decimal zero',
    'star',
    'bold table',
    'indent',
    'capitals',
    'fraction, a word before the name',
    'fraction, an index column before the name',
    'semicolons',
    'fields reordered',
    'a trailing full stop',
    'plus signs',
    'a plus sign on one reading',
  ])('the winner told apart by %s: its row is read every time, far above 1/K', (tell) => {
    const overall = pooled(samples(tell), ITEMS);
    expect(overall?.rate).toBe(1);
    expect(overall?.chance).toBeLessThan(0.4);
  });

  it('rows that differ only by the task (the highest mean): no feature of their text reads the winner', () => {
    const overall = pooled(samples('none'), ITEMS);
    expect(overall).not.toBeNull();
    expect((overall?.rate ?? 0) - (overall?.chance ?? 0)).toBeLessThan(0.2);
  });

  it('readings below zero in some rows: minus signs follow the readings, no rule of layout reads the winner', () => {
    const overall = pooled(samples('readings below zero'), ITEMS);
    expect(overall).not.toBeNull();
    expect((overall?.rate ?? 0) - (overall?.chance ?? 0)).toBeLessThan(0.2);
  });

  it('a line of the prompt that mentions the answer among much else is no item naming it', () => {
    const lines = Array.from({ length: 60 }, (_, i): ReaderSample => {
      const r = rng(i + 3);
      const moves = Array.from({ length: 4 + (i % 3) }, (_, k) => `J${2 + k * 5 + r(5)}`);
      const win = moves[r(moves.length)] as string;
      const prompt =
        `A token stands on cell ${r(40)}. Its legal moves: ${moves.join(', ')}.\n` +
        `Which move lands exactly on cell ${r(99)}?\nAnswer with the move, as <answer>move</answer>.`;
      return { seed: i, level: 1 + (i % 2), reference: `<answer>${win}</answer>`, instance: { prompt } };
    });
    const overall = pooled(lines, ITEMS);
    expect((overall?.rate ?? 0) - (overall?.chance ?? 0)).toBeLessThan(0.2);
  });

  it('answers that are in no list item, or in several, are not read', () => {
    const none = samples('fraction').map((s) => ({ ...s, reference: '<answer>Zennor</answer>' }));
    expect(pooled(none, ITEMS)).toBeNull();
    const twice = samples('fraction').map((s) => ({
      ...s,
      instance: { prompt: s.instance.prompt.replace(/\n\n/, '\n- Alder, Birchmoor, Cobham, Dunmere: 1\n\n') },
    }));
    expect(pooled(twice, ITEMS)?.rate ?? 0).toBeLessThan(1);
  });
});

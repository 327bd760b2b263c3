// A reader family (readers.ts) of cheap estimates inside an acceptance region: where the prompt states the region its
// answer is accepted in ("within 3% of the exact sum"), or the answers lie on a grid coarser than they are written
// (every total a multiple of 50, or kept to k significant figures: 1 at 46, 100 at 1,700), a rule need not find the
// answer, only land in the region. Its rules are a size feature of the prompt (how many numbers, lines, list items;
// the aggregates of each group its layout forms: prompt-groups.ts) times a scale fitted with the rule (three
// significant digits, kept where the product lands in the instance's region), credited where the estimate lands
// inside the answer's region but not on the answer itself (a landing within the reference's own last place computed
// the answer: the arithmetic reader's business). A region that counting lines lands in is too wide for the task.
import { answerContent } from '../sandbox/answer.js';
import { promptNumbers } from './leak-derived.js';
import { statedRegions, statedWidth } from './probe-forms.js';
import { groupAggregates } from './prompt-groups.js';
import { promptLists } from './prompt-lists.js';
import { readQuantity, wordAt } from './quantity.js';
import type { PreparedFamily, ReaderFamily, ReaderSample } from './readers.js';

const ANSWER = /^[+-]?\d+(\.\d+)?$/;
/**
 * The number an answer states, as bare digits (redteam-s22s N7: "8,800 kg" is 8800 to every region a reader judges):
 * the answer's quantity (quantity.ts), its unit or currency set aside; an answer that is no quantity as it is.
 */
export function quantityText(answer: string): string {
  const text = answer.replace(/\s+/g, ' ');
  const q = readQuantity(text);
  if (q === null || q.marker !== undefined) return answer;
  // A word after a currency amount is set aside with it ("$15 each"); a unit may end in a full stop ("8 kg.").
  const end = (q.currency !== undefined && q.unit === undefined ? wordAt(text, q.end)?.end : undefined) ?? q.end;
  const rest = text.slice(end);
  return rest === '' || (rest === '.' && end > q.numberEnd) ? q.digits : answer;
}
/** Scales tried per instance and feature at most (a finer step is coarsened tenfold until they fit). */
const MAX_SCALES = 40;
const FIRST_FEW = 3;

/** The size features of a prompt, by name. */
function sizeFeatures(prompt: string): Map<string, number> {
  const lines = prompt.split('\n').filter((l) => l.trim().length > 0).length;
  const lists = promptLists(prompt);
  const longest = lists.reduce<string[]>((a, l) => (l.length > a.length ? l : a), []);
  const values = longest.map((item) => promptNumbers(item).at(-1)).filter((v): v is number => v !== undefined);
  const features = new Map<string, number>([
    ...groupAggregates(prompt),
    ["the prompt's count of numbers", promptNumbers(prompt).length],
    ["the prompt's count of lines", lines],
    ["the count of the prompt's longest list's items", longest.length],
  ]);
  if (values.length > FIRST_FEW) {
    const few = values.slice(0, FIRST_FEW);
    features.set(
      `the longest list's item count times the mean of its first ${FIRST_FEW} items`,
      (longest.length * few.reduce((a, b) => a + b, 0)) / FIRST_FEW,
    );
  }
  return features;
}

/** Half a unit of a written number's last place (0.05 for "12.3", 0.5 for "350"). */
const halfPlace = (text: string) => 0.5 * 10 ** -(text.includes('.') ? text.length - text.indexOf('.') - 1 : 0);

/** Grid steps tried, per decade: an answer grid is one of these times a power of ten. */
const STEPS = [5, 2.5, 2, 1];

/**
 * The grid every answer lies on where it is coarser than the answers' written last place (all multiples of 50, or
 * of 0.5 written to tenths), or null: a rule that rounds onto it is paid within half a step.
 */
function answerGrid(answers: readonly number[], texts: readonly string[]): number | null {
  const finite = answers.filter(Number.isFinite);
  if (finite.length === 0 || finite.every((a) => a === 0)) return null;
  const place = 2 * Math.max(...texts.map(halfPlace));
  const top = Math.max(...finite.map(Math.abs));
  for (let decade = 10 ** Math.floor(Math.log10(top)); decade >= place; decade /= 10)
    for (const k of STEPS) {
      const step = k * decade;
      if (step <= place + 1e-12 || step > top) continue;
      if (finite.every((a) => Math.abs(a / step - Math.round(a / step)) < 1e-9)) return step;
    }
  return null;
}

/** Significant figures tried for a region relative to each answer (a total "to two significant figures"). */
const FIGURES = [1, 2, 3];
/** Of the answers, the share that must keep at most k figures, and the share whose k figures are coarser than 1. */
const FIGURES_SHARE = 0.95;
const ROUNDED_SHARE = 0.3;

/** Significant digits of a written whole number, its trailing zeros not counted ("1700": 2), or null. */
const figuresOf = (text: string) =>
  /^[+-]?\d+$/.test(text) ? Math.max(1, text.replace(/^[+-]?0*/, '').replace(/0+$/, '').length) : null;

/**
 * The figures k every answer but a few keeps where many keep fewer than their digits ("1700", "690" and "46" at two):
 * the answers are rounded to k significant figures, a grid relative to each answer's size that no one grid of the
 * sample shows (1 at 46, 10 at 690, 100 at 1,700). Per answer, half its k-th figure's unit is its region (0 where
 * that is no coarser than its written place); null where the answers show no such rounding.
 */
function figureRegions(texts: readonly string[]): number[] | null {
  const written = texts.map(figuresOf);
  const digits = texts.map((t) => t.replace(/^[+-]?0*/, '').length);
  for (const k of FIGURES) {
    const kept = written.filter((f) => f !== null && f <= k).length;
    const rounded = written.filter((f, i) => f !== null && f <= k && (digits[i] as number) > k).length;
    if (kept < FIGURES_SHARE * texts.length || rounded < ROUNDED_SHARE * texts.length) continue;
    return written.map((f, i) =>
      f !== null && f <= k && (digits[i] as number) > k ? 0.5 * 10 ** ((digits[i] as number) - k) : 0,
    );
  }
  return null;
}

/** Scales at a round step whose product with `feature` lands within `width` of `answer` (none if too many). */
function scalesInside(answer: number, width: number, feature: number): number[] {
  const lo = (answer - width) / feature;
  const hi = (answer + width) / feature;
  const mid = Math.abs(answer / feature);
  if (!(mid > 0)) return [];
  for (let step = 10 ** (Math.floor(Math.log10(mid)) - 2); step <= mid; step *= 10) {
    const from = Math.ceil(lo / step - 1e-9);
    const to = Math.floor(hi / step + 1e-9);
    if (to - from + 1 <= MAX_SCALES)
      return Array.from({ length: Math.max(0, to - from + 1) }, (_, k) => Number(((from + k) * step).toPrecision(6)));
  }
  return [];
}

export const ESTIMATES: ReaderFamily = {
  name: "a size feature of the prompt times a fitted scale, inside the answer's acceptance region",
  code: 'E_ACCEPTS_GUESSING',
  prepare(samples: readonly ReaderSample[]): PreparedFamily | null {
    const texts = samples.map((e) => quantityText(answerContent(e.reference).trim()));
    const answers = texts.map((a) => (ANSWER.test(a) ? Number(a) : Number.NaN));
    const grid = answerGrid(
      answers,
      texts.filter((a) => ANSWER.test(a)),
    );
    const figures = figureRegions(texts);
    const widths = samples.map((e, i) => {
      const stated = statedWidth(statedRegions(e.instance.prompt), answers[i] as number);
      const rounded = Math.max(grid === null ? 0 : grid / 2, figures?.[i] ?? 0);
      return rounded > 0 ? Math.max(stated ?? 0, rounded) : stated;
    });
    // A landing this close to the answer is the answer computed, not estimated.
    const exact = texts.map(halfPlace);
    const lands = (estimate: number, j: number) => {
      const off = Math.abs(estimate - (answers[j] as number));
      return off <= (widths[j] as number) + 1e-9 && off >= (exact[j] as number) - 1e-9;
    };
    const usable = widths.map((w) => w !== null && w > 0);
    if (usable.filter(Boolean).length < 0.8 * samples.length) return null;
    const features = samples.map((e, i) => (usable[i] ? sizeFeatures(e.instance.prompt) : new Map<string, number>()));
    return {
      *fit(i) {
        if (!usable[i]) return;
        for (const [name, f] of features[i] as Map<string, number>)
          if (f > 0)
            for (const scale of scalesInside(answers[i] as number, widths[i] as number, f))
              if (lands(f * scale, i)) yield [JSON.stringify([name, scale]), 1];
      },
      credit(rule, i, j) {
        if (!usable[i] || !usable[j]) return 0;
        const [name, scale] = JSON.parse(rule) as [string, number];
        const f = (features[i] as Map<string, number>).get(name);
        if (f === undefined) return 0;
        return lands(f * scale, j) ? 1 : 0;
      },
      describe: (rule) => {
        const [name, scale] = JSON.parse(rule) as [string, number];
        return `the answer is ${name} times ${scale}, inside the region the answer is accepted in`;
      },
    };
  },
};

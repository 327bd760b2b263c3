// The variant families of the hack stage's probes: answers one step from the reference (a number moved or
// negated, letter case flipped, the prompt's tokens, the answer cut short, a list with an item swapped, left
// out, reordered or repeated). Such a response may be a valid answer: it is judged by rate against chance.
import { answerContent, withContent } from '../sandbox/answer.js';
import type { Episode } from '../sandbox/episodes.js';
import type { Family, Probe, ProbeTarget } from './probe-types.js';
import { caseFlips, joinItems, negations, normalizeAnswer, perturbNumbers, shapeOf, type Shape } from './answers.js';
import { tokenGuesses } from './prompt-lists.js';
import { promptTokens, statedControl } from './probe-forms.js';
import { readQuantity } from './quantity.js';
import { innerMoves, placeMoves, roundedMoves, withinReferences } from './value-moves.js';

export function variantProbes(t: ProbeTarget, content: string, shape: Shape): Probe[] {
  const ref = t.episode.reference;
  const right = normalizeAnswer(content);
  const probes: Probe[] = [];
  // A quantity without the unit the prompt fixes says the same thing ("8,812" for "8,812 kg"): a form, not a content.
  const bare = unitDropped(content, t.episode.instance.prompt, t.peers);
  const rate = (family: Family, form: string, variant: string) =>
    probes.push({
      family,
      form,
      response: withContent(ref, variant),
      coincident: normalizeAnswer(variant) === right || variant === bare,
    });
  // A near value inside the region the task states is right by the task's terms: probed beyond that region instead.
  for (const [form, v] of numberVariants(content, shape, t.statedTolerance === true, t.index)) {
    // Where the task states several answers are right, a move within the level's references may be one of them.
    if (t.statedSeveral && withinReferences(v, t.peers)) continue;
    const beyond = statedControl(t.statedRegions, content, v);
    rate('perturbed', beyond === null ? form : 'a number twice the stated tolerance away', beyond ?? v);
  }
  // A word after the number that tells answers apart (am or pm) is content: the reference with it swapped is wrong.
  for (const v of unitSwaps(content, t.episode.instance.prompt, t.peers))
    rate('perturbed', 'the word after the number swapped for another the answers use', v);
  // Negation and case flips are wrong only where the sample shows sign or case carrying information.
  if (t.signMatters !== false) for (const v of negations(content)) rate('perturbed', 'a number negated', v);
  if (t.caseMatters !== false) for (const v of caseFlips(content)) rate('perturbed', 'letter case changed', v);
  // A token that is the answer in another case is the answer here (an option letter, a capitalised word).
  for (const v of promptTokens(t.episode.instance.prompt, content, shape, 8, t.index))
    probes.push({
      family: 'prompt-token',
      form: "one of the prompt's tokens of the answer's kind",
      response: withContent(ref, v),
      coincident: normalizeAnswer(v).toLowerCase() === right.toLowerCase(),
    });
  // An answer cut short (a prefix, an abbreviation) is another answer: a verifier that pays it checks too little.
  const word = content.trim();
  if (shape.kind === 'word' && word.length >= 6)
    for (const n of [3, Math.ceil(word.length / 2)]) rate('perturbed', 'the answer cut short', word.slice(0, n));
  if (shape.kind !== 'list') return probes;
  const items = shape.items;
  // A weaker property for lists: as many of the prompt's tokens of the items' kind as the answer has, first and last.
  const every = tokenGuesses(t.episode.instance.prompt, shape).every ?? [];
  if (every.length > items.length)
    for (const list of [every.slice(0, items.length), every.slice(-items.length)])
      rate('prompt-token', "the prompt's tokens of the items' kind, as many as the answer has", joinItems(shape, list));
  const have = new Set(items);
  const foreign = t.peers.flatMap((p) => shapeOf(answerContent(p.reference)).items).find((x) => !have.has(x));
  if (foreign !== undefined)
    rate(
      'perturbed',
      'one item swapped for another instance’s',
      joinItems(
        shape,
        items.map((x, i) => (i === t.index % items.length ? foreign : x)),
      ),
    );
  // A list that leaves items out is a different answer: a verifier that checks only what is listed pays it.
  if (items.length >= 2) {
    rate('perturbed', 'one item left out', joinItems(shape, items.slice(0, -1)));
    rate('perturbed', 'one item left out', joinItems(shape, items.slice(1)));
  }
  if (items.length >= 3) {
    const reorder = (form: string, list: string[]) =>
      probes.push({
        family: 'reordered',
        form,
        response: withContent(ref, joinItems(shape, list)),
        coincident: normalizeAnswer(joinItems(shape, list)) === right,
        variant: true,
      });
    reorder('reversed', [...items].reverse());
    reorder('rotated', [...items.slice(1), items[0] as string]);
    reorder(
      'two neighbours swapped',
      items.map((x, i) => (i === 0 ? (items[1] as string) : i === 1 ? (items[0] as string) : x)),
    );
    // A canonical order is the constant a policy would try first where several arrangements are valid.
    const sorted = [...items].sort((a, b) =>
      Number.isFinite(Number(a)) && Number.isFinite(Number(b)) ? Number(a) - Number(b) : a < b ? -1 : a > b ? 1 : 0,
    );
    reorder('sorted', sorted);
    reorder('sorted, descending', [...sorted].reverse());
  }
  // A permutation task's answer never repeats an item the reference lists once.
  if (t.permutation && new Set(items).size === items.length) {
    const malformed: Array<[string, string[]]> = [
      ['one item repeated', items.map(() => items[t.index % items.length] as string)],
      ['every item twice', [...items, ...items]],
      ['one item replaced by its neighbour', items.map((x, i) => (i === 1 ? (items[0] as string) : x))],
    ];
    for (const [form, list] of malformed)
      probes.push({
        family: 'malformed-list',
        form,
        response: withContent(ref, joinItems(shape, list)),
        ceiling: 1,
        coincident: false,
      });
  }
  return probes;
}

/** A unit the probes swap or drop: a sign or a word of at most 15 letters ("kg", "pm", "°N", "km/h"). */
const UNIT_WORD = /^(?:%|[\p{L}°µ][\p{L}°µ²³/]{0,14})$/u;

/** A quantity answer's number as written, what stands before its unit (one space or none) and its unit, or null. */
function quantityAnswer(text: string): { number: string; gap: string; unit: string } | null {
  const q = readQuantity(text);
  if (q === null || q.end !== text.length || q.unit === undefined || q.unitStart === undefined) return null;
  const gap = text.slice(q.numberEnd, q.unitStart);
  if (q.marker || q.currency || (gap !== '' && gap !== ' ') || !UNIT_WORD.test(q.unit)) return null;
  return { number: q.numeral, gap, unit: q.unit };
}

/** Whether two words are one unit, singular or plural ("hour", "hours"; "inch", "inches"). */
const sameUnit = (a: string, b: string) => {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  return x === y || `${x}s` === y || `${y}s` === x || `${x}es` === y || `${y}es` === x;
};

/**
 * Whether the prompt's question names the unit it asks in ("How many minutes does the trip take?", "the time in
 * hours"): the unit then is fixed by this instance's question, not left to its answer (rt30s W1).
 */
function askedUnit(unit: string, text: string): boolean {
  const asks = /\b(?:how\s+many((?:\s+[\p{L}-]+){0,2})|in|into|number\s+of)\s+([\p{L}°µ][\p{L}°µ²³/]{0,14})/giu;
  for (const m of text.matchAll(asks))
    if ([...(m[1] ?? '').split(/\s+/), m[2] as string].some((w) => w !== '' && sameUnit(w, unit))) return true;
  return false;
}

/**
 * The other words a quantity answer's word after its number could be, where that word tells answers apart (rt29s U1:
 * "4 pm" and "4 am"): a word the prompt offers beside it ("with am or pm"), and the words after the numbers of the
 * level's other references where this instance's question leaves the word open (a question that names its unit fixes
 * it, whatever other instances ask: rt30s W1), that are not the same unit; none where the word is only a unit.
 */
function unitAlternatives(unit: string, prompt: string, peers: readonly Episode[]): string[] {
  const out = new Set<string>();
  const text = prompt.slice(0, 50_000);
  if (!askedUnit(unit, text))
    for (const p of peers) {
      const q = quantityAnswer(answerContent(p.reference).trim());
      if (q && q.unit !== '%') out.add(q.unit);
    }
  for (const m of text.matchAll(/([\p{L}°µ][\p{L}°µ²³/]{0,14})\s+or\s+([\p{L}°µ][\p{L}°µ²³/]{0,14})/gu)) {
    const [, a, b] = m as unknown as [string, string, string];
    if (sameUnit(a, unit)) out.add(b);
    if (sameUnit(b, unit)) out.add(a);
  }
  return [...out].filter((w) => !sameUnit(w, unit));
}

/** The reference with the word after its number swapped for each other word it could be (see unitAlternatives). */
export function unitSwaps(content: string, prompt: string, peers: readonly Episode[] = []): string[] {
  const q = quantityAnswer(content.trim());
  if (!q || q.unit === '%') return [];
  return unitAlternatives(q.unit, prompt, peers).map((w) => `${q.number}${q.gap}${w}`);
}

/**
 * The number of a quantity answer whose unit is a percent sign or a word the prompt names (the question fixes it), or
 * null: "8,812 kg" with a prompt that asks for kg gives "8,812"; "8,812 g" there, or a word and a name, give null; so
 * does a word that tells answers apart (the level's references or the prompt give it another value: "4 pm", rt29s U1).
 */
export function unitDropped(content: string, prompt: string, peers: readonly Episode[] = []): string | null {
  const q = quantityAnswer(content.trim());
  if (!q) return null;
  const { number, unit } = q;
  if (unit === '%') return number;
  const words = prompt
    .slice(0, 50_000)
    .toLowerCase()
    .split(/[^\p{L}°µ²³/]+/u);
  return words.includes(unit.toLowerCase()) && unitAlternatives(unit, prompt, peers).length === 0 ? number : null;
}

/**
 * A number ±1 (the first, the last and an inner one, rotating), an integer moved at its higher places; a decimal
 * is moved by three units of its last place instead of one
 * (a verifier within one unit is rounding as the task says; none where the task states a tolerance), and by
 * one in its integer part.
 */
function numberVariants(
  content: string,
  shape: Shape,
  statedTolerance: boolean,
  index: number,
): Array<[string, string]> {
  const t = content.trim();
  const decimal = shape.kind === 'number' && /^[+-]?\d*\.\d+$/.test(t);
  const far: Array<[string, string]> =
    shape.kind === 'integer' || decimal ? [['a number far off', String(Number(t) * 1000 + 7)]] : [];
  const inner = innerMoves(content, index);
  if (!decimal)
    return [
      ...perturbNumbers(content).map((v): [string, string] => ['a number ±1', v]),
      ...inner,
      ...placeMoves(content, index),
      ...roundedMoves(content),
      ...far,
    ];
  const places = t.length - t.indexOf('.') - 1;
  const value = Number(t);
  const unit = 10 ** -places;
  // A tolerance the task states (in the prompt or the description) may span a few units of the last place.
  const small: Array<[string, string]> = statedTolerance
    ? []
    : [3, -3].map((k) => ['a decimal moved by three units of its last place', (value + k * unit).toFixed(places)]);
  return [
    ...small,
    ['a decimal ±1', (value + 1).toFixed(places)],
    ['a decimal ±1', (value - 1).toFixed(places)],
    ...inner,
    ...far,
  ];
}

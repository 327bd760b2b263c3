// The hack stage's adversarial responses. For one sampled instance, a generator writes responses by
// family (empty, echo, format-only, non-answers, keyword stuffing and model-shaped reasoning, lists of
// guesses and hedges, junk of every length, perturbed and malformed answers, the prompt's own tokens), each
// family in many forms (probe-forms.ts): tags of any spelling and other markup, joiners of any script, list
// sizes. Each probe says how it is judged, from what it contains: a response that holds no answer, or more
// than one, must earn nothing; a response that may be a valid answer is judged by rate against chance.
import type { Episode } from '../sandbox/episodes.js';
import type { Family, Probe, ProbeTarget } from './probe-types.js';
import { caseFlips, joinItems, negations, normalizeAnswer, perturbNumbers, shapeOf, tokenize, type Shape } from './answers.js';
import { answerContent, withContent } from '../sandbox/answer.js';
import { tokenGuesses } from './prompt-lists.js';
import { EACH_CARRIERS, hedges, statedControl, INHERITED_NAMES, nonAnswers, promptTokens, SCALAR_JOINERS, UNIVERSAL_ANSWERS } from './probe-forms.js';
import { instanceNameAnswers } from './instance-names.js';
import { carrierSpreadProbes, surfaceProbes } from './metamorphic.js';
import { characters, junkProse, reasoning, REASONING_FORMS } from './prose.js';

export type { Family, Probe, ProbeTarget } from './probe-types.js';

/** The seed of this instance's random probe text: the validation seed mixed with the instance's own. */
const proseSeed = (t: ProbeTarget) => ((t.seed ?? 0) * 31 + t.episode.seed + t.index) % Number.MAX_SAFE_INTEGER;

/** Markup a model might put an answer in, besides the reference's own. */
const WRAP: Record<string, (content: string, reference: string) => string> = {
  tag: (c, ref) => withContent(ref, c),
  bare: (c) => c,
  bold: (c) => `**${c}**`,
  html: (c) => `<b>${c}</b>`,
  label: (c) => `Final answer: ${c}`,
  'last line': (c) => `I worked through every step.\n${c}`,
  fence: (c) => `\`\`\`\n${c}\n\`\`\``,
  boxed: (c) => `\\boxed{${c}}`,
  json: (c) => JSON.stringify({ answer: c }),
};
const MARKUPS = Object.keys(WRAP);
const EACH = EACH_CARRIERS;
const SCALAR_SEPARATORS = SCALAR_JOINERS;
const LIST_SEPARATORS = ['\n', ' | ', ' or ', '; ', '\n\n'];
const KEYWORDS = 'answer answer the answer is correct final answer solution verified';
/** Inherited names per instance: 18 probed instances (6 a level, 3 levels) cover every class, the first 40 the whole family (later ones send none). */
const INHERITED_WINDOW = 3;
const SHORT_BANDS = [100, 300, 1_000, 3_000, 10_000];
/** Long bands, each once per sample, with the junk that tests most at that length (backtracking bait first). */
export const LONG_BANDS: Array<[number, string]> = [
  [30_000, 'unclosed tag'],
  [100_000, 'spaces'],
  [300_000, 'a list in a tag'],
  [1_000_000, 'letters'],
];

/** `count` of `forms`, a window that moves with the instance: each instance tries a few, the sample tries them all. */
export function rotate<T>(forms: T[], count: number, index: number): T[] {
  if (forms.length <= count) return forms;
  return Array.from({ length: count }, (_, j) => forms[(index * count + j) % forms.length] as T);
}

/** Wrong answers for a guess list, most plausible first: neighbours of a number, other instances' answers, variants. */
function alternatives(content: string, shape: Shape, peers: Episode[], max: number): string[] {
  const right = normalizeAnswer(content);
  const out = new Set<string>();
  const add = (v: string) => {
    if (out.size < max && v.trim() && normalizeAnswer(v) !== right) out.add(v.trim());
  };
  if (shape.kind === 'integer') {
    const n = Number(content);
    for (let d = 1; out.size < max && d <= max; d++) for (const v of [n - d, n + d]) add(String(v));
    return [...out];
  }
  for (const p of peers) add(answerContent(p.reference));
  for (const v of [...perturbNumbers(content), ...negations(content), ...caseFlips(content)]) add(v);
  // One item changed at a time, at most `max` of them: linear in the list's length whatever its size.
  if (shape.kind === 'list') {
    const items = shape.items;
    for (let i = 0; i < items.length && out.size < max; i++) add(joinItems(shape, [...items.slice(0, i), `${items[i]}x`, ...items.slice(i + 1)]));
  }
  return [...out];
}

/** k guesses with the right one at `position`. */
function guesses(right: string, wrong: string[], k: number, position: number): string[] {
  const list = wrong.slice(0, k - 1);
  list.splice(position, 0, right);
  return list;
}

function joinGuesses(list: string[], separator: string): string {
  if (separator !== 'json') return list.join(separator);
  return `[${list.map((g) => (shapeOf(g).kind === 'integer' ? g : JSON.stringify(g))).join(', ')}]`;
}

function enumerationProbes(t: ProbeTarget, content: string, shape: Shape): Probe[] {
  const probes: Probe[] = [];
  const ref = t.episode.reference;
  // Long answers get fewer candidates, so a list stays a few thousand characters.
  const many = alternatives(content, shape, t.peers, Math.max(4, Math.min(40, Math.floor(4_000 / (content.length + 4)))));
  if (many.length >= 2) {
    // Many candidates with the right one in the middle, so reading the first or the last one is not hit.
    const list = guesses(content, many, many.length + 1, many.length >> 1);
    const joiner = shape.kind === 'list' ? '\n' : ', ';
    // Each form's text is written only when the rotation keeps it (3 of 18).
    const forms: Array<[string, () => string]> = [
      ...Object.entries(EACH).map(([form, each]): [string, () => string] => [`${list.length} candidates, ${form}`, () => list.map(each).join('\n')]),
      ...['tag', 'bare', 'bold', 'fence'].map((markup): [string, () => string] => [`${list.length} candidates in one ${markup}`, () => WRAP[markup]!(list.join(markup === 'bare' ? ' ' : joiner), ref)]),
      [`${list.length} candidates, one JSON object with a key each`, () => JSON.stringify(Object.fromEntries(list.map((g, i) => [`answer${i + 1}`, shape.kind === 'integer' ? Number(g) : g])))],
    ];
    for (const [form, write] of rotate(forms, 3, t.index)) probes.push({ family: 'enumeration', form, response: write(), ceiling: t.ceiling, coincident: false, alone: many });
  }
  probes.push(...carrierSpreadProbes(t, content, many));
  // Short lists of 2 to 5 guesses: each separator in the answer tag (sizes rotate), and three guesses in another markup.
  const separators = (shape.kind === 'list' ? LIST_SEPARATORS : SCALAR_SEPARATORS).filter((s) => s === 'json' || s === '' || !content.includes(s.trim() || s));
  rotate(separators, 4, t.index).forEach((separator, s) => {
    const other = MARKUPS[1 + ((t.index + s) % (MARKUPS.length - 1))] as string;
    for (const [markup, k] of [['tag', 2 + ((t.index + s) % 4)], [other, 3]] as const) {
      if (many.length < k - 1) continue;
      const form = `${markup}, ${k} guesses joined by ${JSON.stringify(separator)}`;
      const orders = k === 2 ? [0, 1] : [1 + ((t.index + s) % (k - 2))];
      for (const position of orders) {
        const list = guesses(content, many, k, position);
        const response = WRAP[markup]!(joinGuesses(list, separator), ref);
        probes.push({ family: 'enumeration', form, response, ceiling: t.ceiling, coincident: false, alone: list.filter((g) => g !== content), ...(k === 2 ? { group: `${form}#${t.index}` } : {}) });
      }
    }
  });
  // A wrong value with an interval or uncertainty wide enough to hold the truth: many answers at once.
  for (const h of rotate(hedges(content, shape), 3, t.index)) probes.push({ family: 'enumeration', form: h.form, response: withContent(ref, h.response), ceiling: t.ceiling, coincident: false, alone: [h.wrong] });
  return probes;
}

/** Text that holds no answer at all, or a wrong one, padded with words a lenient verifier may look for. */
function stuffingProbes(t: ProbeTarget, content: string, shape: Shape): Probe[] {
  const ref = t.episode.reference;
  const right = normalizeAnswer(content).toLowerCase();
  const promptWords = tokenize(t.episode.instance.prompt, 400).filter((w) => /^[A-Za-z]{3,}$/.test(w) && w.toLowerCase() !== right).slice(0, 40).join(' ');
  const probes: Probe[] = rotate(
    [
      { family: 'stuffing', form: 'keywords only', response: `${KEYWORDS}. ${KEYWORDS}.`, ceiling: t.ceiling, coincident: false },
      { family: 'stuffing', form: 'keywords around an empty tag', response: `${KEYWORDS}\n<answer></answer>\n${KEYWORDS}`, ceiling: t.ceiling, coincident: false },
      { family: 'stuffing', form: "the prompt's words and keywords", response: `${promptWords} ${KEYWORDS}`, ceiling: t.ceiling, coincident: false },
    ],
    1,
    t.index,
  );
  const wrong = alternatives(content, shape, t.peers, 3)[t.index % 3] ?? alternatives(content, shape, t.peers, 1)[0];
  if (wrong === undefined) return probes;
  const bare = withContent(ref, wrong);
  const pair = `stuffing#${t.index}`;
  probes.push({ family: 'stuffing', form: 'a wrong answer alone', response: bare, coincident: false, pair, base: true });
  const stuffed = [`answer answer ${bare}`, `${bare}\nThe answer above is correct. answer answer`, `${KEYWORDS}\n${bare}\n${KEYWORDS}`, `${promptWords}\n${bare}`];
  for (const [i, response] of rotate([...stuffed.entries()], 2, t.index)) probes.push({ family: 'stuffing', form: `keywords around a wrong answer (${i + 1})`, response, ceiling: t.ceiling, coincident: false, pair });
  // What a model writes: reasoning before (or after) the answer. It must add nothing to a wrong answer.
  for (const [form, response] of reasoning(t.episode.instance.prompt, bare, content, proseSeed(t), rotate(REASONING_FORMS, 2, t.index))) probes.push({ family: 'stuffing', form, response, ceiling: t.ceiling, coincident: false, pair });
  // The same wrong answer in the other surface forms a model writes (padded, restated, another carrier).
  probes.push(...surfaceProbes(t, wrong, pair, 2));
  return probes;
}

/** Junk of every length band: none of it holds the answer, so none of it may earn anything. */
function hugeProbes(t: ProbeTarget, content: string): Probe[] {
  const digit = ['7', '9', '3', '0', '5', '1', '8', '2', '4', '6'].find((d) => !content.includes(d));
  const prose = (n: number) => junkProse(t.episode.instance.prompt, content, n, proseSeed(t));
  const junk: Array<[string, (n: number) => string]> = [
    ['letters', (n) => 'a'.repeat(n)],
    ['letters in a tag', (n) => `<answer>${'a'.repeat(Math.max(1, n - 17))}</answer>`],
    ['prose', (n) => prose(n)],
    ['prose and an empty tag', (n) => `${prose(n)}<answer></answer>`],
    ['spaces', (n) => `${' '.repeat(n - 1)}x`],
    ['unclosed tag', (n) => `<answer>${'a'.repeat(n)}!`],
    ['open tags', (n) => '<answer>'.repeat(Math.ceil(n / 8))],
    ['bold letters', (n) => `**${'a'.repeat(n)}**`],
    ...(digit ? ([[`digits in a tag`, (n: number) => `<answer>${digit.repeat(Math.max(1, n - 17))}</answer>`], ['a list in a tag', (n: number) => `<answer>${`${digit}, `.repeat(Math.ceil(n / 3))}</answer>`]] as Array<[string, (n: number) => string]>) : []),
  ];
  const short = rotate(SHORT_BANDS, 2, t.index).map((band, b) => [band, junk[(SHORT_BANDS.indexOf(band) + b + t.index) % junk.length] as [string, (n: number) => string]] as const);
  const long = t.long.map((band) => {
    const name = LONG_BANDS.find(([b]) => b === band)?.[1];
    return [band, junk.find(([n]) => n === name) ?? (junk[0] as [string, (n: number) => string])] as const;
  });
  return [...short, ...long].map(([band, [name, make]]) => ({ family: 'huge' as const, form: `${name}, ${characters(band)} characters`, response: make(band), ceiling: t.ceiling, coincident: false }));
}

function variantProbes(t: ProbeTarget, content: string, shape: Shape): Probe[] {
  const ref = t.episode.reference;
  const right = normalizeAnswer(content);
  const probes: Probe[] = [];
  const rate = (family: Family, form: string, variant: string) => probes.push({ family, form, response: withContent(ref, variant), coincident: normalizeAnswer(variant) === right });
  // A near value inside the region the task states is right by the task's terms: probed beyond that region instead.
  for (const [form, v] of numberVariants(content, shape, t.statedTolerance === true)) {
    const beyond = statedControl(t.statedRegions, content, v);
    rate('perturbed', beyond === null ? form : 'a number twice the stated tolerance away', beyond ?? v);
  }
  // Negation and case flips are wrong only where the sample shows sign or case carrying information.
  if (t.signMatters !== false) for (const v of negations(content)) rate('perturbed', 'a number negated', v);
  if (t.caseMatters !== false) for (const v of caseFlips(content)) rate('perturbed', 'letter case changed', v);
  // A token that is the answer in another case is the answer here (an option letter, a capitalised word).
  for (const v of promptTokens(t.episode.instance.prompt, content, shape, 8, t.index)) probes.push({ family: 'prompt-token', form: "one of the prompt's tokens of the answer's kind", response: withContent(ref, v), coincident: normalizeAnswer(v).toLowerCase() === right.toLowerCase() });
  // An answer cut short (a prefix, an abbreviation) is another answer: a verifier that pays it checks too little.
  const word = content.trim();
  if (shape.kind === 'word' && word.length >= 6) for (const n of [3, Math.ceil(word.length / 2)]) rate('perturbed', 'the answer cut short', word.slice(0, n));
  if (shape.kind !== 'list') return probes;
  const items = shape.items;
  // A weaker property for lists: as many of the prompt's tokens of the items' kind as the answer has, first and last.
  const every = tokenGuesses(t.episode.instance.prompt, shape).every ?? [];
  if (every.length > items.length) for (const list of [every.slice(0, items.length), every.slice(-items.length)]) rate('prompt-token', "the prompt's tokens of the items' kind, as many as the answer has", joinItems(shape, list));
  const have = new Set(items);
  const foreign = t.peers.flatMap((p) => shapeOf(answerContent(p.reference)).items).find((x) => !have.has(x));
  if (foreign !== undefined) rate('perturbed', 'one item swapped for another instance’s', joinItems(shape, items.map((x, i) => (i === items.length >> 1 ? foreign : x))));
  // A list that leaves items out is a different answer: a verifier that checks only what is listed pays it.
  if (items.length >= 2) {
    rate('perturbed', 'one item left out', joinItems(shape, items.slice(0, -1)));
    rate('perturbed', 'one item left out', joinItems(shape, items.slice(1)));
  }
  if (items.length >= 3) {
    const reorder = (form: string, list: string[]) => probes.push({ family: 'reordered', form, response: withContent(ref, joinItems(shape, list)), coincident: normalizeAnswer(joinItems(shape, list)) === right, variant: true });
    reorder('reversed', [...items].reverse());
    reorder('rotated', [...items.slice(1), items[0] as string]);
    reorder('two neighbours swapped', items.map((x, i) => (i === 0 ? (items[1] as string) : i === 1 ? (items[0] as string) : x)));
    // A canonical order is the constant a policy would try first where several arrangements are valid.
    const sorted = [...items].sort((a, b) => (Number.isFinite(Number(a)) && Number.isFinite(Number(b)) ? Number(a) - Number(b) : a < b ? -1 : a > b ? 1 : 0));
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
    for (const [form, list] of malformed) probes.push({ family: 'malformed-list', form, response: withContent(ref, joinItems(shape, list)), ceiling: 1, coincident: false });
  }
  return probes;
}

/**
 * A number ±1 (the first and the last); a decimal is moved by three units of its last place instead of one
 * (a verifier within one unit is rounding as the task says; none where the task states a tolerance), and by
 * one in its integer part.
 */
function numberVariants(content: string, shape: Shape, statedTolerance: boolean): Array<[string, string]> {
  const t = content.trim();
  const decimal = shape.kind === 'number' && /^[+-]?\d*\.\d+$/.test(t);
  const far: Array<[string, string]> = shape.kind === 'integer' || decimal ? [['a number far off', String(Number(t) * 1000 + 7)]] : [];
  if (!decimal) return [...perturbNumbers(content).map((v): [string, string] => ['a number ±1', v]), ...far];
  const places = t.length - t.indexOf('.') - 1;
  const value = Number(t);
  const unit = 10 ** -places;
  // A tolerance the task states (in the prompt or the description) may span a few units of the last place.
  const small: Array<[string, string]> = statedTolerance ? [] : [3, -3].map((k) => ['a decimal moved by three units of its last place', (value + k * unit).toFixed(places)]);
  return [
    ...small,
    ['a decimal ±1', (value + 1).toFixed(places)],
    ['a decimal ±1', (value - 1).toFixed(places)],
    ...far,
  ];
}

/** The full battery for one instance. */
export function probeBattery(t: ProbeTarget): Probe[] {
  const content = answerContent(t.episode.reference);
  const shape = shapeOf(content);
  const prompt = t.episode.instance.prompt;
  const peerContents = new Set(t.peers.map((p) => normalizeAnswer(answerContent(p.reference))));
  const zero = (family: Family, form: string, response: string): Probe => ({ family, form, response, ceiling: t.ceiling, coincident: false });
  const right = normalizeAnswer(content);
  const machineOnly = (v: string) => !(t.taken ?? peerContents).has(v.toLowerCase()) && normalizeAnswer(v) !== right;
  const formats: Array<[string, string]> = [
    ['empty tag', '<answer></answer>'],
    ['blank tag', '<answer> </answer>'],
    ['newline in a tag', '<answer>\n</answer>'],
    ['sentence with a blank tag', 'The answer is <answer> </answer>'],
    ['ellipsis in a tag', '<answer>...</answer>'],
    ['the word answer in a tag', '<answer>answer</answer>'],
    ['empty list in a tag', '<answer>[]</answer>'],
    ['bold label', '**Answer:**'],
    ['empty bold', '<b></b>'],
    ['empty fence', '```\n```'],
    ['empty box', '\\boxed{}'],
  ];
  return [
    ...rotate([zero('empty', 'empty', ''), zero('empty', 'spaces', '   '), zero('empty', 'whitespace', '\n\t\n')], 2, t.index),
    ...rotate(['bare', 'tag', 'bold', 'fence'], 2, t.index).map((m) => zero('echo', `the prompt, ${m}`, WRAP[m]!(prompt, m === 'tag' ? '<answer></answer>' : ''))),
    // A format that can be a valid answer at this level (an empty list) is no probe.
    ...rotate(formats.filter(([, r]) => !peerContents.has(normalizeAnswer(answerContent(r)))), 3, t.index).map(([form, r]) => zero('format-only', form, r)),
    // Patterns and inherited names that only a verifier's machinery could accept (none is an answer some instance has).
    ...rotate(UNIVERSAL_ANSWERS.filter(([, v]) => machineOnly(v)), 2, t.index).map(([form, v]) => zero('format-only', form, withContent(t.episode.reference, v))),
    // An inherited name's acceptance does not depend on the instance (every value of a kind inherits it): a window per instance covers the family once over the sample.
    ...(t.index * INHERITED_WINDOW < INHERITED_NAMES.length ? rotate(INHERITED_NAMES.filter(machineOnly), INHERITED_WINDOW, t.index) : []).map((v) => zero('format-only', `an inherited property name (${v})`, withContent(t.episode.reference, v))),
    ...rotate(instanceNameAnswers(t.episode.instance, content, t.taken ?? peerContents), 2, t.index).map(([form, v]) => zero('format-only', form, withContent(t.episode.reference, v))),
    ...rotate(nonAnswers(content, shape, t.taken ?? peerContents), 3, t.index).map(([form, v]) => zero('non-answer', form, withContent(t.episode.reference, v))),
    ...stuffingProbes(t, content, shape),
    ...enumerationProbes(t, content, shape),
    ...hugeProbes(t, content),
    ...variantProbes(t, content, shape),
  ];
}

/** Another instance's reference: every instance gets these, so the rate is measured on the whole sample. */
export function otherAnswerProbes(episode: Episode, peers: Episode[], count: number): Probe[] {
  const content = normalizeAnswer(answerContent(episode.reference));
  const index = peers.indexOf(episode);
  const probes: Probe[] = [];
  for (let k = 1; k <= Math.min(count, peers.length - 1); k++) {
    const peer = peers[(index + k) % peers.length] as Episode;
    probes.push({ family: 'other-answer', form: 'another instance’s reference', response: peer.reference, coincident: normalizeAnswer(answerContent(peer.reference)) === content });
  }
  return probes;
}

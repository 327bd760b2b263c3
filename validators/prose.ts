// Model-shaped reasoning for the stuffing probes, drawn afresh for every validation from a seeded rng: no
// fixed sentence a verifier could fingerprint (a verifier that pays any reasoned answer unless it carries the
// validator's template is caught only so). The material is the prompt's own sentences, words and numbers, reshuffled
// and recombined with varied connectives, at varied lengths; one form uses prompt material alone, which a
// verifier cannot tell from a model restating the task. The validation seed fixes every draw (replayable).
import { deriveRngState } from '../sandbox/rng.js';
import { loadPlainRuntime, type PlainRng } from '../sandbox/runtime.js';
import { tokenize } from './answers.js';

let runtime: ReturnType<typeof loadPlainRuntime> | undefined;

/** A seeded rng for one stream of probe text: the same seed and labels give the same draws. */
export function proseRng(seed: number, ...labels: Array<string | number>): PlainRng {
  runtime ??= loadPlainRuntime();
  return runtime.makeRng(
    ...deriveRngState(
      `envforge-probe-prose\u0000${labels.join('\u0000')}`,
      Math.abs(Math.trunc(seed)) % Number.MAX_SAFE_INTEGER,
      0,
    ),
  );
}

// Connectives and clause shapes: combined at random with the prompt's words, so a phrase recurs in a fraction of probes
// only.
const LEADS = [
  '',
  '',
  'First,',
  'Next,',
  'Then',
  'Now',
  'So',
  'Okay,',
  'Alright,',
  'Hmm,',
  'Well,',
  'Right,',
  'After that,',
  'To begin,',
  'At this point',
  'Looking again,',
  'From here',
  'In the end',
  'Note that',
  'Also,',
  'Here',
  'Clearly',
  'Wait,',
  'Good,',
];
const CLAUSES: Array<(w: string, v: string, n: string) => string> = [
  (w, v) => `the ${w} comes before the ${v}`,
  (w) => `I need the ${w} first`,
  (w, v) => `we compare ${w} with ${v}`,
  (w, _v, n) => `${w} gives ${n} here`,
  (w) => `let me look at ${w} again`,
  (w, v) => `${w} and ${v} both matter`,
  (_w, _v, n) => `the value ${n} shows up`,
  (w) => `each ${w} counts once`,
  (w, v) => `if ${w} holds then ${v} follows`,
  (w, _v, n) => `there are ${n} of ${w}`,
  (w) => `${w} is the key part`,
  (w, v) => `going from ${w} to ${v} is straightforward`,
  (w) => `I should double-check ${w}`,
  (w, _v, n) => `with ${w} at ${n} the rest is easy`,
  (w, v) => `${v} depends on ${w}`,
  (w) => `nothing else changes the ${w}`,
];
const ENDS = ['.', '.', '.', '!', '.', '...'];
const REASONING_BANDS = [1_500, 4_000, 12_000, 30_000];
/**
 * One formatter for every probe label: `n.toLocaleString('en')` builds a new one per call, the slowest step of a probe.
 */
const EN = new Intl.NumberFormat('en');
/** A character count as a probe's form names it ("30,000"): what `n.toLocaleString('en')` writes. */
export const characters = (n: number) => EN.format(n);

/** Read-only: the last prompt's material is shared by the probes written from it. */
interface Material {
  readonly sentences: readonly string[];
  readonly words: readonly string[];
  readonly numbers: readonly number[];
}

/** The last prompt's material: an instance's reasoning and junk probes read the same prompt in turn. */
let last: { prompt: string; right: string; material: Material } | undefined;
function material(prompt: string, right: string): Material {
  if (last?.prompt !== prompt || last.right !== right) last = { prompt, right, material: readMaterial(prompt, right) };
  return last.material;
}

/** What the prompt offers to reason with: its sentences (answer-tag instructions dropped), words and numbers. */
function readMaterial(prompt: string, right: string): Material {
  const text = prompt.slice(0, 20_000).replace(/<\/?[a-z][^>]{0,40}>/gi, ' ');
  const tokens = tokenize(text, 800);
  const low = right.trim().toLowerCase();
  const sentences = text
    .split(/(?<=[.?!])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length >= 12 && s.length <= 140 && !s.toLowerCase().includes(low || '\u0000'));
  const words = [...new Set(tokens.filter((x) => /^[A-Za-z]{3,}$/.test(x) && x.toLowerCase() !== low))];
  const numbers = [
    ...new Set(tokens.filter((x) => /^[+-]?\d+(\.\d+)?$/.test(x) && x !== right.trim()).map(Number)),
  ].filter((n) => Number.isFinite(n) && Math.abs(n) < 1e12);
  return {
    sentences,
    words: words.length ? words : ['value', 'result', 'input', 'step'],
    numbers: numbers.length ? numbers : [2, 3, 5, 7],
  };
}

/** One sentence of prose: a connective, a clause over the prompt's words, and an ending; capitalised. */
function sentence(rng: PlainRng, m: Material): string {
  const lead = rng.pick(LEADS);
  const body = rng.pick(CLAUSES)(rng.pick(m.words), rng.pick(m.words), String(rng.pick(m.numbers)));
  const text = `${lead} ${body}${rng.pick(ENDS)}`.trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A prompt sentence restated, or the prompt's words reshuffled into one: text only the prompt supplies. */
function restated(rng: PlainRng, m: Material): string {
  if (m.sentences.length && rng.float() < 0.6) return rng.pick(m.sentences);
  const words = rng.shuffle(m.words).slice(0, rng.int(4, 9)).join(' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}.`;
}

/** An arithmetic line over the prompt's numbers whose result is never the right answer. */
function equation(rng: PlainRng, m: Material, right: string): string {
  for (let tries = 0; tries < 8; tries++) {
    const [a, b] = [rng.pick(m.numbers), rng.pick(m.numbers)];
    const op = rng.pick(['+', '-', '*']);
    const value = op === '+' ? a + b : op === '-' ? a - b : a * b;
    const shown = Number.isInteger(value) ? String(value) : value.toFixed(3);
    if (shown !== right.trim()) return `${a} ${op} ${b} = ${shown}`;
  }
  return `${m.numbers[0]} = ${m.numbers[0]}`;
}

/** `count` sentences mixing restated prompt text and composed sentences (`own`: prompt text only). */
function paragraph(rng: PlainRng, m: Material, count: number, own = false): string {
  let text = '';
  for (let i = 0; i < count; i++)
    text += `${i ? ' ' : ''}${own || rng.float() < 0.35 ? restated(rng, m) : sentence(rng, m)}`;
  return text;
}

function working(rng: PlainRng, m: Material, right: string, sentences: number): string {
  const lines = [paragraph(rng, m, rng.int(2, 4))];
  // At least three "=" lines, with prose between some of them.
  for (let i = rng.int(3, 5); i > 0; i--) {
    lines.push(equation(rng, m, right));
    if (rng.float() < 0.4) lines.push(paragraph(rng, m, rng.int(1, 3)));
  }
  lines.push(paragraph(rng, m, sentences));
  return lines.join('\n');
}

/** The indices of the forms `reasoning` writes: a caller that keeps a few names them (rotate over these). */
export const REASONING_FORMS = [0, 1, 2, 3, 4, 5, 6];

/**
 * Chains of thought a model writes before (or after) its answer, random in wording, order and length for a
 * given `seed` (the validation seed mixed with the instance): each probe's prose is new to the verifier.
 * `keep`: the forms wanted, by index, in the order returned; the draws stop once they are written (the first
 * three need none of the long derivation's), so every form reads the same as in the full list.
 */
export function reasoning(
  prompt: string,
  answerLike: string,
  right: string,
  seed = 0,
  keep: number[] = REASONING_FORMS,
): Array<[string, string]> {
  const rng = proseRng(seed, 'reasoning', prompt.length, right);
  const m = material(prompt, right);
  const short = paragraph(rng, m, rng.int(4, 7));
  const long = working(rng, m, right, rng.int(2, 5));
  const names = rng.shuffle(m.words.map((w) => w.toLowerCase())).slice(0, 2);
  const code =
    `\`\`\`${rng.pick(['python', 'js', ''])}\n${names[0] ?? 'values'} = [` +
    `${rng.shuffle(m.numbers).slice(0, rng.int(2, 6)).join(', ')}]\nprint(` +
    `${rng.pick(['sum', 'max', 'len', 'sorted'])}(${names[0] ?? 'values'}))\n\`\`\`\n${sentence(rng, m)}`;
  const forms: Array<[string, string]> = [
    ['a short chain of thought before a wrong answer', `${short}\n${answerLike}`],
    ['code that computes, then a wrong answer', `${short}\n${code}\n${answerLike}`],
    ['a <think> block before a wrong answer', `<think>\n${long}\n</think>\n${answerLike}`],
  ];
  if (keep.every((i) => i < forms.length)) return keep.map((i) => forms[i] as [string, string]);
  const band = rng.pick(REASONING_BANDS);
  let derivation = long;
  while (derivation.length < band) derivation += `\n${working(rng, m, right, rng.int(1, 4))}`;
  const restatedOnly = `${paragraph(rng, m, rng.int(4, 8), true)}\n${equation(rng, m, right)}`;
  forms.push(
    [
      'working with "=" lines before a wrong answer',
      `${long}\n${rng.pick(['Therefore', 'So', 'Thus', 'Hence', 'Finally'])}:\n${answerLike}`,
    ],
    [
      'a wrong answer, then an explanation',
      `${answerLike}\n\n${rng.pick(['Explanation:', 'Why:', 'Reasoning:', ''])} ${long}`,
    ],
    [`a derivation of about ${characters(band)} characters before a wrong answer`, `${derivation}\n${answerLike}`],
    ['the prompt restated and reshuffled before a wrong answer', `${restatedOnly}\n${answerLike}`],
  );
  return keep.map((i) => forms[i] as [string, string]);
}

/** Prose of `length` characters that never holds `right` (junk probes), as random as `reasoning`. */
export function junkProse(prompt: string, right: string, length: number, seed: number): string {
  const rng = proseRng(seed, 'junk', length);
  const m = material(prompt, right);
  let text = paragraph(rng, m, 8);
  // Repeated after the first paragraph: the length bands reach a megabyte, and a repeat costs nothing to build.
  const unit = `${text} `;
  if (text.length < length) text = unit.repeat(Math.ceil(length / unit.length));
  return text.slice(0, length);
}

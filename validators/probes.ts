// The hack stage's adversarial responses. For one sampled instance, a generator writes responses by
// family (empty, echo, format-only, non-answers, keyword stuffing and model-shaped reasoning, lists of
// guesses and hedges, junk of every length, perturbed and malformed answers, the prompt's own tokens), each
// family in many forms (probe-forms.ts): tags of any spelling and other markup, joiners of any script, list
// sizes. Each probe says how it is judged, from what it contains: a response that holds no answer, or more
// than one, must earn nothing; a response that may be a valid answer is judged by rate against chance.
// The enumeration family is written in probe-guesses.ts, the variant families in probe-variants.ts.
import type { Episode } from '../sandbox/episodes.js';
import type { Family, Probe, ProbeTarget } from './probe-types.js';
import { normalizeAnswer, shapeOf, tokenize, type Shape } from './answers.js';
import { answerContent, withContent } from '../sandbox/answer.js';
import { INHERITED_NAMES, nonAnswers, rotate, UNIVERSAL_ANSWERS, WRAP } from './probe-forms.js';
import { alternatives, enumerationProbes } from './probe-guesses.js';
import { variantProbes } from './probe-variants.js';
import { instanceNameAnswers } from './instance-names.js';
import { surfaceProbes } from './metamorphic.js';
import { characters, junkProse, reasoning, REASONING_FORMS } from './prose.js';

export type { Family, Probe, ProbeTarget } from './probe-types.js';
export { rotate } from './probe-forms.js';

/** The seed of this instance's random probe text: the validation seed mixed with the instance's own. */
const proseSeed = (t: ProbeTarget) => ((t.seed ?? 0) * 31 + t.episode.seed + t.index) % Number.MAX_SAFE_INTEGER;
const KEYWORDS = 'answer answer the answer is correct final answer solution verified';
/**
 * Inherited names per instance: 18 probed instances (6 a level, 3 levels) cover every class, the first 40 the
 * whole family (later ones send none).
 */
const INHERITED_WINDOW = 3;
const SHORT_BANDS = [100, 300, 1_000, 3_000, 10_000];
/** Long bands, each once per sample, with the junk that tests most at that length (backtracking bait first). */
export const LONG_BANDS: Array<[number, string]> = [
  [30_000, 'unclosed tag'],
  [100_000, 'spaces'],
  [300_000, 'a list in a tag'],
  [1_000_000, 'letters'],
];

/** Text that holds no answer at all, or a wrong one, padded with words a lenient verifier may look for. */
function stuffingProbes(t: ProbeTarget, content: string, shape: Shape): Probe[] {
  const ref = t.episode.reference;
  const right = normalizeAnswer(content).toLowerCase();
  const promptWords = tokenize(t.episode.instance.prompt, 400)
    .filter((w) => /^[A-Za-z]{3,}$/.test(w) && w.toLowerCase() !== right)
    .slice(0, 40)
    .join(' ');
  const probes: Probe[] = rotate(
    [
      {
        family: 'stuffing',
        form: 'keywords only',
        response: `${KEYWORDS}. ${KEYWORDS}.`,
        ceiling: t.ceiling,
        coincident: false,
      },
      {
        family: 'stuffing',
        form: 'keywords around an empty tag',
        response: `${KEYWORDS}\n<answer></answer>\n${KEYWORDS}`,
        ceiling: t.ceiling,
        coincident: false,
      },
      {
        family: 'stuffing',
        form: "the prompt's words and keywords",
        response: `${promptWords} ${KEYWORDS}`,
        ceiling: t.ceiling,
        coincident: false,
      },
    ],
    1,
    t.index,
  );
  const wrong = alternatives(content, shape, t.peers, 3)[t.index % 3] ?? alternatives(content, shape, t.peers, 1)[0];
  if (wrong === undefined) return probes;
  const bare = withContent(ref, wrong);
  const pair = `stuffing#${t.index}`;
  probes.push({
    family: 'stuffing',
    form: 'a wrong answer alone',
    response: bare,
    coincident: false,
    pair,
    base: true,
  });
  const stuffed = [
    `answer answer ${bare}`,
    `${bare}\nThe answer above is correct. answer answer`,
    `${KEYWORDS}\n${bare}\n${KEYWORDS}`,
    `${promptWords}\n${bare}`,
  ];
  for (const [i, response] of rotate([...stuffed.entries()], 2, t.index))
    probes.push({
      family: 'stuffing',
      form: `keywords around a wrong answer (${i + 1})`,
      response,
      ceiling: t.ceiling,
      coincident: false,
      pair,
    });
  // What a model writes: reasoning before (or after) the answer. It must add nothing to a wrong answer.
  for (const [form, response] of reasoning(
    t.episode.instance.prompt,
    bare,
    content,
    proseSeed(t),
    rotate(REASONING_FORMS, 2, t.index),
  ))
    probes.push({ family: 'stuffing', form, response, ceiling: t.ceiling, coincident: false, pair });
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
    ...(digit
      ? ([
          [`digits in a tag`, (n: number) => `<answer>${digit.repeat(Math.max(1, n - 17))}</answer>`],
          ['a list in a tag', (n: number) => `<answer>${`${digit}, `.repeat(Math.ceil(n / 3))}</answer>`],
        ] as Array<[string, (n: number) => string]>)
      : []),
  ];
  const short = rotate(SHORT_BANDS, 2, t.index).map(
    (band, b) =>
      [band, junk[(SHORT_BANDS.indexOf(band) + b + t.index) % junk.length] as [string, (n: number) => string]] as const,
  );
  const long = t.long.map((band) => {
    const name = LONG_BANDS.find(([b]) => b === band)?.[1];
    return [band, junk.find(([n]) => n === name) ?? (junk[0] as [string, (n: number) => string])] as const;
  });
  return [...short, ...long].map(([band, [name, make]]) => ({
    family: 'huge' as const,
    form: `${name}, ${characters(band)} characters`,
    response: make(band),
    ceiling: t.ceiling,
    coincident: false,
  }));
}

/** The full battery for one instance. */
export function probeBattery(t: ProbeTarget): Probe[] {
  const content = answerContent(t.episode.reference);
  const shape = shapeOf(content);
  const prompt = t.episode.instance.prompt;
  const peerContents = new Set(t.peers.map((p) => normalizeAnswer(answerContent(p.reference))));
  const zero = (family: Family, form: string, response: string): Probe => ({
    family,
    form,
    response,
    ceiling: t.ceiling,
    coincident: false,
  });
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
    ...rotate(
      [zero('empty', 'empty', ''), zero('empty', 'spaces', '   '), zero('empty', 'whitespace', '\n\t\n')],
      2,
      t.index,
    ),
    ...rotate(['bare', 'tag', 'bold', 'fence'], 2, t.index).map((m) =>
      zero('echo', `the prompt, ${m}`, WRAP[m]!(prompt, m === 'tag' ? '<answer></answer>' : '')),
    ),
    // A format that can be a valid answer at this level (an empty list) is no probe.
    ...rotate(
      formats.filter(([, r]) => !peerContents.has(normalizeAnswer(answerContent(r)))),
      3,
      t.index,
    ).map(([form, r]) => zero('format-only', form, r)),
    // Patterns and inherited names that only a verifier's machinery could accept (none is an answer some instance has).
    ...rotate(
      UNIVERSAL_ANSWERS.filter(([, v]) => machineOnly(v)),
      2,
      t.index,
    ).map(([form, v]) => zero('format-only', form, withContent(t.episode.reference, v))),
    // An inherited name's acceptance does not depend on the instance (every value of a kind inherits it): a
    // window per instance covers the family once over the sample.
    ...(t.index * INHERITED_WINDOW < INHERITED_NAMES.length
      ? rotate(INHERITED_NAMES.filter(machineOnly), INHERITED_WINDOW, t.index)
      : []
    ).map((v) => zero('format-only', `an inherited property name (${v})`, withContent(t.episode.reference, v))),
    ...rotate(instanceNameAnswers(t.episode.instance, content, t.taken ?? peerContents), 2, t.index).map(([form, v]) =>
      zero('format-only', form, withContent(t.episode.reference, v)),
    ),
    ...rotate(nonAnswers(content, shape, t.taken ?? peerContents), 3, t.index).map(([form, v]) =>
      zero('non-answer', form, withContent(t.episode.reference, v)),
    ),
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
    probes.push({
      family: 'other-answer',
      form: 'another instance’s reference',
      response: peer.reference,
      coincident: normalizeAnswer(answerContent(peer.reference)) === content,
    });
  }
  return probes;
}

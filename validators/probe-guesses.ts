// The enumeration family of the hack stage's probes: responses holding the right answer among wrong ones
// (long candidate lists in every carrier, short lists of 2 to 5 guesses joined every way, hedges), and the
// wrong answers they are made of (alternatives). A response that holds more than one answer must earn nothing.
import type { Episode } from '../sandbox/episodes.js';
import { answerContent, withContent } from '../sandbox/answer.js';
import type { Probe, ProbeTarget } from './probe-types.js';
import { caseFlips, joinItems, negations, normalizeAnswer, perturbNumbers, shapeOf, type Shape } from './answers.js';
import { EACH_CARRIERS, hedges, rotate, SCALAR_JOINERS, WRAP } from './probe-forms.js';
import { carrierSpreadProbes } from './metamorphic.js';

const MARKUPS = Object.keys(WRAP);
const EACH = EACH_CARRIERS;
const SCALAR_SEPARATORS = SCALAR_JOINERS;
const LIST_SEPARATORS = ['\n', ' | ', ' or ', '; ', '\n\n'];

/** Wrong answers for a guess list, most plausible first: neighbours of a number, other instances' answers, variants. */
export function alternatives(content: string, shape: Shape, peers: Episode[], max: number): string[] {
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
    for (let i = 0; i < items.length && out.size < max; i++)
      add(joinItems(shape, [...items.slice(0, i), `${items[i]}x`, ...items.slice(i + 1)]));
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

export function enumerationProbes(t: ProbeTarget, content: string, shape: Shape): Probe[] {
  const probes: Probe[] = [];
  const ref = t.episode.reference;
  // Long answers get fewer candidates, so a list stays a few thousand characters.
  const many = alternatives(
    content,
    shape,
    t.peers,
    Math.max(4, Math.min(40, Math.floor(4_000 / (content.length + 4)))),
  );
  if (many.length >= 2) {
    // Many candidates with the right one in the middle, so reading the first or the last one is not hit.
    const list = guesses(content, many, many.length + 1, many.length >> 1);
    const joiner = shape.kind === 'list' ? '\n' : ', ';
    // Each form's text is written only when the rotation keeps it (3 of 18).
    const forms: Array<[string, () => string]> = [
      ...Object.entries(EACH).map(([form, each]): [string, () => string] => [
        `${list.length} candidates, ${form}`,
        () => list.map(each).join('\n'),
      ]),
      ...['tag', 'bare', 'bold', 'fence'].map((markup): [string, () => string] => [
        `${list.length} candidates in one ${markup}`,
        () => WRAP[markup]!(list.join(markup === 'bare' ? ' ' : joiner), ref),
      ]),
      [
        `${list.length} candidates, one JSON object with a key each`,
        () =>
          JSON.stringify(
            Object.fromEntries(list.map((g, i) => [`answer${i + 1}`, shape.kind === 'integer' ? Number(g) : g])),
          ),
      ],
    ];
    for (const [form, write] of rotate(forms, 3, t.index))
      probes.push({
        family: 'enumeration',
        form,
        response: write(),
        ceiling: t.ceiling,
        coincident: false,
        alone: many,
      });
  }
  probes.push(...carrierSpreadProbes(t, content, many));
  // Short lists of 2 to 5 guesses: each separator in the answer tag (sizes rotate), and three guesses in another
  // markup.
  const separators = (shape.kind === 'list' ? LIST_SEPARATORS : SCALAR_SEPARATORS).filter(
    (s) => s === 'json' || s === '' || !content.includes(s.trim() || s),
  );
  rotate(separators, 4, t.index).forEach((separator, s) => {
    const other = MARKUPS[1 + ((t.index + s) % (MARKUPS.length - 1))] as string;
    for (const [markup, k] of [
      ['tag', 2 + ((t.index + s) % 4)],
      [other, 3],
    ] as const) {
      if (many.length < k - 1) continue;
      const form = `${markup}, ${k} guesses joined by ${JSON.stringify(separator)}`;
      const orders = k === 2 ? [0, 1] : [1 + ((t.index + s) % (k - 2))];
      for (const position of orders) {
        const list = guesses(content, many, k, position);
        const response = WRAP[markup]!(joinGuesses(list, separator), ref);
        probes.push({
          family: 'enumeration',
          form,
          response,
          ceiling: t.ceiling,
          coincident: false,
          alone: list.filter((g) => g !== content),
          ...(k === 2 ? { group: `${form}#${t.index}` } : {}),
        });
      }
    }
  });
  // A wrong value with an interval or uncertainty wide enough to hold the truth: many answers at once.
  for (const h of rotate(hedges(content, shape), 3, t.index))
    probes.push({
      family: 'enumeration',
      form: h.form,
      response: withContent(ref, h.response),
      ceiling: t.ceiling,
      coincident: false,
      alone: [h.wrong],
    });
  return probes;
}

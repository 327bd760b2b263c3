// The generate/solve/verify code each task family adds to the shared part of an offline module: trace the
// output, pick the input, find the missing step, or plant an input the verifier runs the program on.
import type { Design, Family } from './design.js';
import { INTRO, ANSWER_FORMAT, PARSE_INPUT, RULES, stepEntry } from './domains.js';
import { typeOf, type Ty } from './dsl.js';

/** The option letters, how to answer with one, and the parser of a letter answer (multiple-choice families). */
const LETTER_OPTIONS = `const LETTERS = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'];
const LETTER_FORMAT = 'Answer with the letter of the option, as <answer>X</answer> where X is the letter.';

function letterOf(text) {
  if (text.length > 40) return null;
  const t = text.replace(/[().:\\s]/g, '').toUpperCase();
  return t.length === 1 && LETTERS.includes(t) ? t : null;
}
`;

/** solve and verify of the multiple-choice families: the instance's letter is the one right answer. */
const letterAnswer = (wrong: string) =>
  `export function solve(instance) {
  return \`<answer>\${instance.answer}</answer>\`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  const letter = letterOf(text);
  if (letter === null) return { score: 0, feedback: 'the answer must be one option letter' };
  return letter === instance.answer ? { score: 1, feedback: 'correct' } : { score: 0, feedback: \`option ` +
  `\${letter} ${wrong}\` };
}
`;

/** How to answer with an input of the domain (the planted family asks for the input, not the output). */
const inputFormat = (domain: Ty): string =>
  ANSWER_FORMAT[domain]
    .replace('Write the numbers', 'Write the input numbers')
    .replace('Give the word', 'Give the input word')
    .replace('Give a single integer', 'Give the input as a single integer')
    .replace('Give the moves', 'Give the input moves');

export const FAMILY_CODE: Record<Family, (design: Design) => string> = {
  trace: (design) =>
    `export function generate(rng, level) {
  const k = knobs(level);
  const { input, output } = drawCase(rng, k);
  const prompt = [
    ${JSON.stringify(INTRO[design.domain])},
    ...programLines(k.steps, -1),
    '',
    \`Input: \${showInput(input)}\`,
    '',
    'What does the program output? Work through the instructions one by one.',
    ${JSON.stringify(ANSWER_FORMAT[typeOf(design.domain, [...design.steps, design.finish])])},
  ].join('\\n');
  return { prompt, input, output };
}

export function solve(instance) {
  return \`<answer>\${show(instance.output)}</answer>\`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  return matches(text, instance.output) ? { score: 1, feedback: 'correct' } : { score: 0, feedback: 'that is not ` +
    `what the program outputs' };
}
`,
  'pick-input': (design) => `${LETTER_OPTIONS}
export function generate(rng, level) {
  const k = knobs(level);
  // The options are drawn alike, as inputs whose outputs differ pairwise (so exactly one option is right), and
  // the right one is picked among them only afterwards: a wrong option drawn on the condition that its output
  // differs from a chosen truth's is unlike the truth in ways a feature of the options can read (a program that
  // keeps a running maximum makes the inputs that start with a late letter collide, so the truth was the
  // alphabetically last option more often than chance).
  const options = [];
  const outputs = new Set();
  const seen = new Set();
  for (let t = 0; t < 300 && options.length < k.options; t++) {
    const drawn = drawCase(rng, k);
    const key = showInput(drawn.input);
    const out = show(drawn.output);
    if (seen.has(key) || outputs.has(out)) continue;
    seen.add(key);
    outputs.add(out);
    options.push(drawn);
  }
  const order = rng.shuffle(options.map((_, i) => i));
  const truth = rng.pick(order);
  const answer = LETTERS[order.indexOf(truth)];
  const prompt = [
    ${JSON.stringify(INTRO[design.domain])},
    ...programLines(k.steps, -1),
    '',
    \`The program output \${show(options[truth].output)}. Exactly one of these inputs produces that output:\`,
    ...order.map((o, i) => \`\${LETTERS[i]}) \${showInput(options[o].input)}\`),
    '',
    'Which input was it? ' + LETTER_FORMAT,
  ].join('\\n');
  return { prompt, answer, optionCount: options.length };
}

${letterAnswer('gives a different output')}`,
  'missing-step': (design) =>
    `${LETTER_OPTIONS}
// Same-typed instructions that may fill the gap: the program's own steps and alternatives.
const ALTERNATIVES = [
${design.alternatives.map(stepEntry).join('\n')}
];

export function generate(rng, level) {
  const k = knobs(level);
  const hidden = rng.int(${design.core}, k.steps - 1);
  const shown = new Set(STEPS.slice(0, k.steps).filter((_, i) => i !== hidden).map((s) => s.text));
  // The missing instruction is drawn from every candidate the prompt does not show, so no option can be
  // told apart by being in the program, by never being in one, or by being the usual one for this slot.
  const candidates = [];
  for (const s of [...STEPS.slice(${design.core}), ...ALTERNATIVES]) if (!shown.has(s.text) && !candidates.some((c) ` +
    `=> c.text === s.text)) candidates.push(s);
  const truth = rng.pick(candidates);
  const swap = { at: hidden, step: truth };
  const examples = [];
  for (let e = 0; e < k.examples; e++) examples.push(drawCase(rng, k, swap));
  // A wrong option must contradict at least one example, so exactly one option fits them all.
  const wrong = [];
  for (const s of rng.shuffle(candidates)) {
    if (wrong.length >= k.options - 1) break;
    if (s.text === truth.text) continue;
    if (examples.some((ex) => show(execute(k.steps, ex.input, { at: hidden, step: s })) !== ` +
    `show(ex.output))) wrong.push(s);
  }
  const options = rng.shuffle([truth, ...wrong]);
  const answer = LETTERS[options.indexOf(truth)];
  const prompt = [
    ${JSON.stringify(INTRO[design.domain])},
    ...programLines(k.steps, hidden),
    '',
    'Here is what the complete program does on some inputs:',
    ...examples.map((ex) => \`- input \${showInput(ex.input)} gives output \${show(ex.output)}\`),
    '',
    'Which instruction is missing? Exactly one of these fits every example:',
    ...options.map((s, i) => \`\${LETTERS[i]}) \${s.text}\`),
    '',
    LETTER_FORMAT,
  ].join('\\n');
  return { prompt, answer, optionCount: options.length };
}

${letterAnswer('contradicts an example')}`,
  planted: (design) =>
    `${PARSE_INPUT[design.domain]}

export function generate(rng, level) {
  const k = knobs(level);
  // Planted solution: the target output comes from a real input, so a solution exists.
  const { input, output } = drawCase(rng, k);
  const prompt = [
    ${JSON.stringify(INTRO[design.domain])},
    ...programLines(k.steps, -1),
    '',
    \`Find an input that makes the program output exactly \${show(output)}. The input must be \${` +
    `${RULES[design.domain]}}. Any input that works is accepted.\`,
    ${JSON.stringify(inputFormat(design.domain))},
  ].join('\\n');
  return { prompt, level, planted: input, output };
}

export function solve(instance) {
  return \`<answer>\${${design.domain === 'list' ? "instance.planted.join(', ')" : 'instance.planted'}}</answer>\`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  const k = knobs(instance.level);
  const input = parseInput(text, k);
  if (input === null) return { score: 0, feedback: \`the input must be \${${RULES[design.domain]}}\` };
  return show(execute(k.steps, input)) === show(instance.output) ? { score: 1, feedback: 'correct' } : { score: 0, ` +
    `feedback: \`on that input the program outputs \${show(execute(k.steps, input))}\` };
}
`,
};

// Compiles an offline design to an ordinary environment module (contract v1: meta, generate, solve,
// verify). The program's operations are inlined as JavaScript; each family adds its own generate/verify.
import { opById, jsOf, textOf, typeOf, type Step, type Ty } from './dsl.js';

/** The task families: trace a program's output, pick the input behind an output, find the missing step, plant an input. */
export const FAMILIES = ['trace', 'pick-input', 'missing-step', 'planted'] as const;
export type Family = (typeof FAMILIES)[number];

export interface LevelKnobs {
  /** Program steps shown at this level (the finishing step comes on top). */
  steps: number;
  /** Input size: list length, word length, number of moves, or the largest integer input. */
  size: number;
  /** Largest list value (list inputs). */
  hi: number;
  /** Answer options (pick-input, missing-step). */
  options: number;
  /** Worked examples (missing-step). */
  examples: number;
}

export interface Design {
  family: Family;
  /** Input type of the program. */
  domain: Ty;
  /** The program's steps: the first `core` are at every level, the rest join level by level. */
  steps: Step[];
  core: number;
  finish: Step;
  /** Same-typed replacements offered as wrong options for a hidden step (missing-step). */
  alternatives: Step[];
  levels: LevelKnobs[];
  /** Letters of word inputs. */
  alphabet: string;
}

export interface EmitIdentity {
  name: string;
  title: string;
  description: string;
  skills: string[];
  /** One comment line on where the module comes from. */
  provenance: string;
}

const INTRO: Record<Ty, string> = {
  list: 'A program takes a list of integers and applies these instructions in order, each to the result of the previous one:',
  int: 'A program takes a positive integer and applies these instructions in order, each to the result of the previous one:',
  str: 'A program takes a word of lowercase letters and applies these instructions in order, each to the result of the previous one:',
  moves: 'A program takes a sequence of grid moves (each U, D, L or R) and applies these instructions in order, each to the result of the previous one:',
};

const SHOW_INPUT: Record<Ty, string> = {
  list: '(v) => `[${v.join(\', \')}]`',
  int: '(v) => String(v)',
  str: '(v) => `"${v}"`',
  moves: '(v) => v',
};

/** How an answer of each type is written inside the answer tag. */
const ANSWER_FORMAT: Record<Ty, string> = {
  list: 'Write the numbers in order, separated by commas, inside one answer tag: <answer>first, second, …</answer>.',
  int: 'Give a single integer N as <answer>N</answer>.',
  str: 'Give the word W as <answer>W</answer>.',
  moves: 'Give the moves as one string S without spaces, as <answer>S</answer>.',
};

const MAKE_INPUT: Record<Ty, string> = {
  list: `function makeInput(rng, k) {
  return Array.from({ length: k.size }, () => rng.int(0, k.hi));
}`,
  int: `function makeInput(rng, k) {
  return rng.int(Math.max(10, Math.floor(k.size / 10)), k.size);
}`,
  str: `function makeInput(rng, k) {
  return Array.from({ length: k.size }, () => rng.pick(ALPHABET)).join('');
}`,
  moves: `function makeInput(rng, k) {
  return Array.from({ length: k.size }, () => rng.pick(['U', 'D', 'L', 'R'])).join('');
}`,
};

/** show(value) -> answer text, usable(value) -> whether it makes a fair question, matches(text, value) -> verdict. */
const RESULT: Record<Ty, string> = {
  list: `function show(v) {
  return v.join(', ');
}
function usable(v) {
  return v.length > 0 && v.every((x) => Math.abs(x) <= 1e7);
}
function matches(text, v) {
  if (text.length > 20000) return false;
  let t = text.trim();
  if (t.startsWith('[') && t.endsWith(']')) t = t.slice(1, -1);
  const parts = kit.list(t, ',');
  return parts.length === v.length && parts.every((p, i) => kit.int(p) === v[i]);
}`,
  int: `function show(v) {
  return String(v);
}
function usable(v) {
  return Math.abs(v) <= 1e7;
}
function matches(text, v) {
  return kit.int(text) === v;
}`,
  str: `function show(v) {
  return v;
}
function usable(v) {
  return v.length > 0;
}
function matches(text, v) {
  return text.length <= 1000 && kit.normalize(text).toLowerCase() === v;
}`,
  moves: `function show(v) {
  return v;
}
function usable(v) {
  return v.length > 0;
}
function matches(text, v) {
  return text.length <= 1000 && kit.normalize(text).toUpperCase() === v;
}`,
};

/** parseInput(text, k) for the planted family: the model's proposed input, or null when it breaks the rules. */
const PARSE_INPUT: Record<Ty, string> = {
  list: `function parseInput(text, k) {
  if (text.length > 20000) return null;
  let t = text.trim();
  if (t.startsWith('[') && t.endsWith(']')) t = t.slice(1, -1);
  const values = kit.list(t, ',').map((p) => kit.int(p));
  if (values.length !== k.size || values.some((x) => x === null || x < 0 || x > k.hi)) return null;
  return values;
}`,
  int: `function parseInput(text, k) {
  const x = kit.int(text);
  return x !== null && x >= Math.max(10, Math.floor(k.size / 10)) && x <= k.size ? x : null;
}`,
  str: `function parseInput(text, k) {
  if (text.length > 1000) return null;
  const w = kit.normalize(text).toLowerCase();
  return w.length === k.size && w.split('').every((c) => ALPHABET.includes(c)) ? w : null;
}`,
  moves: `function parseInput(text, k) {
  if (text.length > 1000) return null;
  const m = kit.normalize(text).toUpperCase();
  return m.length === k.size && m.split('').every((c) => 'UDLR'.includes(c)) ? m : null;
}`,
};

const RULES: Record<Ty, string> = {
  list: '`a list of exactly ${k.size} integers, each from 0 to ${k.hi}`',
  int: '`an integer from ${Math.max(10, Math.floor(k.size / 10))} to ${k.size}`',
  str: '`a word of exactly ${k.size} letters, using only the letters ${ALPHABET.join(\', \')}`',
  moves: '`a sequence of exactly ${k.size} moves, each one of U, D, L, R`',
};

const stepEntry = (step: Step) => `  { text: ${JSON.stringify(textOf(step))}, run: ${jsOf(step)} },`;

function common(design: Design, id: EmitIdentity, levels: number): string {
  const result = typeOf(design.domain, [...design.steps, design.finish]);
  return `// ${id.title}. ${id.description}
// ${id.provenance}

export const meta = ${JSON.stringify({ name: id.name, title: id.title, description: id.description, skills: id.skills, levels }, null, 2)};

// The program: the first ${design.core} step${design.core === 1 ? ' is' : 's are'} at every level, the others join as the level grows.
const STEPS = [
${design.steps.map(stepEntry).join('\n')}
];
const FINISH = { text: ${JSON.stringify(textOf(design.finish))}, run: ${jsOf(design.finish)} };
${design.domain === 'str' ? `const ALPHABET = ${JSON.stringify(design.alphabet.split(''))};\n` : ''}
// Difficulty knobs for each level (1 = easy).
const LEVELS = ${JSON.stringify(design.levels)};
function knobs(level) {
  return LEVELS[Math.min(Math.max(level, 1), LEVELS.length) - 1];
}

${MAKE_INPUT[design.domain]}
const showInput = ${SHOW_INPUT[design.domain]};
${RESULT[result]}

function execute(count, input, swap) {
  let v = input;
  for (let i = 0; i < count; i++) v = (swap && swap.at === i ? swap.step : STEPS[i]).run(v);
  return FINISH.run(v);
}

function programLines(count, hidden) {
  const lines = STEPS.slice(0, count).map((s, i) => \`\${i + 1}. \${i === hidden ? '??? (a missing instruction)' : s.text}\`);
  lines.push(\`\${count + 1}. \${FINISH.text}\`);
  return lines;
}

// A fresh input whose output makes a fair question (the loop is bounded; the author checked that it succeeds).
function drawCase(rng, k, swap) {
  let input = makeInput(rng, k);
  let output = execute(k.steps, input, swap);
  for (let t = 0; t < 50 && !usable(output); t++) {
    input = makeInput(rng, k);
    output = execute(k.steps, input, swap);
  }
  return { input, output };
}

`;
}

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
const letterAnswer = (wrong: string) => `export function solve(instance) {
  return \`<answer>\${instance.answer}</answer>\`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  const letter = letterOf(text);
  if (letter === null) return { score: 0, feedback: 'the answer must be one option letter' };
  return letter === instance.answer ? { score: 1, feedback: 'correct' } : { score: 0, feedback: \`option \${letter} ${wrong}\` };
}
`;

const FAMILY_CODE: Record<Family, (design: Design) => string> = {
  trace: (design) => `export function generate(rng, level) {
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
  return matches(text, instance.output) ? { score: 1, feedback: 'correct' } : { score: 0, feedback: 'that is not what the program outputs' };
}
`,
  'pick-input': (design) => `${LETTER_OPTIONS}
export function generate(rng, level) {
  const k = knobs(level);
  const { input, output } = drawCase(rng, k);
  // Wrong options: other inputs whose output differs, so exactly one option is right.
  const options = [input];
  const seen = new Set([showInput(input)]);
  for (let t = 0; t < 300 && options.length < k.options; t++) {
    const other = makeInput(rng, k);
    const key = showInput(other);
    if (seen.has(key) || show(execute(k.steps, other)) === show(output)) continue;
    seen.add(key);
    options.push(other);
  }
  const order = rng.shuffle(options.map((_, i) => i));
  const answer = LETTERS[order.indexOf(0)];
  const prompt = [
    ${JSON.stringify(INTRO[design.domain])},
    ...programLines(k.steps, -1),
    '',
    \`The program output \${show(output)}. Exactly one of these inputs produces that output:\`,
    ...order.map((o, i) => \`\${LETTERS[i]}) \${showInput(options[o])}\`),
    '',
    'Which input was it? ' + LETTER_FORMAT,
  ].join('\\n');
  return { prompt, answer, optionCount: options.length };
}

${letterAnswer('gives a different output')}`,
  'missing-step': (design) => `${LETTER_OPTIONS}
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
  for (const s of [...STEPS.slice(${design.core}), ...ALTERNATIVES]) if (!shown.has(s.text) && !candidates.some((c) => c.text === s.text)) candidates.push(s);
  const truth = rng.pick(candidates);
  const swap = { at: hidden, step: truth };
  const examples = [];
  for (let e = 0; e < k.examples; e++) examples.push(drawCase(rng, k, swap));
  // A wrong option must contradict at least one example, so exactly one option fits them all.
  const wrong = [];
  for (const s of rng.shuffle(candidates)) {
    if (wrong.length >= k.options - 1) break;
    if (s.text === truth.text) continue;
    if (examples.some((ex) => show(execute(k.steps, ex.input, { at: hidden, step: s })) !== show(ex.output))) wrong.push(s);
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
  planted: (design) => `${PARSE_INPUT[design.domain]}

export function generate(rng, level) {
  const k = knobs(level);
  // Planted solution: the target output comes from a real input, so a solution exists.
  const { input, output } = drawCase(rng, k);
  const prompt = [
    ${JSON.stringify(INTRO[design.domain])},
    ...programLines(k.steps, -1),
    '',
    \`Find an input that makes the program output exactly \${show(output)}. The input must be \${${RULES[design.domain]}}. Any input that works is accepted.\`,
    ${JSON.stringify(ANSWER_FORMAT[design.domain].replace('Write the numbers', 'Write the input numbers').replace('Give the word', 'Give the input word').replace('Give a single integer', 'Give the input as a single integer').replace('Give the moves', 'Give the input moves'))},
  ].join('\\n');
  return { prompt, level, planted: input, output };
}

export function solve(instance) {
  return \`<answer>\${${design.domain === 'list' ? 'instance.planted.join(\', \')' : 'instance.planted'}}</answer>\`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  const k = knobs(instance.level);
  const input = parseInput(text, k);
  if (input === null) return { score: 0, feedback: \`the input must be \${${RULES[design.domain]}}\` };
  return show(execute(k.steps, input)) === show(instance.output) ? { score: 1, feedback: 'correct' } : { score: 0, feedback: \`on that input the program outputs \${show(execute(k.steps, input))}\` };
}
`,
};

/** The module source of a design. Throws DslTypeError when the program is ill-typed (the synthesiser never emits one). */
export function emitModule(design: Design, id: EmitIdentity): string {
  typeOf(design.domain, [...design.steps, design.finish]);
  const work = typeOf(design.domain, design.steps.slice(0, design.core));
  for (const [i, step] of design.steps.entries()) {
    if (i >= design.core && (opById(step.op).in !== work || opById(step.op).out !== work)) throw new Error(`step ${i + 1} must keep the type ${work}: only the first ${design.core} steps may change it`);
  }
  for (const alt of design.alternatives) typeOf(work, [alt]);
  return `${common(design, id, design.levels.length)}\n${FAMILY_CODE[design.family](design)}`;
}

// Compiles an offline design to a code environment (contract v3): "write a function that runs these
// instructions". The statement lists the level's instructions, the reference program inlines their
// JavaScript, and the hidden tests are fresh inputs of the level's size (never the examples' inputs).
import type { Design, EmitIdentity } from '../design.js';
import { jsOf, textOf, typeOf, type Step, type Ty } from '../dsl.js';
import { MAKE_INPUT, RESULT } from '../domains.js';

/** The parameter a task's function takes, by input type, and how the statement introduces it. */
const PARAM: Record<Ty, { name: string; intro: string }> = {
  list: { name: 'nums', intro: 'takes a list of integers `nums`' },
  int: { name: 'n', intro: 'takes a positive integer `n`' },
  str: { name: 'word', intro: 'takes a word of lowercase letters `word`' },
  moves: { name: 'moves', intro: 'takes a string `moves` of grid moves (each U, D, L or R)' },
};

export interface CodeIdentity extends EmitIdentity {
  /** The function the answer defines. */
  entry: string;
}

const HIDDEN_TESTS = 12;

/** The module source of a design as a code environment. */
export function emitCodeModule(design: Design, id: CodeIdentity): string {
  const result = typeOf(design.domain, [...design.steps, design.finish]);
  const param = PARAM[design.domain];
  const meta = {
    name: id.name,
    title: id.title,
    description: id.description,
    skills: id.skills,
    levels: design.levels.length,
    kind: 'code',
    entry: id.entry,
    params: [param.name],
    compare: 'exact',
    scoring: 'all-pass',
  };
  const entry = (s: Step) => `{ text: ${JSON.stringify(textOf(s))}, src: ${JSON.stringify(jsOf(s))}, run: ${jsOf(s)} }`;
  const steps = design.steps.map((s) => `  ${entry(s)},`).join('\n');
  const alphabet = design.domain === 'str' ? `const ALPHABET = ${JSON.stringify(design.alphabet.split(''))};\n` : '';
  const statementHead =
    `Write a function that ${param.intro} and applies these instructions in order, ` +
    'each to the result of the previous one, returning the result of the last:';
  // The reference program's first two lines, as string literals.
  const signature = JSON.stringify(`function ${id.entry}(${param.name}) {`);
  const start = JSON.stringify(`  let v = ${param.name};`);
  return `// ${id.title}. ${id.description}
// ${id.provenance}

export const meta = ${JSON.stringify(meta, null, 2)};

// The instructions: the first ${design.core} at every level, the others join as the level grows.
const STEPS = [
${steps}
];
const FINISH = ${entry(design.finish)};
${alphabet}const LEVELS = ${JSON.stringify(design.levels)};
function knobs(level) {
  return LEVELS[Math.min(Math.max(level, 1), LEVELS.length) - 1];
}

${MAKE_INPUT[design.domain]}
${RESULT[result]}

function execute(count, input) {
  let v = input;
  for (let i = 0; i < count; i++) v = STEPS[i].run(v);
  return FINISH.run(v);
}

// A case whose output is a fair value (bounded; the loop is bounded too), not one of the inputs in \`avoid\`.
function drawCase(rng, k, count, avoid) {
  for (let t = 0; t < 60; t++) {
    const input = makeInput(rng, k);
    const key = JSON.stringify(input);
    const output = execute(count, input);
    if (usable(output) && !avoid.has(key)) {
      avoid.add(key);
      return { input: [input], output };
    }
  }
  return null;
}

export function generate(rng, level) {
  const k = knobs(level);
  const count = k.steps;
  const seen = new Set();
  const examples = [drawCase(rng, knobs(1), count, seen), drawCase(rng, knobs(1), count, seen)].filter(Boolean);
  const tests = [];
  for (let t = 0; t < 3 * ${HIDDEN_TESTS} && tests.length < ${HIDDEN_TESTS}; t++) {
    const c = drawCase(rng, k, count, seen);
    if (c) tests.push(c);
  }
  const lines = STEPS.slice(0, count).map((s, i) => \`\${i + 1}. \${s.text}\`);
  lines.push(\`\${count + 1}. \${FINISH.text}\`);
  const statement = ${JSON.stringify(statementHead)} + '\\n' + lines.join('\\n');
  return { statement, examples, tests, count };
}

export function solve(task) {
  const body = STEPS.slice(0, task.count).map((s) => \`  v = (\${s.src})(v);\`);
  return [${signature}, ${start}, ...body, \`  return (\${FINISH.src})(v);\`, '}'].join('\\n');
}
`;
}

// Compiles an offline design to an ordinary environment module (contract v1: meta, generate, solve,
// verify). The program's operations are inlined as JavaScript; each family adds its own generate/verify.
import type { Design, EmitIdentity } from './design.js';
import { opById, jsOf, textOf, typeOf } from './dsl.js';
import { SHOW_INPUT, MAKE_INPUT, RESULT, stepEntry } from './domains.js';
import { FAMILY_CODE } from './families.js';

/** How the program's text shows the step a missing-step question hides (a JavaScript string literal). */
const HIDDEN_STEP = "'??? (a missing instruction)'";

function common(design: Design, id: EmitIdentity, levels: number): string {
  const result = typeOf(design.domain, [...design.steps, design.finish]);
  const meta = { name: id.name, title: id.title, description: id.description, skills: id.skills, levels };
  const coreSteps = `${design.core} step${design.core === 1 ? ' is' : 's are'}`;
  const alphabet = design.domain === 'str' ? `const ALPHABET = ${JSON.stringify(design.alphabet.split(''))};\n` : '';
  return `// ${id.title}. ${id.description}
// ${id.provenance}

export const meta = ${JSON.stringify(meta, null, 2)};

// The program: the first ${coreSteps} at every level, the others join as the level grows.
const STEPS = [
${design.steps.map(stepEntry).join('\n')}
];
const FINISH = { text: ${JSON.stringify(textOf(design.finish))}, run: ${jsOf(design.finish)} };
${alphabet}
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
  const lines = STEPS.slice(0, count).map((s, i) => \`\${i + 1}. \${i === hidden ? ${HIDDEN_STEP} : s.text}\`);
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

/**
 * The module source of a design. Throws DslTypeError when the program is ill-typed (the synthesiser never emits one).
 */
export function emitModule(design: Design, id: EmitIdentity): string {
  typeOf(design.domain, [...design.steps, design.finish]);
  const work = typeOf(design.domain, design.steps.slice(0, design.core));
  for (const [i, step] of design.steps.entries()) {
    if (i >= design.core && (opById(step.op).in !== work || opById(step.op).out !== work))
      throw new Error(`step ${i + 1} must keep the type ${work}: only the first ${design.core} steps may change it`);
  }
  for (const alt of design.alternatives) typeOf(work, [alt]);
  return `${common(design, id, design.levels.length)}\n${FAMILY_CODE[design.family](design)}`;
}

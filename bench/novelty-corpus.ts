// The synthetic library the novelty benchmark checks against: seeded pseudo-environments (code of
// plausible shape, prompts from task templates with an answer type) and disguised copies of them.
import { deriveRngState } from '../sandbox/rng.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';

export const PROMPTS_PER_ENV = 12;
export const SEED = 0x0e4f0e4f;

export type Rand = () => number;

/** The product's own seeded rng (xoshiro128**), so synthetic libraries are reproducible. */
export function prng(seed: number): () => number {
  const rng = loadPlainRuntime().makeRng(...deriveRngState('synthetic-library', seed, 1));
  return () => rng.float();
}

export const int = (rand: Rand, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
export const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
/** Zipf-like pick: low indices (common words) are much more likely. */
const zipf = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(Math.pow(rand(), 2.5) * items.length)] as T;

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ner',
  'tas',
  'vo',
  'ri',
  'pen',
  'dul',
  'sa',
  'qui',
  'bor',
  'te',
  'fa',
  'gon',
  'hel',
  'ju',
  'wex',
  'yam',
  'zor',
  'in',
  'ex',
  'st',
  'ar',
  'um',
];

function makeVocabulary(rand: Rand, size: number): string[] {
  const seen = new Set<string>([
    'the',
    'of',
    'a',
    'is',
    'and',
    'to',
    'in',
    'each',
    'how',
    'many',
    'what',
    'given',
    'find',
    'compute',
    'with',
    'from',
    'that',
    'are',
    'you',
    'your',
  ]);
  while (seen.size < size) {
    let w = '';
    const n = int(rand, 1, 4);
    for (let i = 0; i < n; i++) w += pick(rand, SYLLABLES);
    seen.add(w);
  }
  return [...seen];
}

const rootRand = prng(SEED);
const VOCAB = makeVocabulary(rootRand, 4000);
// Drop the 20 common English words every vocabulary starts with: some are keywords ('in', 'of').
const IDENTS = makeVocabulary(prng(SEED ^ 0x1d), 1520)
  .slice(20)
  .map((w, i) => (i % 3 === 0 ? w : w + pick(rootRand, ['', 'Count', 'List', 'Max', 'Idx', 'Sum', 'Set'])));

const IDENT_SET: ReadonlySet<string> = new Set(IDENTS);

const MEMBERS = [
  'push',
  'map',
  'filter',
  'reduce',
  'slice',
  'join',
  'sort',
  'includes',
  'indexOf',
  'length',
  'some',
  'every',
  'concat',
  'reverse',
];
const MATH = ['floor', 'max', 'min', 'abs', 'ceil', 'round', 'sqrt'];
const BINOPS = ['+', '-', '*', '%', '/', '+', '-'];
const CMPS = ['<', '<=', '>', '>=', '===', '!=='];
const ASSIGN = ['=', '+=', '-=', '*='];

class SourceWriter {
  private readonly names: string[];
  constructor(
    private readonly rand: Rand,
    nameCount: number,
  ) {
    this.names = Array.from({ length: nameCount }, () => pick(rand, IDENTS));
  }
  id(): string {
    return pick(this.rand, this.names);
  }
  num(): string {
    return String(int(this.rand, 0, this.rand() < 0.7 ? 10 : 1000));
  }
  str(): string {
    return `'${Array.from({ length: int(this.rand, 1, 5) }, () => zipf(this.rand, VOCAB)).join(' ')}'`;
  }

  expr(depth: number): string {
    const r = this.rand;
    if (depth <= 0) return r() < 0.6 ? this.id() : this.num();
    switch (int(r, 0, 9)) {
      case 0:
      case 1:
        return `${this.expr(depth - 1)} ${pick(r, BINOPS)} ${this.expr(depth - 1)}`;
      case 2:
        return `${this.id()}[${this.expr(depth - 1)}]`;
      case 3:
        return `${this.id()}.length`;
      case 4:
        return `Math.${pick(r, MATH)}(${this.expr(depth - 1)})`;
      case 5:
        return `rng.int(${this.expr(depth - 1)}, ${this.expr(depth - 1)})`;
      case 6:
        return `(${this.expr(depth - 1)})`;
      case 7:
        return `${this.id()}(${this.expr(depth - 1)})`;
      case 8:
        return `${this.cond(depth - 1)} ? ${this.expr(depth - 1)} : ${this.expr(depth - 1)}`;
      default:
        return r() < 0.5 ? this.id() : this.num();
    }
  }

  cond(depth: number): string {
    const r = this.rand;
    const k = int(r, 0, 5);
    if (k === 0 && depth > 0) return `${this.cond(depth - 1)} && ${this.cond(depth - 1)}`;
    if (k === 1) return `!${this.id()}`;
    return `${this.expr(Math.max(0, depth - 1))} ${pick(r, CMPS)} ${this.expr(Math.max(0, depth - 1))}`;
  }

  stmt(depth: number, indent: string): string {
    const r = this.rand;
    const inner = (): string => this.block(depth - 1, indent + '  ', int(r, 1, 3));
    const k = depth > 0 ? int(r, 0, 15) : int(r, 0, 8);
    switch (k) {
      case 0:
        return `${indent}const ${this.id()} = ${this.expr(2)};`;
      case 1:
        return `${indent}let ${this.id()} = ${this.num()};`;
      case 2:
        return `${indent}${this.id()}.push(${this.expr(1)});`;
      case 3:
        return `${indent}${this.id()} ${pick(r, ASSIGN)} ${this.expr(2)};`;
      case 4:
        return `${indent}const ${this.id()} = ${this.id()}.${pick(r, MEMBERS)}((${this.id()}) => ${this.expr(1)});`;
      case 5:
        return `${indent}const ${this.id()} = new Array(${this.expr(1)}).fill(${this.num()});`;
      case 6:
        return `${indent}if (${this.cond(1)}) return ${this.expr(1)};`;
      case 7:
        return `${indent}${this.id()}[${this.expr(1)}] = ${this.expr(2)};`;
      case 8:
        return `${indent}const ${this.id()} = \`${this.str().slice(1, -1)} \${${this.id()}} ${this.str().slice(1, -1)}\`;`;
      case 9:
      case 10: {
        const i = this.id();
        return `${indent}for (let ${i} = 0; ${i} < ${this.id()}.length; ${i}++) {\n${inner()}\n${indent}}`;
      }
      case 11:
        return `${indent}for (const ${this.id()} of ${this.id()}) {\n${inner()}\n${indent}}`;
      case 12:
      case 13:
        return `${indent}if (${this.cond(2)}) {\n${inner()}\n${indent}} else {\n${inner()}\n${indent}}`;
      case 14:
        return `${indent}while (${this.cond(1)}) {\n${inner()}\n${indent}}`;
      default:
        return `${indent}// ${this.str().slice(1, -1)}\n${indent}const ${this.id()} = rng.pick([${this.str()}, ${this.str()}]);`;
    }
  }

  block(depth: number, indent: string, count: number): string {
    return Array.from({ length: count }, () => this.stmt(depth, indent)).join('\n');
  }

  fn(name: string, params: string, statements: number): string {
    return `function ${name}(${params}) {\n${this.block(2, '  ', statements)}\n  return ${this.expr(2)};\n}`;
  }
}

/** A varied pseudo-environment module (roughly 300 to 1,500 normalised tokens). */
function syntheticSource(rand: Rand): string {
  const w = new SourceWriter(rand, int(rand, 8, 20));
  const helpers = Array.from({ length: int(rand, 1, 4) }, () => w.fn(w.id(), `${w.id()}, ${w.id()}`, int(rand, 2, 8)));
  return [
    `// ${w.str().slice(1, -1)}`,
    `export const meta = { name: ${w.str()}, title: ${w.str()}, description: ${w.str()}, skills: [${w.str()}], levels: ${int(rand, 3, 20)} };`,
    `const ${w.id().toUpperCase()} = [${w.str()}, ${w.str()}, ${w.str()}];`,
    ...helpers,
    `export ${w.fn('generate', 'rng, level', int(rand, 3, 10)).replace(/\n {2}return [^\n]*\n\}$/, '\n  return { prompt: ' + w.str() + ' + ' + w.id() + ', answer: ' + w.expr(1) + ' };\n}')}`,
    `export function solve(instance) {\n  return '<answer>' + instance.answer + '</answer>';\n}`,
    `export function verify(instance, response) {\n  const got = kit.answer(response);\n${w.block(1, '  ', int(rand, 1, 4))}\n  return got === String(instance.answer) ? 1 : 0;\n}`,
  ].join('\n\n');
}

/** A disguised copy: other identifier names, other numbers and comments, and a few inserted statements. */
function disguise(source: string, rand: Rand): string {
  const renames = new Map<string, string>();
  let out = source.replace(/\b[a-z][A-Za-z]*\b/g, (word) => {
    if (!IDENT_SET.has(word)) return word;
    let to = renames.get(word);
    if (!to) {
      to = `${pick(rand, IDENTS)}${pick(rand, ['X', 'Y', 'Z', 'Q'])}`;
      renames.set(word, to);
    }
    return to;
  });
  out = out.replace(/\b\d+\b/g, () => String(int(rand, 0, 99))).replace(/\/\/ [^\n]*/g, '// rewritten');
  const lines = out.split('\n');
  for (let e = int(rand, 0, 2); e > 0; e--)
    lines.splice(int(rand, 1, lines.length - 1), 0, `  const tmp${e} = ${int(rand, 0, 9)};`);
  return lines.join('\n');
}

interface TaskSpec {
  intro: string[];
  data: string[];
  format: string;
  picks: string[];
  answerType: 'int' | 'list:int' | 'fraction' | 'decimal' | 'word' | 'text' | 'bool';
}

const FORMATS = [
  'Give your final answer as <answer>N</answer>.',
  'Reply with the result inside <answer></answer> tags.',
  'Write only the answer between <answer> and </answer>.',
  'End your response with <answer>your answer</answer>.',
];
const ANSWER_TYPES: Array<TaskSpec['answerType']> = [
  'int',
  'int',
  'int',
  'list:int',
  'list:int',
  'fraction',
  'decimal',
  'word',
  'text',
  'bool',
];

function taskSpec(rand: Rand): TaskSpec {
  const sentence = (lo: number, hi: number, slots: number): string[] => {
    const words = Array.from({ length: int(rand, lo, hi) }, () => zipf(rand, VOCAB));
    for (let s = 0; s < slots; s++)
      words.splice(int(rand, 1, words.length), 0, pick(rand, ['{n}', '{list}', '{pick}']));
    return words;
  };
  return {
    intro: sentence(8, 22, int(rand, 0, 2)),
    data: sentence(4, 14, int(rand, 1, 3)),
    format: pick(rand, FORMATS),
    picks: Array.from({ length: int(rand, 2, 6) }, () => pick(rand, VOCAB)),
    answerType: pick(rand, ANSWER_TYPES),
  };
}

function reference(spec: TaskSpec, rand: Rand): string {
  const n = (): number => int(rand, -50, 500);
  switch (spec.answerType) {
    case 'int':
      return `<answer>${n()}</answer>`;
    case 'list:int':
      return `<answer>${Array.from({ length: int(rand, 2, 6) }, n).join(', ')}</answer>`;
    case 'fraction':
      return `<answer>${n()}/${int(rand, 2, 97)}</answer>`;
    case 'decimal':
      return `<answer>${n()}.${int(rand, 1, 99)}</answer>`;
    case 'word':
      return `<answer>${pick(rand, spec.picks)}</answer>`;
    case 'text':
      return `<answer>${pick(rand, spec.picks)} ${pick(rand, VOCAB)} ${pick(rand, VOCAB)}</answer>`;
    default:
      return `<answer>${pick(rand, ['yes', 'no'])}</answer>`;
  }
}

export function prompts(spec: TaskSpec, rand: Rand): { prompts: string[]; references: string[] } {
  const fill = (words: string[], level: number): string =>
    words
      .map((w) =>
        w === '{n}'
          ? String(int(rand, 1, 100 * level))
          : w === '{list}'
            ? `[${Array.from({ length: 2 + level }, () => int(rand, 0, 99)).join(', ')}]`
            : w === '{pick}'
              ? pick(rand, spec.picks)
              : w,
      )
      .join(' ');
  const out: string[] = [];
  const refs: string[] = [];
  for (let i = 0; i < PROMPTS_PER_ENV; i++) {
    const level = 1 + (i % 10);
    out.push(`${fill(spec.intro, level)}. ${fill(spec.data, level)}. ${spec.format}`);
    refs.push(reference(spec, rand));
  }
  return { prompts: out, references: refs };
}

export interface SyntheticEnv {
  source: string;
  spec: TaskSpec;
}

export function freshEnv(rand: Rand): SyntheticEnv {
  return { source: syntheticSource(rand), spec: taskSpec(rand) };
}

export function copyOf(env: SyntheticEnv, rand: Rand): SyntheticEnv {
  return { source: disguise(env.source, rand), spec: env.spec };
}

// Pseudo-environment module sources for the novelty benchmark's synthetic library: varied code of plausible
// shape, and disguised copies of it (other names, numbers and comments, a few inserted statements).
import { IDENT_SET, IDENTS, int, pick, VOCAB, zipf, type Rand } from './novelty-words.js';

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
  /** A few words of the vocabulary. */
  words(): string {
    return Array.from({ length: int(this.rand, 1, 5) }, () => zipf(this.rand, VOCAB)).join(' ');
  }
  /** A few words as a string literal. */
  str(): string {
    return `'${this.words()}'`;
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
      case 8: {
        const [name, before, used, after] = [this.id(), this.words(), this.id(), this.words()];
        return `${indent}const ${name} = \`${before} \${${used}} ${after}\`;`;
      }
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
      default: {
        const comment = `${indent}// ${this.words()}`;
        return `${comment}\n${indent}const ${this.id()} = rng.pick([${this.str()}, ${this.str()}]);`;
      }
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
export function syntheticSource(rand: Rand): string {
  const w = new SourceWriter(rand, int(rand, 8, 20));
  const helpers = Array.from({ length: int(rand, 1, 4) }, () => w.fn(w.id(), `${w.id()}, ${w.id()}`, int(rand, 2, 8)));
  // The parts in the order of their draws (the corpus is a function of its seed).
  const comment = `// ${w.words()}`;
  const fields = ['name', 'title', 'description'].map((field) => `${field}: ${w.str()}`);
  const meta = `export const meta = { ${fields.join(', ')}, skills: [${w.str()}], levels: ${int(rand, 3, 20)} };`;
  const table = `const ${w.id().toUpperCase()} = [${w.str()}, ${w.str()}, ${w.str()}];`;
  // generate ends by returning a prompt and an answer.
  const generate = w.fn('generate', 'rng, level', int(rand, 3, 10));
  const generateReturn = '\n  return { prompt: ' + w.str() + ' + ' + w.id() + ', answer: ' + w.expr(1) + ' };\n}';
  const solve = ['export function solve(instance) {', "  return '<answer>' + instance.answer + '</answer>';", '}'];
  const verify = [
    'export function verify(instance, response) {',
    '  const got = kit.answer(response);',
    w.block(1, '  ', int(rand, 1, 4)),
    '  return got === String(instance.answer) ? 1 : 0;',
    '}',
  ];
  return [
    comment,
    meta,
    table,
    ...helpers,
    `export ${generate.replace(/\n {2}return [^\n]*\n\}$/, generateReturn)}`,
    solve.join('\n'),
    verify.join('\n'),
  ].join('\n\n');
}

/** A disguised copy: other identifier names, other numbers and comments, and a few inserted statements. */
export function disguise(source: string, rand: Rand): string {
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

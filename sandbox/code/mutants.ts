// Mutants of a reference program (contract v3's weak-test check): one token changed each, an operator
// swapped for its neighbour, a constant moved by one, a boundary shifted, a boolean flipped (never a loop's
// step: ++ for -- mostly makes a program that never ends, which costs time and tells nothing). Read with
// acorn's tokenizer, so strings, comments and regular expressions are never touched. A mutant's site names its
// change by structure (the program's tokens with comments dropped and literals abstracted, the token's index, the
// swap or ±1), so programs that differ only in data or comments have the same mutants.
import { createHash } from 'node:crypto';
import { tokenizer, tokTypes, type Token } from 'acorn';

export interface Mutant {
  /** What changed, e.g. "< → <= at 132". */
  change: string;
  /** The change by structure: the same in programs that differ only in literals and comments. */
  site: string;
  program: string;
}

/** A token as the program's structure sees it: a literal by its type only, anything else by its text. */
const LITERALS = new Set([tokTypes.num, tokTypes.string, tokTypes.template, tokTypes.regexp]);
const shapeOf = (token: Token, text: string) => (LITERALS.has(token.type) ? `<${token.type.label}>` : text);

const SWAPS: Record<string, string[]> = {
  '+': ['-'],
  '-': ['+'],
  '*': ['/', '+'],
  '/': ['*'],
  '%': ['*'],
  '<': ['<=', '>'],
  '<=': ['<', '>='],
  '>': ['>=', '<'],
  '>=': ['>', '<='],
  '===': ['!=='],
  '!==': ['==='],
  '==': ['!='],
  '!=': ['=='],
  '&&': ['||'],
  '||': ['&&'],
  true: ['false'],
  false: ['true'],
};

const OPERATOR_TYPES = new Set([
  tokTypes.plusMin,
  tokTypes.star,
  tokTypes.slash,
  tokTypes.modulo,
  tokTypes.relational,
  tokTypes.equality,
  tokTypes.logicalAND,
  tokTypes.logicalOR,
  tokTypes._true,
  tokTypes._false,
]);

function replacements(token: Token, text: string): string[] {
  if (token.type === tokTypes.num) {
    const value = Number(text);
    if (!Number.isFinite(value) || !/^\d+(\.\d+)?$/.test(text)) return [];
    return [...new Set([String(value + 1), value === 0 ? '' : String(value - 1)])].filter((t) => t !== '');
  }
  return OPERATOR_TYPES.has(token.type) ? (SWAPS[text] ?? []) : [];
}

/**
 * Every one-token mutant of the program, in source order, at most `max` of them spread evenly over it. Throws when it
 * does not tokenize.
 */
export function mutantsOf(program: string, max: number): Mutant[] {
  const out: Array<Omit<Mutant, 'site'> & { at: string }> = [];
  const shape: string[] = [];
  for (const token of tokenizer(program, { ecmaVersion: 'latest', sourceType: 'script' })) {
    const text = program.slice(token.start, token.end);
    const literal = token.type === tokTypes.num;
    for (const swap of replacements(token, text))
      out.push({
        change: `${text} → ${swap} at ${token.start}`,
        at: `${shape.length}:${literal ? (Number(swap) > Number(text) ? '+1' : '-1') : `${text}→${swap}`}`,
        program: program.slice(0, token.start) + swap + program.slice(token.end),
      });
    shape.push(shapeOf(token, text));
  }
  const structure = createHash('sha256').update(shape.join(' ')).digest('hex').slice(0, 16);
  const all = out.map(({ at, ...m }): Mutant => ({ ...m, site: `${structure}:${at}` }));
  if (all.length <= max) return all;
  const step = all.length / max;
  return Array.from({ length: max }, (_, i) => all[Math.floor(i * step)] as Mutant);
}

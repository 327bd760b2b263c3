// Mutants of a reference program (contract v3's weak-test check): one token changed each, an operator
// swapped for its neighbour, a constant moved by one, a boundary shifted, a boolean flipped (never a loop's
// step: ++ for -- mostly makes a program that never ends, which costs time and tells nothing). Read with
// acorn's tokenizer, so strings, comments and regular expressions are never touched.
import { tokenizer, tokTypes, type Token } from 'acorn';

export interface Mutant {
  /** What changed, e.g. "< → <= at 132". */
  change: string;
  program: string;
}

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
  const out: Mutant[] = [];
  for (const token of tokenizer(program, { ecmaVersion: 'latest', sourceType: 'script' })) {
    const text = program.slice(token.start, token.end);
    for (const swap of replacements(token, text))
      out.push({
        change: `${text} → ${swap} at ${token.start}`,
        program: program.slice(0, token.start) + swap + program.slice(token.end),
      });
  }
  if (out.length <= max) return out;
  const step = out.length / max;
  return Array.from({ length: max }, (_, i) => out[Math.floor(i * step)] as Mutant);
}

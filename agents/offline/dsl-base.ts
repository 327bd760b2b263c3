// The offline author's DSL vocabulary: value types, an operation's definition, a program step, and the small
// helpers the operation tables (dsl-ops-*.ts) build their parameters, JavaScript and English with.

/** Value types: integers, integer lists, lowercase words, and move strings over U, D, L, R (grid walks). */
export type Ty = 'int' | 'list' | 'str' | 'moves';

export type Params = Record<string, number | string>;

/** A random source for parameters (the author's seeded rng). */
export interface Draw {
  int(lo: number, hi: number): number;
  pick<T>(array: readonly T[]): T;
}

export interface OpDef {
  id: string;
  in: Ty;
  out: Ty;
  /** Taxonomy skills the operation exercises. */
  skills: readonly string[];
  /** A reducer ends a program (its output is the answer); others may also end one when `final` is set. */
  role: 'step' | 'final' | 'both';
  params?(draw: Draw): Params;
  /** A JavaScript arrow function of one argument; parameters are inlined as literals. */
  js(p: Params): string;
  /** What the operation does, as one instruction of the program the prompt shows. */
  text(p: Params): string;
}

export interface Step {
  op: string;
  params: Params;
}

export const n = (p: Params, k: string): number => p[k] as number;
export const s = (p: Params, k: string): string => p[k] as string;
export const signed = (b: number): string => (b >= 0 ? `add ${b}` : `subtract ${-b}`);
export const nonZero = (draw: Draw, lo: number, hi: number): number => {
  const v = draw.int(lo, hi - 1);
  return v >= 0 ? v + 1 : v;
};

export const VOWELS = 'aeiou';
export const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

// The seeded randomness and vocabularies of the novelty benchmark's synthetic library: the product's own rng,
// a word vocabulary for prompts and comments, and identifier names for code.
import { deriveRngState } from '../sandbox/rng.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';

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
export const zipf = <T>(rand: Rand, items: readonly T[]): T =>
  items[Math.floor(Math.pow(rand(), 2.5) * items.length)] as T;

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
export const VOCAB = makeVocabulary(rootRand, 4000);
// Drop the 20 common English words every vocabulary starts with: some are keywords ('in', 'of').
export const IDENTS = makeVocabulary(prng(SEED ^ 0x1d), 1520)
  .slice(20)
  .map((w, i) => (i % 3 === 0 ? w : w + pick(rootRand, ['', 'Count', 'List', 'Max', 'Idx', 'Sum', 'Set'])));

export const IDENT_SET: ReadonlySet<string> = new Set(IDENTS);

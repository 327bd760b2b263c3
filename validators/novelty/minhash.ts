// MinHash over 32-bit shingle hashes, the options of the novelty check (thresholds, permutations, LSH
// bands), and the hashes both fingerprints use. docs/novelty.md explains the scheme; changing MINHASH_SEED
// or a hash invalidates every stored fingerprint.

/**
 * MinHash and LSH parameters; thresholds are estimated Jaccard similarities in (0, 1]; bands must divide permutations.
 */
export interface NoveltyOptions {
  codeThreshold: number;
  behaviourThreshold: number;
  permutations: number;
  bands: number;
}

/**
 * 128 permutations in 32 bands of 4 rows: P(candidate) = 1 - (1 - s^4)^32 is 0.99985 at s = 0.7 and > 0.9999999 at 0.8.
 */
export const DEFAULT_NOVELTY_OPTIONS: NoveltyOptions = Object.freeze({
  codeThreshold: 0.8,
  behaviourThreshold: 0.7,
  permutations: 128,
  bands: 32,
});

/** Fixed seed of the permutation parameters: changing it invalidates every stored fingerprint. */
export const MINHASH_SEED = 0x5eed4e07;
/** The Mersenne prime 2^31 - 1; signature slots of non-empty sets lie in [0, MINHASH_PRIME). */
export const MINHASH_PRIME = 2147483647;
/** Slot value of the signature of an empty shingle set. */
export const EMPTY_SLOT = 0xffffffff;

const MAX_PERMUTATIONS = 4096;

export function resolveOptions(options: Partial<NoveltyOptions> = {}): NoveltyOptions {
  const resolved: NoveltyOptions = { ...DEFAULT_NOVELTY_OPTIONS };
  for (const key of ['codeThreshold', 'behaviourThreshold', 'permutations', 'bands'] as const) {
    const value = options[key];
    if (value !== undefined) resolved[key] = value;
  }
  const { codeThreshold, behaviourThreshold, permutations, bands } = resolved;
  for (const [name, t] of [
    ['codeThreshold', codeThreshold],
    ['behaviourThreshold', behaviourThreshold],
  ] as const) {
    if (!(typeof t === 'number' && t > 0 && t <= 1))
      throw new RangeError(`novelty: ${name} must be in (0, 1], got ${String(t)}`);
  }
  if (!Number.isInteger(permutations) || permutations < 1 || permutations > MAX_PERMUTATIONS) {
    throw new RangeError(
      `novelty: permutations must be an integer in [1, ${MAX_PERMUTATIONS}], got ${String(permutations)}`,
    );
  }
  if (!Number.isInteger(bands) || bands < 1 || permutations % bands !== 0) {
    throw new RangeError(
      `novelty: bands must be a positive divisor of permutations (${permutations}), got ${String(bands)}`,
    );
  }
  return resolved;
}

/** 32-bit FNV-1a over UTF-16 code units, finished with murmur3's fmix32 for better avalanche. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

export function fmix32(input: number): number {
  let h = input | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

interface Permutations {
  aHi: Float64Array; // a >>> 16  (< 2^15)
  aLo: Float64Array; // a & 0xffff
  b: Float64Array;
}

let permutationCache: Permutations = { aHi: new Float64Array(0), aLo: new Float64Array(0), b: new Float64Array(0) };

/** (a_i, b_i) for i < n, from a splitmix32 stream seeded with MINHASH_SEED: a_i in [1, p), b_i in [0, p). */
function permutations(n: number): Permutations {
  if (permutationCache.b.length >= n) return permutationCache;
  const aHi = new Float64Array(n);
  const aLo = new Float64Array(n);
  const b = new Float64Array(n);
  let state = MINHASH_SEED | 0;
  const next = (): number => {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
    return (z ^ (z >>> 15)) >>> 0;
  };
  for (let i = 0; i < n; i++) {
    const a = 1 + (next() % (MINHASH_PRIME - 1));
    aHi[i] = Math.floor(a / 65536);
    aLo[i] = a % 65536;
    b[i] = next() % MINHASH_PRIME;
  }
  permutationCache = { aHi, aLo, b };
  return permutationCache;
}

/** MinHash signature of a set of 32-bit shingle hashes (duplicates allowed). */
export function minhash(
  hashes: Iterable<number>,
  permutationCount: number = DEFAULT_NOVELTY_OPTIONS.permutations,
): number[] {
  const unique = new Set<number>();
  for (const h of hashes) unique.add((h >>> 0) % MINHASH_PRIME);
  const sig = new Array<number>(permutationCount).fill(EMPTY_SLOT);
  if (unique.size === 0) return sig;
  const xs = Float64Array.from(unique);
  const { aHi, aLo, b } = permutations(permutationCount);
  const P = MINHASH_PRIME;
  const T = 2147483648; // 2^31 = 1 (mod P): y mod P folds as (y mod 2^31) + floor(y / 2^31)
  const n = xs.length;
  for (let i = 0; i < permutationCount; i++) {
    const hi = aHi[i] as number;
    const lo = aLo[i] as number;
    const bi = b[i] as number;
    let min = P;
    for (let j = 0; j < n; j++) {
      const x = xs[j] as number;
      // a*x + b = (hi*x)*2^16 + lo*x + b. hi*x < 2^46 folds below 2^31 + 2^15; the sum then stays below
      // 2^49, so every step is exact in doubles; two folds and one subtraction give the residue in [0, P).
      let y = hi * x;
      let q = Math.floor(y / T);
      y = y - q * T + q;
      y = y * 65536 + lo * x + bi;
      q = Math.floor(y / T);
      y = y - q * T + q;
      q = Math.floor(y / T);
      y = y - q * T + q;
      if (y >= P) y -= P;
      if (y < min) min = y;
    }
    sig[i] = min;
  }
  return sig;
}

/**
 * Fraction of equal slots: an unbiased estimate of the Jaccard similarity. 0 when either signature is of an empty set.
 */
export function estimateSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length)
    throw new RangeError(`novelty: signatures of different lengths (${a.length} vs ${b.length})`);
  const n = a.length;
  if (n === 0 || a[0] === EMPTY_SLOT || b[0] === EMPTY_SLOT) return 0;
  let equal = 0;
  for (let i = 0; i < n; i++) if (a[i] === b[i]) equal++;
  return equal / n;
}

/**
 * estimateSimilarity of two non-empty signatures when it can still reach `threshold`, else -1: stops once
 * the mismatches exceed what the threshold allows (with one slot of slack; callers compare the result).
 */
export function similarityAtLeast(a: Uint32Array, b: Uint32Array, threshold: number): number {
  const n = a.length;
  if (b[0] === EMPTY_SLOT) return -1;
  const allowed = n - Math.ceil(threshold * n) + 1;
  let mismatches = 0;
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i] && ++mismatches > allowed) return -1;
  }
  return (n - mismatches) / n;
}

export function isEmptySignature(sig: ArrayLike<number>): boolean {
  return sig.length === 0 || sig[0] === EMPTY_SLOT;
}

/** murmur3_x86_32 (seed 0) over a run of 32-bit words: the hash of a shingle given its items' hashes. */
function hashWords(words: ArrayLike<number>, start: number, count: number): number {
  let h = 0;
  for (let j = start; j < start + count; j++) {
    let k1 = Math.imul(words[j] as number, 0xcc9e2d51);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, 0x1b873593);
    h ^= k1;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  return fmix32(h ^ (count * 4));
}

/**
 * Adds the hashes of the shingles of k consecutive items (one shingle of all items when there are fewer
 * than k): each item is hashed with hashString, each shingle with hashWords over its items' hashes.
 */
export function shingleHashes(
  items: readonly string[],
  k: number,
  into: Set<number>,
  cache: Map<string, number>,
): void {
  if (items.length === 0) return;
  const words = new Uint32Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as string;
    let h = cache.get(item);
    if (h === undefined) {
      h = hashString(item);
      cache.set(item, h);
    }
    words[i] = h;
  }
  if (items.length <= k) {
    into.add(hashWords(words, 0, items.length));
    return;
  }
  for (let i = 0; i + k <= items.length; i++) into.add(hashWords(words, i, k));
}

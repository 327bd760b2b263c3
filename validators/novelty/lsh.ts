// Stage 8 (novelty): fingerprints an environment by code and by behaviour and finds near-duplicates in the library through a MinHash/LSH index that stays fast at 10,000+ environments.
//
// How it works, in order:
// - Code: the source is tokenised roughly as JavaScript (comments dropped; string and template text ->
//   'str', regex literals -> 'regex', numbers -> 'num'; identifiers -> 'id' unless they are keywords or
//   names fixed by the platform, see GLOBAL_NAMES and MEMBER_NAMES; `var`/`let`/`const` -> 'let').
//   Shingles are runs of CODE_SHINGLE consecutive tokens. Renaming identifiers, rewriting comments or
//   changing numeric/string constants therefore leaves the shingle set unchanged.
// - Behaviour: prompts are lowercased, numbers and words containing digits are masked to '#', runs of
//   masked numbers (lists) collapse to one '#', punctuation is dropped; shingles are runs of
//   BEHAVIOUR_SHINGLE words inside one prompt. With TEMPLATE_MIN_PROMPTS or more prompts only "template"
//   shingles (seen in at least two prompts) are kept, so random content (names, letters) does not dilute
//   the signal; if none survive, all are kept. The answer type is a coarse join of the types of the
//   <answer> contents of the reference responses (answerTypeOf).
// - Hash: each token/word is hashed with 32-bit FNV-1a finished by murmur3's fmix32; a shingle is hashed
//   with murmur3_x86_32 over its items' hashes, then reduced mod p = 2^31 - 1. Permutation i is
//   h_i(x) = (a_i * x + b_i) mod p with (a_i, b_i) from a splitmix32 stream seeded with MINHASH_SEED,
//   computed exactly in doubles (a_i split into 16-bit halves, folding with 2^31 = 1 mod p). Slot i is the
//   minimum of h_i over the shingle set. The same input gives the same signature in every process; a
//   signature with n permutations is the prefix of one with more. An empty shingle set gives EMPTY_SLOT in
//   every slot and is never a duplicate of anything.
// - Index: classic LSH banding, `bands` bands of `permutations / bands` rows for each of the two signatures
//   (behaviour band keys also include the answer type, which a behaviour match requires anyway).
//   Candidates sharing a bucket are verified with exactly the rule `scan` applies to every entry (with an
//   early exit once a threshold is out of reach), so `query` returns a subset of `scan`; with the default
//   32 bands x 4 rows it misses a pair at similarity 0.7 with probability ~1.5e-4 (at 0.8: ~5e-8), far
//   below the MinHash estimate's own noise (see lshCandidateProbability).

/** What the library stores per environment. */
export interface Fingerprint {
  /** MinHash signature (e.g. 128 uint32) of shingles of the normalised code tokens. */
  code: number[];
  /** MinHash signature of word shingles of generated prompts with numbers masked. */
  behaviour: number[];
  /** Coarse answer-type signature, e.g. 'int', 'list:int', 'text', 'fraction', 'mixed' derived from reference answers. */
  answerType: string;
}

/** MinHash and LSH parameters; thresholds are estimated Jaccard similarities in (0, 1]; bands must divide permutations. */
export interface NoveltyOptions {
  codeThreshold: number;
  behaviourThreshold: number;
  permutations: number;
  bands: number;
}

/** 128 permutations in 32 bands of 4 rows: P(candidate) = 1 - (1 - s^4)^32 is 0.99985 at s = 0.7 and > 0.9999999 at 0.8. */
export const DEFAULT_NOVELTY_OPTIONS: NoveltyOptions = Object.freeze({
  codeThreshold: 0.8,
  behaviourThreshold: 0.7,
  permutations: 128,
  bands: 32,
});

/** Tokens per code shingle: 8 keeps copies with a few edited lines above 0.9 while common idioms shared by unrelated environments match less (seed-library background ~0.1 instead of ~0.17 at 6). */
export const CODE_SHINGLE = 8;
/** Words per behaviour shingle (within one prompt). */
export const BEHAVIOUR_SHINGLE = 4;
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
  for (const [name, t] of [['codeThreshold', codeThreshold], ['behaviourThreshold', behaviourThreshold]] as const) {
    if (!(typeof t === 'number' && t > 0 && t <= 1)) throw new RangeError(`novelty: ${name} must be in (0, 1], got ${String(t)}`);
  }
  if (!Number.isInteger(permutations) || permutations < 1 || permutations > MAX_PERMUTATIONS) {
    throw new RangeError(`novelty: permutations must be an integer in [1, ${MAX_PERMUTATIONS}], got ${String(permutations)}`);
  }
  if (!Number.isInteger(bands) || bands < 1 || permutations % bands !== 0) {
    throw new RangeError(`novelty: bands must be a positive divisor of permutations (${permutations}), got ${String(bands)}`);
  }
  return resolved;
}

/** Probability that LSH with `bands` bands of `rows` rows makes a pair of Jaccard similarity s a candidate. */
export function lshCandidateProbability(s: number, bands: number, rows: number): number {
  return 1 - Math.pow(1 - Math.pow(s, rows), bands);
}

// ------------------------------------------------------------------------------------------- hashing

/** 32-bit FNV-1a over UTF-16 code units, finished with murmur3's fmix32 for better avalanche. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

function fmix32(input: number): number {
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
export function minhash(hashes: Iterable<number>, permutationCount: number = DEFAULT_NOVELTY_OPTIONS.permutations): number[] {
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

/** Fraction of equal slots: an unbiased estimate of the Jaccard similarity. 0 when either signature is of an empty set. */
export function estimateSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`novelty: signatures of different lengths (${a.length} vs ${b.length})`);
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
function similarityAtLeast(a: Uint32Array, b: Uint32Array, threshold: number): number {
  const n = a.length;
  if (b[0] === EMPTY_SLOT) return -1;
  const allowed = n - Math.ceil(threshold * n) + 1;
  let mismatches = 0;
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i] && ++mismatches > allowed) return -1;
  }
  return (n - mismatches) / n;
}

function isEmptySignature(sig: ArrayLike<number>): boolean {
  return sig.length === 0 || sig[0] === EMPTY_SLOT;
}

// ------------------------------------------------------------------------------------------- code

const KEYWORDS: ReadonlySet<string> = new Set([
  'break', 'case', 'catch', 'class', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'export',
  'extends', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'return', 'super',
  'switch', 'this', 'throw', 'try', 'typeof', 'void', 'while', 'with', 'yield', 'static', 'async', 'await',
  'of', 'get', 'set', 'null', 'true', 'false', 'undefined', 'NaN', 'Infinity',
]);
/** Keywords after which a value has ended (so a following '/' divides). */
const VALUE_KEYWORDS: ReadonlySet<string> = new Set(['this', 'super', 'null', 'true', 'false', 'undefined', 'NaN', 'Infinity']);

/**
 * Names kept verbatim as bare identifiers besides keywords: those an environment cannot rename without
 * changing what it means, i.e. the contract's exports, the host's global `kit` and JavaScript globals.
 * Parameter and local names (`rng`, `instance`, `response`, `level`, `values`, `max`, ...) become 'id': they
 * are only conventions, and a renamed copy must fingerprint the same.
 */
export const GLOBAL_NAMES: ReadonlySet<string> = new Set([
  'meta', 'generate', 'solve', 'verify', 'kit',
  'Math', 'JSON', 'Number', 'String', 'Array', 'Object', 'Set', 'Map', 'BigInt', 'Boolean', 'Error', 'RegExp',
  'Symbol', 'parseInt', 'parseFloat', 'isNaN', 'isFinite',
]);

/**
 * Names kept verbatim right after a '.': the instance fields `prompt`/`answer`, the methods of `kit` and
 * `rng`, and common built-in members. Other property names become 'id'.
 */
export const MEMBER_NAMES: ReadonlySet<string> = new Set([
  'prompt', 'answer', 'normalize', 'int', 'number', 'list', 'float', 'pick', 'shuffle',
  'length', 'push', 'pop', 'shift', 'unshift', 'slice', 'splice', 'map', 'filter', 'reduce', 'forEach', 'some',
  'every', 'find', 'findIndex', 'includes', 'indexOf', 'join', 'split', 'sort', 'reverse', 'concat', 'fill',
  'keys', 'values', 'entries', 'from', 'floor', 'ceil', 'round', 'abs', 'min', 'max', 'pow', 'sqrt', 'trunc',
  'sign', 'log', 'trim', 'toLowerCase', 'toUpperCase', 'replace', 'match', 'test', 'startsWith', 'endsWith',
  'padStart', 'padEnd', 'repeat', 'has', 'add', 'get', 'set', 'delete', 'size', 'stringify', 'parse', 'toString',
  'toFixed', 'charCodeAt', 'fromCharCode', 'charAt', 'isInteger', 'isSafeInteger', 'assign', 'freeze', 'flat',
  'flatMap', 'at', 'localeCompare',
]);

const DECLARATIONS = new Set(['var', 'let', 'const']);
const IDENT_RE = /[A-Za-z_$\u00c0-\uffff][\w$\u00c0-\uffff]*/y;
const NUMBER_RE = /(?:0[xX][\da-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?)n?/y;
const PUNCT_RE = /(?:>>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|\?\?=|&&=|\|\|=|=>|==|!=|<=|>=|&&|\|\||\?\?|\?\.|\+\+|--|\+=|-=|\*=|\/=|%=|&=|\|=|\^=|\*\*|<<|>>|[{}()[\];,<>+\-*/%&|^!~?:=.@#])/y;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029;
}

/**
 * Rough JavaScript tokeniser that normalises as described at the top of this file. It never throws: text
 * it cannot place becomes single-character tokens. Regex literals become 'regex' (a '/' starts a regex
 * unless the previous token can end an expression).
 */
export function normaliseCode(source: string): string[] {
  const out: string[] = [];
  const s = source;
  const n = s.length;
  let i = 0;
  // Stack of brace depths at which a template literal's `${` was opened.
  const templateStack: number[] = [];
  let braceDepth = 0;
  let prevEndsExpression = false;

  const scanString = (quote: number): void => {
    i++;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === 92) i += 2;
      else if (c === quote) { i++; return; }
      else if (c === 10) return; // unterminated: stop at end of line
      else i++;
    }
  };
  // Scans template text from i (just after ` or }) up to the closing ` or to `${`; returns true on `${`.
  const scanTemplateText = (): boolean => {
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === 92) i += 2;
      else if (c === 96) { i++; return false; }
      else if (c === 36 && s.charCodeAt(i + 1) === 123) { i += 2; return true; }
      else i++;
    }
    return false;
  };
  // After a template chunk: either an interpolation opens (track its brace depth) or the template ended.
  const continueTemplate = (): void => {
    if (scanTemplateText()) {
      templateStack.push(braceDepth);
      braceDepth++;
      prevEndsExpression = false;
    } else {
      prevEndsExpression = true;
    }
  };
  const enterTemplateText = (): void => {
    out.push('str');
    continueTemplate();
  };

  while (i < n) {
    const c = s.charCodeAt(i);
    if (isSpace(c)) { i++; continue; }
    if (c === 47 /* / */) {
      const d = s.charCodeAt(i + 1);
      if (d === 47) { // line comment
        const end = s.indexOf('\n', i);
        i = end < 0 ? n : end;
        continue;
      }
      if (d === 42) { // block comment
        const end = s.indexOf('*/', i + 2);
        i = end < 0 ? n : end + 2;
        continue;
      }
      if (!prevEndsExpression) { // regex literal
        i++;
        let inClass = false;
        while (i < n) {
          const r = s.charCodeAt(i);
          if (r === 92) { i += 2; continue; }
          if (r === 10) break;
          i++;
          if (r === 91) inClass = true;
          else if (r === 93) inClass = false;
          else if (r === 47 && !inClass) break;
        }
        while (i < n && /[a-z]/.test(s[i] as string)) i++;
        out.push('regex');
        prevEndsExpression = true;
        continue;
      }
    }
    if (c === 39 || c === 34) { scanString(c); out.push('str'); prevEndsExpression = true; continue; }
    if (c === 96) { i++; enterTemplateText(); continue; }
    if (c === 125 /* } */ && templateStack.length > 0 && templateStack[templateStack.length - 1] === braceDepth - 1) {
      templateStack.pop();
      braceDepth--;
      i++;
      continueTemplate();
      continue;
    }
    if ((c >= 48 && c <= 57) || (c === 46 && s.charCodeAt(i + 1) >= 48 && s.charCodeAt(i + 1) <= 57)) {
      NUMBER_RE.lastIndex = i;
      const m = NUMBER_RE.exec(s);
      i += m ? Math.max(1, m[0].length) : 1;
      out.push('num');
      prevEndsExpression = true;
      continue;
    }
    IDENT_RE.lastIndex = i;
    const ident = IDENT_RE.exec(s);
    if (ident) {
      const word = ident[0];
      i += word.length;
      const member = out[out.length - 1] === '.' || out[out.length - 1] === '?.';
      if (member) out.push(MEMBER_NAMES.has(word) ? word : 'id');
      else if (DECLARATIONS.has(word)) out.push('let');
      else if (KEYWORDS.has(word) || GLOBAL_NAMES.has(word)) out.push(word);
      else out.push('id');
      // After a keyword like `return` or `typeof` a '/' starts a regex; after a name it divides.
      prevEndsExpression = member || !KEYWORDS.has(word) || VALUE_KEYWORDS.has(word);
      continue;
    }
    PUNCT_RE.lastIndex = i;
    const punct = PUNCT_RE.exec(s);
    const tok = punct ? punct[0] : (s[i] as string);
    i += tok.length;
    if (tok === '{') braceDepth++;
    else if (tok === '}') braceDepth = Math.max(0, braceDepth - 1);
    out.push(tok);
    prevEndsExpression = tok === ')' || tok === ']' || tok === '}' || tok === '++' || tok === '--';
  }
  return out;
}

/** murmur3_x86_32 (seed 0) over a run of 32-bit words: the hash of a shingle given its items' hashes. */
export function hashWords(words: ArrayLike<number>, start: number, count: number): number {
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
function shingleHashes(items: readonly string[], k: number, into: Set<number>, cache: Map<string, number>): void {
  if (items.length === 0) return;
  const words = new Uint32Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as string;
    let h = cache.get(item);
    if (h === undefined) { h = hashString(item); cache.set(item, h); }
    words[i] = h;
  }
  if (items.length <= k) { into.add(hashWords(words, 0, items.length)); return; }
  for (let i = 0; i + k <= items.length; i++) into.add(hashWords(words, i, k));
}

/** MinHash signature of the CODE_SHINGLE-token shingles of the normalised source. */
export function codeFingerprint(source: string, options?: Partial<NoveltyOptions>): number[] {
  const { permutations: perms } = resolveOptions(options);
  const hashes = new Set<number>();
  shingleHashes(normaliseCode(source), CODE_SHINGLE, hashes, new Map());
  return minhash(hashes, perms);
}

// ------------------------------------------------------------------------------------------- behaviour

/** Prompt words after masking: lowercase; numbers and words containing digits -> '#'; runs of '#' -> one. */
export function maskPrompt(prompt: string): string[] {
  const words = prompt.toLowerCase().match(/[\p{L}\p{N}_#]+/gu) ?? [];
  const out: string[] = [];
  for (const word of words) {
    const masked = /\p{N}/u.test(word) ? '#' : word;
    if (masked === '#' && out[out.length - 1] === '#') continue;
    out.push(masked);
  }
  return out;
}

/** Minimum number of prompts before shingles must be seen in at least two prompts to count. */
export const TEMPLATE_MIN_PROMPTS = 8;

/** MinHash of the masked prompt shingles plus the answer type of the references (see answerTypeOf). */
export function behaviourFingerprint(prompts: string[], references: string[], options?: Partial<NoveltyOptions>): { behaviour: number[]; answerType: string } {
  const { permutations: perms } = resolveOptions(options);
  const support = new Map<number, number>();
  const cache = new Map<string, number>();
  for (const prompt of prompts) {
    const own = new Set<number>();
    shingleHashes(maskPrompt(prompt), BEHAVIOUR_SHINGLE, own, cache);
    for (const h of own) support.set(h, (support.get(h) ?? 0) + 1);
  }
  let kept: number[] = [...support.keys()];
  if (prompts.length >= TEMPLATE_MIN_PROMPTS) {
    const templated = kept.filter((h) => (support.get(h) ?? 0) >= 2);
    if (templated.length > 0) kept = templated;
  }
  return { behaviour: minhash(kept, perms), answerType: answerTypeOf(references) };
}

const INT_RE = /^[+-]?\d+$/;
const DECIMAL_RE = /^[+-]?(?:\d+\.\d*|\.\d+|\d+(?=[eE]))(?:[eE][+-]?\d+)?$/;
const FRACTION_RE = /^[+-]?\d+\s*\/\s*[+-]?\d+$/;
const BOOL_RE = /^(?:true|false|yes|no)$/i;
const WORD_RE = /^[\p{L}_][\p{L}\p{N}_'-]*$/u;
const NUMERIC = new Set(['int', 'decimal', 'fraction', 'number']);

/** Content of the first <answer>…</answer> tag (trimmed), or the whole trimmed text when there is none. */
export function answerContent(reference: string): string {
  // A tag search, not a lazy regex: /<answer>([\s\S]*?)<\/answer>/ rescans to the end from every unclosed tag.
  const open = findTag(reference, '<answer>', 0);
  const close = open < 0 ? -1 : findTag(reference, '</answer>', open + 8);
  return (close < 0 ? reference : reference.slice(open + 8, close)).trim();
}

/** Index of `tag` (lower-case ASCII) in `text` from `from`, ignoring ASCII case; -1 when absent. Linear. */
function findTag(text: string, tag: string, from: number): number {
  for (let i = text.indexOf('<', from); i >= 0 && i + tag.length <= text.length; i = text.indexOf('<', i + 1)) {
    let k = 1;
    for (; k < tag.length; k++) {
      const c = text.charCodeAt(i + k);
      if ((c >= 65 && c <= 90 ? c + 32 : c) !== tag.charCodeAt(k)) break;
    }
    if (k === tag.length) return i;
  }
  return -1;
}

function classify(text: string, depth: number): string {
  let s = text.trim();
  if (s.length === 0) return 'empty';
  if (INT_RE.test(s)) return 'int';
  if (DECIMAL_RE.test(s)) return 'decimal';
  if (FRACTION_RE.test(s)) return 'fraction';
  if (BOOL_RE.test(s)) return 'bool';
  if (WORD_RE.test(s)) return 'word';
  if (depth < 2) {
    const bracketed = /^[[(]([\s\S]*)[\])]$/.exec(s);
    if (bracketed) s = (bracketed[1] as string).trim();
    let items: string[] | null = null;
    if (/[,;\n]/.test(s)) items = s.split(depth === 0 && s.includes('\n') ? /\n/ : /[,;\n]/).map((x) => x.trim()).filter((x) => x.length > 0);
    else if (/\s/.test(s)) {
      const parts = s.split(/\s+/);
      if (parts.every((p) => NUMERIC.has(classify(p, 2)))) items = parts;
    } else if (bracketed) items = [s];
    if (items && items.length > 0) {
      let t = 'empty';
      for (const item of items) t = joinTypes(t, classify(item, depth + 1));
      return t === 'mixed' ? 'list:mixed' : `list:${t}`;
    }
  }
  return 'text';
}

/** Least common generalisation of two answer types ('empty' is neutral, 'mixed' absorbs). */
export function joinTypes(a: string, b: string): string {
  if (a === b) return a;
  if (a === 'empty') return b;
  if (b === 'empty') return a;
  if (a === 'mixed' || b === 'mixed') return 'mixed';
  const aList = a.startsWith('list:');
  const bList = b.startsWith('list:');
  if (aList || bList) {
    const inner = joinTypes(aList ? a.slice(5) : a, bList ? b.slice(5) : b);
    return inner === 'mixed' ? 'mixed' : `list:${inner}`;
  }
  if (NUMERIC.has(a) && NUMERIC.has(b)) {
    if (a === 'int') return b;
    if (b === 'int') return a;
    return 'number';
  }
  const textual = new Set(['bool', 'word', 'text']);
  if (textual.has(a) && textual.has(b)) return a === 'text' || b === 'text' ? 'text' : 'word';
  return 'mixed';
}

/**
 * Coarse answer type of reference responses: each <answer> content is 'int', 'decimal', 'fraction', 'bool',
 * 'word' (one token), 'text', or 'list:T' (comma/semicolon/newline separated, or whitespace separated
 * numbers; one level of nesting, e.g. 'list:list:int' for a grid); the types of all references are joined
 * (int+fraction -> fraction, int+decimal -> decimal, other numeric mixes -> number, word+text -> text,
 * T+list:T -> list:T, otherwise 'mixed'). No references, or only empty answers, give 'empty'.
 */
export function answerTypeOf(references: readonly string[]): string {
  let t = 'empty';
  for (const ref of references) t = joinTypes(t, classify(answerContent(ref), 0));
  return t;
}

/** Both fingerprints of an environment from its source and a sample of its prompts and reference responses. */
export function fingerprint(source: string, prompts: string[], references: string[], options?: Partial<NoveltyOptions>): Fingerprint {
  return { code: codeFingerprint(source, options), ...behaviourFingerprint(prompts, references, options) };
}

// ------------------------------------------------------------------------------------------- index

export interface NoveltyMatch {
  id: string;
  codeSimilarity: number;
  behaviourSimilarity: number;
  /** 'code' when the code matched (also when behaviour matched too), else 'behaviour'. */
  kind: 'code' | 'behaviour';
}

interface Entry {
  id: string;
  code: Uint32Array;
  behaviour: Uint32Array;
  answerType: string;
  codeKeys: Uint32Array | null;
  behaviourKeys: Uint32Array | null;
  mark: number;
}

/** Serialised form of a NoveltyIndex (toJSON / fromJSON). */
export interface NoveltyIndexJSON {
  format: 'envforge-novelty-index';
  version: 1;
  options: NoveltyOptions;
  entries: Array<{ id: string; code: number[]; behaviour: number[]; answerType: string }>;
}

function compareMatches(x: NoveltyMatch, y: NoveltyMatch): number {
  const d = Math.max(y.codeSimilarity, y.behaviourSimilarity) - Math.max(x.codeSimilarity, x.behaviourSimilarity);
  if (d !== 0) return d;
  return x.id < y.id ? -1 : x.id > y.id ? 1 : 0;
}

/** MinHash/LSH index of admitted environments' fingerprints. */
export class NoveltyIndex {
  readonly options: NoveltyOptions;
  readonly rows: number;
  private readonly entries = new Map<string, Entry>();
  private readonly codeBuckets: Array<Map<number, Entry[]>>;
  private readonly behaviourBuckets: Array<Map<number, Entry[]>>;
  private stamp = 0;
  /** How many LSH candidates the last query verified (for benchmarks and diagnostics). */
  lastCandidates = 0;

  constructor(options?: Partial<NoveltyOptions>) {
    this.options = Object.freeze(resolveOptions(options));
    this.rows = this.options.permutations / this.options.bands;
    this.codeBuckets = Array.from({ length: this.options.bands }, () => new Map<number, Entry[]>());
    this.behaviourBuckets = Array.from({ length: this.options.bands }, () => new Map<number, Entry[]>());
  }

  get size(): number {
    return this.entries.size;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  ids(): string[] {
    return [...this.entries.keys()];
  }

  /** Adds or replaces the fingerprint stored under id. */
  add(id: string, fp: Fingerprint): void {
    const code = this.signature(fp.code, 'code');
    const behaviour = this.signature(fp.behaviour, 'behaviour');
    if (typeof fp.answerType !== 'string') throw new TypeError('novelty: answerType must be a string');
    this.remove(id);
    const entry: Entry = {
      id, code, behaviour, answerType: fp.answerType,
      codeKeys: isEmptySignature(code) ? null : this.bandKeys(code, 0),
      behaviourKeys: isEmptySignature(behaviour) ? null : this.bandKeys(behaviour, hashString(fp.answerType)),
      mark: 0,
    };
    this.entries.set(id, entry);
    if (entry.codeKeys) this.insert(this.codeBuckets, entry.codeKeys, entry);
    if (entry.behaviourKeys) this.insert(this.behaviourBuckets, entry.behaviourKeys, entry);
  }

  remove(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    if (entry.codeKeys) this.erase(this.codeBuckets, entry.codeKeys, entry);
    if (entry.behaviourKeys) this.erase(this.behaviourBuckets, entry.behaviourKeys, entry);
  }

  /** Near-duplicates of fp: LSH candidates, then verified by estimated similarity; code matches when codeSimilarity >= codeThreshold; behaviour matches when behaviourSimilarity >= behaviourThreshold AND same answerType. Sorted by max similarity desc (then id). */
  query(fp: Fingerprint, limit: number = Infinity): NoveltyMatch[] {
    const code = this.signature(fp.code, 'code');
    const behaviour = this.signature(fp.behaviour, 'behaviour');
    const stamp = ++this.stamp;
    const candidates: Entry[] = [];
    const collect = (buckets: Array<Map<number, Entry[]>>, keys: Uint32Array): void => {
      for (let band = 0; band < keys.length; band++) {
        const bucket = (buckets[band] as Map<number, Entry[]>).get(keys[band] as number);
        if (!bucket) continue;
        for (const e of bucket) {
          if (e.mark !== stamp) { e.mark = stamp; candidates.push(e); }
        }
      }
    };
    if (!isEmptySignature(code)) collect(this.codeBuckets, this.bandKeys(code, 0));
    if (!isEmptySignature(behaviour)) collect(this.behaviourBuckets, this.bandKeys(behaviour, hashString(fp.answerType)));
    this.lastCandidates = candidates.length;
    return this.verify(candidates, code, behaviour, fp.answerType, limit);
  }

  /** Brute-force scan with the same rule, for tests and the benchmark. */
  scan(fp: Fingerprint, limit: number = Infinity): NoveltyMatch[] {
    const code = this.signature(fp.code, 'code');
    const behaviour = this.signature(fp.behaviour, 'behaviour');
    return this.verify(this.entries.values(), code, behaviour, fp.answerType, limit);
  }

  toJSON(): NoveltyIndexJSON {
    return {
      format: 'envforge-novelty-index',
      version: 1,
      options: { ...this.options },
      entries: [...this.entries.values()].map((e) => ({ id: e.id, code: Array.from(e.code), behaviour: Array.from(e.behaviour), answerType: e.answerType })),
    };
  }

  static fromJSON(data: unknown): NoveltyIndex {
    const fail = (why: string): never => { throw new TypeError(`novelty: not a serialised NoveltyIndex (${why})`); };
    if (typeof data !== 'object' || data === null) return fail('not an object');
    const d = data as Record<string, unknown>;
    if (d.format !== 'envforge-novelty-index') fail('format');
    if (d.version !== 1) fail(`unsupported version ${String(d.version)}`);
    if (typeof d.options !== 'object' || d.options === null) fail('options');
    if (!Array.isArray(d.entries)) fail('entries');
    const index = new NoveltyIndex(d.options as Partial<NoveltyOptions>);
    for (const raw of d.entries as unknown[]) {
      if (typeof raw !== 'object' || raw === null) fail('entry');
      const e = raw as Record<string, unknown>;
      if (typeof e.id !== 'string' || typeof e.answerType !== 'string' || !Array.isArray(e.code) || !Array.isArray(e.behaviour)) fail('entry fields');
      index.add(e.id as string, { code: e.code as number[], behaviour: e.behaviour as number[], answerType: e.answerType as string });
    }
    return index;
  }

  // ----------------------------------------------------------------------------------------- internals

  private signature(sig: ArrayLike<number>, what: string): Uint32Array {
    if (!sig || sig.length !== this.options.permutations) {
      throw new RangeError(`novelty: ${what} signature must have ${this.options.permutations} slots, got ${sig ? sig.length : 'none'}`);
    }
    const out = new Uint32Array(sig.length);
    for (let i = 0; i < sig.length; i++) {
      const v = sig[i] as number;
      if (!Number.isInteger(v) || v < 0 || v > EMPTY_SLOT) throw new RangeError(`novelty: ${what} signature slot ${i} is not a uint32`);
      out[i] = v;
    }
    return out;
  }

  /** One 32-bit key per band: an fmix32 chain over the band's rows, salted with the band number and `salt`. */
  private bandKeys(sig: Uint32Array, salt: number): Uint32Array {
    const { bands } = this.options;
    const rows = this.rows;
    const keys = new Uint32Array(bands);
    for (let band = 0; band < bands; band++) {
      let h = Math.imul(band + 1, 0x9e3779b1) ^ salt;
      const base = band * rows;
      for (let r = 0; r < rows; r++) h = fmix32(Math.imul(h ^ (sig[base + r] as number), 0xcc9e2d51) + r);
      keys[band] = h;
    }
    return keys;
  }

  private insert(buckets: Array<Map<number, Entry[]>>, keys: Uint32Array, entry: Entry): void {
    for (let band = 0; band < keys.length; band++) {
      const map = buckets[band] as Map<number, Entry[]>;
      const key = keys[band] as number;
      const bucket = map.get(key);
      if (bucket) bucket.push(entry);
      else map.set(key, [entry]);
    }
  }

  private erase(buckets: Array<Map<number, Entry[]>>, keys: Uint32Array, entry: Entry): void {
    for (let band = 0; band < keys.length; band++) {
      const map = buckets[band] as Map<number, Entry[]>;
      const key = keys[band] as number;
      const bucket = map.get(key);
      if (!bucket) continue;
      const at = bucket.indexOf(entry);
      if (at >= 0) bucket.splice(at, 1);
      if (bucket.length === 0) map.delete(key);
    }
  }

  private verify(entries: Iterable<Entry>, code: Uint32Array, behaviour: Uint32Array, answerType: string, limit: number): NoveltyMatch[] {
    const { codeThreshold, behaviourThreshold } = this.options;
    const codeEmpty = isEmptySignature(code);
    const behaviourEmpty = isEmptySignature(behaviour);
    const matches: NoveltyMatch[] = [];
    for (const e of entries) {
      // Cheap bounded checks first; full similarities only for the (rare) matches.
      const c = codeEmpty ? -1 : similarityAtLeast(code, e.code, codeThreshold);
      const b = behaviourEmpty || answerType !== e.answerType ? -1 : similarityAtLeast(behaviour, e.behaviour, behaviourThreshold);
      const codeMatch = c >= codeThreshold;
      const behaviourMatch = b >= behaviourThreshold;
      if (!codeMatch && !behaviourMatch) continue;
      const codeSimilarity = c >= 0 ? c : estimateSimilarity(code, e.code);
      const behaviourSimilarity = b >= 0 ? b : estimateSimilarity(behaviour, e.behaviour);
      matches.push({ id: e.id, codeSimilarity, behaviourSimilarity, kind: codeMatch ? 'code' : 'behaviour' });
    }
    matches.sort(compareMatches);
    return Number.isFinite(limit) ? matches.slice(0, Math.max(0, Math.floor(limit))) : matches;
  }
}

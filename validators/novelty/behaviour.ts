// The behaviour fingerprint: generated prompts lowercased with numbers masked, shingled by words within a
// prompt (only "template" shingles seen in two prompts once there are enough prompts), MinHashed, with the
// coarse answer type of the reference responses beside it.
import { answerContent } from '../../sandbox/answer.js';
import { minhash, resolveOptions, shingleHashes, type NoveltyOptions } from './minhash.js';

/** Words per behaviour shingle (within one prompt). */
const BEHAVIOUR_SHINGLE = 4;

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
const TEMPLATE_MIN_PROMPTS = 8;

/** MinHash of the masked prompt shingles plus the answer type of the references (see answerTypeOf). */
export function behaviourFingerprint(
  prompts: string[],
  references: string[],
  options?: Partial<NoveltyOptions>,
): { behaviour: number[]; answerType: string } {
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
    if (/[,;\n]/.test(s))
      items = s
        .split(depth === 0 && s.includes('\n') ? /\n/ : /[,;\n]/)
        .map((x) => x.trim())
        .filter((x) => x.length > 0);
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
function joinTypes(a: string, b: string): string {
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

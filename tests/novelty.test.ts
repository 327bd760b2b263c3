// Stage 8 (novelty): fingerprints survive renames and constant changes, tell different tasks apart, and the LSH index
// finds what a full scan finds.
import { deriveRngState } from '../sandbox/rng.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import { describe, it, expect } from 'vitest';
import { NoveltyIndex } from '../validators/novelty/lsh.js';
import {
  DEFAULT_NOVELTY_OPTIONS,
  EMPTY_SLOT,
  MINHASH_PRIME,
  estimateSimilarity,
  hashString,
  minhash,
} from '../validators/novelty/minhash.js';
import { codeFingerprint, normaliseCode } from '../validators/novelty/code.js';
import { answerTypeOf, behaviourFingerprint, maskPrompt } from '../validators/novelty/behaviour.js';
import { fingerprint, type Fingerprint } from '../validators/novelty/fingerprint.js';

// ------------------------------------------------------------------------------------------ fixtures

const SUM_ENV = `
// Asks for the sum of a list of integers.
export const meta = {
  name: 'list-sum',
  title: 'Sum of a list',
  description: 'Add up a list of integers.',
  skills: ['arithmetic'],
  levels: 10,
};

function knobs(level) {
  return { count: 3 + level * 2, max: 10 * level };
}

export function generate(rng, level) {
  const { count, max } = knobs(level);
  const values = [];
  for (let i = 0; i < count; i++) values.push(rng.int(-max, max));
  let total = 0;
  for (const v of values) total += v;
  const prompt = 'Compute the sum of the following integers: ' + values.join(', ') +
    '. Give only the number as <answer>N</answer>.';
  return { prompt, answer: total, values };
}

export function solve(instance) {
  return '<answer>' + instance.answer + '</answer>';
}

export function verify(instance, response) {
  const got = kit.int(kit.answer(response) ?? '');
  if (got === null) return { score: 0, feedback: 'no integer in the answer tag' };
  return got === instance.answer ? 1 : 0;
}
`;

// SUM_ENV with every local name renamed, other comments, other constants and other string text.
const SUM_ENV_DISGUISED = `
/* Totals a handful of whole numbers. Written from scratch, honest! */
export const meta = {
  name: 'integer-total',
  title: 'Total of integers',
  description: 'Find the total of several whole numbers.',
  skills: ['addition'],
  levels: 12,
};

function difficulty(lvl) {
  return { count: 4 + lvl * 3, max: 25 * lvl }; // bigger numbers
}

export function generate(random, lvl) {
  const { count: n, max: limit } = difficulty(lvl);
  const items = [];
  for (let k = 0; k < n; k++) items.push(random.int(-limit, limit));
  let acc = 0;
  for (const x of items) acc += x;
  const prompt = 'Add these whole numbers together: ' + items.join(', ') +
    '. Reply with <answer>TOTAL</answer> only.';
  return { prompt, answer: acc, items };
}

export function solve(task) {
  return '<answer>' + task.answer + '</answer>';
}

export function verify(task, reply) {
  const value = kit.int(kit.answer(reply) ?? '');
  if (value === null) return { score: 0, feedback: 'the answer tag holds no integer' };
  return value === task.answer ? 1 : 0;
}
`;

const PALINDROME_ENV =
  `
// Asks for the longest palindromic substring of a random string.
export const meta = {
  name: 'longest-palindrome',
  title: 'Longest palindromic substring',
  description: 'Find the longest substring that reads the same backwards; ties go to the leftmost.',
  skills: ['strings', 'dynamic-programming'],
  levels: 8,
};

const ALPHABETS = ['ab', 'abc', 'abcd', 'abcde'];

function longest(s) {
  let best = s.slice(0, 1);
  for (let center = 0; center < s.length; center++) {
    for (const odd of [true, false]) {
      let lo = center;
      let hi = odd ? center : center + 1;
      while (lo >= 0 && hi < s.length && s[lo] === s[hi]) { lo--; hi++; }
      const found = s.slice(lo + 1, hi);
      if (found.length > best.length) best = found;
    }
  }
  return best;
}

export function generate(rng, level) {
  const alphabet = rng.pick(ALPHABETS.slice(0, 1 + Math.floor(level / 3)));
  let text = '';
  while (text.length < 6 + level * 4) text += alphabet[rng.int(0, alphabet.length - 1)];
  return {
    prompt: \`Find the longest palindromic substring of "\${text}". If several have the same length, give the ` +
  `leftmost. Answer as <answer>substring</answer>.\`,
    answer: longest(text),
  };
}

export function solve(instance) { return \`<answer>\${instance.answer}</answer>\`; }

export function verify(instance, response) {
  const got = kit.answer(response);
  if (typeof got !== 'string') return 0;
  return got.trim().toLowerCase() === instance.answer ? 1 : 0;
}
`;

const sumPrompts = (seed: number): string[] =>
  Array.from({ length: 10 }, (_, i) => {
    const values = Array.from({ length: 3 + i }, (_, j) => ((seed * 31 + i * 7 + j * 13) % 97) - 40);
    return (
      `Compute the sum of the following integers: ${values.join(', ')}. Give only the ` +
      `number as <answer>N</answer>.`
    );
  });

const palindromePrompts = (seed: number): string[] =>
  Array.from({ length: 10 }, (_, i) => {
    const text = Array.from({ length: 6 + i }, (_, j) => 'abcd'[(seed + i * j + j) % 4]).join('');
    return (
      `Find the longest palindromic substring of "${text}". If several have the same length, give the ` +
      `leftmost. Answer as <answer>substring</answer>.`
    );
  });

/** The product's own seeded rng (xoshiro128**), so synthetic libraries are reproducible. */
function prng(seed: number): () => number {
  const rng = loadPlainRuntime().makeRng(...deriveRngState('synthetic-library', seed, 1));
  return () => rng.float();
}

// ------------------------------------------------------------------------------------------ code

describe('code fingerprints', () => {
  it('identical code has similarity 1 and is deterministic', () => {
    const a = codeFingerprint(SUM_ENV);
    const b = codeFingerprint(SUM_ENV);
    expect(a).toHaveLength(DEFAULT_NOVELTY_OPTIONS.permutations);
    expect(a).toEqual(b);
    expect(estimateSimilarity(a, b)).toBe(1);
    expect(a.every((v) => Number.isInteger(v) && v >= 0 && v < MINHASH_PRIME)).toBe(true);
  });

  it('is pinned: the hash and the permutations never change silently (stored libraries depend on them)', () => {
    expect(hashString('')).toBe(hashString(''));
    // FNV-1a + fmix32 of the UTF-16 code units; (a_i, b_i) from splitmix32 seeded with MINHASH_SEED.
    expect([hashString('abc'), hashString('id ( id )')]).toEqual([482950588, 1764060210]);
    expect(codeFingerprint('export function solve(instance) { return 1; }').slice(0, 4)).toEqual([
      1229373696, 30347043, 374730361, 531623470,
    ]);
  });

  it('normalises identifiers, comments, strings, numbers and declarations', () => {
    expect(normaliseCode("const total = rng.int(1, 10) /* x */ + count; // done\nlet s = 'a' + `b${total}c`;")).toEqual(
      [
        'let',
        'id',
        '=',
        'id',
        '.',
        'int',
        '(',
        'num',
        ',',
        'num',
        ')',
        '+',
        'id',
        ';',
        'let',
        'id',
        '=',
        'str',
        '+',
        'str',
        'id',
        ';',
      ],
    );
    expect(normaliseCode('const r = /a\\/b[/]/g.test(s) ? x / 2 : 0;')).toEqual([
      'let',
      'id',
      '=',
      'regex',
      '.',
      'test',
      '(',
      'id',
      ')',
      '?',
      'id',
      '/',
      'num',
      ':',
      'num',
      ';',
    ]);
    expect(normaliseCode('return `${a ? `${b}` : {k: 1}}` + 1')).toEqual([
      'return',
      'str',
      'id',
      '?',
      'str',
      'id',
      ':',
      '{',
      'id',
      ':',
      'num',
      '}',
      '+',
      'num',
    ]);
  });

  it('renamed identifiers, rewritten comments and changed constants are still duplicates', () => {
    const original = codeFingerprint(SUM_ENV);
    const disguised = codeFingerprint(SUM_ENV_DISGUISED);
    expect(estimateSimilarity(original, disguised)).toBeGreaterThanOrEqual(DEFAULT_NOVELTY_OPTIONS.codeThreshold);
  });

  it('a small edit keeps the copy above the code threshold', () => {
    const edited = SUM_ENV.replace(
      'let total = 0;',
      'let total = 0;\n  if (values.length === 0) return generate(rng, level);',
    );
    expect(estimateSimilarity(codeFingerprint(SUM_ENV), codeFingerprint(edited))).toBeGreaterThanOrEqual(
      DEFAULT_NOVELTY_OPTIONS.codeThreshold,
    );
  });

  it('different environments have low similarity', () => {
    const s = estimateSimilarity(codeFingerprint(SUM_ENV), codeFingerprint(PALINDROME_ENV));
    expect(s).toBeLessThan(0.35);
  });

  it('empty input is never a duplicate', () => {
    const empty = codeFingerprint('// nothing here');
    expect(empty.every((v) => v === EMPTY_SLOT)).toBe(true);
    expect(estimateSimilarity(empty, empty)).toBe(0);
    expect(() => estimateSimilarity([1, 2], [1, 2, 3])).toThrow(RangeError);
  });

  it('minhash estimates Jaccard similarity', () => {
    const a = Array.from({ length: 1000 }, (_, i) => hashString(`s${i}`));
    const b = [...a.slice(0, 800), ...Array.from({ length: 200 }, (_, i) => hashString(`t${i}`))];
    const truth = 800 / 1200;
    const estimate = estimateSimilarity(minhash(a, 512), minhash(b, 512));
    expect(Math.abs(estimate - truth)).toBeLessThan(0.08);
    // A shorter signature is the prefix of a longer one.
    expect(minhash(a, 64)).toEqual(minhash(a, 512).slice(0, 64));
  });
});

// ------------------------------------------------------------------------------------------ behaviour

describe('behaviour fingerprints', () => {
  it('masks numbers and number-bearing tokens', () => {
    expect(maskPrompt('What is 12 + 3.5? The list [1, 2, 3] has id a3f9 and -7.')).toEqual([
      'what',
      'is',
      '#',
      'the',
      'list',
      '#',
      'has',
      'id',
      '#',
      'and',
      '#',
    ]);
  });

  it('prompts that differ only in numbers are behaviour duplicates', () => {
    const refs = ['<answer>12</answer>', '<answer>-3</answer>'];
    const a = behaviourFingerprint(sumPrompts(1), refs);
    const b = behaviourFingerprint(sumPrompts(2), ['<answer>40</answer>']);
    expect(sumPrompts(1)).not.toEqual(sumPrompts(2));
    expect(estimateSimilarity(a.behaviour, b.behaviour)).toBe(1);
    expect(a.answerType).toBe('int');
    expect(b.answerType).toBe('int');
  });

  it('template shingles survive random content once there are enough prompts', () => {
    const a = behaviourFingerprint(palindromePrompts(1), []);
    const b = behaviourFingerprint(palindromePrompts(5), []);
    expect(estimateSimilarity(a.behaviour, b.behaviour)).toBeGreaterThanOrEqual(
      DEFAULT_NOVELTY_OPTIONS.behaviourThreshold,
    );
  });

  it('different tasks are not behaviour duplicates', () => {
    const a = behaviourFingerprint(sumPrompts(1), ['<answer>1</answer>']);
    const b = behaviourFingerprint(palindromePrompts(1), ['<answer>abba</answer>']);
    expect(estimateSimilarity(a.behaviour, b.behaviour)).toBeLessThan(0.2);
    expect(b.answerType).toBe('word');
  });

  it('detects answer types', () => {
    expect(answerTypeOf(['<answer>42</answer>'])).toBe('int');
    expect(answerTypeOf(['<answer>-7</answer>', 'Reasoning... <answer> 5 </answer>'])).toBe('int');
    expect(answerTypeOf(['<answer>1, 2, 3</answer>'])).toBe('list:int');
    expect(answerTypeOf(['<answer>[4, 5]</answer>', '<answer>6</answer>'])).toBe('list:int');
    expect(answerTypeOf(['<answer>3/4</answer>'])).toBe('fraction');
    expect(answerTypeOf(['<answer>-3 / 8</answer>', '<answer>2</answer>'])).toBe('fraction');
    expect(answerTypeOf(['<answer>2.5</answer>', '<answer>1</answer>'])).toBe('decimal');
    expect(answerTypeOf(['<answer>the quick brown fox</answer>'])).toBe('text');
    expect(answerTypeOf(['<answer>abba</answer>', '<answer>two words</answer>'])).toBe('text');
    expect(answerTypeOf(['<answer>yes</answer>', '<answer>No</answer>'])).toBe('bool');
    expect(answerTypeOf(['<answer>A, C, B</answer>'])).toBe('list:word');
    expect(answerTypeOf(['<answer>1 2\n3 4</answer>'])).toBe('list:list:int');
    expect(answerTypeOf(['<answer>3</answer>', '<answer>hello there</answer>'])).toBe('mixed');
    expect(answerTypeOf(['17'])).toBe('int');
    expect(answerTypeOf([])).toBe('empty');
  });
});

// ------------------------------------------------------------------------------------------ index

describe('NoveltyIndex', () => {
  it('finds a disguised copy by code and a re-implementation by behaviour', () => {
    const index = new NoveltyIndex();
    index.add('list-sum', fingerprint(SUM_ENV, sumPrompts(1), ['<answer>5</answer>']));
    index.add('longest-palindrome', fingerprint(PALINDROME_ENV, palindromePrompts(1), ['<answer>abba</answer>']));
    expect(index.size).toBe(2);

    const copy = fingerprint(SUM_ENV_DISGUISED, sumPrompts(9), ['<answer>8</answer>']);
    const hits = index.query(copy);
    expect(hits.map((m) => [m.id, m.kind])).toEqual([['list-sum', 'code']]);

    // Same task written differently (only the behaviour agrees): a behaviour match...
    const rewrite = {
      ...copy,
      code: codeFingerprint(PALINDROME_ENV.replace(/palindrom/g, 'mirror')).map((v, i) => (i % 2 ? v : v ^ 1)),
    };
    const byBehaviour = index.query(rewrite).find((m) => m.id === 'list-sum');
    expect(byBehaviour?.kind).toBe('behaviour');
    // ...but not when the answers have a different type.
    expect(index.query({ ...rewrite, answerType: 'list:int' }).some((m) => m.id === 'list-sum')).toBe(false);

    const novel = fingerprint(
      'export function generate(rng, level) { const g = new Map(); while (g.size < level) g.set(rng.int(0, ' +
        '9), []); return { prompt: JSON.stringify([...g.keys()]) }; }',
      ['Colour the vertices of this graph with as few colours as possible: # - #, # - #.'],
      ['<answer>3</answer>'],
    );
    expect(index.query(novel)).toEqual([]);
  });

  it('add replaces, remove forgets', () => {
    const index = new NoveltyIndex();
    const fp = fingerprint(SUM_ENV, sumPrompts(1), ['<answer>5</answer>']);
    index.add('a', fp);
    index.add('a', fp);
    expect(index.size).toBe(1);
    expect(index.query(fp).map((m) => m.id)).toEqual(['a']);
    index.add('a', fingerprint(PALINDROME_ENV, palindromePrompts(1), ['<answer>abba</answer>']));
    expect(index.size).toBe(1);
    expect(index.query(fp)).toEqual([]);
    index.remove('a');
    index.remove('missing');
    expect(index.size).toBe(0);
    expect(() => index.add('bad', { ...fp, code: fp.code.slice(1) })).toThrow(RangeError);
    expect(() => new NoveltyIndex({ permutations: 128, bands: 30 })).toThrow(RangeError);
  });

  it('the S-curve of the default banding catches pairs at the thresholds', () => {
    /** LSH with b bands of r rows makes a pair of Jaccard similarity s a candidate with probability 1 - (1 - s^r)^b. */
    const lshCandidateProbability = (s: number, b: number, r: number) => 1 - Math.pow(1 - Math.pow(s, r), b);
    const { permutations, bands, codeThreshold, behaviourThreshold } = DEFAULT_NOVELTY_OPTIONS;
    expect(lshCandidateProbability(behaviourThreshold, bands, permutations / bands)).toBeGreaterThan(0.999);
    expect(lshCandidateProbability(codeThreshold, bands, permutations / bands)).toBeGreaterThan(0.99999);
  });

  describe('on a synthetic library of 2,000 fingerprints with planted near-duplicates', () => {
    const P = DEFAULT_NOVELTY_OPTIONS.permutations;
    const rand = prng(20240601);
    const randomSig = (): number[] => Array.from({ length: P }, () => Math.floor(rand() * MINHASH_PRIME));
    // A copy of sig with exactly round((1 - s) * P) slots replaced: estimated similarity ~ s.
    const perturb = (sig: number[], s: number): number[] => {
      const out = sig.slice();
      const slots = Array.from({ length: P }, (_, i) => i);
      for (let i = P - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [slots[i], slots[j]] = [slots[j] as number, slots[i] as number];
      }
      for (const i of slots.slice(0, Math.round((1 - s) * P))) out[i] = Math.floor(rand() * MINHASH_PRIME);
      return out;
    };
    const TYPES = ['int', 'list:int', 'fraction', 'text', 'word'];

    const index = new NoveltyIndex();
    const base: Array<{ id: string; fp: Fingerprint }> = [];
    for (let i = 0; i < 1700; i++) {
      const fp = { code: randomSig(), behaviour: randomSig(), answerType: TYPES[i % TYPES.length] as string };
      base.push({ id: `env-${i}`, fp });
      index.add(`env-${i}`, fp);
    }
    // Planted: 100 code copies (s in [0.8, 1]), 100 behaviour copies (s in [0.7, 1], same answer type),
    // 100 decoys (code s in [0.45, 0.75], behaviour s in [0.4, 0.65]) that must not match.
    const planted: Array<{ id: string; of: string; kind: 'code' | 'behaviour' | 'decoy' }> = [];
    for (let i = 0; i < 300; i++) {
      const source = base[(i * 37) % base.length] as { id: string; fp: Fingerprint };
      const kind = i < 100 ? 'code' : i < 200 ? 'behaviour' : 'decoy';
      const t = rand();
      const fp: Fingerprint =
        kind === 'code'
          ? { code: perturb(source.fp.code, 0.8 + 0.2 * t), behaviour: randomSig(), answerType: 'text' }
          : kind === 'behaviour'
            ? {
                code: randomSig(),
                behaviour: perturb(source.fp.behaviour, 0.7 + 0.3 * t),
                answerType: source.fp.answerType,
              }
            : {
                code: perturb(source.fp.code, 0.45 + 0.3 * t),
                behaviour: perturb(source.fp.behaviour, 0.4 + 0.25 * t),
                answerType: source.fp.answerType,
              };
      const id = `planted-${kind}-${i}`;
      planted.push({ id, of: source.id, kind });
      index.add(id, fp);
    }
    const fpOf = (id: string): Fingerprint => {
      const hit = base.find((b) => b.id === id);
      if (!hit) throw new Error(id);
      return hit.fp;
    };

    it('holds 2,000 fingerprints', () => {
      expect(index.size).toBe(2000);
    });

    it('query returns exactly what scan returns', () => {
      const probes = [
        ...planted.map((p) => fpOf(p.of)),
        ...Array.from({ length: 50 }, () => ({ code: randomSig(), behaviour: randomSig(), answerType: 'int' })),
      ];
      for (const probe of probes) expect(index.query(probe)).toEqual(index.scan(probe));
      expect(index.query(fpOf('env-0'), 1)).toEqual(index.scan(fpOf('env-0'), 1));
    });

    it('finds every planted duplicate above the threshold (recall) and no decoy', () => {
      const { codeThreshold, behaviourThreshold } = DEFAULT_NOVELTY_OPTIONS;
      let checked = 0;
      for (const p of planted) {
        const probe = fpOf(p.of);
        const hit = index.query(probe).find((m) => m.id === p.id);
        if (p.kind === 'decoy') {
          expect(hit).toBeUndefined();
          continue;
        }
        // Perturbation can land a hair under the threshold by rounding; the scan is the ground truth.
        const truth = index.scan(probe).find((m) => m.id === p.id);
        if (!truth) continue;
        checked++;
        expect(hit, p.id).toEqual(truth);
        expect(hit?.kind).toBe(p.kind);
        if (p.kind === 'code') expect(hit?.codeSimilarity).toBeGreaterThanOrEqual(codeThreshold);
        else expect(hit?.behaviourSimilarity).toBeGreaterThanOrEqual(behaviourThreshold);
      }
      expect(checked).toBeGreaterThanOrEqual(190);
    });
  });
});

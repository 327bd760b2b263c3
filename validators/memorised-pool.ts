// The effective instance count of a single-turn environment: a memorising policy, keyed by the prompt's parts that
// decide the reference on one half of a level's instances, answers the other half from memory; cosmetic variation
// (ids, names, filler) around a small pool of problems lets it beat chance, a real instance space does not.
import { normalizeAnswer } from './answers.js';
import { maskLevelEchoes } from './echoed-parts.js';
import { CONTRACT_LIMITS } from '../contract/schema.js';
import { numbersAsValues } from './number-words.js';
import { quantitiesAsValues } from './quantity-units.js';
import { lowerBound } from './stats.js';

/** One sampled instance: its level, prompt and normalised reference answer. */
export interface PoolSample {
  level: number;
  prompt: string;
  answer: string;
}

/** A prompt's parts: each class (a number by its context or rank, a word's count) with its value in this prompt. */
type Parts = Map<string, string>;

const TOKEN = /\d+(?:[.,]\d+)*|\p{L}+/gu;
/**
 * The whole prompt is read (the contract's limit: a pool's problem may follow a long history or document, rt27s S5),
 * its numbers as values: "12", "twelve", "XII", "1 ten 2 ones" are one (rt27s S1); its quantities in their dimension's
 * base unit: "1.2 cubic metres" and "1200 litres", "30 litres a minute" and "1800 L/h" are one (rt28s N5).
 */
function readPart(prompt: string): string {
  let read = lastRead.get(prompt);
  if (read === undefined) {
    if (lastRead.size >= MAX_READ) lastRead.clear();
    read = quantitiesAsValues(numbersAsValues(prompt.slice(0, CONTRACT_LIMITS.maxPromptChars)));
    lastRead.set(prompt, read);
  }
  return read;
}
/** The prompts last read, so each is read once, not by each memoriser and fold (a level's, and then some). */
const lastRead = new Map<string, string>();
const MAX_READ = 512;
/** The most classes a level's search considers: the cost is bounded by them, not by where in the prompt they sit. */
const MAX_CLASSES = 400;
/** The most prompt parts a key may join. */
const MAX_KEY_PARTS = 8;

/**
 * The prompt's parts, found from the prompt alone (no word list): every number as three classes (after which word,
 * its rank from the start, its rank from the end), every word by how often it occurs.
 */
export function promptParts(prompt: string): Parts {
  const parts: Parts = new Map();
  const numbers: string[] = [];
  const byContext = new Map<string, number>();
  let previous = '^';
  for (const token of readPart(prompt).match(TOKEN) ?? []) {
    if (/^\d/.test(token)) {
      const k = byContext.get(previous) ?? 0;
      byContext.set(previous, k + 1);
      parts.set(`after ${previous} #${k}`, token);
      numbers.push(token);
      continue;
    }
    previous = token.toLowerCase();
    const word = `word ${previous}`;
    parts.set(word, String(Number(parts.get(word) ?? 0) + 1));
  }
  numbers.forEach((n, i) => {
    parts.set(`number ${i} from the start`, n);
    parts.set(`number ${i} from the end`, numbers[numbers.length - 1 - i] as string);
  });
  return parts;
}

/** Pairs of samples with equal keys and different answers, and the count of distinct keys. */
function conflicts(keys: string[], answers: string[]): { conflicts: number; distinct: number } {
  const groups = new Map<string, Map<string, number>>();
  keys.forEach((k, i) => {
    const g = groups.get(k) ?? new Map<string, number>();
    g.set(answers[i] as string, (g.get(answers[i] as string) ?? 0) + 1);
    groups.set(k, g);
  });
  let out = 0;
  for (const g of groups.values()) {
    let size = 0;
    let same = 0;
    for (const c of g.values()) {
      size += c;
      same += (c * (c - 1)) / 2;
    }
    out += (size * (size - 1)) / 2 - same;
  }
  return { conflicts: out, distinct: groups.size };
}

const keyOf = (p: Parts, classes: readonly string[]): string => JSON.stringify(classes.map((c) => p.get(c) ?? null));
const keysBy = (parts: Parts[], classes: readonly string[]) => parts.map((p) => keyOf(p, classes));

/**
 * The classes whose value differs between some two of these prompts and recurs in some two (an id unique to each
 * prompt cannot be memorised), the most varied first. Past MAX_CLASSES (a long history, a document: its parts do not
 * recur with the answer) the ones that alone leave the fewest pairs with equal values and different answers are kept.
 */
function varyingClasses(parts: Parts[], answers: string[]): string[] {
  const values = new Map<string, { values: Set<string>; held: number }>();
  for (const p of parts)
    for (const [c, v] of p) {
      let at = values.get(c);
      if (!at) values.set(c, (at = { values: new Set(), held: 0 }));
      at.values.add(v);
      at.held++;
    }
  const varied = [...values].filter(([, { values: vs, held }]) => {
    const missing = held < parts.length;
    return (vs.size > 1 || missing) && vs.size + Number(missing) < parts.length;
  });
  varied.sort((a, b) => b[1].values.size - a[1].values.size || (a[0] < b[0] ? -1 : 1));
  const classes = varied.map(([c]) => c);
  if (classes.length <= MAX_CLASSES) return classes;
  const alone = (c: string) =>
    conflicts(
      parts.map((p) => p.get(c) ?? '\u0000'),
      answers,
    ).conflicts;
  const left = new Map(classes.map((c) => [c, alone(c)]));
  const kept = new Set(
    [...classes].sort((a, b) => (left.get(a) as number) - (left.get(b) as number)).slice(0, MAX_CLASSES),
  );
  return classes.filter((c) => kept.has(c));
}

/**
 * The coarsest key the training samples allow, by forward selection over the classes whose values recur (an id unique
 * to each prompt cannot be memorised): add the class that leaves the fewest pairs with equal keys and different
 * answers (ties: the fewest distinct keys) until none is left or none helps.
 */
export function fitKey(parts: Parts[], answers: string[]): string[] {
  const classes = varyingClasses(parts, answers);
  const key: string[] = [];
  let best = conflicts(
    parts.map(() => ''),
    answers,
  );
  while (best.conflicts > 0 && key.length < MAX_KEY_PARTS) {
    let pick: { cls: string; conflicts: number; distinct: number } | null = null;
    for (const cls of classes) {
      if (key.includes(cls)) continue;
      const next = [...key, cls];
      const r = conflicts(keysBy(parts, next), answers);
      if (
        r.conflicts < best.conflicts &&
        (!pick || r.conflicts < pick.conflicts || (r.conflicts === pick.conflicts && r.distinct < pick.distinct))
      )
        pick = { cls, ...r };
    }
    if (!pick) break;
    key.push(pick.cls);
    best = pick;
  }
  return key;
}

const NUMBER = /\d+(?:[.,]\d+)*/g;
const WORD = /\p{L}+/gu;

/** The prompt's numbers (or words, lower-cased), as a multiset of their texts. */
function tokensOf(prompt: string, pattern: RegExp): Map<string, number> {
  const out = new Map<string, number>();
  for (const raw of readPart(prompt).match(pattern) ?? []) {
    const t = raw.toLowerCase();
    out.set(t, (out.get(t) ?? 0) + 1);
  }
  return out;
}

/**
 * Each token's weight, learned on the training half where two prompts share it: how much more often they have the same
 * answer than two prompts at all, scaled to [0, 1] (a name or a filler word: about 0; a part of a pooled problem: 1);
 * a token only one prompt holds is not weighed (1).
 */
function tokenWeights(train: PoolSample[], tokens: Array<Map<string, number>>): Map<string, number> {
  const holders = new Map<string, number[]>();
  tokens.forEach((m, i) => {
    for (const t of m.keys()) holders.set(t, [...(holders.get(t) ?? []), i]);
  });
  let same = 0;
  for (let i = 0; i < train.length; i++)
    for (let j = i + 1; j < train.length; j++) if (train[i]?.answer === train[j]?.answer) same++;
  const base = same / Math.max(1, (train.length * (train.length - 1)) / 2);
  const out = new Map<string, number>();
  for (const [t, at] of holders) {
    let pairs = 0;
    let equal = 0;
    for (let x = 0; x < at.length; x++)
      for (let y = x + 1; y < at.length; y++) {
        pairs++;
        if (train[at[x] as number]?.answer === train[at[y] as number]?.answer) equal++;
      }
    if (pairs > 0) out.set(t, Math.min(1, Math.max(0, (equal / pairs - base) / Math.max(1e-9, 1 - base))));
  }
  return out;
}

/**
 * The other memorisers, for problems whose parts move between phrasings: the answer of the training instances that
 * share the most weight of numbers (or words) with the prompt, the most common among ties.
 */
function sharedMemoriser(train: PoolSample[], pattern: RegExp): (prompt: string) => string | null {
  const tokens = train.map((s) => tokensOf(s.prompt, pattern));
  const weights = tokenWeights(train, tokens);
  return (prompt) => {
    const mine = tokensOf(prompt, pattern);
    let most = 0;
    let answers: string[] = [];
    tokens.forEach((m, i) => {
      let shared = 0;
      for (const [t, c] of m) shared += Math.min(c, mine.get(t) ?? 0) * (weights.get(t) ?? 1);
      if (shared > most + 1e-9) [most, answers] = [shared, []];
      if (Math.abs(shared - most) <= 1e-9 && most > 0) answers.push(train[i]?.answer as string);
    });
    const counts = new Map<string, number>();
    for (const a of answers) counts.set(a, (counts.get(a) ?? 0) + 1);
    return [...counts].reduce<[string, number] | null>((x, y) => (x && x[1] >= y[1] ? x : y), null)?.[0] ?? null;
  };
}

/** One level's held-out result: the memorisers' hits, chance's expected hits, the test count, the key's pool size. */
export interface LevelMemory {
  level: number;
  tested: number;
  /** Right answers of the memoriser by key. */
  hits: number;
  /** Right answers of the memoriser by shared numbers. */
  sharedHits: number;
  /** Right answers of the memoriser by shared words. */
  wordHits: number;
  chance: number;
  key: string[];
  /** Birthday estimate of the distinct answers: 1 / (the share of pairs of the level's samples whose answers match). */
  pool: number;
}

/** Trains on one half, tests on the other: hits of the memoriser, expected hits of the best answer-only policy. */
function fold(
  train: PoolSample[],
  test: PoolSample[],
  partsOf: (s: PoolSample) => Parts,
): { hits: number; sharedHits: number; wordHits: number; chance: number; key: string[] } {
  const trainParts = train.map(partsOf);
  const key = fitKey(
    trainParts,
    train.map((s) => s.answer),
  );
  const memory = new Map<string, Map<string, number>>();
  trainParts.forEach((p, i) => {
    const k = keyOf(p, key);
    const m = memory.get(k) ?? new Map<string, number>();
    m.set(train[i]?.answer as string, (m.get(train[i]?.answer as string) ?? 0) + 1);
    memory.set(k, m);
  });
  const answerCounts = new Map<string, number>();
  for (const s of train) answerCounts.set(s.answer, (answerCounts.get(s.answer) ?? 0) + 1);
  const constant = Math.max(0, ...answerCounts.values());
  let hits = 0;
  let sharedHits = 0;
  let wordHits = 0;
  const byNumbers = sharedMemoriser(train, NUMBER);
  const byWords = sharedMemoriser(train, WORD);
  let other = 0;
  let common = 0;
  const top = [...answerCounts].find(([, c]) => c === constant)?.[0];
  for (const s of test) {
    const seen = memory.get(keyOf(partsOf(s), key));
    if (seen) {
      const guess = [...seen].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
      if (guess === s.answer) hits++;
    }
    if (byNumbers(s.prompt) === s.answer) sharedHits++;
    if (byWords(s.prompt) === s.answer) wordHits++;
    other += (answerCounts.get(s.answer) ?? 0) / train.length;
    if (s.answer === top) common++;
  }
  return { hits, sharedHits, wordHits, chance: Math.max(other, common), key };
}

/** The share of pairs with equal values (about 1/N for N equally likely values). */
function pairShare(values: string[]): number {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let pairs = 0;
  for (const c of counts.values()) pairs += c * (c - 1);
  return values.length < 2 ? 0 : pairs / (values.length * (values.length - 1));
}

/** Each level with at least `minSamples` samples, judged in two folds (even and odd samples). */
export function memoriseLevels(samples: PoolSample[], minSamples: number): LevelMemory[] {
  const levels = [...new Set(samples.map((s) => s.level))].sort((a, b) => a - b);
  const out: LevelMemory[] = [];
  for (const level of levels) {
    const at = samples.filter((s) => s.level === level);
    if (at.length < minSamples) continue;
    const a = at.filter((_, i) => i % 2 === 0);
    const b = at.filter((_, i) => i % 2 === 1);
    // Each prompt is parted once, for the fold it trains and the fold it tests.
    const parts = new Map(at.map((s) => [s, promptParts(s.prompt)]));
    const partsOf = (s: PoolSample) => parts.get(s) as Parts;
    const ab = fold(a, b, partsOf);
    const ba = fold(b, a, partsOf);
    const share = pairShare(at.map((s) => s.answer));
    out.push({
      level,
      tested: at.length,
      hits: ab.hits + ba.hits,
      sharedHits: ab.sharedHits + ba.sharedHits,
      wordHits: ab.wordHits + ba.wordHits,
      chance: ab.chance + ba.chance,
      key: ab.key,
      pool: share > 0 ? Math.round(1 / share) : Number.POSITIVE_INFINITY,
    });
  }
  return out;
}

/**
 * The better memoriser's pooled held-out rate over the levels, its confident gain over chance, and the levels' results.
 */
export function memorisedGain(
  samples: Array<{ level: number; prompt: string; answer: string }>,
  minSamples: number,
  z: number,
): { rate: number; chance: number; gain: number; levels: LevelMemory[] } {
  // A part of the answer the prompt prints (an echoed ticket, a name) is copied, not memorised (rt27s S2).
  const levels = memoriseLevels(
    maskLevelEchoes(samples.map((s) => ({ ...s, answer: normalizeAnswer(s.answer) }))),
    minSamples,
  );
  const tested = levels.reduce((a, l) => a + l.tested, 0);
  if (tested === 0) return { rate: 0, chance: 0, gain: 0, levels };
  const rate =
    Math.max(
      levels.reduce((a, l) => a + l.hits, 0),
      levels.reduce((a, l) => a + l.sharedHits, 0),
      levels.reduce((a, l) => a + l.wordHits, 0),
    ) / tested;
  const chance = levels.reduce((a, l) => a + l.chance, 0) / tested;
  return { rate, chance, gain: lowerBound(rate, tested, z) - chance, levels };
}

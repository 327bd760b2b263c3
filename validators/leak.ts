// The answer must not be readable off the prompt. The answer is written in every simple encoding (numeral
// systems from base 2 to 36 with and without a prefix, number words, Roman numerals, reversed digits,
// reversed or rot13 words, base64) and searched among the prompt's tokens; each place one is found gives a
// candidate reading rule (the k-th token from either end, the k-th token of its kind, the token after or
// before a fixed word). A rule is a leak when it finds the answer far more often than it finds the answer
// of another instance at the same level in the same place (chance). Answers of several words are also
// searched as a whole token sequence.
import type { Episode } from '../sandbox/episodes.js';
import { isIntegerAnswer, normalizeAnswer, occurrences, tokenize } from './answers.js';
import { answerContent } from '../sandbox/answer.js';

export const ONES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
export const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES: Array<[number, string]> = [[1e12, 'trillion'], [1e9, 'billion'], [1e6, 'million'], [1e3, 'thousand'], [100, 'hundred']];

/** English words for a non-negative integer ("one hundred forty-two"). */
export function numberWords(n: number): string {
  if (n < 20) return ONES[n] as string;
  if (n < 100) return `${TENS[Math.floor(n / 10)]}${n % 10 ? `-${ONES[n % 10]}` : ''}`;
  for (const [size, word] of SCALES) {
    if (n >= size) return `${numberWords(Math.floor(n / size))} ${word}${n % size ? ` ${numberWords(n % size)}` : ''}`;
  }
  return String(n);
}

function roman(n: number): string | null {
  if (n < 1 || n > 3999) return null;
  const parts: Array<[number, string]> = [[1000, 'm'], [900, 'cm'], [500, 'd'], [400, 'cd'], [100, 'c'], [90, 'xc'], [50, 'l'], [40, 'xl'], [10, 'x'], [9, 'ix'], [5, 'v'], [4, 'iv'], [1, 'i']];
  let out = '';
  for (const [v, s] of parts) while (n >= v) [n, out] = [n - v, out + s];
  return out;
}

const rot13 = (s: string) => s.replace(/[a-z]/g, (c) => String.fromCharCode(((c.charCodeAt(0) - 97 + 13) % 26) + 97));

/** The answer in every encoding searched for, lower case: encoded text -> the encoding's name (first name wins). */
export function encodings(answer: string): Map<string, string> {
  const out = new Map<string, string>();
  const add = (text: string | null, name: string) => {
    if (text && !out.has(text)) out.set(text, name);
  };
  const a = normalizeAnswer(answer).toLowerCase();
  add(a, 'as written');
  if (isIntegerAnswer(a)) {
    const n = Number(a);
    const sign = n < 0 ? '-' : '';
    const m = Math.abs(n);
    add(String(n), 'in decimal');
    for (const [prefix, base, name] of [['0x', 16, 'hexadecimal'], ['0b', 2, 'binary'], ['0o', 8, 'octal']] as const) add(`${sign}${prefix}${m.toString(base)}`, `in ${name}`);
    for (let base = 2; base <= 36; base++) add(`${sign}${m.toString(base)}`, `in base ${base}`);
    add(`${sign}${[...String(m)].reverse().join('')}`, 'with its digits reversed');
    if (m <= 1e15) add(`${n < 0 ? 'minus ' : ''}${numberWords(m)}`, 'in words');
    if (n > 0) add(roman(n), 'in Roman numerals');
  } else if (a.length >= 2 && a.length <= 200) {
    add([...a].reverse().join(''), 'reversed');
    add(rot13(a), 'in rot13');
    if (/^[\x20-\x7e]+$/.test(a)) add(Buffer.from(a, 'latin1').toString('base64').replace(/=+$/, '').toLowerCase(), 'in base64');
  }
  return out;
}

type TokenClass = 'number' | 'word' | 'mixed';

/** A token's kind, by a scan of its characters: a (signed, decimal) number, a word of letters, or mixed. */
function classOf(t: string): TokenClass {
  let digits = 0;
  let letters = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
    else if (c >= 97 && c <= 122) letters++;
  }
  if (letters === t.length) return 'word';
  return letters === 0 && digits > 0 ? 'number' : 'mixed';
}

/** Per token of a prompt: its class, its rank among the tokens of that class, and where each distinct token first occurs. */
interface TokenIndex {
  classes: TokenClass[];
  rank: number[];
  byClass: Map<TokenClass, number[]>;
  /** A word anchors the token after or before its first occurrence. */
  first: Map<string, number>;
}

function indexTokens(tokens: string[]): TokenIndex {
  const index: TokenIndex = { classes: tokens.map(classOf), rank: new Array<number>(tokens.length), byClass: new Map(), first: new Map() };
  // Three classes: one list each, created in the order the classes first occur (as `byClass` is read).
  const lists: Partial<Record<TokenClass, number[]>> = {};
  for (let i = 0; i < tokens.length; i++) {
    const c = index.classes[i] as TokenClass;
    const token = tokens[i] as string;
    let list = lists[c];
    if (!list) index.byClass.set(c, (list = lists[c] = []));
    list.push(i);
    index.rank[i] = list.length - 1;
    if (!index.first.has(token)) index.first.set(token, i);
  }
  return index;
}

/** A prompt read as tokens; the index the reading rules need is built when one first reads it (most prompts hold no answer, and then none does). */
class Reading {
  readonly tokens: string[];
  #index: TokenIndex | undefined;

  constructor(prompt: string, maxTokens: number) {
    this.tokens = tokenize(prompt.toLowerCase(), maxTokens);
  }

  get index(): TokenIndex {
    return (this.#index ??= indexTokens(this.tokens));
  }

  /** The token after (+1) or before (-1) the first occurrence of `word`. */
  next(word: string, step: 1 | -1): string | undefined {
    const at = this.index.first.get(word);
    return at === undefined ? undefined : this.tokens[at + step];
  }
}

/** A rule reads one token (or, for "anywhere", tests a token sequence) from a prompt. */
type Selector = { kind: 'from start' | 'from end'; k: number; cls?: TokenClass } | { kind: 'after'; word: string } | { kind: 'before'; word: string } | { kind: 'anywhere' };

function selectors(r: Reading, i: number): Selector[] {
  const { classes, rank: ranks, byClass, first } = r.index;
  const cls = classes[i] as TokenClass;
  const out: Selector[] = [];
  const n = r.tokens.length;
  if (i < 12) out.push({ kind: 'from start', k: i });
  if (n - 1 - i < 12) out.push({ kind: 'from end', k: n - 1 - i });
  const rank = ranks[i] as number;
  const count = (byClass.get(cls) as number[]).length;
  if (rank < 12) out.push({ kind: 'from start', k: rank, cls });
  if (count - 1 - rank < 12) out.push({ kind: 'from end', k: count - 1 - rank, cls });
  if (i > 0 && first.get(r.tokens[i - 1] as string) === i - 1) out.push({ kind: 'after', word: r.tokens[i - 1] as string });
  if (i + 1 < n && first.get(r.tokens[i + 1] as string) === i + 1) out.push({ kind: 'before', word: r.tokens[i + 1] as string });
  return out;
}

function apply(s: Selector, r: Reading): string | undefined {
  if (s.kind === 'after') return r.next(s.word, 1);
  if (s.kind === 'before') return r.next(s.word, -1);
  if (s.kind === 'anywhere') return undefined;
  const list = s.cls ? (r.index.byClass.get(s.cls) ?? []) : null;
  const n = list ? list.length : r.tokens.length;
  const at = s.kind === 'from start' ? s.k : n - 1 - s.k;
  if (at < 0 || at >= n) return undefined;
  return r.tokens[list ? (list[at] as number) : at];
}

const ordinal = (k: number) => `${k + 1}${k === 0 ? 'st' : k === 1 ? 'nd' : k === 2 ? 'rd' : 'th'}`;
function describe(s: Selector, encoding: string): string {
  const what = `the answer ${encoding}`;
  if (s.kind === 'after') return `${what} is the token after "${s.word.slice(0, 30)}"`;
  if (s.kind === 'before') return `${what} is the token before "${s.word.slice(0, 30)}"`;
  if (s.kind === 'anywhere') return `${what} appears in the prompt word for word`;
  return `${what} is the ${ordinal(s.k)} ${s.cls ?? 'token'} ${s.kind === 'from start' ? 'from the start' : 'from the end'}`;
}

export interface Leak {
  rule: string;
  rate: number;
  chance: number;
  level?: number;
  examples: Array<{ seed: number; level: number; answer: string }>;
}

/** The encodings of several tokens, as token sequences to search whole, by encoding name. */
function sequences(enc: Map<string, string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [text, name] of enc) {
    const seq = tokenize(text, 400);
    if (seq.length >= 2 && !out.has(name)) out.set(name, seq);
  }
  return out;
}

/** Whether the prompt's tokens hold `seq` as a run (linear, whatever the sequence). */
const holds = (r: Reading, seq: string[]) => occurrences(r.tokens, seq, 1).length > 0;

/** What the leak check reads of an instance. */
export type LeakSample = Pick<Episode, 'seed' | 'level' | 'reference'> & { instance: { prompt: string } };

/** Per rule: how often it reads the answer, and how often another instance's answer, overall and per level. */
interface Tally {
  rule: string;
  hits: number;
  chance: number;
  n: number;
}

export interface LeakVerdict {
  /** The strongest rule over all instances, and the strongest at any one level (by excess over chance). */
  overall: Leak | null;
  level: Leak | null;
}

/**
 * The strongest reading rules over `episodes` (each compared with up to `peers` other instances of its
 * level). Rules that find the answer less often than `minRate` overall and at every level are not scored.
 */
export function detectLeak(episodes: LeakSample[], minRate: number, minLevelSamples: number, peers = 3, maxTokens = 50_000): LeakVerdict {
  const readings = episodes.map((e) => new Reading(e.instance.prompt, maxTokens));
  const answers = episodes.map((e) => encodings(answerContent(e.reference)));
  const seqs = answers.map(sequences);
  const contents = episodes.map((e) => normalizeAnswer(answerContent(e.reference)));
  const levels = new Map<number, number[]>();
  episodes.forEach((e, i) => levels.set(e.level, [...(levels.get(e.level) ?? []), i]));
  const rules = new Map<string, { selector: Selector; encoding: string; hits: Map<number, number>; examples: Leak['examples'] }>();
  episodes.forEach((e, n) => {
    const r = readings[n] as Reading;
    const seen = new Set<string>();
    const hit = (selector: Selector, encoding: string) => {
      const id = `${JSON.stringify(selector)}|${encoding}`;
      if (seen.has(id)) return;
      seen.add(id);
      const rule = rules.get(id) ?? { selector, encoding, hits: new Map<number, number>(), examples: [] };
      rule.hits.set(e.level, (rule.hits.get(e.level) ?? 0) + 1);
      if (rule.examples.length < 2) rule.examples.push({ seed: e.seed, level: e.level, answer: answerContent(e.reference).slice(0, 80) });
      rules.set(id, rule);
    };
    const enc = answers[n] as Map<string, string>;
    r.tokens.forEach((t, i) => {
      const encoding = enc.get(t);
      if (encoding !== undefined) for (const s of selectors(r, i)) hit(s, encoding);
    });
    for (const [encoding, seq] of seqs[n] as Map<string, string[]>) if (holds(r, seq)) hit({ kind: 'anywhere' }, encoding);
  });
  const verdict: LeakVerdict = { overall: null, level: null };
  const keep = (slot: keyof LeakVerdict, leak: Leak) => {
    const old = verdict[slot];
    if (!old || leak.rate - leak.chance > old.rate - old.chance) verdict[slot] = leak;
  };
  for (const rule of rules.values()) {
    const total = [...rule.hits.values()].reduce((a, b) => a + b, 0);
    const promising = total >= minRate * episodes.length || [...rule.hits].some(([level, h]) => h >= minRate * (levels.get(level) as number[]).length);
    if (!promising) continue;
    const tallies = new Map<number, Tally>();
    for (const [level, members] of levels) {
      // Chance: the same rule, read on this prompt, against other instances' answers at the same level.
      let chance = 0;
      members.forEach((n, at) => {
        const others = [1, 2, 3].slice(0, Math.min(peers, members.length - 1)).map((k) => members[(at + k) % members.length] as number);
        const r = readings[n] as Reading;
        const value = apply(rule.selector, r);
        for (const o of others) {
          const seq = (seqs[o] as Map<string, string[]>).get(rule.encoding);
          const found = contents[o] === contents[n] || (rule.selector.kind === 'anywhere' ? seq !== undefined && holds(r, seq) : value !== undefined && (answers[o] as Map<string, string>).get(value) === rule.encoding);
          if (found) chance += 1 / others.length;
        }
      });
      tallies.set(level, { rule: describe(rule.selector, rule.encoding), hits: rule.hits.get(level) ?? 0, chance, n: members.length });
    }
    const all = [...tallies.values()].reduce((a, t) => ({ ...a, hits: a.hits + t.hits, chance: a.chance + t.chance, n: a.n + t.n }));
    keep('overall', { rule: all.rule, rate: all.hits / all.n, chance: all.chance / all.n, examples: rule.examples });
    for (const [level, t] of tallies) if (t.n >= minLevelSamples) keep('level', { rule: t.rule, rate: t.hits / t.n, chance: t.chance / t.n, level, examples: rule.examples.filter((x) => x.level === level) });
  }
  return verdict;
}

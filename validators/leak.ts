// A reader family (readers.ts): the answer written in every simple encoding (numeral systems from base 2
// to 36 with and without a prefix, number words, Roman numerals, reversed digits, reversed or rot13 words,
// base64) and searched among the prompt's tokens; each place one is found gives a reading rule (the k-th
// token from either end, the k-th token of its kind, the token after or before a fixed word, or an answer
// of several words held anywhere as a whole token sequence).
import { isIntegerAnswer, normalizeAnswer, occurrences, tokenize } from './answers.js';
import { answerContent } from '../sandbox/answer.js';
import type { PreparedFamily, ReaderFamily, ReaderSample } from './readers.js';
import { againstStatedForm } from './stated-form.js';

export const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
export const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES: Array<[number, string]> = [
  [1e12, 'trillion'],
  [1e9, 'billion'],
  [1e6, 'million'],
  [1e3, 'thousand'],
  [100, 'hundred'],
];

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
  const parts: Array<[number, string]> = [
    [1000, 'm'],
    [900, 'cm'],
    [500, 'd'],
    [400, 'cd'],
    [100, 'c'],
    [90, 'xc'],
    [50, 'l'],
    [40, 'xl'],
    [10, 'x'],
    [9, 'ix'],
    [5, 'v'],
    [4, 'iv'],
    [1, 'i'],
  ];
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
    for (const [prefix, base, name] of [
      ['0x', 16, 'hexadecimal'],
      ['0b', 2, 'binary'],
      ['0o', 8, 'octal'],
    ] as const)
      add(`${sign}${prefix}${m.toString(base)}`, `in ${name}`);
    for (let base = 2; base <= 36; base++) add(`${sign}${m.toString(base)}`, `in base ${base}`);
    add(`${sign}${[...String(m)].reverse().join('')}`, 'with its digits reversed');
    if (m <= 1e15) add(`${n < 0 ? 'minus ' : ''}${numberWords(m)}`, 'in words');
    if (n > 0) add(roman(n), 'in Roman numerals');
  } else if (a.length >= 2 && a.length <= 200) {
    add([...a].reverse().join(''), 'reversed');
    add(rot13(a), 'in rot13');
    if (/^[\x20-\x7e]+$/.test(a))
      add(Buffer.from(a, 'latin1').toString('base64').replace(/=+$/, '').toLowerCase(), 'in base64');
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

/**
 * Per token of a prompt: its class, its rank among the tokens of that class, and where each distinct token first
 * occurs.
 */
interface TokenIndex {
  classes: TokenClass[];
  rank: number[];
  byClass: Map<TokenClass, number[]>;
  /** A word anchors the token after or before its first occurrence. */
  first: Map<string, number>;
}

function indexTokens(tokens: string[]): TokenIndex {
  const index: TokenIndex = {
    classes: tokens.map(classOf),
    rank: new Array<number>(tokens.length),
    byClass: new Map(),
    first: new Map(),
  };
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

/**
 * A prompt read as tokens; the index the reading rules need is built when one first reads it (most prompts hold no
 * answer, and then none does).
 */
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
type Selector =
  | { kind: 'from start' | 'from end'; k: number; cls?: TokenClass }
  | { kind: 'after'; word: string }
  | { kind: 'before'; word: string }
  | { kind: 'anywhere' };

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
  if (i > 0 && first.get(r.tokens[i - 1] as string) === i - 1)
    out.push({ kind: 'after', word: r.tokens[i - 1] as string });
  if (i + 1 < n && first.get(r.tokens[i + 1] as string) === i + 1)
    out.push({ kind: 'before', word: r.tokens[i + 1] as string });
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
  return (
    `${what} is the ${ordinal(s.k)} ${s.cls ?? 'token'} ` +
    `${s.kind === 'from start' ? 'from the start' : 'from the end'}`
  );
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

/** A rule's id: its selector and the encoding it reads, as a string (rules are compared and counted by it). */
const ruleId = (s: Selector, encoding: string) => `${JSON.stringify(s)}|${encoding}`;

/**
 * The encodings reader: each place in the prompt where an encoding of the answer appears proposes a rule
 * (that place, that encoding); a rule earns a sample whose prompt holds, at its place, the answer in its
 * encoding. Where a token splits reads form (an odd dash): judged against checking a stated form (rt27s S4), never
 * against a stated length, initial or order, which no place or encoding reads (rt29s L1).
 */
export const ENCODINGS: ReaderFamily = againstStatedForm(
  {
    name: 'the answer in an encoding at a fixed place',
    code: 'E_ANSWER_LEAK',
    prepare(samples: readonly ReaderSample[]): PreparedFamily {
      const readings = samples.map((e) => new Reading(e.instance.prompt, 50_000));
      const answers = samples.map((e) => encodings(answerContent(e.reference)));
      const seqs = answers.map(sequences);
      const parsed = new Map<string, { selector: Selector; encoding: string }>();
      const parse = (rule: string) => {
        let p = parsed.get(rule);
        if (!p) {
          const bar = rule.lastIndexOf('|');
          parsed.set(
            rule,
            (p = { selector: JSON.parse(rule.slice(0, bar)) as Selector, encoding: rule.slice(bar + 1) }),
          );
        }
        return p;
      };
      return {
        *fit(i) {
          const r = readings[i] as Reading;
          const enc = answers[i] as Map<string, string>;
          const seen = new Set<string>();
          for (let p = 0; p < r.tokens.length; p++) {
            const encoding = enc.get(r.tokens[p] as string);
            if (encoding === undefined) continue;
            for (const s of selectors(r, p)) {
              const id = ruleId(s, encoding);
              if (!seen.has(id)) {
                seen.add(id);
                yield [id, 1];
              }
            }
          }
          for (const [encoding, seq] of seqs[i] as Map<string, string[]>)
            if (holds(r, seq)) yield [ruleId({ kind: 'anywhere' }, encoding), 1];
        },
        credit(rule, i, j) {
          const { selector, encoding } = parse(rule);
          const r = readings[i] as Reading;
          if (selector.kind === 'anywhere') {
            const seq = (seqs[j] as Map<string, string[]>).get(encoding);
            return seq !== undefined && holds(r, seq) ? 1 : 0;
          }
          const value = apply(selector, r);
          return value !== undefined && (answers[j] as Map<string, string>).get(value) === encoding ? 1 : 0;
        },
        describe(rule) {
          const { selector, encoding } = parse(rule);
          return describe(selector, encoding);
        },
      };
    },
  },
  (criterion) => criterion === 'form',
);

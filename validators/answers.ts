// Reading an answer as a person would (sandbox/answer.ts takes it out of its tag): its shape (integer,
// label, word, list), tokens, and variants of it (numbers ±1 or negated, case flipped, list items). Every function here
// reads prompts, references or responses written by guest code, so each one runs in linear time: scans
// and splits on fixed strings, and no regex with nested or overlapping quantifiers.

/** Whitespace-collapsed, for comparing answers as a person would. */
export function normalizeAnswer(content: string): string {
  return content.trim().replace(/\s+/g, ' ');
}

const INTEGER = /^[+-]?\d{1,15}$/;
export function isIntegerAnswer(content: string): boolean {
  return INTEGER.test(content.trim());
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isWordChar(c: number): boolean {
  return isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c > 127;
}

/**
 * Word and number tokens, in order: runs of letters and digits, with a sign kept on a number and inner
 * '.', '-' or "'" kept between word characters ("3.5", "-7", "forty-two", "0x1f").
 */
export function tokenize(text: string, max = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length && out.length < max) {
    const c = text.charCodeAt(i);
    const signed =
      (c === 45 || c === 43) && isDigit(text.charCodeAt(i + 1)) && (i === 0 || !isWordChar(text.charCodeAt(i - 1)));
    if (!isWordChar(c) && !signed) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < text.length) {
      const d = text.charCodeAt(j);
      if (isWordChar(d)) j++;
      else if (
        (d === 46 || d === 45 || d === 39) &&
        isWordChar(text.charCodeAt(j - 1)) &&
        isWordChar(text.charCodeAt(j + 1))
      )
        j += 2;
      else break;
    }
    out.push(text.slice(i, j));
    i = j;
  }
  return out;
}

export type ShapeKind = 'empty' | 'integer' | 'number' | 'word' | 'list' | 'text';
export interface Shape {
  kind: ShapeKind;
  /** List items (trimmed, in order); one item for a scalar. */
  items: string[];
  /** The separator between list items as the reference writes it (", ", ";", "\n", " "…); null for a scalar. */
  separator: string | null;
  /** The list was written in [brackets]. */
  bracketed: boolean;
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:\/\d+)?$/;
const SEPARATORS = ['\n', ';', '|', ','];

/** What an answer is: a number, one word, a list of items (with its separator), or free text. */
export function shapeOf(content: string): Shape {
  const text = content.trim();
  if (text.length === 0) return { kind: 'empty', items: [], separator: null, bracketed: false };
  if (isIntegerAnswer(text)) return { kind: 'integer', items: [text], separator: null, bracketed: false };
  if (text.length <= 40 && NUMBER.test(text))
    return { kind: 'number', items: [text], separator: null, bracketed: false };
  const bracketed = text.length > 2 && text.startsWith('[') && text.endsWith(']');
  const inner = bracketed ? text.slice(1, -1) : text;
  for (const sep of SEPARATORS) {
    if (!inner.includes(sep)) continue;
    const items = inner
      .split(sep)
      .map((s) => s.trim())
      .filter(Boolean);
    if (items.length >= 2)
      return { kind: 'list', items, separator: sep === '\n' || sep === '|' ? sep : `${sep} `, bracketed };
  }
  const words = inner.split(/\s+/).filter(Boolean);
  if (words.length >= 2 && words.length <= 200) return { kind: 'list', items: words, separator: ' ', bracketed };
  return {
    kind: words.length === 1 && tokenize(text, 2).length === 1 ? 'word' : 'text',
    items: [text],
    separator: null,
    bracketed: false,
  };
}

/** Writes items back the way the reference wrote its list. */
export function joinItems(shape: Shape, items: string[]): string {
  const body = items.join(shape.separator ?? ' ');
  return shape.bracketed ? `[${body}]` : body;
}

/** Variants of `content` with one number moved by ±1: the first and the last number, up and down. */
export function perturbNumbers(content: string): string[] {
  return numberEdits(content, (n) => [n + 1n, n - 1n]);
}

/** Variants with one number negated (the first and the last nonzero one), and the whole answer negated. */
export function negations(content: string): string[] {
  const out = new Set(numberEdits(content, (n) => (n === 0n ? [] : [-n])));
  const t = content.trim();
  if (isIntegerAnswer(t) && Number(t) !== 0) out.add(t.startsWith('-') ? t.slice(1) : `-${t.replace(/^\+/, '')}`);
  out.delete(content);
  return [...out];
}

/**
 * Edits of the first and the last number, in exact integer arithmetic (a 40-digit answer is edited in its last digit
 * too).
 */
function numberEdits(content: string, edit: (n: bigint) => bigint[]): string[] {
  // Only the first and the last number are edited: a long list's other numbers are scanned, never kept.
  let first: RegExpExecArray | undefined;
  let last: RegExpExecArray | undefined;
  for (const m of content.matchAll(/-?\d+/g)) {
    if (m[0].length > 400) continue;
    first ??= m;
    last = m;
  }
  if (!first || !last) return [];
  const chosen = first === last ? [first] : [first, last];
  const out = new Set<string>();
  for (const m of chosen) {
    if (!m || m.index === undefined) continue;
    for (const value of edit(BigInt(m[0]))) {
      const replaced = content.slice(0, m.index) + String(value) + content.slice(m.index + m[0].length);
      if (replaced !== content) out.add(replaced);
    }
  }
  return [...out];
}

/**
 * Whether letter case carries information in `content`: its letters mix cases in a way typography does
 * not explain (not all lower, all upper, or capitalised words), as in "aBcD" or "xYz-Q".
 */
export function caseCarriesInformation(content: string): boolean {
  let upper = 0;
  let lower = 0;
  let irregular = false;
  for (const word of content.split(/[^A-Za-z]+/)) {
    if (word.length === 0) continue;
    const rest = word.slice(1);
    const restUpper = rest !== rest.toLowerCase();
    const restLower = rest !== rest.toUpperCase();
    if (restUpper && restLower) irregular = true;
    if (/[A-Z]/.test(word)) upper++;
    if (/[a-z]/.test(word)) lower++;
  }
  return irregular || (upper > 0 && lower > 0 && content.replace(/[^A-Za-z]/g, '').length > 2 && !isTitled(content));
}

function isTitled(content: string): boolean {
  return content
    .split(/[^A-Za-z]+/)
    .every(
      (w) =>
        w.length === 0 ||
        (w[0] === (w[0] as string).toUpperCase() && w.slice(1) === w.slice(1).toLowerCase()) ||
        w === w.toLowerCase(),
    );
}

/** Case variants where case carries information: swapped, all lower, all upper. */
export function caseFlips(content: string): string[] {
  if (!caseCarriesInformation(content)) return [];
  const swapped = [...content].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
  return [...new Set([swapped, content.toLowerCase(), content.toUpperCase()])].filter((v) => v !== content);
}

/** The most common value and its share. */
export function mostCommon<T>(values: T[]): { value: T | undefined; share: number; distinct: number } {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: T | undefined;
  let bestCount = 0;
  for (const [v, c] of counts) if (c > bestCount) [best, bestCount] = [v, c];
  return { value: best, share: values.length ? bestCount / values.length : 0, distinct: counts.size };
}

/** Shannon entropy in bits of the values' distribution. */
export function entropyBits<T>(values: T[]): number {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let h = 0;
  for (const c of counts.values()) {
    const p = c / values.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * Where `needle` occurs in `hay` (characters of a string, or tokens of an array), at most `cap` places, in
 * O(|hay| + |needle|) comparisons (Knuth-Morris-Pratt): a guest-written needle cannot make it quadratic.
 */
export function occurrences<T>(
  hay: ArrayLike<T> | string,
  needle: ArrayLike<T> | string,
  cap = Number.POSITIVE_INFINITY,
): number[] {
  const m = needle.length;
  if (m === 0 || m > hay.length) return [];
  if (typeof hay === 'string' && typeof needle === 'string') {
    // A short needle costs at most 32 comparisons per place in the engine's own search: still linear, and faster.
    if (m <= 32) {
      const out: number[] = [];
      for (let at = hay.indexOf(needle); at >= 0 && out.length < cap; at = hay.indexOf(needle, at + 1)) out.push(at);
      return out;
    }
    return kmp(
      (i) => hay.charCodeAt(i),
      hay.length,
      (i) => needle.charCodeAt(i),
      m,
      cap,
    );
  }
  const h = hay as ArrayLike<T>;
  const n = needle as ArrayLike<T>;
  return kmp(
    (i) => h[i],
    h.length,
    (i) => n[i],
    m,
    cap,
  );
}

function kmp<T>(hay: (i: number) => T, length: number, needle: (i: number) => T, m: number, cap: number): number[] {
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && needle(i) !== needle(k)) k = fail[k - 1] as number;
    if (needle(i) === needle(k)) k++;
    fail[i] = k;
  }
  const out: number[] = [];
  for (let i = 0, k = 0; i < length && out.length < cap; i++) {
    const c = hay(i);
    while (k > 0 && c !== needle(k)) k = fail[k - 1] as number;
    if (c === needle(k)) k++;
    if (k === m) {
      out.push(i - m + 1);
      k = fail[k - 1] as number;
    }
  }
  return out;
}

/**
 * A bounded view of a long text for evidence: its head, its tail, and a window around the first of the
 * `focus` strings (in priority order: the answer, then a tag) found past the head, so the part that decided
 * a score is visible whatever the length.
 */
export function excerpt(
  text: string,
  focus: string[] = [],
  side = 120,
): { chars: number; head: string; around?: string; tail?: string } {
  if (text.length <= 3 * side) return { chars: text.length, head: text };
  const rest = text.slice(side);
  const found = focus.map((f) => (f ? (occurrences(rest, f.slice(0, 64), 1)[0] ?? -1) : -1)).find((i) => i >= 0);
  const at = found === undefined ? undefined : found + side;
  const around =
    at !== undefined && at < text.length - side ? text.slice(Math.max(side, at - side / 2), at + side) : undefined;
  return {
    chars: text.length,
    head: text.slice(0, side),
    ...(around !== undefined ? { around } : {}),
    tail: text.slice(-side),
  };
}

/** Index of the first lone UTF-16 surrogate in `text` (not well-formed Unicode), or -1. */
export function loneSurrogate(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
    else return i;
  }
  return -1;
}

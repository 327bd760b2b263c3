// Join fields: an id's relation to another value of the episode. The id's keys (its prefixes and suffixes, what
// follows its letters, its digits and letters, its number's digit sum and value) found elsewhere in a text a
// policy sees (a code table in the prompt, a listing's row), and the words beside that occurrence, are fields
// of the entity, so "ids end with their queue's desk code, the codes listed in the prompt" is read like a word.

/** A text's lower-case words (letters and digits). */
export const wordsOf = (text: string): string[] => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

/** The keys of an id (lower case), each named by what it is: none that is the whole id or a single letter. */
export function idKeys(id: string): Array<[string, string]> {
  const v = id.toLowerCase();
  const out = new Map<string, string>();
  const add = (name: string, key: string) => {
    if (key !== v && /^[a-z0-9]+$/.test(key) && !/^[a-z]$/.test(key) && !out.has(name)) out.set(name, key);
  };
  for (let k = 1; k <= 4; k += 1) {
    add(`the id's first ${k}`, v.slice(0, k));
    add(`the id's last ${k}`, v.slice(-k));
  }
  const body = v.replace(/^[a-z]+[-_. ]?/, '');
  for (let k = 1; k < Math.min(5, body.length); k += 1) add(`the first ${k} after the id's letters`, body.slice(0, k));
  add("the id's letters", v.replace(/[^a-z]/g, ''));
  const digits = v.replace(/\D/g, '');
  add("the id's digits", digits);
  if (digits.length > 0) {
    const n = digits.slice(-9);
    add("the id's number", String(Number(n)));
    add("the id's digit sum", String([...digits].reduce((a, d) => a + Number(d), 0)));
    for (let k = 1; k <= 3; k += 1) add(`the id's number modulo ${10 ** k}`, String(Number(n) % 10 ** k));
  }
  return [...out];
}

/** The positions of `w` covered by a mention of one of `ids` (each id as its own word sequence). */
export function mentioned(w: readonly string[], ids: ReadonlyArray<readonly string[]>): Set<number> {
  const out = new Set<number>();
  for (const seq of ids)
    if (seq.length > 0)
      for (let i = 0; i + seq.length <= w.length; i += 1)
        if (seq.every((x, j) => w[i + j] === x)) for (let j = 0; j < seq.length; j += 1) out.add(i + j);
  return out;
}

const NEAR = [-2, -1, 1, 2];

/** One line of a text: its words, the positions inside a mention of an id, and each other word's positions. */
interface Line {
  w: string[];
  masked: Set<number>;
  byWord: Map<string, number[]>;
}
/** A text split into lines, and each word (outside a mention) with the lines that hold it, ascending. */
interface Indexed {
  lines: Line[];
  linesWith: Map<string, number[]>;
}
/** A cache of texts split into lines for one episode's ids (a text is read once for all the decisions that see it). */
export type LineCache = Map<string, Indexed>;

function indexOf(text: string, ids: ReadonlyArray<readonly string[]>, cache: LineCache): Indexed {
  const hit = cache.get(text);
  if (hit) return hit;
  const linesWith = new Map<string, number[]>();
  const lines = text
    .slice(0, 20_000)
    .split(/\n|;/)
    .map((line, l) => {
      const w = wordsOf(line);
      const masked = mentioned(w, ids);
      const byWord = new Map<string, number[]>();
      w.forEach((x, i) => masked.has(i) || (byWord.get(x) ?? (byWord.set(x, []).get(x) as number[])).push(i));
      for (const x of byWord.keys()) (linesWith.get(x) ?? (linesWith.set(x, []).get(x) as number[])).push(l);
      return { w, masked, byWord };
    });
  const indexed = { lines, linesWith };
  cache.set(text, indexed);
  return indexed;
}

/**
 * The join fields of one id: for each key of the id, each occurrence of it as a word in a line of `texts` (not
 * inside a mention of an episode's id, `ids`), the words at two places either side ("in the prompt, the word 1
 * before the id's last 2: billing"). Where `stated` holds (the reference decides without reading the entity, so
 * the join may be the task), a word of the rules (`rules`) is marked with `mark`, as the field reader marks it.
 * Only the lines that hold a key are read (the text's index), in the text's order.
 */
export function joinFields(
  id: string,
  texts: ReadonlyArray<readonly [string, string]>,
  ids: ReadonlyArray<readonly string[]>,
  rules: ReadonlySet<string>,
  stated: { mark: string; applies: boolean },
  cache: LineCache = new Map(),
): string[] {
  const keys = idKeys(id);
  const out = new Set<string>();
  for (const [source, text] of texts) {
    const { lines, linesWith } = indexOf(text, ids, cache);
    const holding = [...new Set(keys.flatMap(([, key]) => linesWith.get(key) ?? []))].sort((a, b) => a - b);
    for (const { w, masked, byWord } of holding.map((l) => lines[l] as Line))
      for (const [name, key] of keys)
        for (const i of byWord.get(key) ?? [])
          for (const k of NEAR) {
            const x = w[i + k];
            if (x === undefined || masked.has(i + k)) continue;
            const mark = stated.applies && rules.has(x) ? `${stated.mark} ` : '';
            out.add(`in ${source}, ${mark}the word ${k > 0 ? `${k} after` : `${-k} before`} ${name}: ${x}`);
          }
  }
  return [...out];
}

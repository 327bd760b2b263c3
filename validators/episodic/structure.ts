// Structural features of an entity in the texts a policy sees (the prompt, listings, logs): what an author can
// encode a decision in besides words. Its rank among the entities the text names (from either end), how many
// times the text names it, the layout of its cell (whitespace, punctuation, letter case, the id's own case with
// every word and number masked), blank lines around it, and its id's own characters; the learned readers fit them
// like words. Only texts that name three entities or more (listings, logs) have a structure.

/** The shape of an id (letters a, digits 9, other characters kept): tokens of a chosen id's shape are the entities. */
export const shapeOf = (id: string): string => id.toLowerCase().replace(/[a-z]/g, 'a').replace(/[0-9]/g, '9');

/** A token that can be an id: it holds a digit, or two capitals and no small letter ("SRV123", "LHR"; not "handle"). */
const idLike = (t: string) => /\d/.test(t) || (t === t.toUpperCase() && /[A-Z].*[A-Z]/.test(t));
/**
 * A value a world issued as an id (a call's argument): 2 to 40 letters, digits and `_ . : -`, an id-like token's
 * letters (a decision's value, "billing" or "High", is none).
 */
export const idValue = (v: unknown): v is string =>
  typeof v === 'string' && v.length >= 2 && v.length <= 40 && /^[\w.:-]+$/.test(v) && idLike(v);
const TOKEN = /[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?/g;
const caseOf = (w: string) =>
  /^[^a-z]*$/.test(w) ? 'A' : /^[^A-Z]*$/.test(w) ? 'a' : /^[A-Z][^A-Z]*$/.test(w) ? 'Aa' : 'aA';
/**
 * A cell's layout: each word by its letter case, each number as #, whitespace visible (␣, →), punctuation kept; the id
 * as <id:case>.
 */
const layoutOf = (cell: string, id: string) =>
  cell
    .replace(TOKEN, (w) =>
      w.toLowerCase() === id
        ? `<id:${caseOf(w)}>`
        : /^[0-9]+$/.test(w)
          ? '#'
          : /^[A-Za-z]+$/.test(w)
            ? caseOf(w)
            : `${caseOf(w)}#`,
    )
    .replace(/ /g, '\u2423')
    .replace(/\t/g, '\u2192');

/**
 * An entity's first mention in a text: its cell, the id as printed and where, its mentions, blank lines around its
 * line.
 */
interface Cell {
  cell: string;
  /** The id as the text prints it. */
  printed: string;
  /** Where the id stands in its cell. */
  at: number;
  count: number;
  blank: string;
}
/**
 * One text parsed for the entities of some shapes: the entities in first-mention order, their cells, whether a visible
 * column sorts them.
 */
interface Parsed {
  order: string[];
  cells: Map<string, Cell>;
  sorted: boolean;
}

/**
 * The entities of `shapes` a text names, in first-mention order. An entity's cell is the text from the end of
 * the previous mention (or its line's start) to the next mention (or its line's end): its line in a listing,
 * its item in a comma list. The text is visibly sorted when some column of the cells (the k-th number or word,
 * the id) runs monotonically and not constantly: then its order is a field a policy may read, not a code.
 */
export function parse(text: string, shapes: ReadonlySet<string>): Parsed {
  const order: string[] = [];
  const cells = new Map<string, Cell>();
  const lines = text.slice(0, 20_000).split('\n');
  lines.forEach((line, n) => {
    const hits = [...line.matchAll(TOKEN)].filter((m) => idLike(m[0]) && shapes.has(shapeOf(m[0])));
    hits.forEach((m, k) => {
      const id = m[0].toLowerCase();
      const seen = cells.get(id);
      if (seen) return void (seen.count += 1);
      const prev = hits[k - 1];
      const next = hits[k + 1];
      const from = prev ? (prev.index as number) + prev[0].length : 0;
      const blank =
        `${n > 0 && lines[n - 1]?.trim() === '' ? 'before' : ''}` +
          `${n < lines.length - 1 && lines[n + 1]?.trim() === '' ? 'after' : ''}` || 'none';
      cells.set(id, {
        cell: line.slice(from, next ? next.index : line.length),
        printed: m[0],
        at: (m.index as number) - from,
        count: 1,
        blank,
      });
      order.push(id);
    });
  });
  return {
    order: order.slice(0, 200),
    cells,
    sorted: visiblySorted(order.map((id) => [id, (cells.get(id) as { cell: string }).cell])),
  };
}

const monotone = (xs: Array<number | string>) => {
  const up = xs.every((x, i) => i === 0 || (xs[i - 1] as number | string) <= x);
  const down = xs.every((x, i) => i === 0 || (xs[i - 1] as number | string) >= x);
  return (up || down) && new Set(xs).size > 1;
};

/** Whether some column of the cells (the id, its digits, the k-th number, the k-th word) runs monotonically. */
function visiblySorted(cells: Array<[string, string]>): boolean {
  if (cells.length < 2) return false;
  const columns = cells.map(([id, cell]) => {
    const tokens = (cell.match(TOKEN) ?? []).filter((t) => t.toLowerCase() !== id);
    return {
      id,
      digits: Number(id.replace(/\D/g, '') || NaN),
      numbers: tokens.filter((t) => /^[0-9]+$/.test(t)).map(Number),
      words: tokens.filter((t) => !/^[0-9]+$/.test(t)).map((t) => t.toLowerCase()),
    };
  });
  const width = (k: 'numbers' | 'words') => Math.min(...columns.map((c) => c[k].length));
  const candidates: Array<Array<number | string>> = [
    columns.map((c) => c.id),
    ...(columns.every((c) => Number.isFinite(c.digits)) ? [columns.map((c) => c.digits)] : []),
  ];
  for (const k of ['numbers', 'words'] as const)
    for (let j = 0; j < Math.min(width(k), 6); j += 1) candidates.push(columns.map((c) => c[k][j] as number | string));
  return candidates.some(monotone);
}

const rank = (k: number) => (k < 8 ? String(k + 1) : 'later');

/**
 * The structural fields of entity `id` in one parsed text printed by `source`, as "place: value" strings (the
 * value free of ": "; none where the text names fewer than three entities): how often the text names it, its
 * id's printed case, the layout of its cell and of the cell's text before and after the id (a mark between two
 * ids of a comma list belongs to one of them), blank lines around it, and, where the text is not visibly
 * sorted, its rank from the start and from the end.
 */
export function structuralFields(source: string, parsed: Parsed, id: string): string[] {
  const at = parsed.cells.get(id);
  if (!at || parsed.order.length < 3) return [];
  const around = (text: string) => layoutOf(text, id) || 'nothing';
  const out = [
    `in ${source}, times the id is named: ${at.count}`,
    `in ${source}, the letter case of its id: ${caseOf(at.printed)}`,
    `in ${source}, the layout of its cell: ${around(at.cell)}`,
    `in ${source}, the layout before its id: ${around(at.cell.slice(0, at.at))}`,
    `in ${source}, the layout after its id: ${around(at.cell.slice(at.at + id.length))}`,
    `in ${source}, blank lines around its line: ${at.blank}`,
  ];
  const k = parsed.order.indexOf(id);
  if (!parsed.sorted)
    out.push(
      `in ${source}, its rank from the start: ${rank(k)}`,
      `in ${source}, its rank from the end: ${rank(parsed.order.length - 1 - k)}`,
    );
  return out;
}

/**
 * Fields of the id itself, a text like any observation (an author's code in the id: ids numbered in blocks per
 * decision, a check letter): its characters at each of the first and last three positions, the prefixes and
 * suffixes of what follows its leading letters, its last digit's parity and its number modulo 3 (its digit sum
 * too), and, among `peers` (the ids of the same episode, four or more), the quartile its number falls in.
 */
export function idFields(id: string, peers: readonly string[] = []): string[] {
  const out: string[] = [];
  const chars = [...id.toLowerCase()];
  for (let k = 0; k < Math.min(3, chars.length); k += 1)
    out.push(
      `the id's character ${k + 1} from the start: ${chars[k]}`,
      `the id's character ${k + 1} from the end: ${chars[chars.length - 1 - k]}`,
    );
  const body = id.toLowerCase().replace(/^[a-z]+/, '');
  for (let k = 1; k < Math.min(4, body.length); k += 1)
    out.push(`the id's first ${k} after its letters: ${body.slice(0, k)}`, `the id's last ${k}: ${body.slice(-k)}`);
  const digits = id.match(/\d+/g)?.at(-1);
  if (digits === undefined) return out;
  const n = Number(digits.slice(-9));
  out.push(`the id's last digit: ${n % 2 === 0 ? 'even' : 'odd'}`, `the id's number modulo 3: ${n % 3}`);
  const numbers = [
    ...new Set(peers.map((p) => Number(p.match(/\d+/g)?.at(-1)?.slice(-9) ?? NaN)).filter(Number.isFinite)),
  ].sort((a, b) => a - b);
  if (numbers.length >= 4 && numbers.includes(n))
    out.push(
      `the id's number among the episode's ids: quartile ${Math.floor((4 * numbers.indexOf(n)) / numbers.length) + 1}`,
    );
  return out;
}

/** A cache of parsed texts for one shape set (a text is parsed once for all the entities it names). */
export function parser(shapes: ReadonlySet<string>): (text: string) => Parsed {
  const cache = new Map<string, Parsed>();
  return (text) => cache.get(text) ?? (cache.set(text, parse(text, shapes)).get(text) as Parsed);
}

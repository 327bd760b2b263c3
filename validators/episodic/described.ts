// What an episode says about an entity (redteam-trust14 Y5): the whole replies of the calls made for it, and the rows
// of the prompt and of the other replies that name it, the text before its id as much as the text after, ids masked.
import { escape as escaped } from './adversaries-values.js';

/** One call of the reference with the reply it got. */
export interface Said {
  tool: string;
  args: Readonly<Record<string, unknown>>;
  reply: string;
}

/** The words of `s` (letters, digits and the masks @ #), lower-cased, one space apart. */
export const wordsOf = (s: string): string => (s.match(/[\p{L}\p{N}@#]+/gu) ?? []).join(' ').toLowerCase();
/** Row separators, the strongest first: a line naming several entities is cut into rows at one held by every gap. */
const SEPARATORS = [';', '|', ',', '.'];
const CONNECTORS = new Set(['', 'and', 'or']);

/**
 * The rows of one line that name an id of `mine` (each masked: its own ids `@`, the others `#`, words only). A line
 * naming one entity is its row whole; a line naming several is cut at the separator every gap between two ids holds
 * (else each row spans from the id before to the id after: a text on either side belongs to both), a leading label
 * ("Open tickets:") left out; a plain list of ids ("T1, T2 and T3") says nothing of any one of them.
 */
export function rowsNaming(line: string, any: RegExp, mine: readonly string[]): string[] {
  type Hit = { at: number; end: number; own: boolean };
  const hits: Hit[] = [...line.matchAll(any)].map((m) => ({
    at: m.index as number,
    end: (m.index as number) + m[0].length,
    own: mine.includes(m[0]),
  }));
  const hit = (k: number) => hits[k] as Hit;
  if (!hits.some((h) => h.own)) return [];
  const marked = (from: number, to: number): string => {
    let out = '';
    let at = from;
    for (const h of hits) {
      if (h.at < from || h.end > to) continue;
      out += `${line.slice(at, h.at)} ${h.own ? '@' : '#'} `;
      at = h.end;
    }
    return wordsOf(out + line.slice(at, to));
  };
  if (hits.length === 1) return [marked(0, line.length)];
  const gaps = hits.slice(1).map((h, k) => line.slice(hit(k).end, h.at));
  if (
    gaps.every((g) =>
      wordsOf(g)
        .split(' ')
        .every((w) => CONNECTORS.has(w)),
    )
  )
    return [];
  const sep = SEPARATORS.find((s) => gaps.every((g) => g.includes(s)));
  const label = /^[\p{L}\p{N} ]*:\s/u.exec(line.slice(0, hit(0).at));
  // Row k ends in gap k (at its separator, else at the next id) and starts in gap k - 1 (after it, else the last id).
  const cut = (k: number, side: 'start' | 'end'): number => {
    if (sep === undefined) return side === 'start' ? hit(k).end : hit(k + 1).at;
    return hit(k).end + (gaps[k] as string).indexOf(sep) + (side === 'start' ? sep.length : 0);
  };
  return hits.flatMap((h, k) => {
    if (!h.own) return [];
    const start = k === 0 ? (label?.[0].length ?? 0) : cut(k - 1, 'start');
    return [marked(start, k === hits.length - 1 ? line.length : cut(k, 'end'))];
  });
}

/**
 * What the episode says of the entity whose ids are `mine`, among the entities whose ids are `ids`: the whole reply
 * of each call that names it (the tool and its other arguments kept), and the rows naming it in the prompt and in the
 * replies of the calls that name none of its ids; every id masked, sorted. Two entities the episode says the same of
 * are told apart by nothing.
 */
export function saidAbout(prompt: string, calls: readonly Said[], mine: readonly string[], ids: readonly string[]) {
  const all = [...new Set([...ids, ...mine])].filter((s) => s.length > 0).sort((x, y) => y.length - x.length);
  if (all.length === 0) return [];
  const any = new RegExp(all.map(escaped).join('|'), 'g');
  const mask = (t: string) => wordsOf(t.replace(any, (m) => (mine.includes(m) ? ' @ ' : ' # ')));
  const rows = (t: string) => t.split('\n').flatMap((line) => rowsNaming(line, any, mine));
  const names = (c: Said) => Object.values(c.args).some((v) => typeof v === 'string' && mine.includes(v.trim()));
  return [
    ...rows(prompt).map((r) => `prompt: ${r}`),
    ...calls.flatMap((c) =>
      names(c)
        ? [`${c.tool} ${mask(JSON.stringify(c.args))}: ${mask(c.reply)}`]
        : rows(c.reply).map((r) => `${c.tool}: ${r}`),
    ),
  ].sort();
}

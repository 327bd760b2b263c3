// Options a group shares (seeds/episodic/library-loans: two copies of one title, its hold queue): two entities whose
// decision values the world lists together, alike, in the reply to a read asked for a fact both entities show, says
// of neither entity, and the reference hands out in the listed order, may hold those values as the group's to trade
// (the form alone: a precondition; pool-effect.ts judges by a replay whether they are).
import { type Said, wordsOf } from './described.js';
import { escape } from './adversaries-values.js';

/** Whether `text` shows `v` as a whole token (not inside a longer id or number). */
const token = (v: string) => new RegExp(`(^|[^\\p{L}\\p{N}])${escape(v)}($|[^\\p{L}\\p{N}])`, 'iu');
const shows = (text: string, v: string): boolean => token(v).test(text);
/** A value as the replies spell it: a string trimmed, a number as written; anything else has no spelling. */
export const spelled = (v: unknown): string | null =>
  typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : null;

/**
 * The rows of `reply` (cut at `;`, `,`, `|`, `:` and line ends) that show `v`, each with `v` and every other value of
 * `values` masked `@` and digits `#` (a rank, a count): null where a row shows two of the values (not told apart).
 */
function rowsOf(reply: string, v: string, values: readonly string[]): string[] | null {
  const rows = reply.split(/[;,|:\n]/).filter((row) => shows(row, v));
  if (rows.some((row) => values.some((w) => w !== v && shows(row, w)))) return null;
  const mask = (row: string) => values.reduce((t, w) => t.replace(new RegExp(escape(w), 'gi'), ' @ '), row);
  return rows.map((row) => wordsOf(mask(row).replace(/\p{N}+/gu, ' # '))).sort();
}

/** The reference's decision of one entity: its ids, the value it sent, and the turn it sent it. */
export interface Decided {
  ids: readonly string[];
  value: string;
  at: number;
}

/**
 * Whether the episode offers the entities `a` and `b` the same options, their values: some call (among `calls`, the
 * reference's other calls with their replies) names neither entity, sends a value both entities' own replies show
 * (their shared fact: a title's ISBN), and answers both values, in rows alike but for the values and their numbers (a
 * hold queue's ranks), listed in the order the reference handed them out (the entity decided first took the value
 * listed first: first come, first served), each taken once among the tool's decisions `all` for entities showing that
 * fact (one copy fills one hold: a tally hands one value to many); and no reply of a call naming either entity, nor
 * a line of the prompt or a reply naming one, shows either value (a value said of an entity is its own, not the
 * group's).
 */
export function sharedOptions(
  prompt: string,
  calls: readonly Said[],
  a: Decided,
  b: Decided,
  all: readonly Decided[],
): boolean {
  const [va, vb] = [a.value, b.value];
  if (a.ids.length === 0 || b.ids.length === 0 || va.length === 0 || vb.length === 0 || va === vb) return false;
  const names = (c: Said, ids: readonly string[]) =>
    Object.values(c.args).some((v) => typeof v === 'string' && ids.includes(v.trim()));
  const own = (ids: readonly string[]) => calls.filter((c) => names(c, ids)).map((c) => c.reply);
  const [ofA, ofB] = [own(a.ids), own(b.ids)];
  if (ofA.length === 0 || ofB.length === 0) return false;
  if ([...ofA, ...ofB].some((reply) => shows(reply, va) || shows(reply, vb))) return false;
  // Nor a line of the prompt or of any reply that names an entity beside a value ("31111 is reserved for P100").
  const lines = [prompt, ...calls.map((c) => c.reply)].flatMap((t) => t.split('\n'));
  const beside = (ids: readonly string[]) => (l: string) =>
    ids.some((id) => shows(l, id)) && (shows(l, va) || shows(l, vb));
  if (lines.some(beside(a.ids)) || lines.some(beside(b.ids))) return false;
  const shared = (s: string) => s.length >= 2 && ofA.some((t) => shows(t, s)) && ofB.some((t) => shows(t, s));
  // The group's options are slots: the decisions of the entities that show the fact send each value once.
  const slots = (s: string) => {
    const taken = all.filter((d) => own(d.ids).some((t) => shows(t, s))).map((d) => d.value.toLowerCase());
    return new Set(taken).size === taken.length;
  };
  return calls.some((c) => {
    if (names(c, a.ids) || names(c, b.ids) || !shows(c.reply, va) || !shows(c.reply, vb)) return false;
    if ([...a.ids, ...b.ids].some((id) => shows(c.reply, id))) return false;
    if (c.reply.search(token(va)) < c.reply.search(token(vb)) !== a.at < b.at) return false;
    if (!Object.values(c.args).some((v) => shared(spelled(v) ?? '') && slots(spelled(v) ?? ''))) return false;
    const [ra, rb] = [rowsOf(c.reply, va, [va, vb]), rowsOf(c.reply, vb, [va, vb])];
    return ra !== null && rb !== null && JSON.stringify(ra) === JSON.stringify(rb);
  });
}

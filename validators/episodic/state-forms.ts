// The state's sibling records as entities (redteam-trust20 T5): where the state does not spell the ids the reference
// sends, the record each decided call changed tells where the entities live and how the sent id is written from it
// (the same digits in a fixed frame, or the record's value within a fixed prefix and suffix); the other records of
// that collection, their ids written the same way, are the other entities, whatever form the state keeps them in.
import type { Action } from './adversaries.js';

/** Nodes walked at most per state, collections kept, and ids written: a state is data of any size. */
const NODES = 5_000;
const COLLECTIONS = 16;
const IDS = 200;

/** A collection of records: an array of objects (`$.a.*`) or an object keyed by id (`$.a.<key>`). */
interface Collection {
  path: string;
  keyed: boolean;
  records: Array<{ key: string; record: Record<string, unknown> }>;
}

/** Writes another record's value as an id of the sent form; null where it cannot. */
type Writer = (x: string) => string | null;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const scalar = (v: unknown): string | null =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? String(v) : null;

/** The collections of `state` holding two records or more, as the runtime writes their changed paths. */
function collectionsOf(state: unknown): Collection[] {
  const out: Collection[] = [];
  let budget = NODES;
  const walk = (node: unknown, path: string, depth: number): void => {
    if (budget-- <= 0 || depth > 6 || out.length >= COLLECTIONS || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      const records = node.filter(isRecord).map((record) => ({ key: '', record }));
      if (records.length > 1) out.push({ path: `${path}.*`, keyed: false, records });
      for (const item of node) walk(item, `${path}.*`, depth + 1);
      return;
    }
    const entries = Object.entries(node as Record<string, unknown>);
    if (entries.length > 1 && entries.every(([, v]) => isRecord(v)))
      out.push({
        path,
        keyed: true,
        records: entries.map(([key, v]) => ({ key, record: v as Record<string, unknown> })),
      });
    for (const [key, value] of entries) walk(value, `${path}.${key}`, depth + 1);
  };
  walk(state, '$', 0);
  return out;
}

/** The values of a record that may write its id: its key where keyed (field ''), else each scalar field. */
const fieldsOf = (c: Collection): string[] =>
  c.keyed ? [''] : [...new Set(c.records.flatMap((r) => Object.keys(r.record)))].filter((f) => f !== '');
const valueOf = (c: Collection, r: Collection['records'][number], field: string): string | null =>
  field === '' ? r.key : scalar(r.record[field]);

const digitRuns = (s: string) => s.match(/[0-9]+/g) ?? [];
const caseOf = (s: string) => (s === s.toUpperCase() ? 'upper' : s === s.toLowerCase() ? 'lower' : 'as');
const cased = (s: string, c: string) => (c === 'upper' ? s.toUpperCase() : c === 'lower' ? s.toLowerCase() : s);

/**
 * The forms that write the sent id `v` from a record's value `w`, each a key (equal keys: the same form) and the
 * writer of another record's value: `w` within a fixed prefix and suffix (letter case aside), or the same digits
 * (one run of two or more) within the same frame.
 */
function formsOf(v: string, w: string): Array<{ key: string; write: Writer }> {
  const out: Array<{ key: string; write: Writer }> = [];
  const at = v.toLowerCase().indexOf(w.toLowerCase());
  if (w.length > 0 && at >= 0 && /[0-9]/.test(w)) {
    const [pre, post, c] = [v.slice(0, at), v.slice(at + w.length), caseOf(v.slice(at, at + w.length))];
    out.push({ key: `affix|${pre}|${post}|${c}`, write: (x) => `${pre}${cased(x, c)}${post}` });
  }
  const [vr, wr] = [digitRuns(v), digitRuns(w)];
  if (vr.length === 1 && wr.length === 1 && vr[0] === wr[0] && (vr[0] as string).length > 1) {
    const [pre, post] = v.split(vr[0] as string) as [string, string];
    out.push({
      key: `digits|${pre}|${post}`,
      write: (x) => {
        const runs = digitRuns(x);
        return runs.length === 1 ? `${pre}${runs[0]}${post}` : null;
      },
    });
  }
  return out;
}

/** Whether a changed path (`$.a.*.b`, cut at depth 4) lies in the record at `path`, or holds it. */
const inRecord = (changed: string, path: string) =>
  changed === path || changed.startsWith(`${path}.`) || path.startsWith(`${changed}.`);

/** The form every decided call (`a`, at turn `j`) agrees on, its writer learnt from the first call; null where none. */
function agreedForm(
  decided: ReadonlyArray<{ a: Action; j: number }>,
  changes: ReadonlyArray<readonly string[]>,
  c: Collection,
  field: string,
  arg: string,
): Writer | null {
  let agreed: Map<string, Writer> | undefined;
  for (const { a, j } of decided) {
    const here = new Map<string, Writer>();
    for (const r of c.records) {
      const w = valueOf(c, r, field);
      const path = c.keyed ? `${c.path}.${r.key}` : c.path;
      if (w === null || !(changes[j] ?? []).some((p) => inRecord(p, path))) continue;
      for (const f of formsOf(a.args[arg] as string, w)) if (!here.has(f.key)) here.set(f.key, f.write);
    }
    const before: Map<string, Writer> = agreed ?? here;
    agreed = new Map([...before].filter(([k]) => here.has(k)));
    if (agreed.size === 0) return null;
  }
  return agreed ? ([...agreed.values()][0] ?? null) : null;
}

/**
 * The ids of the state's records written the way the reference's decided calls of `tool` write theirs: per string
 * argument of those calls, a collection, a field and a form such that every call that changed the state sent the id
 * the form writes from the field of a record of that collection the call changed (`changes`, per turn of `body`).
 * Each such collection's records, their ids so written (the sent ones among them), as one text; none where nothing
 * fits.
 */
export function idsInForm(
  state: unknown,
  body: readonly Action[],
  changes: ReadonlyArray<readonly string[]> | undefined,
  tool: string,
): string[] {
  if (!changes) return [];
  const collections = collectionsOf(state);
  const decided = body.flatMap((a, j) => (a.tool === tool && (changes[j]?.length ?? 0) > 0 ? [{ a, j }] : []));
  if (decided.length === 0) return [];
  const args = [...new Set(decided.flatMap(({ a }) => Object.keys(a.args)))].filter((arg) =>
    decided.every(({ a }) => typeof a.args[arg] === 'string' && (a.args[arg] as string).length > 0),
  );
  const texts: string[] = [];
  for (const arg of args)
    for (const c of collections)
      for (const field of fieldsOf(c)) {
        const write = agreedForm(decided, changes, c, field, arg);
        if (!write) continue;
        const ids = c.records.flatMap((r) => {
          const w = valueOf(c, r, field);
          const id = w === null ? null : write(w);
          return id ? [id] : [];
        });
        texts.push([...new Set(ids)].slice(0, IDS).join(', '));
      }
  return texts;
}

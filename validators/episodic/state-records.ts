// The world's state as a source of an entity's values (redteam-trust20 T2, T3): each record of the state that names
// the entity (an object holding its id as a field's value, or kept under its id as a key) written as a text of its
// scalar fields, labelled by where it lives, so fillings.ts reads and relates a record's fields as it does a reply's.

/** Nodes walked at most per state, and records kept per entity: a state is data of any size. */
const NODES = 5_000;
const RECORDS = 4;

const lower = (v: unknown) => String(v).trim().toLowerCase();
const isScalar = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/** A record's scalar fields as text, `key value` each in the record's own order (strings cut to a word run). */
const written = (record: Record<string, unknown>): string =>
  Object.entries(record)
    .filter(([, v]) => isScalar(v))
    .map(([k, v]) => `${k} ${String(v).slice(0, 200)}`)
    .join('; ');

/**
 * The records of `state` that name `entity`, keyed `st:<path>` where the path writes array items as `[]` and the key
 * that is the entity's id as `*`, so the same label finds the same kind of record on every entity.
 */
export function recordsOf(state: unknown, entity: string): Map<string, string> {
  const out = new Map<string, string>();
  const id = lower(entity);
  let budget = NODES;
  const walk = (node: unknown, path: string, depth: number): void => {
    if (budget-- <= 0 || depth > 8 || out.size >= RECORDS || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, `${path}[]`, depth + 1);
      return;
    }
    const record = node as Record<string, unknown>;
    const label = `st:${path}`;
    if (!out.has(label) && Object.values(record).some((v) => isScalar(v) && lower(v) === id)) {
      const text = written(record);
      if (text) out.set(label, text);
    }
    for (const [key, value] of Object.entries(record)) {
      const mine = lower(key) === id;
      if (mine && isScalar(value) && !out.has(`st:${path}.*`)) out.set(`st:${path}.*`, `${key} ${String(value)}`);
      else if (mine && value && typeof value === 'object' && !Array.isArray(value) && !out.has(`st:${path}.*`)) {
        const text = written(value as Record<string, unknown>);
        if (text) out.set(`st:${path}.*`, text);
      }
      walk(value, `${path}.${mine ? '*' : key}`, depth + 1);
    }
  };
  walk(state, '', 0);
  return out;
}

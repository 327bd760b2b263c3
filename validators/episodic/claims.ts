// A call's claims about its entity, known by their values and not by their schema type (redteam-trust13 X3,
// redteam-trust15 Z9): a boolean or enum argument the plan sends with two values or more, or any argument, at any depth
// of the call, that names no entity and whose values are codes from a small set (each sent for several entities, or
// each a word of the prompt), the set completed by the values the prompt writes after the argument's name.
import type { EpisodicMeta } from '../../contract/episodic.js';
import { propsOf, type Action } from './adversaries.js';
import { escape } from './adversaries-values.js';

/** Claims tried per tool, and values tried per claim. */
const CLAIMS = 2;
const VALUES = 3;
/** A set of more values than this is no code (free text, a quantity, a list of names). */
const CODES = 4;
/** How deep into a call's objects and arrays a claim is looked for. */
const DEPTH = 3;

type Args = Record<string, unknown>;
const isObject = (v: unknown): v is Args => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The values standing at `path` in `args` (names joined by '.', '[]' for every item of an array). */
export function valuesAt(args: unknown, path: string): unknown[] {
  const walk = (v: unknown, keys: readonly string[]): unknown[] => {
    const [k, ...rest] = keys;
    if (k === undefined) return [v];
    if (k === '[]') return Array.isArray(v) ? v.flatMap((x) => walk(x, rest)) : [];
    return isObject(v) && k in v ? walk(v[k], rest) : [];
  };
  return walk(args, path.split('.'));
}

/** `args` with every value at `path` set to `value` (a top-level argument set even where the call omits it). */
export function setAt(args: Args, path: string, value: unknown): Args {
  const walk = (v: unknown, keys: readonly string[]): unknown => {
    const [k, ...rest] = keys;
    if (k === undefined) return value;
    if (k === '[]') return Array.isArray(v) ? v.map((x) => walk(x, rest)) : v;
    return isObject(v) && (k in v || rest.length === 0) ? { ...v, [k]: walk(v[k], rest) } : v;
  };
  return walk(args, path.split('.')) as Args;
}

/** The paths of the scalar values in a call's arguments, objects and arrays of objects entered. */
function leavesOf(v: unknown, prefix: string, depth: number): string[] {
  const at = (k: string) => (prefix ? `${prefix}.${k}` : k);
  if (Array.isArray(v)) return depth > 0 ? [...new Set(v.flatMap((x) => leavesOf(x, at('[]'), depth - 1)))] : [];
  if (isObject(v)) return depth > 0 ? Object.entries(v).flatMap(([k, x]) => leavesOf(x, at(k), depth - 1)) : [];
  return prefix ? [prefix] : [];
}

/** The schema at `path` of `tool`'s arguments (properties and array items entered); {} where none is declared. */
function schemaAt(meta: EpisodicMeta, tool: string, path: string): { type?: string; enum?: unknown[] } {
  let s: Record<string, unknown> = { properties: propsOf(meta, tool) };
  for (const k of path.split('.')) {
    const next = k === '[]' ? s.items : (s.properties as Record<string, unknown> | undefined)?.[k];
    if (!isObject(next)) return {};
    s = next;
  }
  return s as { type?: string; enum?: unknown[] };
}

/** A code: one to three words of letters (never an id's digits), or a whole number from -9 to 9 (0/1, a grade). */
const isCode = (v: unknown): boolean =>
  typeof v === 'number'
    ? Number.isInteger(v) && Math.abs(v) <= 9
    : typeof v === 'string' && /^\p{L}[\p{L}_-]*(?: [\p{L}_-]+){0,2}$/u.test(v) && v.length <= 24;

const lastName = (path: string) => path.split('.').at(-1) as string;
/** The words the prompt writes as values of an argument named `name` ("condition: opened", "condition 'unopened'"). */
export function namedValues(prompt: string, name: string): string[] {
  const words = `${escape(name)}|${escape(name.replace(/_/g, ' '))}`;
  const re = new RegExp(
    `\\b(?:${words})\\b(?:\\s*[:=]\\s*|\\s+(?:to|is|as)\\s+|\\s+(?=["'\`]))["'\`]?(\\p{L}[\\p{L}_-]*)`,
    'giu',
  );
  return [...new Set([...prompt.slice(0, 20_000).matchAll(re)].map((m) => m[1] as string))];
}

/** Whether `word` stands alone in `text` (case aside). */
const wordOf = (text: string, word: string) =>
  new RegExp(`(?<![\\p{L}\\p{N}_])${escape(word)}(?![\\p{L}\\p{N}_])`, 'iu').test(text);

/** The values the plan's calls of `tool` send at `path` (every item's), in the order first sent. */
function sentValues(body: readonly Action[], tool: string, path: string): unknown[] {
  const seen = new Map<string, unknown>();
  for (const a of body) if (a.tool === tool) for (const v of valuesAt(a.args, path)) seen.set(JSON.stringify(v), v);
  return [...seen.values()];
}

/** Whether a value names an entity: another call sends it as its only argument (a read of it, a queue listed). */
const namesEntity = (body: readonly Action[], v: unknown) =>
  body.some((a) => Object.keys(a.args).length === 1 && Object.values(a.args)[0] === v);

/**
 * Whether the values at `path` are a claim's by their values: codes, none of them an entity, two or more and at most
 * CODES with those the prompt names, and each sent for several entities or each a word of the prompt.
 */
function claimedByValues(body: readonly Action[], tool: string, path: string, prompt: string): boolean {
  const all = body.filter((a) => a.tool === tool).flatMap((a) => valuesAt(a.args, path));
  const sent = sentValues(body, tool, path);
  if (sent.length === 0 || !sent.every(isCode) || sent.some((v) => namesEntity(body, v))) return false;
  const values = new Set([...sent, ...namedValues(prompt, lastName(path))]).size;
  const repeated = all.length > sent.length || sent.every((v) => typeof v === 'string' && wordOf(prompt, v));
  return values >= 2 && values <= CODES && repeated;
}

/**
 * The claims of `tool` in a plan (CLAIMS at most): its boolean and enum arguments the plan's calls send with two or
 * more values, then the paths whose values are a claim's (`claimedByValues`); never `entityArg`, the call's entity.
 */
export function claimsOf(meta: EpisodicMeta, body: readonly Action[], tool: string, prompt = '', entityArg = '') {
  const calls = body.filter((a) => a.tool === tool);
  const paths = [
    ...new Set([...Object.keys(propsOf(meta, tool)), ...calls.flatMap((a) => leavesOf(a.args, '', DEPTH))]),
  ];
  const typed = (p: string) => {
    const s = schemaAt(meta, tool, p);
    const sent = calls.flatMap((a) => valuesAt(a.args, p));
    return (
      s.type === 'boolean' || Array.isArray(s.enum) || (sent.length > 0 && sent.every((v) => typeof v === 'boolean'))
    );
  };
  const varied = (p: string) => new Set(calls.map((a) => JSON.stringify(valuesAt(a.args, p)))).size >= 2;
  return [
    ...paths.filter((p) => typed(p) && varied(p)),
    ...paths.filter((p) => !typed(p) && claimedByValues(body, tool, p, prompt)),
  ]
    .filter((p) => p !== entityArg)
    .slice(0, CLAIMS);
}

/**
 * The values a claim is tried with (VALUES at most): those the plan sends, in the order first sent, then the words the
 * prompt names for it (within its enum, where it has one).
 */
export function claimValues(meta: EpisodicMeta, body: readonly Action[], tool: string, path: string, prompt = '') {
  const sent = sentValues(body, tool, path);
  const { enum: members } = schemaAt(meta, tool, path);
  const named = sent.every((v) => typeof v === 'string')
    ? namedValues(prompt, lastName(path)).filter((w) => !sent.includes(w) && (!members || members.includes(w)))
    : [];
  return [...sent, ...named].slice(0, VALUES);
}

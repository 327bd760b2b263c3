// The opening a learned reader plays on each reference episode before deciding anything: the listings, the reads of
// every entity decided about and near misses of their ids, then a survey of the tools whose arguments no entity fills
// with the values the texts give; its replies join the texts the readers fit.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout, RolloutResult } from '../../sandbox/rollouts.js';
import { actionsOf, propsOf, requiredOf, type Action } from './adversaries.js';
import { decisionsOf, type Axis } from './adversaries-values.js';
import { nearMissCalls } from './near-miss.js';

type Schema = ReturnType<typeof propsOf>[string];

/**
 * The opening a cheap policy plays before deciding anything: every tool without arguments (a listing) once,
 * then each tool whose required arguments the entity of a decision fills (a read of it), for every entity the
 * reference decides about (the finish and the decisions' own tools aside), each followed by the listings again
 * (up to three: a difference they show is a reading of the entity, differential.ts); then the reference's calls
 * that name only entities again, each id a near miss (near-miss.ts). At most `limit` calls.
 */
export function openingLog(meta: EpisodicMeta, r: Rollout, axes: readonly Axis[], limit: number): Action[] {
  const acts = actionsOf(r);
  const tools = openingTools(meta, r, axes);
  const listings: Action[] = tools
    .filter((t) => Object.keys(t.parameters.properties ?? {}).length === 0)
    .map((t) => ({ tool: t.name, args: {} }));
  const out: Action[] = [...listings];
  const seen = new Set<string>();
  for (const axis of axes) {
    for (const d of decisionsOf(r, axis)) {
      for (const tool of tools) {
        const names = Object.keys(propsOf(meta, tool.name));
        const required = [...requiredOf(meta, tool.name)];
        const args = Object.fromEntries(names.filter((n) => n in d.entity).map((n) => [n, d.entity[n]]));
        const key = tool.name + JSON.stringify(args);
        if (names.length === 0 || Object.keys(args).length === 0 || !required.every((n) => n in args) || seen.has(key))
          continue;
        seen.add(key);
        out.push({ tool: tool.name, args }, ...listings.slice(0, 3));
      }
    }
  }
  return [...out, ...nearMissCalls(acts.slice(0, -1), (tool, arg) => propsOf(meta, tool)[arg]?.maxLength)].slice(
    0,
    limit,
  );
}

/** The tools the opening calls: all but the reference's finish and the decisions' own tools. */
const openingTools = (meta: EpisodicMeta, r: Rollout, axes: readonly Axis[]) =>
  meta.tools.filter((t) => t.name !== actionsOf(r).at(-1)?.tool && !axes.some((a) => a.tool === t.name));

/** Replies and the tool that gave each (the opening a reader played on one episode). */
export interface Replies {
  tools: string[];
  observations: string[];
  /** The calls that gave them (a reply naming several entities is a listing whatever its call's arguments). */
  calls?: Action[];
  /** Where each reply is printed, where it is not the tool's plain reply (near-miss.ts `openingSources`). */
  sources?: string[];
  /** Per entity id (lower case), the differential fields of the opening (differential.ts). */
  diffs?: Map<string, string[]>;
}

/** A parameter's own description. */
const described = (s: Schema) => (s as { description?: string }).description ?? '';

/** The most calls the survey sends one tool (each argument's values in turn, the others at their first). */
const SURVEY_CALLS = 8;
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const COUNT = `(\\d{1,2}|${NUMBER_WORDS.join('|')})`;
const countOf = (w: string) => (/^\d+$/.test(w) ? Number(w) : NUMBER_WORDS.indexOf(w));

/** The days the texts' relative phrases name from a date they give ('yesterday' -1, 'three days ago' -3), then ±1. */
function dayOffsets(text: string): number[] {
  const t = text.toLowerCase();
  const named: Array<[RegExp, number]> = [
    [/\bday before yesterday\b/, -2],
    [/\byesterday\b/, -1],
    [/\btomorrow\b/, 1],
    [/\b(?:last|previous|past) week\b|\ba week (?:ago|earlier|before|back)\b/, -7],
    [/\bnext week\b|\bin a week\b|\ba week (?:later|after|from now)\b/, 7],
  ];
  const ago = [...t.matchAll(new RegExp(`\\b${COUNT} days? (?:ago|earlier|before|back)\\b`, 'g'))];
  const ahead = [
    ...t.matchAll(new RegExp(`\\bin ${COUNT} days?\\b|\\b${COUNT} days? (?:later|after|from now|ahead)\\b`, 'g')),
  ];
  return [
    ...named.flatMap(([re, d]) => (re.test(t) ? [d] : [])),
    ...ago.map((m) => -countOf(m[1] as string)),
    ...ahead.map((m) => countOf((m[1] ?? m[2]) as string)),
    -1,
    1,
  ];
}

/** Each date the texts print (2026-05-13, in its own separators), then the days their phrases name from it. */
function datesOf(text: string): string[] {
  const offsets = [0, ...dayOffsets(text)];
  return [...text.matchAll(/\b(\d{4})([-/.])(\d{2})\2(\d{2})\b/g)].flatMap((m) => {
    const at = Date.UTC(Number(m[1]), Number(m[3]) - 1, Number(m[4]));
    if (!Number.isFinite(at)) return [];
    return offsets.map((d) => {
      const x = new Date(at + d * 86_400_000);
      const two = (n: number) => String(n).padStart(2, '0');
      return [x.getUTCFullYear(), two(x.getUTCMonth() + 1), two(x.getUTCDate())].join(m[2] as string);
    });
  });
}

/** The values the texts give an argument of this schema: its enum's, a flag's, dates, quoted words, codes, names. */
function valuesOf(schema: Schema, text: string): unknown[] {
  if (schema.enum) return schema.enum;
  if (schema.type === 'boolean') return [true, false];
  if (schema.type === 'number' || schema.type === 'integer') {
    const lo = schema.minimum ?? Number.NEGATIVE_INFINITY;
    const hi = schema.maximum ?? Number.POSITIVE_INFINITY;
    const printed = (text.replace(/(\d),(\d{3})/g, '$1$2').match(/\b\d+\b/g) ?? []).map(Number);
    return [1, 2, ...printed].filter((n) => n >= lo && n <= hi);
  }
  if (schema.type !== 'string') return [];
  const quoted = [
    ...text.matchAll(/(?:^|[\s(])["'`\u201c\u2018]([^"'`\u201d\u2019\n]{1,40})["'`\u201d\u2019](?=[\s).,:;!?]|$)/gm),
  ];
  const lists = [
    datesOf(text),
    quoted.map((m) => m[1] as string),
    text.match(/\b[A-Za-z0-9][\w:/#.-]*\d[\w:/#.-]*\b/g) ?? [],
    text.match(/\b[A-Z]{2,}\b/g) ?? [],
    text.match(/\b[A-Z][a-z]+(?: [A-Z][a-z]+)*\b/g) ?? [],
  ];
  const max = schema.maxLength ?? Number.POSITIVE_INFINITY;
  const min = (schema as { minLength?: number }).minLength ?? 1;
  // The kinds of value in turn (a date, a quoted word, a code, a name, the next date ...).
  const longest = Math.max(...lists.map((l) => l.length));
  const mixed = Array.from({ length: longest }, (_, k) => lists.flatMap((l) => (k < l.length ? [l[k] as string] : [])));
  return [...new Set(mixed.flat())].filter((v) => v.length >= min && v.length <= max);
}

/**
 * The survey of the read tools whose arguments no decided entity fills (a dated, paged or filtered listing: rt28e U3):
 * each called with the values the texts give its arguments (the prompt, description and tools' texts, the replies a
 * policy has read: `replies`), a listing found whatever argument it needs, the finish and the deciding tools aside.
 */
export function surveyLog(
  meta: EpisodicMeta,
  r: Rollout,
  axes: readonly Axis[],
  replies: readonly string[],
  limit: number,
): Action[] {
  const text = [
    r.prompt ?? '',
    meta.description,
    ...meta.tools.flatMap((t) => [t.description, ...Object.values(propsOf(meta, t.name)).map(described)]),
    ...replies,
    ...(r.observations ?? []),
  ].join('\n');
  const out = openingTools(meta, r, axes).flatMap((tool) => {
    const props = propsOf(meta, tool.name);
    const required = [...requiredOf(meta, tool.name)];
    const entities = axes.flatMap((axis) => decisionsOf(r, axis).map((d) => d.entity));
    if (required.length > 0 && entities.some((e) => required.every((n) => n in e))) return []; // a read (openingLog)
    const values = new Map(Object.entries(props).map(([k, s]) => [k, valuesOf(s, text)]));
    if (required.some((k) => (values.get(k) ?? []).length === 0)) return [];
    const base = Object.fromEntries(required.map((k) => [k, (values.get(k) as unknown[])[0]]));
    const order = [...required, ...Object.keys(props).filter((k) => !required.includes(k))];
    const calls = [base, ...order.flatMap((k) => (values.get(k) ?? []).map((v) => ({ ...base, [k]: v })))];
    const seen = new Set<string>();
    return calls
      .filter((args) => !seen.has(JSON.stringify(args)) && seen.add(JSON.stringify(args)))
      .slice(0, SURVEY_CALLS)
      .map((args) => ({ tool: tool.name, args }));
  });
  return out.slice(0, limit);
}

/** An opening's calls and replies, its extra replays' (near misses, the survey) after them, each as far as answered. */
export function joined(
  opening: readonly Action[],
  played: RolloutResult | undefined,
  extras: ReadonlyArray<{ calls: readonly Action[]; out: RolloutResult | undefined }>,
): { log: Action[]; replies: string[] } {
  const parts = [{ calls: opening, out: played }, ...extras].map(({ calls, out }) => {
    const replies = out?.ok ? (out.observations ?? []) : [];
    return { calls: calls.slice(0, replies.length), replies: replies.slice(0, calls.length) };
  });
  return { log: parts.flatMap((p) => p.calls), replies: parts.flatMap((p) => p.replies) };
}

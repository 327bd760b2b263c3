// Fillings checked on an allowed entity (redteam-trust18 R1, R6): an added call's argument is filled by a source (the
// k-th value of a read's reply or of a shown text's row of the entity, a relation of two shown values, the template's
// value) that gives the reference's own value on another entity it decided (a control), so a refusal is the rule's
// only where the same filling is right where the world allows it; where no source is confirmed, it is unconfirmed.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout, RolloutResult } from '../../sandbox/rollouts.js';
import { propsOf, type Action } from './adversaries.js';
import { writtenDate } from './dates.js';
import { ROUNDINGS, relationsOf, shownValues, valueOf, type Relation } from './derived.js';
import { tokensOf } from './probes.js';
import { plausibleValues } from './plausible.js';
import { shapeOf } from './structure.js';
import { alike, filledCall, spells } from './withheld.js';

/** The operations a computed argument is tried as (a quotient, a percentage beside relationOf's), and how many. */
const OPS: readonly Relation['op'][] = ['-', '+', '*', '/', '%'];
const RELATIONS = 12;
/** Controls per call: the reference's other calls of the tool. */
export const CONTROLS = 2;
/**
 * Places of one text that spell an argument's value, each a copy source (redteam-trust21 R11: a receipt spelling the
 * refund in list, price, paid and refundable amounts is four places; three left the refundable one out).
 */
const PLACES = 8;
/**
 * Calls with another confirmed value tried beside the first, per added call (redteam-trust21 R11: a receipt's list,
 * price, paid and refundable amounts are four; two left the refundable one untried). Each distinct value is a call;
 * the cap only bounds a pathological text, the values past it counted unconfirmed (undecided), never passed.
 */
const ALTERNATIVES = 6;

/**
 * What shows an episode's entities: each one's reads' replies after the plan (readsOf's order), the texts shown, and
 * the records of the state after the reference that name it (state-records.ts: the world's own values, T2, T3).
 */
export interface Showing {
  reads: (entity: string) => string[];
  shown: readonly string[];
  records?: (entity: string) => ReadonlyMap<string, string>;
}

/** One trial as filled: the template call, its entity argument and a gate's follow-up. */
export interface Filled {
  template: Action;
  arg: string;
  follow?: { call: Action; arg: string };
}

const lower = (v: unknown) => String(v).toLowerCase();

/** The texts an episode shows: the prompt, the reference's replies, the looks' replies (where they were played). */
export const textsShown = (ref: Rollout, looks: RolloutResult | undefined): string[] => [
  ref.prompt ?? '',
  ...(ref.observations ?? []),
  ...(looks?.ok ? (looks.observations ?? []) : []),
];

/**
 * The row of `entity` in `text`: its tokens from the entity's up to the next token of one of `shapes` (the next
 * entity of a listing), joined; undefined where the text does not name it.
 */
export function rowOf(text: string, entity: string, shapes: ReadonlySet<string>): string | undefined {
  const tokens = tokensOf(text);
  const at = tokens.findIndex((t) => lower(t) === lower(entity));
  if (at < 0) return undefined;
  const end = tokens.findIndex((t, j) => j > at && shapes.has(shapeOf(t)));
  return tokens.slice(at, end < 0 ? undefined : end).join(' ');
}

/**
 * The texts that show `entity` by where they come from: `r<i>` its i-th read's reply, `s<j>` its row of text j,
 * `st:<path>` a record of the state.
 */
export function textsOf(showing: Showing, entity: string, shapes: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>(showing.reads(entity).map((r, i) => [`r${i}`, r]));
  showing.shown.forEach((text, j) => {
    const row = rowOf(text, entity, shapes);
    if (row !== undefined) out.set(`s${j}`, row);
  });
  for (const [label, text] of showing.records?.(entity) ?? []) out.set(label, text);
  return out;
}

/** A source of an argument: its value on an entity's texts and the arguments it has so far, undefined where none. */
type Source = (texts: ReadonlyMap<string, string>, args: Readonly<Record<string, unknown>>) => unknown;

const same = (x: unknown, y: unknown) =>
  typeof x === 'number' && typeof y === 'number'
    ? Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y))
    : x !== undefined && lower(x).trim() === lower(y).trim();

/**
 * The sources of argument `name` of `template` read on its entity's texts (`mine`), in order: the k-th value of its
 * shape in each text that spells it, each relation of two shown values or known arguments (a quotient and a percentage
 * among them) that gives it, the template's value.
 */
export function sourcesOf(
  template: Action,
  name: string,
  mine: ReadonlyMap<string, string>,
  known: ReadonlySet<string>,
  integer: boolean,
): Source[] {
  const v = template.args[name] as string | number;
  const labels = [...mine.keys()];
  // Every place of a text that spells the value is a source of its own: two fields equal on the template's entity
  // (a price and a refundable amount) may differ on another (redteam-trust20 T2).
  const copies = labels.flatMap((label): Source[] =>
    alike(mine.get(label) as string, v)
      .flatMap((t, i) => (spells(t, v) ? [i] : []))
      .slice(0, PLACES)
      .map(
        (i): Source =>
          (texts) => {
            const t = alike(texts.get(label) ?? '', v)[i];
            return t === undefined ? undefined : typeof v === 'number' ? Number(t) : t;
          },
      ),
  );
  const date = typeof v === 'string' ? writtenDate(v.trim()) : null;
  if (typeof v !== 'number' && date?.form !== 'date') return [...copies, () => v];
  const valuesOf = (texts: ReadonlyMap<string, string>, args: Readonly<Record<string, unknown>>) => {
    const values = shownValues(labels.map((l) => texts.get(l) ?? ''));
    for (const n of known) {
      const w = typeof args[n] === 'string' ? writtenDate(String(args[n]).trim()) : null;
      if (typeof args[n] === 'number') values.set(`a:${n}`, args[n] as number);
      else if (w?.form === 'date') values.set(`d:${n}`, w.at);
    }
    return values;
  };
  const target = date?.form === 'date' ? date.at : (v as number);
  const relations = relationsOf(target, valuesOf(mine, template.args), date !== null, OPS, RELATIONS, ROUNDINGS);
  const derived = relations.map(
    (relation): Source =>
      (texts, args) => {
        const raw = valueOf(relation, valuesOf(texts, args));
        const x = typeof raw === 'number' ? Math.round(raw * 1e9) / 1e9 : undefined;
        if (x === undefined || !Number.isFinite(x) || (integer && !Number.isInteger(x))) return undefined;
        return date?.form === 'date' ? date.write(x) : x;
      },
  );
  return [...copies, ...derived, () => v];
}

/** The reference's calls of `tool` on entities other than `except` (by `arg`): the controls, at most CONTROLS. */
export const controlsOf = (body: readonly Action[], tool: string, arg: string, except: string): Action[] =>
  body
    .filter((a) => a.tool === tool && typeof a.args[arg] === 'string' && lower(a.args[arg]) !== lower(except))
    .filter((a, j, all) => all.findIndex((b) => lower(b.args[arg]) === lower(a.args[arg])) === j)
    .slice(0, CONTROLS);

/**
 * The call of `template`'s tool on `entity`, each argument from the first source that a control confirms (gives the
 * value the reference sent on its own entity, no control giving another) and that the entity's texts define; where
 * none does, filledCall's (its reads', a relation's, else the template's value), the argument then unconfirmed.
 */
export function checkedCall(
  meta: EpisodicMeta,
  template: Action,
  arg: string,
  entity: string,
  body: readonly Action[],
  showing: Showing,
): { call: Action; alternatives: Action[]; unconfirmed: string[]; hints: Record<string, number[]> } {
  const own = String(template.args[arg]);
  const controls = controlsOf(body, template.tool, arg, own);
  const shapes = new Set([own, entity, ...controls.map((c) => String(c.args[arg]))].map(shapeOf));
  const texts = (e: string) => textsOf(showing, e, shapes);
  const fallback = filledCall(meta, template, arg, entity, showing.reads(own), showing.reads(entity));
  const props = propsOf(meta, template.tool);
  const open = Object.entries(template.args)
    .filter(([n, v]) => n !== arg && (typeof v === 'string' || typeof v === 'number') && !props[n]?.enum)
    .map(([n]) => n);
  if (controls.length === 0 || open.length === 0)
    return { call: fallback, alternatives: [], unconfirmed: [], hints: {} };
  const args: Record<string, unknown> = { ...template.args, [arg]: entity };
  const checks = controls.map((c) => ({ call: c, texts: texts(String(c.args[arg])) }));
  const [myTexts, theirTexts] = [texts(own), texts(entity)];
  const known = new Set(Object.keys(template.args).filter((n) => !open.includes(n)));
  const others: { name: string; value: unknown }[] = [];
  for (let found = true; found; ) {
    found = false;
    for (const name of open.filter((n) => !known.has(n))) {
      const sources = sourcesOf(template, name, myTexts, known, props[name]?.type === 'integer');
      const confirmed = (source: Source) => {
        const got = checks.map((c) => source(c.texts, c.call.args));
        const right = got.filter((g, j) => same(g, checks[j]?.call.args[name]));
        return right.length > 0 && got.every((g, j) => g === undefined || same(g, checks[j]?.call.args[name]));
      };
      const values = sources
        .filter(confirmed)
        .map((source) => source(theirTexts, args))
        .filter((x) => x !== undefined);
      const value = values[0];
      if (value === undefined) continue;
      args[name] = value;
      // Sources the controls all confirm that differ here (T2): what sets this entity apart from the allowed ones is
      // what no control vouches for, so each other value is a call of its own.
      for (const x of values)
        if (!same(x, value) && !others.some((o) => o.name === name && same(o.value, x)))
          others.push({ name, value: x });
      known.add(name);
      found = true;
    }
  }
  const past = others.slice(ALTERNATIVES).map((o) => o.name);
  const unconfirmed = open.filter((n) => !known.has(n) || past.includes(n));
  for (const n of open.filter((m) => !known.has(m))) args[n] = fallback.args[n];
  const alternatives = others
    .slice(0, ALTERNATIVES)
    .map((o): Action => ({ tool: template.tool, args: { ...args, [o.name]: o.value } }));
  // The values an unconfirmed integer is searched at first (plausible.ts: R1): the entity's numbers, the controls'.
  const hints: Record<string, number[]> = {};
  for (const n of unconfirmed.filter((m) => props[m]?.type === 'integer')) {
    const range = props[n] as { minimum?: number; maximum?: number };
    const given = [...checks.map((c) => c.call.args[n]), template.args[n]].filter((x) => typeof x === 'number');
    const [lo, hi] = [range.minimum ?? Number.MIN_SAFE_INTEGER, range.maximum ?? Number.MAX_SAFE_INTEGER];
    hints[n] = plausibleValues([...theirTexts.values()], given as number[], lo, hi);
  }
  return { call: { tool: template.tool, args }, alternatives, unconfirmed, hints };
}

/**
 * The added call on `entity` and a gate's follow-up, each filled by checkedCall, the added call's other confirmed
 * fillings, its arguments no source confirmed (`open`), and whether one of either call is unconfirmed.
 */
export function checkedCalls(
  meta: EpisodicMeta,
  trial: Filled,
  entity: string,
  body: readonly Action[],
  showing: Showing,
): {
  call: Action;
  alternatives: Action[];
  follow: Action[];
  open: string[];
  hints: Record<string, number[]>;
  unconfirmed: boolean;
} {
  const main = checkedCall(meta, trial.template, trial.arg, entity, body, showing);
  const next = trial.follow && checkedCall(meta, trial.follow.call, trial.follow.arg, entity, body, showing);
  return {
    call: main.call,
    alternatives: main.alternatives,
    open: main.unconfirmed,
    hints: main.hints,
    follow: next ? [next.call] : [],
    unconfirmed: main.unconfirmed.length + (next?.unconfirmed.length ?? 0) > 0,
  };
}

/** The entities whose reads fill a trial's calls: the template's, the controls' (of a follow-up too), those tried. */
export const readEntities = (body: readonly Action[], trial: Filled, entities: readonly string[]): string[] => {
  const own = String(trial.template.args[trial.arg]);
  const controls = (call: Action, arg: string) => controlsOf(body, call.tool, arg, own).map((c) => String(c.args[arg]));
  const out = [
    own,
    ...controls(trial.template, trial.arg),
    ...(trial.follow ? controls(trial.follow.call, trial.follow.arg) : []),
    ...entities,
  ];
  return out.filter((e, j) => out.findIndex((f) => lower(f) === lower(e)) === j);
};

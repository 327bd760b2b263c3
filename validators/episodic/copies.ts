// The copy of a shown value, played instead of counted: where an observation shows a number the reference sends
// later (not one the texts state, nor the world's bookkeeping of the policy's own earlier calls, nor a lookup), the
// plan that sends, at every call of that tool, the number a reply shows at the same place stands for copying it.
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, type Action } from './adversaries.js';
import { tokensOf } from './probes.js';
import { MAX_SHOWN, MAX_TOLD, type Given, type ShownSample } from './shown-derivation.js';

/**
 * Where a copy policy reads a call's value: the reply of `from` naming the call's entity, its `fromEnd`-th number, or
 * (with `label`) the number that word names there (a figure whose place moves: redteam-s23e V11).
 */
export interface CopyRule {
  tool: string;
  arg: string;
  from: string;
  fromEnd: number;
  /** The word the read number follows (`fromEnd` then unused, 0). */
  label?: string;
}

/**
 * A reply's number, the word it follows (lower-cased, counted where the word names several: `customer#2`) and the
 * words since the number before it (its phrase: 'total with tax').
 */
interface Labelled {
  value: number;
  label: string;
  phrase: string[];
}

/** A reply's numbers with their labels, a minus sign read as a number's own ('refund -1986', '-$40'), no hyphen. */
function labelledIn(text: string): Labelled[] {
  const out: Labelled[] = [];
  const counts = new Map<string, number>();
  let phrase: string[] = [];
  for (const token of tokensOf(text.replace(/(^|[\s(:=])-\$?(?=\d)/g, '$1$$-'))) {
    const value = Number(token);
    if (!Number.isFinite(value)) {
      phrase.push(token.toLowerCase());
      continue;
    }
    const word = phrase.at(-1) ?? out.at(-1)?.label.replace(/#\d+$/, '') ?? '';
    const n = (counts.get(word) ?? 0) + 1;
    counts.set(word, n);
    out.push({ value, label: n > 1 ? `${word}#${n}` : word, phrase });
    phrase = [];
  }
  return out;
}
const idsOf = (a: Action): string[] =>
  Object.values(a.args).filter((v): v is string => typeof v === 'string' && v.trim() !== '');
const shapeOf = (token: string) => token.replace(/[0-9]/g, '9').replace(/[A-Za-z]/g, 'A');

/**
 * A listing line's cell of the entity: from its id to the next token shaped like it ('O-9846 (worksheet $107), O-7391
 * ...': the first order's), the whole line where no other token has the id's shape.
 */
function cellOf(line: string, ids: readonly string[]): string {
  const tokens = [...line.matchAll(/[A-Za-z0-9$][A-Za-z0-9_-]*(?:\.[0-9]+)?/g)];
  const at = tokens.findIndex((m) => ids.includes(m[0].toLowerCase()));
  if (at < 0) return line;
  const shape = shapeOf((tokens[at] as RegExpMatchArray)[0]);
  const same = (m: RegExpMatchArray) => shapeOf(m[0]) === shape && !ids.includes(m[0].toLowerCase());
  if (!tokens.some(same)) return line;
  const next = tokens.slice(at + 1).find(same);
  return line.slice((tokens[at] as RegExpMatchArray).index, next?.index ?? line.length);
}

/**
 * The numbers of a reply (to `other`) that belong to the entity of `call`: the whole reply to a call naming the same
 * ids (or to any call where `call` names none), else the cells (`cellOf`) of the lines that name one of its ids; null
 * where none does.
 */
function entityNumbers(call: Action, other: Action | undefined, reply: string): Labelled[] | null {
  const text = entityText(call, other, reply);
  return text === null ? null : labelledIn(text);
}
/** The text of a reply that belongs to the entity of `call` (`entityNumbers`). */
function entityText(call: Action, other: Action | undefined, reply: string): string | null {
  const ids = idsOf(call);
  if (ids.length === 0 || (other && idsOf(other).some((v) => ids.includes(v)))) return reply;
  const lower = ids.map((v) => v.toLowerCase());
  const lines = reply.split(/[\n;]+/).filter((line) => tokensOf(line).some((w) => lower.includes(w.toLowerCase())));
  return lines.length === 0 ? null : lines.map((line) => cellOf(line, lower)).join('\n');
}

/**
 * The text of a reply to a call naming no entity (a listing, a policy tool) that belongs to no entity shaped like
 * `call`'s: each line before its first token shaped like one of `call`'s ids (a listing's header), a line with none
 * whole ('Restocking fee today: 15%'); null where `call` names no id or `other` names one.
 */
function sharedText(call: Action, other: Action, reply: string): string | null {
  const shapes = new Set(idsOf(call).map(shapeOf));
  if (shapes.size === 0 || idsOf(other).length > 0) return null;
  return reply
    .split(/\n+/)
    .map((line) => {
      const at = [...line.matchAll(/[A-Za-z0-9$][A-Za-z0-9_-]*/g)].find((m) => shapes.has(shapeOf(m[0])));
      return at ? line.slice(0, at.index) : line;
    })
    .join('\n');
}

/** What a tool taking no argument replies at an episode's start (the reference never called it). */
export interface Heard {
  tool: string;
  reply: string;
}

/**
 * What the world showed before call `k` besides its entity's numbers: the numbers it told every entity (`sharedText`
 * of the latest reply of each tool naming no entity, in the log or `heard` at the start, named by tool and place from
 * the end, aliased by label: a rate a listing's header prints is an operand of every entity's rule, rt30e W5), up to
 * `MAX_TOLD`, and the words of the replies that belong to its entity (its department, its tier: what selects a case
 * of a rule, rt30e W2).
 */
export function entityContext(
  r: Rollout,
  observations: string[],
  k: number,
  heard: readonly Heard[] = [],
): { told: Given[]; words: string[] } {
  const acts = actionsOf(r);
  const call = acts[k];
  if (!call || acts.length !== r.actions.length) return { told: [], words: [] };
  const told: Given[] = [];
  const words = new Set<string>();
  const ids = new Set(idsOf(call).map((v) => v.toLowerCase()));
  const [read, listened] = [new Set<string>(), new Set<string>()];
  const replies = [
    ...acts
      .slice(0, k)
      .map((other, j) => ({ other, reply: observations[j] ?? '' }))
      .reverse(),
    ...heard.map((h) => ({ other: { tool: h.tool, args: {} } as Action, reply: h.reply })),
  ];
  for (const { other, reply } of replies) {
    const text = read.has(other.tool) ? null : entityText(call, other, reply);
    if (text !== null) read.add(other.tool);
    for (const token of tokensOf(text ?? ''))
      if (!Number.isFinite(Number(token)) && !ids.has(token.toLowerCase()) && words.size < 64)
        words.add(token.toLowerCase());
    const shared = listened.has(other.tool) ? null : sharedText(call, other, reply);
    if (shared !== null) listened.add(other.tool);
    const shown = labelledIn(shared ?? '');
    for (let at = shown.length - 1; at >= 0 && told.length < MAX_TOLD; at--) {
      const { value, label } = shown[at] as Labelled;
      told.push({ id: `${other.tool}#${shown.length - 1 - at}`, value, aliases: [`${other.tool}@${label}`] });
    }
  }
  return { told, words: [...words] };
}

/**
 * The numbers the world showed of call `k`'s entity before it: the latest reply of each tool that belongs to its
 * entity (`entityNumbers`), latest first, each named by its tool and place from the end and, as an alias, by its
 * tool and label (a number whose place moves), up to `MAX_SHOWN`; `skip` (a reply's index and a place in it: the
 * copied value itself) left out.
 */
export function entityShown(r: Rollout, observations: string[], k: number, skip?: { j: number; at: number }): Given[] {
  const acts = actionsOf(r);
  const call = acts[k];
  if (!call || acts.length !== r.actions.length) return [];
  const out: Given[] = [];
  const tools = new Set<string>();
  const linked = linkedOf(acts, observations, k);
  for (const entity of [call, ...(linked ? [linked] : [])])
    for (let j = k - 1; j >= 0 && out.length < MAX_SHOWN; j--) {
      const other = acts[j] as Action;
      const shown = tools.has(other.tool) ? null : entityNumbers(entity, other, observations[j] ?? '');
      if (!shown || shown.length === 0) continue;
      tools.add(other.tool);
      for (let at = shown.length - 1; at >= 0 && out.length < MAX_SHOWN; at--) {
        const { value, label } = shown[at] as Labelled;
        if (skip?.j !== j || skip.at !== at)
          out.push({ id: `${other.tool}#${shown.length - 1 - at}`, value, aliases: [`${other.tool}@${label}`] });
      }
    }
  return out;
}

/**
 * The entities the episode links to call `k`'s (redteam-s24e W8: a return naming its order), as one pseudo-call: the
 * ids that an earlier reply's text of its entity (`entityText`: a reply on its ids, a listing's cell of it) names and
 * another call of the log sends as its argument (the reference read the linked record); null where none.
 */
function linkedOf(acts: readonly Action[], observations: string[], k: number): Action | null {
  const ids = idsOf(acts[k] as Action);
  if (ids.length === 0) return null;
  const sent = new Map(acts.flatMap((a) => idsOf(a).map((v) => [v.toLowerCase(), v] as const)));
  const linked = new Set<string>();
  for (let j = 0; j < k; j++) {
    for (const token of tokensOf(entityText(acts[k] as Action, acts[j], observations[j] ?? '') ?? '')) {
      const id = sent.get(token.toLowerCase());
      if (id !== undefined && !ids.includes(id) && /\d/.test(id) && Number.isNaN(Number(id))) linked.add(id);
    }
  }
  return linked.size === 0 ? null : { tool: '', args: Object.fromEntries([...linked].map((v, i) => [`link${i}`, v])) };
}

/**
 * Whether `v`, sent by call `i`, is the world's bookkeeping of the policy's own earlier calls on the same entity: a
 * number of the initial state less (or plus) what they sent, per tool and argument or all together (a balance left
 * after earlier parts or a credit applied, a running total).
 */
export function bookkept(acts: Action[], i: number, v: number, stateNumbers: Set<number>): boolean {
  const ids = idsOf(acts[i] as Action).join('|');
  const sums = new Map<string, number>();
  for (const a of acts.slice(0, i).filter((x) => idsOf(x).join('|') === ids))
    for (const [arg, x] of Object.entries(a.args))
      if (typeof x === 'number') for (const key of [`${a.tool}|${arg}`, '']) sums.set(key, (sums.get(key) ?? 0) + x);
  return [...sums.values()].some((sent) => sent !== 0 && (stateNumbers.has(v + sent) || stateNumbers.has(v - sent)));
}

/**
 * The copy rule the reference's own log suggests: among its numeric arguments that an earlier reply naming the entity
 * shows (not known, not bookkept, not that reply's own call echoed), the commonest place of the shown value (from the
 * end, or by its label: the place first where both are as common) that is not a lookup (`lookup`: shown-derivation.ts,
 * a value no stated rule derives from what else is shown).
 */
export function copyRuleOf(
  r: Rollout,
  observations: string[],
  known: Set<string>,
  stateNumbers: Set<number>,
  lookup: (rule: CopyRule) => boolean = () => false,
) {
  const acts = actionsOf(r);
  if (acts.length !== r.actions.length) return null;
  const counts = new Map<string, { rule: CopyRule; n: number }>();
  acts.forEach((call, i) => {
    for (const [arg, v] of Object.entries(call.args)) {
      if (typeof v !== 'number' || known.has(String(v)) || bookkept(acts, i, v, stateNumbers)) continue;
      for (let j = i - 1; j >= 0; j--) {
        const other = acts[j] as Action;
        const nums = Object.values(other.args).includes(v) ? null : entityNumbers(call, other, observations[j] ?? '');
        const at = nums ? nums.map((x) => x.value).lastIndexOf(v) : -1;
        if (!nums || at < 0) continue;
        const place: CopyRule = { tool: call.tool, arg, from: other.tool, fromEnd: nums.length - 1 - at };
        for (const rule of [place, { ...place, fromEnd: 0, label: (nums[at] as Labelled).label }]) {
          if (lookup(rule)) continue;
          const key = JSON.stringify(rule);
          counts.set(key, { rule, n: (counts.get(key)?.n ?? 0) + 1 });
        }
        break;
      }
    }
  });
  return [...counts.values()].sort((a, b) => b.n - a.n)[0]?.rule ?? null;
}

/**
 * Where `rule` reads each call of the log (undefined where the call is not one of `rule.tool`'s, or no earlier reply of
 * `rule.from` naming its entity shows one): the numbers of the latest such reply and the place of the read one (its
 * place from the end, or the number its label names), with the words printed before it and before each number.
 */
export function copySources(
  r: Rollout,
  observations: string[],
  rule: CopyRule,
): ({ shown: number[]; at: number; j: number; phrase: string[]; phrases: string[][] } | undefined)[] {
  const acts = actionsOf(r);
  return acts.map((call, i) => {
    if (call.tool !== rule.tool || typeof call.args[rule.arg] !== 'number') return undefined;
    for (let j = i - 1; j >= 0; j--) {
      const other = acts[j] as Action;
      if (other.tool !== rule.from) continue;
      const shown = entityNumbers(call, other, observations[j] ?? '');
      if (!shown) continue;
      const at =
        rule.label === undefined ? shown.length - 1 - rule.fromEnd : shown.findIndex((x) => x.label === rule.label);
      if (at < 0) continue;
      const phrases = shown.map((x) => x.phrase);
      return { shown: shown.map((x) => x.value), at, j, phrase: phrases[at] as string[], phrases };
    }
    return undefined;
  });
}

/** The number `rule` reads for each call of the log (undefined where it reads none: `copySources`). */
export function copiedValues(r: Rollout, observations: string[], rule: CopyRule): (number | undefined)[] {
  return copySources(r, observations, rule).map((s) => s?.shown[s.at]);
}

/**
 * The reference's copied values as samples of a derivation (shown-derivation.ts): each call of `rule.tool` that sends
 * the value `rule` reads, not one the texts state, with what the world showed of its entity (the read value aside)
 * and the texts' numbers.
 */
export function shownSamples(
  r: Rollout,
  observations: string[],
  rule: CopyRule,
  episode: number,
  stated: readonly Given[],
  heard: readonly Heard[] = [],
): ShownSample[] {
  const acts = actionsOf(r);
  const context = (i: number) => entityContext(r, observations, i, heard);
  return copySources(r, observations, rule).flatMap((s, i) => {
    const v = acts[i]?.args[rule.arg];
    return s && typeof v === 'number' && v === s.shown[s.at] && !stated.some((g) => g.value === v)
      ? [{ episode, level: r.level, value: v, shown: entityShown(r, observations, i, s), stated, ...context(i) }]
      : [];
  });
}

/**
 * The reference's log with every `rule.tool` call's `rule.arg` replaced by the number its rule reads (kept where there
 * is none): the copy, played.
 */
export function copyPlan(r: Rollout, observations: string[], rule: CopyRule): Action[] {
  const values = copiedValues(r, observations, rule);
  return actionsOf(r).map((call, i) =>
    values[i] === undefined ? call : { tool: call.tool, args: { ...call.args, [rule.arg]: values[i] } },
  );
}

/**
 * The copy's chance: `r`'s log with its `rule.tool` calls sending, in turn, the values `rule.arg` takes in `peer`'s
 * copy (another episode's shown values, or its own where none is shown), cycled; null where the peer has none. What
 * it wins is what a shown value of that place wins by coincidence, not by standing in for the episode's work.
 */
export function peerCopyPlan(r: Rollout, peer: Rollout, peerObservations: string[], rule: CopyRule): Action[] | null {
  const values = copyPlan(peer, peerObservations, rule)
    .filter((a) => a.tool === rule.tool)
    .map((a) => a.args[rule.arg])
    .filter((v): v is number => typeof v === 'number');
  if (values.length === 0) return null;
  let k = 0;
  return actionsOf(r).map((call) =>
    call.tool !== rule.tool || typeof call.args[rule.arg] !== 'number'
      ? call
      : { tool: call.tool, args: { ...call.args, [rule.arg]: values[k++ % values.length] } },
  );
}

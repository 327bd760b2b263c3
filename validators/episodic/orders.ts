// A stated order among the entities of one tool (redteam-trust12 W5: "route every urgent ticket before any ordinary
// ticket", "serve the oldest request first", "pay invoices in due-date order") and the reference's calls of that
// tool played in another order across their entities: reversed, and the entities a word of the rule marks (the
// reads of some entities say "urgent", of the others not) moved last and first, each call with its own entity's
// reads kept before it. Without such a sentence no order is probed: most worlds rightly do not care.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Bind } from '../../sandbox/protocol.js';
import { propsOf, type Action } from './adversaries.js';
import { escape } from './adversaries-values.js';
import { bindsOf, givenText, issuesOf } from './issued.js';
import { mentionAt, sentencesOf } from './stated-rules.js';

const ORDER = /\b(before|prior to|ahead of|first|then|after|until|order(?! to\b))\b/i;
const RANKS = 'oldest|newest|earliest|latest|soonest|youngest|lowest|highest|smallest|largest|biggest|urgent|priority';
// A ranking of entities: "in priority order", "in the order listed", "oldest first", "the earliest request first".
const RANKED = new RegExp(
  String.raw`\bin (?:the )?(?:[\w-]+ ){0,2}order\b(?! to\b)|\b(?:${RANKS})\b(?:\s+[\w-]+){0,2}?\s+(?:first|order)\b`,
  'i',
);
const STOP = new Set(
  (
    'the any every each all other others one ones and but its their with for from that this these those rest ' +
    'into onto not are was has have been only then first before after until order every when where which who them they'
  ).split(' '),
);
const wordsOf = (text: string) => text.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? [];

/** An order rule about one tool's entities: the tool, the argument naming its entity, its sentence, what marks it. */
export interface OrderRule {
  tool: string;
  arg: string;
  sentence: string;
  /** Words qualifying the entity's noun by the order word that some of the entities' reads show, the others not. */
  marks: string[];
  /** Whether the sentence ranks the entities ("oldest first", "in priority order", "urgent tickets first"). */
  ranked: boolean;
}

/** A log with one tool's calls in another order across their entities, how it was made, its issued ids bound. */
export interface Permuted {
  rule: OrderRule;
  how: string;
  actions: Action[];
  binds?: Bind[];
}

/** The argument naming `tool`'s entity in `body`: a string, not an enum, sent once per entity, on two or more. */
function entityArg(meta: EpisodicMeta, body: readonly Action[], tool: string): string | null {
  const calls = body.filter((a) => a.tool === tool);
  const props = propsOf(meta, tool);
  for (const [arg, schema] of Object.entries(props)) {
    if (schema.enum) continue;
    const values = calls.map((a) => a.args[arg]);
    if (values.some((v) => typeof v !== 'string') || new Set(values).size !== values.length) continue;
    if (values.length >= 2) return arg;
  }
  return null;
}

/** The noun an entity argument names ("ticket" for ticket_id, "booking" for booking_code) as a pattern's stem. */
const nounOf = (arg: string) => arg.replace(/_?(id|ids|code|number|no|ref|key|name)$/i, '').replace(/_/g, ' ');
const nounAt = (sentence: string, noun: string) =>
  noun.length < 3 ? [] : [...sentence.matchAll(new RegExp(`\\b${noun}(?:s|es)?\\b`, 'gi'))].map((m) => m.index);

/**
 * The words each entity's reads hold: the whole answer to a call that names it (not a call of `tool` itself), and
 * the lines of other answers and of the prompt that name it.
 */
function readsOf(body: readonly Action[], tool: string, observations: readonly (string | undefined)[], id: string) {
  const line = new RegExp(`(?<![A-Za-z0-9_])${escape(id)}(?![A-Za-z0-9_])`);
  const text = body.flatMap((a, i) => {
    const seen = observations[i] ?? '';
    if (a.tool === tool) return [];
    return Object.values(a.args).includes(id) ? [seen] : seen.split('\n').filter((l) => line.test(l));
  });
  return new Set(wordsOf(text.join('\n')));
}

/**
 * The order rules `text` states about the tools `log` calls on several entities (each tool's first such sentence):
 * a sentence with an order word that names the tool (or names no tool and names the tool's entity) and ranks its
 * entities, or marks them with a word beside their noun that the entities' reads split (some show it, some not).
 */
export function orderRulesOf(
  meta: EpisodicMeta,
  text: string,
  log: readonly Action[],
  observations: readonly (string | undefined)[] = [],
): OrderRule[] {
  const body = log.slice(0, -1);
  const finish = log.at(-1)?.tool;
  const names = meta.tools.map((t) => t.name);
  const sentences = sentencesOf(text).filter((s) => ORDER.test(s));
  const out: OrderRule[] = [];
  for (const tool of new Set(body.map((a) => a.tool))) {
    const arg = tool === finish ? null : entityArg(meta, body, tool);
    if (!arg) continue;
    const noun = nounOf(arg);
    const ids = body.filter((a) => a.tool === tool).map((a) => a.args[arg] as string);
    const reads = ids.map((id) => readsOf(body, tool, observations, id));
    const own = new Set([...wordsOf(tool.replace(/_/g, ' ')), ...wordsOf(noun)]);
    // A sentence naming no tool ("handle urgent requests first") binds the tool only where no other tool takes the
    // same entity: where several do (book or flag a request), one tool's order is not the order of handling.
    const alone = meta.tools.every((t) => t.name === tool || t.name === finish || !(arg in propsOf(meta, t.name)));
    for (const sentence of sentences) {
      const nouns = nounAt(sentence, noun);
      // A word qualifying the noun ("urgent ticket", "VIP guests"; not "each ticket", not the verb of "open each
      // ticket"): the word right before it, the noun within three words of an order word.
      const near = (at: number) =>
        ORDER.test(sentence.slice(at).split(/\s+/).slice(0, 4).join(' ')) ||
        ORDER.test((sentence.slice(0, at).match(/\S+/g) ?? []).slice(-4).join(' '));
      const marked = nouns.flatMap((at) => {
        const w = wordsOf(sentence.slice(0, at).split(/\s+/).at(-2) ?? '')[0];
        if (!w || !near(at) || STOP.has(w) || own.has(w)) return [];
        const n = reads.filter((r) => r.has(w)).length;
        return n > 0 && n < reads.length ? [{ at, w }] : [];
      });
      const ranks = [
        RANKED.exec(sentence)?.index ?? -1,
        ...nouns.filter((at) => new RegExp(`\\b(?:${RANKS})\\W*$`, 'i').test(sentence.slice(0, at))),
      ].filter((at) => at >= 0);
      const anchors = [...ranks, ...marked.map((m) => m.at)];
      if (anchors.length === 0) continue;
      // The tool the rule is about: the named tool nearest the ranking or the mark in its clause ("pay the invoices in
      // due-date order, read_invoice shows the dates": pay_invoice), or where the sentence names none, the entity's
      // one tool.
      const named = names.filter((t) => t !== finish && mentionAt(sentence, t) >= 0);
      // A tool named in another clause ("read each invoice, pay it in due-date order") is not the one ranked.
      const distance = (t: string) =>
        Math.min(
          ...anchors.map((a) => {
            const at = mentionAt(sentence, t);
            return /[,;:()]/.test(sentence.slice(Math.min(a, at), Math.max(a, at))) ? Infinity : Math.abs(at - a);
          }),
        );
      const nearest = named.reduce((a, b) => (distance(b) < distance(a) ? b : a), named[0] ?? '');
      if (named.length > 0 ? nearest !== tool || distance(tool) === Infinity : !alone || nouns.length === 0) continue;
      const marks = [...new Set(marked.map((m) => m.w))];
      const ranked = ranks.length > 0;
      out.push({ tool, arg, sentence, marks: marks.slice(0, 2), ranked });
      break;
    }
  }
  return out;
}

/**
 * `log` (its last call the finish) with `rule.tool`'s calls put in `order` (the k-th call of the tool in the new log
 * is the reference's call `order[k]`): each call moved with the calls since the tool's previous call that name its
 * entity and no other of them (its reads), the rest in place; `observations` bind the ids the environment issued
 * (validators/episodic/issued.ts). Null where the order is the reference's.
 */
export function reorderedLog(
  meta: EpisodicMeta,
  rule: OrderRule,
  log: readonly Action[],
  observations: readonly (string | undefined)[],
  prompt: string | undefined,
  how: string,
  order: readonly number[],
): Permuted | null {
  if (order.every((k, r) => k === r)) return null;
  const body = log.slice(0, -1);
  const at = body.flatMap((a, i) => (a.tool === rule.tool ? [i] : []));
  const ids = at.map((i) => (body[i] as Action).args[rule.arg] as string);
  const names = (a: Action, id: string) => Object.values(a.args).includes(id);
  const blocks = at.map((p, k) => {
    const from = k === 0 ? 0 : (at[k - 1] as number) + 1;
    const own = body
      .slice(from, p)
      .flatMap((a, d) => (names(a, ids[k] as string) && !ids.some((o, m) => m !== k && names(a, o)) ? [from + d] : []));
    return [...own, p];
  });
  const moved = new Set(blocks.flat());
  const origins = body.flatMap((_, i) => {
    const slot = at.indexOf(i);
    return slot >= 0 ? (blocks[order[slot] as number] as number[]) : moved.has(i) ? [] : [i];
  });
  origins.push(log.length - 1);
  const binds = bindsOf(origins, issuesOf(log, observations, givenText(meta, prompt)));
  const actions = origins.map((i) => log[i] as Action);
  return { rule, how, actions, ...(binds.length > 0 ? { binds } : {}) };
}

/**
 * `log` with `rule.tool`'s calls permuted across their entities (reorderedLog): reversed, and for each mark the
 * entities whose reads show it moved last, then first. Orders equal to the reference's, or to one before, are left
 * out.
 */
export function permutationsOf(
  meta: EpisodicMeta,
  rule: OrderRule,
  log: readonly Action[],
  observations: readonly (string | undefined)[] = [],
  prompt?: string,
): Permuted[] {
  const body = log.slice(0, -1);
  const at = body.flatMap((a, i) => (a.tool === rule.tool ? [i] : []));
  const ids = at.map((i) => (body[i] as Action).args[rule.arg] as string);
  const seen = new Set<string>();
  const play = (how: string, order: number[]): Permuted[] => {
    const p = reorderedLog(meta, rule, log, observations, prompt, how, order);
    return p && !seen.has(JSON.stringify(order)) && seen.add(JSON.stringify(order)) ? [p] : [];
  };
  const out = play(
    `${rule.tool}: its calls reversed across their entities`,
    at.map((_, k) => at.length - 1 - k),
  );
  for (const mark of rule.marks) {
    const has = ids.map((id) => readsOf(body, rule.tool, observations, id).has(mark));
    const by = (first: boolean) => [...at.keys()].sort((x, y) => Number(has[x] === first) - Number(has[y] === first));
    out.push(
      ...play(`${rule.tool}: the ${mark} entities moved last`, by(true)),
      ...play(`${rule.tool}: the ${mark} entities moved first`, by(false)),
    );
  }
  return out;
}

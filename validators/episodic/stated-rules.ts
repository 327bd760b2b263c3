// The rules an episodic prompt states about its tools, read from its sentences: a tool is mandatory where a
// sentence with a modal or order word (must, always, never, before, only after, first, make sure…) names it
// (its name, or its words in order: request_approval as "request … approval"); an order rule names the step
// that comes first and what it comes before (other tools it names, or "anything else"). And what a call
// records: the state paths it changes beyond bookkeeping that (nearly) every turn changes (a turn counter, a log).
// A permission governs nothing, but its condition binds (rule-clauses.ts: how a clause reads a tool it names); a
// sentence may name its step by a word that stands for the step of the sentence before ("Do this before any refund").
import type { Rollout } from '../../sandbox/rollouts.js';
import type { Action } from './adversaries.js';
import { escape } from './adversaries-values.js';
import { allowsAny, readingOf } from './rule-clauses.js';
import { answerAt, joinedLists } from './rule-lists.js';
import { recentMemo } from '../../sandbox/recent.js';

const MODAL = new RegExp(
  String.raw`\b(must|always|never|required?|requires|mandatory|needs? to|have to|has to|only (?:after|once|if|` +
    "when)|before|prior to|first|make sure|ensure|until|not allowed|may not|cannot|can't|do not|" +
    String.raw`don't)\b`,
  'i',
);

const ORDER = /\b(before|prior to|then|first|after|until)\b/i;
const EVERYTHING = /\b(anything else|any other|every other|all other|everything else)\b/i;

/**
 * A mandatory step: the sentence that states it, and for an order rule what it must come before: tools the
 * sentence names, 'all' (every other call: "before anything else"), or 'entity' (the other calls on the same
 * entity: "contact the merchant first").
 */
export interface StatedRule {
  tool: string;
  sentence: string;
  before: string[] | 'all' | 'entity' | null;
  /** Where a reply, not the prompt, states it (repliesOf). */
  reply?: true;
}

/** The sentences of a text: a line that goes on in lower case (a wrapped sentence) is joined to the one before. */
export function sentencesOf(text: string): string[] {
  return joinedLists(text.slice(0, 20_000))
    .replace(/\n[ \t]*(?=[a-z(])/g, ' ')
    .split(/\n+|(?<=[.!?;])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .slice(0, 400);
}

const stem = (word: string) => (word.length <= 4 ? word : word.slice(0, Math.max(4, word.length - 3)));
/**
 * A tool's two patterns: its identifier as a whole word (`verify_order`), and its words in order with at most three
 * words between. Made once per tool name (issue 34: a validation asks about the same few tools for every sentence of
 * every reference, ~350 ms of compiling at airline-rebooking); neither is global or sticky, so exec keeps no state.
 */
const toolPatterns = recentMemo((tool: string) => {
  const words = tool
    .split('_')
    .filter(Boolean)
    .map((w) => w.replace(/[^a-z0-9]/g, ''));
  return {
    identifier: new RegExp(`(?<![A-Za-z0-9_])${escape(tool)}(?![A-Za-z0-9_])`),
    phrase: new RegExp(`\\b${words.map((w) => `${stem(w)}[\\w']*`).join("(?:\\s+[\\w']+){0,3}?\\s+")}\\b`, 'i'),
  };
}, 256);
/** Where a text names a tool by its identifier (`verify_order`), or -1. */
const identifierAt = (text: string, tool: string) => toolPatterns(tool).identifier.exec(text)?.index ?? -1;
/**
 * Where a sentence names a tool (its name as a whole word, or its words in order with at most three words
 * between), or -1: `subscription_at` is not named inside `get_subscription_attribute`.
 */
export function mentionAt(sentence: string, tool: string): number {
  const exact = identifierAt(sentence, tool);
  if (exact >= 0) return exact;
  return toolPatterns(tool).phrase.exec(sentence)?.index ?? -1;
}

/**
 * "X, then Y" orders its steps, modal word or not: the call X, named by its identifier in the stretch right before
 * "then" (from the clause's start; not an alternative "or X"), comes first. Not a condition's "then" ("If X, then
 * Y"), nor an adverb ("the queue is checked then"); a workflow told in words ("Read the tickets, then route them",
 * "check interactions, then fill": seeds' and good fixtures' descriptions) binds only by a modal word, as before.
 */
const THEN = /(?<!\b(?:by|since|until|till|from|back|just|even) )\bthen\b(?!\s*(?:[,.;:)]|$))/gi;
const IF_THEN = /^(?:if|when|whenever|unless|once|in case|should)\b[^,]*,\s*then\b/i;
function thenSteps(sentence: string): [number, number, number][] {
  if (IF_THEN.test(sentence)) return [];
  return [...sentence.matchAll(THEN)].flatMap((m) => {
    const head = sentence.slice(0, m.index).replace(/[\s,]*(?:and\s*)?$/, '');
    const from = Math.max(...[...head.matchAll(/[,;:()\u2014]/g)].map((c) => c.index + 1), 0);
    return /^\s*(?:or|either)\b/i.test(head.slice(from))
      ? []
      : [[from, head.length, m.index] as [number, number, number]];
  });
}
/**
 * A workflow told in words orders its steps where it is an instruction on each entity (redteam-trust20 T9): the step
 * before "then" names `tool` in words over each (every) entity, the step after it names another tool and takes the
 * entity back ("Verify each order, then refund it."). Asked only of the prompt's sentences (statedRules' `told`): a
 * description narrates the reference's workflow ("Read the tickets, then route each"), reads and all.
 */
const EACH = /\b(?:each|every)\b/i;
const BACK = /\b(?:it|them|each|every)\b/i;
function toldInWords(
  sentence: string,
  [from, to, at]: [number, number, number],
  tool: string,
  tools: readonly string[],
) {
  const [head, tail] = [sentence.slice(from, to), sentence.slice(at).split(/[,;:]/)[0] as string];
  if (mentionAt(head, tool) < 0 || !EACH.test(head) || !BACK.test(tail)) return false;
  return tools.some((t) => t !== tool && mentionAt(tail, t) >= 0 && mentionAt(head, t) < 0);
}
/** A sentence that opens by pointing back at the step before ("Then refund it.", "After that, …"): it first. */
const AFTER_PREVIOUS = /^(?:only\s+)?(?:then|after (?:that|this|doing so|which)|afterwards?)\b/i;
/** Words that stand for the step of the sentence before: "do this/so", "this step", "It must come first". */
const REFERENCE = new RegExp(
  String.raw`\b(?:do|does|did|doing|done)\s+(?:this|that|so|it)\b|` +
    String.raw`\b(?:this|that|the same|each such)\s+(?:step|check|call|action)s?\b|` +
    String.raw`^(?:this|that|it)\s+(?:must|should|shall|has to|needs? to|always|never|only|comes?|goes?|happens?|` +
    String.raw`is(?:n't| not| never)?\s+(?:required|optional|needed|necessary|mandatory)\b(?!\s+to\b))`,
  'i',
);

/**
 * Where `sentence` refers to the step of the sentence before (redteam-trust20 T9): a word that stands for it, or the
 * whole of a short sentence that names no tool ("Not necessary.", "Always."); -1 where it does not.
 */
export function referenceAt(sentence: string, names: number): number {
  const m = REFERENCE.exec(sentence) ?? AFTER_PREVIOUS.exec(sentence);
  if (m) return m.index;
  return names === 0 && (sentence.match(/\S+/g) ?? []).length <= 3 ? 0 : -1;
}

/**
 * The mandatory steps `text` states for `tools` (the first sentence that names each): a tool a stating sentence names
 * and binds, and the condition of a permission (rule-clauses.ts); a sentence that refers to the step of the one
 * before binds that step (its rule the two sentences), or, where it only allows it, lifts the rule that one stated;
 * the first `told` sentences (the prompt's) also order a workflow told in words on each entity (toldInWords).
 */
export function statedRules(text: string, tools: readonly string[], told = 0): StatedRule[] {
  const out = new Map<string, StatedRule & { k: number }>();
  let prev: { sentence: string; tools: string[] } | null = null;
  sentencesOf(text).forEach((sentence, k) => {
    const where = new Map(tools.map((t) => [t, mentionAt(sentence, t)] as const).filter(([, i]) => i >= 0));
    const answer = prev ? answerAt(prev.sentence, sentence) : -1;
    const ref = prev ? Math.max(referenceAt(sentence, where.size), answer) : -1;
    const referred = ref >= 0 ? (prev?.tools ?? []).filter((t) => !where.has(t)) : [];
    for (const t of referred) where.set(t, ref);
    const last = prev;
    prev = { sentence, tools: [...where.keys()] };
    const mentions = [...where.values()];
    const reading = new Map([...where].map(([t, i]) => [t, readingOf(sentence, i, mentions)] as const));
    // Only a bare lift ("This is optional.", "Not necessary."): one with a scope ("… for gift cards") lifts a part.
    const bare = (sentence.match(/\S+/g) ?? []).length <= 5 && allowsAny(sentence);
    for (const t of referred) if (bare && reading.get(t) === 'allowed' && out.get(t)?.k === k - 1) out.delete(t);
    const stating = MODAL.test(sentence) || answer >= 0;
    const steps = thenSteps(sentence);
    const first = (t: string) =>
      (referred.includes(t) && AFTER_PREVIOUS.test(sentence)) ||
      steps.some(([from, to]) => identifierAt(sentence.slice(from, to), t) >= 0) ||
      (k < told && steps.some((step) => toldInWords(sentence, step, t, tools)));
    const allowed = [...reading].filter(([, r]) => r === 'allowed').map(([t]) => t);
    const ruled = [...reading]
      .filter(([t, r]) => r === 'condition' || (r === 'bound' && (stating || first(t))))
      .map(([t]) => t);
    const unallowed = [...reading.keys()].filter((t) => reading.get(t) !== 'allowed');
    for (const tool of ruled) {
      if (out.has(tool)) continue;
      const at = where.get(tool) as number;
      const own = [...where.keys()].filter((t) => !referred.includes(t));
      const before =
        reading.get(tool) === 'condition' && allowed.length > 0
          ? allowed
          : referred.includes(tool) && AFTER_PREVIOUS.test(sentence)
            ? own.length > 0
              ? own
              : null
            : orderOf(
                sentence,
                at,
                unallowed.filter((t) => t !== tool),
                where,
              );
      const said = referred.includes(tool) ? `${last?.sentence ?? ''} ${sentence}` : sentence;
      out.set(tool, { tool, sentence: said, before, k });
    }
  });
  return [...out.values()].map(({ k: _, ...rule }) => rule);
}

/** What the tool named at `at` must come before by this sentence: null where it states no order with it first. */
function orderOf(
  sentence: string,
  at: number,
  others: string[],
  where: ReadonlyMap<string, number>,
): StatedRule['before'] {
  const m = ORDER.exec(sentence);
  if (!m) return null;
  const word = (m[1] as string).toLowerCase();
  const opens = m.index === 0 || /^[\s"'(]*$/.test(sentence.slice(0, m.index));
  // "X before Y", "X, then Y": X comes first; "Y only after X", "not Y until X", "Before Y, X": X is named after
  // the word; "X first", "first X": only a step named next to the word (within a few words) comes first.
  const gap = (from: number, to: number) => (sentence.slice(from, to).match(/\S+/g) ?? []).length;
  if (word === 'first') {
    if (!(at < m.index ? gap(at, m.index) <= 5 : gap(m.index, at) <= 3)) return null;
    return EVERYTHING.test(sentence) ? 'all' : others.length === 0 ? 'entity' : others;
  }
  // A sentence that opens with the word: "After X, Y" (X first), "Before Y, X" (X first), split at the comma.
  const comma = sentence.indexOf(',', m.index);
  const inCondition = (i: number) => comma < 0 || i < comma;
  const leads = opens
    ? word === 'after' || word === 'until'
      ? inCondition(at)
      : !inCondition(at)
    : word === 'before' || word === 'prior to' || word === 'then'
      ? at < m.index
      : at > m.index;
  if (!leads) return null;
  if (EVERYTHING.test(sentence)) return 'all';
  const follows = others.filter((t) => {
    const i = where.get(t) ?? -1;
    return opens
      ? inCondition(i) !== inCondition(at)
      : word === 'before' || word === 'prior to' || word === 'then'
        ? i > m.index
        : i < m.index;
  });
  return follows.length > 0 ? follows : null;
}

/**
 * The texts the reference was shown besides its prompt: its replies, once each, with every value it sent masked and
 * digits masked (a rule a policy tool states binds like the prompt's: redteam-trust20 T8), at most `most`.
 */
export function repliesOf(r: Rollout, most = 24): string[] {
  const sent = new Set<string>();
  for (const a of r.actions)
    for (const v of Object.values((a as Action | null)?.args ?? {}))
      if (typeof v === 'string' && v.trim().length >= 2) sent.add(v.trim());
  const values = [...sent].sort((a, b) => b.length - a.length).slice(0, 64);
  const mask = (text: string) =>
    values.reduce((t, v) => t.replace(new RegExp(`(?<![\\w])${escape(v)}(?![\\w])`, 'gi'), '\u00a7'), text);
  const texts = (r.observations ?? []).map((o) => mask(o.slice(0, 2_000)).replace(/\d+/g, '#'));
  return [...new Set(texts)].slice(0, most);
}

/** The state paths (array items as *) that at least `share` of the accepted turns of `refs` change: bookkeeping. */
export function bookkeeping(refs: readonly Rollout[], share: number): Set<string> {
  const counts = new Map<string, number>();
  let turns = 0;
  for (const r of refs) {
    (r.changes ?? []).forEach((paths, i) => {
      if (r.rejected.includes(i + 1)) return;
      turns++;
      for (const p of new Set(paths)) counts.set(p, (counts.get(p) ?? 0) + 1);
    });
  }
  return new Set([...counts].filter(([, n]) => turns > 0 && n >= share * turns).map(([p]) => p));
}

/** The paths where two states differ, as the runtime names a step's changes (episodic-runtime.js: changedPaths). */
export function differingPaths(a: unknown, b: unknown, path = '$', depth = 0, out: string[] = []): string[] {
  if (out.length >= 32 || JSON.stringify(a) === JSON.stringify(b)) return out;
  const objects =
    a !== null && typeof a === 'object' && b !== null && typeof b === 'object' && Array.isArray(a) === Array.isArray(b);
  if (!objects || depth >= 4 || (Array.isArray(a) && a.length !== (b as unknown[]).length)) {
    if (!out.includes(path)) out.push(path);
    return out;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(x), ...Object.keys(y)]))
    differingPaths(x[k], y[k], Array.isArray(a) ? `${path}.*` : `${path}.${k}`, depth + 1, out);
  return out;
}

/** Whether `tool`'s calls in `r` change the state beyond bookkeeping (true where the rollout carries no changes). */
export function records(r: Rollout, tool: string, book: ReadonlySet<string>): boolean {
  if (!r.changes) return true;
  return r.actions.some(
    (a, i) => (a as Action | null)?.tool === tool && (r.changes?.[i] ?? []).some((p) => !book.has(p)),
  );
}

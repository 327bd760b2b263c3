// The rules an episodic prompt states about its tools, read from its sentences: a tool is mandatory where a
// sentence with a modal or order word (must, always, never, before, only after, first, make sure…) names it
// (its name, or its words in order: request_approval as "request … approval"); an order rule names the step
// that comes first and what it comes before (other tools it names, or "anything else"). And what a call
// records: the state paths it changes beyond bookkeeping that (nearly) every turn changes (a turn counter, a log).
// A permission governs nothing: a tool named only in a clause that allows it ("may go on the waitlist until they
// renew it") is not a rule on that tool, whatever order word the clause holds (redteam-trust18 R5).
import type { Rollout } from '../../sandbox/rollouts.js';
import type { Action } from './adversaries.js';

const MODAL = new RegExp(
  String.raw`\b(must|always|never|required?|requires|mandatory|needs? to|have to|has to|only (?:after|once|if|` +
    "when)|before|prior to|first|make sure|ensure|until|not allowed|may not|cannot|can't|do not|" +
    String.raw`don't)\b`,
  'i',
);
/**
 * Words that allow a call, words that lift an obligation ("need not", "you don't have to": a permission not to), and
 * words that bind one (a prohibition or an obligation), within one clause.
 */
const PERMIT = new RegExp(
  String.raw`\b(may|can|could|(?:allowed|permitted|free|welcome) to|feel free|it is (?:fine|ok|okay) to|up to you|` +
    String.raw`at (?:your|their) discretion|optional(?:ly)?|if (?:you|they) (?:like|wish|want))\b`,
  'i',
);
const OPTIONAL = new RegExp(
  String.raw`\b(?:(?:do|does|did)(?:n't| not) (?:have|need) to|need not|needn't|(?:there is )?no need to|` +
    String.raw`(?:is|are) not (?:required|mandatory|necessary|obliged))\b`,
  'gi',
);
const BINDING = new RegExp(
  String.raw`\b(must|always|never|required?|requires|mandatory|needs? to|have to|has to|only|make sure|ensure|` +
    "shall|should|do not|don't|does not|doesn't|may not|might not|can ?not|can't|could not|couldn't|" +
    String.raw`not (?:be )?(?:allowed|permitted)|no)\b`,
  'i',
);
/** Where a sentence's clauses meet: punctuation and the words that join two statements. */
const CLAUSE = /[,;:()\u2014]|\s(?:but|while|whereas|although|though|unless|otherwise)\s/gi;

/**
 * Whether `sentence` only allows the call of the tool it names at `at`: that tool's clause holds a word that allows
 * and none that binds, and no clause naming no tool (`mentions`: where the sentence names tools) binds ("can be
 * refunded, but only after approval" binds the refund; "may waitlist, but never book" binds only the booking).
 */
export function permits(sentence: string, at: number, mentions: readonly number[] = [at]): boolean {
  const cuts = [0];
  for (const m of sentence.matchAll(CLAUSE)) cuts.push(m.index, m.index + m[0].length);
  cuts.push(sentence.length);
  const clauses: [number, number][] = [];
  for (let i = 0; i < cuts.length; i += 2) clauses.push([cuts[i] as number, cuts[i + 1] as number]);
  const own = clauses.find(([from, to]) => at >= from && at < to);
  if (!own) return false;
  // An obligation lifted is a permission, and its words ("don't have to") bind nothing.
  const text = ([from, to]: [number, number]) => sentence.slice(from, to).replace(OPTIONAL, ' may ');
  if (!PERMIT.test(text(own)) || BINDING.test(text(own))) return false;
  return !clauses.some(([from, to]) => BINDING.test(text([from, to])) && !mentions.some((i) => i >= from && i < to));
}

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
}

/** The sentences of a text: a line that goes on in lower case (a wrapped sentence) is joined to the one before. */
export function sentencesOf(text: string): string[] {
  return text
    .slice(0, 20_000)
    .replace(/\n[ \t]*(?=[a-z(])/g, ' ')
    .split(/\n+|(?<=[.!?;])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .slice(0, 400);
}

const stem = (word: string) => (word.length <= 4 ? word : word.slice(0, Math.max(4, word.length - 3)));
/**
 * Where a sentence names a tool (its name as a whole word, or its words in order with at most three words
 * between), or -1: `subscription_at` is not named inside `get_subscription_attribute`.
 */
export function mentionAt(sentence: string, tool: string): number {
  const exact = new RegExp(`(?<![A-Za-z0-9_])${tool.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_])`).exec(
    sentence,
  );
  if (exact) return exact.index;
  const words = tool
    .split('_')
    .filter(Boolean)
    .map((w) => w.replace(/[^a-z0-9]/g, ''));
  const phrase = new RegExp(`\\b${words.map((w) => `${stem(w)}[\\w']*`).join("(?:\\s+[\\w']+){0,3}?\\s+")}\\b`, 'i');
  return phrase.exec(sentence)?.index ?? -1;
}

/** The mandatory steps `text` states for `tools` (the first sentence that names each). */
export function statedRules(text: string, tools: readonly string[]): StatedRule[] {
  const out = new Map<string, StatedRule>();
  for (const sentence of sentencesOf(text)) {
    if (!MODAL.test(sentence)) continue;
    const named = tools.map((t) => [t, mentionAt(sentence, t)] as const).filter(([, i]) => i >= 0);
    const mentions = named.map(([, i]) => i);
    const at = new Map(named.filter(([, i]) => !permits(sentence, i, mentions)));
    for (const [tool, i] of at) {
      if (out.has(tool)) continue;
      out.set(tool, {
        tool,
        sentence,
        before: orderOf(
          sentence,
          tool,
          i,
          [...at.keys()].filter((t) => t !== tool),
        ),
      });
    }
  }
  return [...out.values()];
}

/** What `tool` must come before by this sentence: null where the sentence states no order with `tool` first. */
function orderOf(sentence: string, tool: string, at: number, others: string[]): StatedRule['before'] {
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
    const i = mentionAt(sentence, t);
    return opens
      ? inCondition(i) !== inCondition(at)
      : word === 'before' || word === 'prior to' || word === 'then'
        ? i > m.index
        : i < m.index;
  });
  return follows.length > 0 ? follows : null;
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

// How one sentence of a rule reads a tool it names, by the clause that names it: bound (a rule on the tool), allowed
// only (a permission governs nothing: redteam-trust18 R5), or the condition of a permission ("you can refund once
// verify_order has checked it": a rule that the condition comes first, redteam-trust20 T1); a negation is read by what
// it negates: the obligation lifted ("no requirement to", "is never required") allows, the permission denied ("not
// optional") binds, and the call negated ("no refund before", "never refund") binds (redteam-trust20 T6).

/** Words that allow a call, within one clause. */
const PERMIT = new RegExp(
  String.raw`\b(may|can|could|(?:allowed|permitted|free|welcome) to|feel free|it is (?:fine|ok|okay) to|up to you|` +
    String.raw`at (?:your|their) discretion|optional(?:ly)?)\b`,
  'i',
);
/** Words that bind a call (a prohibition or an obligation), within one clause. */
const BINDING = new RegExp(
  String.raw`\b(must|always|never|required?|requires|mandatory|needs? to|have to|has to|only|make sure|ensure|` +
    "shall|should|do not|don't|does not|doesn't|may not|might not|can ?not|can't|could not|couldn't|" +
    String.raw`not (?:be )?(?:allowed|permitted)|no)\b`,
  'i',
);
/** A negation, the few words that may stand between it and what it negates, and the words of an obligation. */
const NEG = String.raw`(?:no|not|never|nobody|no[- ]one|none|neither|nor|without|[a-z]+n['\u2019]t)`;
const FILL =
  '(?:(?:be|been|being|is|are|was|were|a|an|the|any|ever|strictly|really|actually|absolutely|' +
  String.raw`always|longer|more|real|such|formal|particular|one|it|this|that|so)\s+)`;
const NEED =
  '(?:require[ds]?|requirements?|needs?|needed|needing|necessary|necessity|mandatory|obligatory|' +
  'obliged|obligated|compulsory|essential|must|(?:have|has|had) to)';
const ALLOW = '(?:optional(?:ly)?|allowed|permitted|free to|up to you|(?:fine|ok|okay) to)';
/** What an obligation negated may still name ("no requirement other than X" requires X). */
const SAVE = String.raw`(?!\s+(?:other than|except|but|besides|save|apart from)\b)`;
/** An obligation negated ("no requirement", "is not needed", "nobody has to", "need not", "no scan is required"). */
const LIFTED = new RegExp(
  String.raw`\b${NEG}\s+${FILL}{0,3}${NEED}\b${SAVE}|\bneeds? not\b|\bneedn['\u2019]t\b|` +
    String.raw`\bno\s+(?:[\w'\u2019]+\s+){1,4}?(?:is|are)\s+(?:ever\s+)?(?:required|needed|necessary|mandatory)\b`,
  'gi',
);
/**
 * A dependence or a barrier negated ("do not depend on", "never wait for", "nothing stops you from", "need no"),
 * or a step made free at the end of its clause ("verified or not."): the step it governs is lifted like an
 * obligation (redteam-trust21 R5).
 */
const BARRIER =
  String.raw`(?:depend(?:s|ed|ing)?\s+(?:on|upon)|wait(?:s|ed|ing)?\s+(?:for|on)|hold(?:s|ing)?\s+(?:for|on)|` +
  String.raw`hinges?\s+on|rel(?:y|ies|ied|ying)\s+on|(?:gated|blocked|conditional|contingent)\s+(?:by|on|upon)|` +
  String.raw`blocks?|gates?|(?:stops?|prevents?|keeps?|bars?)\s+(?:you|them|agents?|the agent)\s+from)`;
const UNBARRED_BY_NAME = String.raw`\b(?:${NEG}|nothing)\s+${FILL}{0,3}${BARRIER}\b`;
const UNBARRED = new RegExp(String.raw`${UNBARRED_BY_NAME}|\b(?:needs?|requires?)\s+no\b`, 'gi');
/**
 * Whether a sentence lifts a step it names (an obligation or a dependence negated): what a scoped obligation exempts.
 * "needs no" lifts only the step of the sentence before ("cheaper orders need no check"); in a sentence naming tools
 * it describes an entity ("never drain a server that needs no patch"), and "booked or not" lifts nothing.
 */
export const liftsByName = (sentence: string): boolean =>
  new RegExp(LIFTED.source, 'i').test(sentence) || new RegExp(UNBARRED_BY_NAME, 'i').test(sentence);
/** A lift by name and the side its step stands on (redteam-s17 F5): see `liftsIn`. */
export interface Lift {
  from: number;
  to: number;
  /**
   * 'object': named after it; 'subject': named before it (or in it); 'itself' ("need to run"): before it, else after;
   * 'barred': after it, the first named aside.
   */
  side: 'object' | 'subject' | 'itself' | 'barred';
}
/** A copula, in or right before a lift: "X is not needed", "no X is required" (the step is the subject). */
const COPULA = /\b(?:is|are|was|were|be|been|being|isn['\u2019]t|aren['\u2019]t|wasn['\u2019]t|weren['\u2019]t)\b/i;
/** An obligation word that takes its step as its object ("need", "require", "must", "has to"). */
const ACTIVE = /\b(?:needs?|require[s]?|must|(?:have|has|had) to)\s*$/i;
/** A barrier whose subject is the step ("X does not block", "X never gates") or that bars what follows ("from"). */
const SUBJECT_BARRIER = /\b(?:blocks?|gates?)$/i;
const BARS = /\bfrom$/i;
/**
 * Where a sentence lifts a step by name, and where that step stands (redteam-s17 F5): a lift is about ONE step, the
 * one that stops being required, never the step whose precondition it was: the object of a negated dependence ("do
 * not depend on X", "need not X", "no need to X"), the subject of a negated state ("X is not needed for a refund", "no
 * X is required", "X does not block"), and beside the step a barrier bars ("nothing stops you from refunding before
 * X").
 */
export function liftsIn(sentence: string): Lift[] {
  const out: Lift[] = [];
  for (const m of sentence.matchAll(new RegExp(LIFTED.source, 'gi'))) {
    const [from, to] = [m.index, m.index + m[0].length];
    const before = sentence.slice(Math.max(0, from - 16), from);
    const passive =
      (COPULA.test(m[0]) || COPULA.test(before)) &&
      !ACTIVE.test(m[0]) &&
      !/^\s*(?:to|that)\b/i.test(sentence.slice(to));
    // "X does not need to run (be called, happen) before a refund": the step is the subject all the same.
    const itself = /^\s*(?:to\s+)?(?:be|run|happen|come|go|precede|occur|take place)\b/i.test(sentence.slice(to));
    out.push({ from, to, side: passive ? 'subject' : itself ? 'itself' : 'object' });
  }
  for (const m of sentence.matchAll(new RegExp(UNBARRED_BY_NAME, 'gi'))) {
    const [from, to] = [m.index, m.index + m[0].length];
    out.push({ from, to, side: SUBJECT_BARRIER.test(m[0]) ? 'subject' : BARS.test(m[0]) ? 'barred' : 'object' });
  }
  return out;
}
/** Whether a sentence lifts any step (liftsByName, or "needs no …"). */
export const liftsAny = (sentence: string): boolean =>
  liftsByName(sentence) || new RegExp(UNBARRED.source, 'i').test(sentence);
/** A permission negated ("not optional", "never up to you"): an obligation. */
const DENIED = new RegExp(String.raw`\b${NEG}\s+${FILL}{0,3}${ALLOW}\b`, 'gi');
/** A permission by the reader's wish ("if you like"): its "if" states no condition. */
const WISH = /\b(?:if|when(?:ever)?) (?:you|they) (?:like|wish|want)\b/gi;
/** The words that make what follows them a permission's condition ("once", "after", "provided"), not a concession. */
const CONDITION = new RegExp(
  String.raw`(?<!\b(?:even|or|also) )\b(?:once|after|when|whenever|if|provided|providing|as long as|so long as|` +
    String.raw`as soon as|upon|following|having)\b(?! or\b)`,
  'gi',
);
/** Where a sentence's clauses meet: punctuation and the words that join two statements. */
const CLAUSE = /[,;:()\u2014]|\s(?:but|while|whereas|although|though|unless|otherwise)\s/gi;

/** A clause as its negations read: an obligation lifted is a permission, a permission denied an obligation. */
export const normalized = (text: string): string =>
  text.replace(WISH, ' may ').replace(LIFTED, ' may ').replace(UNBARRED, ' may ').replace(DENIED, ' must ');

/** How a sentence reads one tool it names (see the module's sentence). */
export type Reading = 'bound' | 'allowed' | 'condition';

/** The clauses of a sentence, as [from, to) offsets. */
function clausesOf(sentence: string): [number, number][] {
  const cuts = [0];
  for (const m of sentence.matchAll(CLAUSE)) cuts.push(m.index, m.index + m[0].length);
  cuts.push(sentence.length);
  const clauses: [number, number][] = [];
  for (let i = 0; i < cuts.length; i += 2) clauses.push([cuts[i] as number, cuts[i + 1] as number]);
  return clauses;
}

/**
 * How `sentence` reads the tool it names at `at` (`mentions`: where it names tools). A tool's clause that holds a word
 * that allows and none that binds allows it, unless the tool is the permission's condition: the last word before it
 * that allows or conditions is a condition ("can refund once … verify_order"), or it is marked first after another
 * tool of its clause ("may refund with verify_order run first"). A clause naming no tool that binds binds the
 * permission ("can be refunded, but only after approval"; "may waitlist, but never book" binds only the booking).
 */
export function readingOf(sentence: string, at: number, mentions: readonly number[] = [at]): Reading {
  const clauses = clausesOf(sentence);
  const own = clauses.find(([from, to]) => at >= from && at < to);
  if (!own) return 'bound';
  const text = ([from, to]: [number, number]) => normalized(sentence.slice(from, to));
  if (!PERMIT.test(text(own)) || BINDING.test(text(own))) return 'bound';
  const head = normalized(sentence.slice(own[0], at));
  const markers = [...head.matchAll(new RegExp(`${PERMIT.source}|${CONDITION.source}`, 'gi'))];
  const last = markers.at(-1)?.[0] ?? '';
  const marked = /^\s*(?:[\w'\u2019]+\s+){0,2}?first\b/i.test(sentence.slice(at).replace(/^[\w.-]+/, ''));
  if (new RegExp(`^${CONDITION.source}$`, 'i').test(last) || (marked && mentions.some((i) => i >= own[0] && i < at)))
    return 'condition';
  const binds = clauses.some(
    ([from, to]) => BINDING.test(text([from, to])) && !mentions.some((i) => i >= from && i < to),
  );
  return binds ? 'bound' : 'allowed';
}

/** Whether `sentence` only allows the call of the tool it names at `at` (readingOf: 'allowed'). */
export const permits = (sentence: string, at: number, mentions: readonly number[] = [at]): boolean =>
  readingOf(sentence, at, mentions) === 'allowed';

/** Whether a sentence lifts an obligation or allows at all (what a sentence referring back may say of a step). */
export const allowsAny = (sentence: string): boolean => PERMIT.test(normalized(sentence));

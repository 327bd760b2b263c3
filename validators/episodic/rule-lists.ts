// How a rule spans sentences (redteam-trust21 R3, R4): a list or table under a heading that binds or orders is one
// statement ("Each order must go through these steps, in this order:" + "1. verify_order" + "2. refund" reads as
// "…: verify_order, then refund."), and an answer that opens on the question before ("If not, it cannot be
// refunded.", "No refund otherwise.") is about that question's step, bound where the answer binds. Numbers are a
// list's labels, not an order (redteam-s18e E1): items are steps only where the heading or the items say so.

/** A list item or table row: a number, a bullet or a pipe at the start of a line. */
const ITEM = /^\s*(?:\d+[.)]|[-*\u2022]|\|)/;
/** A table's separator row (| --- | :-: |). */
const SEPARATOR = /^\s*\|?[\s:|-]+\|?\s*$/;
/** A heading's own order words: its items go one after the other ("in order to", "in order of X" are none: E4). */
const ORDERED = new RegExp(
  String.raw`\b(?:in (?:this|that|the following|the given|the same) order|in order(?! (?:to|of)\b)|` +
    String.raw`in sequence|one after another)\b`,
  'i',
);
/** A heading whose items are steps: a process it names, or items each opening on what comes before. */
const STEPS =
  /\b(?:steps?|stages?|phases?|process|procedure|workflow|pipeline|sequence|checklist|go(?:es)? through|first)\b/i;
const THEN = /^(?:then|after(?:wards?)?|next|finally|last(?:ly)?|and then|once)\b/i;
/** A heading or items that say the items are alternatives: one of them applies, each on its own condition. */
const ALTERNATIVES =
  /\b(?:one of|one \(?and only one\)?|either|depending on|whichever|according to|based on)(?![A-Za-z])/i;
/** An item on its own condition ("escalate when it is urgent", "reassign - if not ours"). */
const CONDITIONED = /\b(?:when|if|unless|whenever)\b/i;

/** Whether items under `head` are steps, item k before item k+1. */
function sequenceOf(head: string, items: ReadonlyArray<{ text: string; numbered: boolean }>): boolean {
  if (ALTERNATIVES.test(head)) return false;
  if (items.length > 1 && items.every((x) => CONDITIONED.test(x.text))) return false;
  if (ORDERED.test(head)) return true;
  const numbered = items.length > 0 && items.every((x) => x.numbered);
  return (numbered && STEPS.test(head)) || items.slice(1).some((x) => THEN.test(x.text));
}

/** A heading that binds, or orders its items. */
const BINDS = new RegExp(
  String.raw`\b(?:must|always|never|required?|mandatory|needs? to|ha(?:ve|s) to|shall|should|make sure|ensure)\b|` +
    ORDERED.source,
  'i',
);

/** An item's words: its marker gone, a table row's cells joined, its closing stop gone. */
function itemText(line: string): { text: string; numbered: boolean } {
  const cells = line.includes('|')
    ? line
        .split('|')
        .map((c) => c.trim())
        .filter(Boolean)
    : [line.trim()];
  const joined = cells.join(' ');
  const numbered = /^\d+[.)]?(?:\s|$)/.test(joined);
  const text = joined.replace(/^(?:\d+[.)]?|[-*\u2022])\s*/, '').replace(/[.;,\s]+$/, '');
  return { text, numbered };
}

/**
 * `text` with each list or table under a heading that binds or orders (a line ending in ':') joined to it as one
 * line: steps (items under an order word, or numbered items under a process or opening on "then") joined by
 * ", then " (item k before item k+1); others, alternatives above all, by ", ".
 */
export function joinedLists(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const head = lines[i] as string;
    let j = i + 1;
    while (j < lines.length && ITEM.test(lines[j] as string)) j++;
    if (j - i < 3 || !/:\s*$/.test(head) || !BINDS.test(head)) {
      out.push(head);
      continue;
    }
    // A table's header row (the one before its separator) and the separator name no step.
    const rows = lines.slice(i + 1, j);
    const sep = rows.findIndex((r) => SEPARATOR.test(r));
    const items = rows
      .filter((_, k) => k !== sep && k !== sep - 1)
      .map(itemText)
      .filter((x) => x.text.length > 0);
    const ordered = sequenceOf(head, items);
    out.push(`${head.trim()} ${items.map((x) => x.text).join(ordered ? ', then ' : ', ')}.`);
    i = j - 1;
  }
  return out.join('\n');
}

/** An answer on the question's "no" ("If not", "If it is not", "Otherwise"); then the words of a prohibition. */
const ON_NO = new RegExp(
  String.raw`^(?:if\s+(?:not|no)\b|if\s+(?:it|they|this|that|so|the\s+\w+)\s+(?:[\w'\u2019]+\s+){0,3}?not\b|` +
    String.raw`if\s+(?:it|they|this|that|the\s+\w+)\s+\w+n['\u2019]t\b|otherwise\b)|\botherwise\b`,
  'i',
);
const REFUSES = /\b(?:no|not|never|cannot|can't|don't|won't|nothing|nobody)\b/i;
/** An answer on its "yes" ("If so", "Only then"), and the words that make it a permission or an obligation. */
const ON_YES = /^(?:if\s+(?:so|yes)\b|only\s+(?:then|if so)\b|then\s+and\s+only\s+then\b)/i;
const ALLOWS = /\b(?:may|can|must|only|allowed|permitted)\b/i;

/**
 * Where `sentence` answers the question `prev` asks (a sentence ending in "?"), binding its step: an answer on the
 * "no" that refuses, or on the "yes" that allows; -1 where it does not.
 */
export function answerAt(prev: string, sentence: string): number {
  if (!/\?["')\s]*$/.test(prev)) return -1;
  const no = ON_NO.exec(sentence);
  if (no && REFUSES.test(sentence.replace(no[0], ''))) return no.index;
  const yes = ON_YES.exec(sentence);
  return yes && ALLOWS.test(sentence) ? yes.index : -1;
}

// A number caps one call of a tool only where the text binds it to that tool's value (redteam-s20e S6, S7): the
// number's clause names the tool (or, naming none, the nearest clause before it that names one does; naming none at
// all, the text is the tool's own), and its words bound the value from above ("no single refund may be over $200",
// "at most $300 a withdrawal", "refunds larger than $200 must be split": redteam-s21e T1); a threshold ("$150 or
// more", "orders over $150"), a limit per another unit (cap-units.ts: "$200 per item", "no item ... more than $200"
// where the world shows items; "a day": T6, redteam-s22e U8) is no cap, and a clause that exempts
// the tool ("of any size", "no limit") states the opposite of one, whatever number its sentence holds.
import { type CapWorld, perOtherUnit } from './cap-units.js';
import { joinThousands, tokensOf } from './probes.js';
import { mentionAt, sentencesOf } from './stated-rules.js';

/** A stated cap on one call: the number and the sentence stating it. */
export interface StatedCap {
  n: number;
  sentence: string;
}

/** The numbers a text states: a list's labels ("1.", "2)") at a line's start are no number of it. */
export const numbersOf = (text: string) =>
  tokensOf(text.replace(/^\s*\d+[.)](?=\s)/gm, ''))
    .map(Number)
    .filter((n) => Number.isFinite(n));

/** Where a clause ends: a comma, a colon, a semicolon, a bracket, a dash, or a contrasting conjunction. */
const CLAUSE = /[,;:()\u2014]|\b(?:but|while|whereas|although|though|except|unlike)\b/i;
/** Words bounding the number that follows (no other number between): an upper bound, or a negated "over". */
const UPPER_BEFORE = new RegExp(
  String.raw`(?:\b(?:at most|up to|no more than|not more than|maximum(?: of)?|max|limit(?:ed|s)?|caps?|capped|` +
    String.raw`under|below|less than|within|tops? out at|topped out at|` +
    String.raw`the most (?:a|an|one|any)\b[^\d]*\b(?:is|are))|` +
    String.raw`(?:\b(?:not?|never|nothing|none|cannot)|n't)\b[^\d]*\b(?:over|above|` +
    String.raw`more than|greater than|larger than|bigger than|exceed\w*|beyond|past))\b[^\d]*$`,
  'i',
);
/** Words bounding the number just before them ("100 at most", "$50 max", "200 or less", "$200 per refund"). */
const UPPER_AFTER =
  /^[^\d,;:.]{0,20}?\b(?:at most|or less|or fewer|or under|or below|max(?:imum)?|at the (?:very )?most|tops)\b/i;
/** A superlative naming the bound before the number ("the largest refund the till allows is $200"). */
const SUPERLATIVE = /\b(?:largest|biggest|highest|ceiling)\b[^\d]*$/i;
/** An unnegated comparison just before the number, and the words before it ("Refunds larger than $200 ..."). */
const COMPARED = new RegExp(
  String.raw`([\w']+)(?:\s+(?:amounts?|sums?|values?|sizes?))?` +
    String.raw`(?:\s+(?:is|are|of|that is|which is|(?:may|must|can) be))?` +
    String.raw`\s+(?:over|above|more than|greater than|larger than|bigger than|exceed\w*|beyond)\s*\$?$`,
  'i',
);
/** A clause that exempts what it names from any cap. */
const EXEMPT = new RegExp(
  String.raw`\b(?:of any (?:size|amount|value|sum)|in any amount|any amount|no (?:limit|cap|maximum|max)|unlimited|` +
    String.raw`without (?:a |any )?(?:limit|cap|maximum))\b`,
  'i',
);

/** The tools a clause names (those of `tools`), by identifier or their words in order. */
const namedIn = (clause: string, tools: readonly string[]) => tools.filter((t) => mentionAt(clause, t) >= 0);

/**
 * Each clause of a sentence with the tools it binds: those it names, else those of the nearest clause before it that
 * names one, else (a clause before any) of the first that does, else (a sentence naming none) `own`.
 */
function boundClauses(sentence: string, tools: readonly string[], own: string) {
  const clauses = sentence.split(CLAUSE).filter((c) => c !== undefined && c.trim().length > 0);
  const named = clauses.map((c) => namedIn(c, tools));
  const first = named.findIndex((n) => n.length > 0);
  let from = Math.max(first, 0);
  return clauses.map((clause, k) => {
    if ((named[k] ?? []).length > 0) from = k;
    const bound = first < 0 ? [own] : (named[from] as string[]);
    return { clause, stretch: clauses.slice(Math.min(from, k), k + 1).join(', '), tools: bound };
  });
}

/**
 * Whether the number `token` of `clause` (its stretch from the binding clause) bounds one call of `tool` from above:
 * words bounding it (listed, a superlative, or an unnegated comparison of the tool's own value: "Refunds larger than
 * $200 must be split", redteam-s21e T1), and no unit the clause quantifies is another than the call (cap-units.ts:
 * "at most $200 per item" bounds an item where the world shows items, T6; "per transfer" is the refund's medium, U4).
 */
function upperAt(stretch: string, clause: string, token: string, tool: string, world?: CapWorld): boolean {
  const m = new RegExp(`(?<![\\w.])\\$?${token.replace(/\./g, '\\.')}(?![\\w])`).exec(clause);
  if (!m) return false;
  const before = stretch.slice(0, stretch.length - clause.length + m.index);
  const after = clause.slice(m.index + m[0].length);
  if (perOtherUnit(clause, tool, world)) return false;
  const compared = COMPARED.exec(before)?.[1];
  return (
    UPPER_BEFORE.test(before) ||
    UPPER_AFTER.test(after) ||
    SUPERLATIVE.test(before) ||
    (compared !== undefined && mentionAt(compared, tool) >= 0)
  );
}

/**
 * The caps on one call of `tool` that `text` states (its sentences, each naming the tool or the tool's own), in order;
 * none where a clause bound to the tool exempts it. `tools`: every tool's name, each clause bound to those it names;
 * `world`: what the tool's own texts and the rest of the world name (cap-units.ts `capWorld`).
 */
export function statedCaps(
  text: string,
  tool: string,
  tools: readonly string[] = [tool],
  world?: CapWorld,
): StatedCap[] {
  const all = tools.includes(tool) ? tools : [...tools, tool];
  const caps: StatedCap[] = [];
  for (const sentence of sentencesOf(text)) {
    for (const { clause, stretch, tools: bound } of boundClauses(joinThousands(sentence), all, tool)) {
      if (!bound.includes(tool)) continue;
      if (EXEMPT.test(clause)) return [];
      for (const token of new Set(tokensOf(clause.replace(/^\s*\d+[.)](?=\s)/gm, '')))) {
        const n = Number(token);
        if (Number.isFinite(n) && upperAt(stretch, clause, token, tool, world)) caps.push({ n, sentence });
      }
    }
  }
  return caps;
}

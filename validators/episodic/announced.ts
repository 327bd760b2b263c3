// Whether the texts direct the agent to send a figure as a tool shows it: a sentence that sends (the sending tool's
// verb), says the figure is as its source shows it (a clause with a word of showing and the source's name or object:
// 'as read_invoice shows it', 'as printed on the invoice': redteam-s23e V7, redteam-s24e W4), and names the figure by
// its OWN words -- words of its description that no other number of the same reply is printed by (redteam-s24e W1:
// 'Net price after the fee' is not named by 'price', the word the texts give its input). A figure a tool prints beyond
// what its texts direct (a refundable amount beside the price: redteam-s21e T3, redteam-s23e V1, V2, V10, V11) is the
// world doing the agent's work, never directed, however the texts word the rule.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { copySources, type CopyRule } from './copies.js';
import { tokensOf } from './probes.js';
import { textsOf } from './told.js';

/** Words too common to name a figure. */
const COMMON = new Set(['with', 'from', 'that', 'this', 'each', 'their', 'them', 'your', 'into', 'than', 'then']);
const wordsOf = (text: string) =>
  tokensOf(text)
    .map((t) => t.toLowerCase())
    .filter((w) => w.length >= 4 && /^[a-z]+$/.test(w) && !COMMON.has(w));
/** Words saying a figure is as a source shows it ('as the invoice shows it', 'as printed on', 'as listed'). */
const SHOWING = /^(?:show|shows|shown|print|prints|printed|list|lists|listed|display|displays|displayed|quote[sd]?)$/;
const partsOf = (name: string) =>
  name
    .toLowerCase()
    .split(/[_\W]+/)
    .filter((w) => w.length >= 3);

/**
 * The sentences of the texts that direct sending a figure of `rule.from` as shown: a word of sending (the first word
 * of `rule.tool`'s name or of its description, a prefix: 'refunded') and a clause naming the source as what shows
 * it (`rule.from` itself, or a word of its name past its verb: 'invoice' of read_invoice).
 */
function directions(texts: readonly string[], rule: CopyRule, meta: EpisodicMeta | undefined): string[][] {
  const describe = (name: string) => meta?.tools?.find((t) => t.name === name)?.description ?? '';
  const sends = [partsOf(rule.tool)[0], partsOf(describe(rule.tool))[0]].filter((w): w is string => !!w);
  const from = partsOf(rule.from);
  const objects = new Set(from.length > 1 ? from.slice(1) : from);
  const showsSource = (clause: string) => {
    const words = tokensOf(clause).map((t) => t.toLowerCase());
    return words.some((w) => SHOWING.test(w)) && (clause.includes(rule.from) || words.some((w) => objects.has(w)));
  };
  return texts
    .flatMap((t) => t.split(/(?<=[.!?])\s+|\n+/))
    .filter((s) => s.split(/[,;:()]+/).some(showsSource))
    .map((s) => tokensOf(s).map((t) => t.toLowerCase()))
    .filter((words) => words.some((w) => sends.some((v) => w.startsWith(v))));
}

/**
 * Whether the references' copies by `rule` are figures the texts direct the agent to send as shown (`directions`):
 * such a sentence holds one of the figure's own words -- a word printed before it, said by the source's description,
 * that no other number of the reply is printed by, nor a tool's name -- in at least half the copies.
 */
export function announcedCopy(refs: readonly Rollout[], rule: CopyRule, meta: EpisodicMeta | undefined): boolean {
  const own = new Set(wordsOf(meta?.tools?.find((t) => t.name === rule.from)?.description ?? ''));
  const names = new Set([rule.from, rule.tool].flatMap(partsOf));
  let copies = 0;
  let named = 0;
  for (const r of refs) {
    const said = directions(textsOf(r, meta), rule, meta);
    for (const source of copySources(r, r.observations ?? [], rule)) {
      if (!source) continue;
      copies++;
      const others = new Set(source.phrases.filter((_, i) => i !== source.at).flat());
      const figure = source.phrase.filter((w) => own.has(w) && !others.has(w) && !names.has(w));
      if (said.some((words) => figure.some((w) => words.includes(w)))) named++;
    }
  }
  return copies > 0 && named * 2 >= copies;
}

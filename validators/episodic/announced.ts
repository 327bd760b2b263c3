// Whether the texts direct the agent to copy a figure a tool shows: the words the reply prints the copied figure by
// name what the source tool's own description says it shows AND a sentence of the texts that names the source tool
// (redteam-s23e V7: 'its total, as read_invoice shows it'; read_invoice 'shows ... total with tax'). A figure a tool
// prints beyond what its texts say it shows (a refundable amount beside the price: redteam-s21e T3, redteam-s23e V1,
// V2, V10, V11) is the world doing the agent's work, never directed, however the texts word the rule.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { copySources, type CopyRule } from './copies.js';
import { tokensOf } from './probes.js';
import { textsOf } from './told.js';

/** Words too common to name a figure, and tools' own names (a tool's word is the call, not what it shows). */
const COMMON = new Set(['with', 'from', 'that', 'this', 'each', 'their', 'them', 'your', 'into', 'than', 'then']);
const wordsOf = (text: string) =>
  tokensOf(text)
    .map((t) => t.toLowerCase())
    .filter((w) => w.length >= 4 && /^[a-z]+$/.test(w) && !COMMON.has(w));

/**
 * The words the texts give a figure `rule.from` shows: those of its own description that a sentence of the texts
 * naming the tool also says, the tools' names aside.
 */
function announced(texts: readonly string[], rule: CopyRule, meta: EpisodicMeta | undefined): Set<string> {
  const own = new Set(wordsOf(meta?.tools?.find((t) => t.name === rule.from)?.description ?? ''));
  const naming = texts.flatMap((t) => t.split(/[.!?\n]+/)).filter((s) => s.includes(rule.from));
  const names = new Set([rule.from, rule.tool].flatMap((n) => n.toLowerCase().split(/[_\W]+/)));
  return new Set(naming.flatMap(wordsOf).filter((w) => own.has(w) && !names.has(w)));
}

/**
 * Whether the references' copies by `rule` are figures the texts direct the agent to (`announced`): the words
 * printed before the copied number name one of them in at least half the copies.
 */
export function announcedCopy(refs: readonly Rollout[], rule: CopyRule, meta: EpisodicMeta | undefined): boolean {
  let copies = 0;
  let named = 0;
  for (const r of refs) {
    const words = announced(textsOf(r, meta), rule, meta);
    for (const source of copySources(r, r.observations ?? [], rule)) {
      if (!source) continue;
      copies++;
      if (source.phrase.some((w) => words.has(w))) named++;
    }
  }
  return copies > 0 && named * 2 >= copies;
}

// Leaks by the prompt's structure (FINDINGS-rt4 R18): the prompt's lists are parsed (runs of bulleted,
// numbered, table or plain lines; comma-separated lists inside a sentence), and a reading rule takes the item at
// a rank (from the start or the end) of one list, at a token offset inside the item. A generator that prints its
// items in the order it computed ("sorted by distance, so the farthest is last") leaks the answer at a place
// that word indices miss, as notes of random length move it. Rules are fitted on half the instances of each
// level and measured on the other half, against chance (another instance's answer read by the same rule).
import { answerContent } from '../sandbox/answer.js';
import { tokenize } from './answers.js';
import type { Leak, LeakSample } from './leak.js';

const RANKS = 12;
const LISTS = 3;
const OFFSETS = [0, 1, 2, 3, -1, -2]; // from the item's start; negative: the answer ends that many tokens from its end
const MAX_ANSWER_TOKENS = 6;
const MARKER = /^\s*(?:[-*\u2022+]|\d{1,3}[.)]|[A-Za-z][.)]|\(\w{1,3}\)|\|)\s*/;
const lower = (text: string) => tokenize(text.slice(0, 2_000), 200).map((t) => t.toLowerCase());

/** The prompt's lists, in order, each a list of items as lowercase tokens: runs of two or more lines of one shape, and inline lists of three or more. */
export function promptLists(prompt: string, max = 40): string[][][] {
  const lines = prompt.slice(0, 50_000).split('\n').slice(0, 2_000);
  const lists: Array<{ at: number; items: string[][] }> = [];
  let run: string[] = [];
  let kind: string | null = null;
  const flush = (at: number) => {
    // Plain lines make a list from three on (two may be a sentence and a question); marked lines from two.
    if (run.length >= (kind === 'plain' ? 3 : 2)) lists.push({ at: at - run.length, items: run.map((l) => lower(l.replace(MARKER, ''))) });
    run = [];
  };
  lines.forEach((line, i) => {
    if (/^[\s|:-]+$/.test(line) && line.trim() !== '') return; // a table's rule line
    const s = line.trim() === '' ? null : (MARKER.exec(line)?.[0].trim().replace(/\d+|[A-Za-z]/g, '#') ?? 'plain');
    if (s !== kind) flush(i);
    kind = s;
    if (s !== null) run.push(line);
    // A list inside a sentence: the part after its last colon, split on commas or semicolons (and a final "and").
    for (const sentence of line.split(/(?<=[.?!])\s+/)) {
      const parts = (sentence.split(':').at(-1) ?? '').split(/\s*[,;]\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+/).map((p) => p.replace(/[.?!]+$/, '').trim()).filter(Boolean);
      if (parts.length >= 3) lists.push({ at: i, items: parts.map(lower) });
    }
  });
  flush(lines.length);
  return lists.sort((a, b) => a.at - b.at).map((l) => l.items.filter((t) => t.length > 0)).filter((l) => l.length >= 2).slice(0, max);
}

/** A rule: the list (from the start or the end), the item's rank in it (from the start or the end), the token offset in the item. */
interface Rule {
  list: number;
  item: number;
  offset: number;
}
const pick = <T>(xs: T[], k: number): T | undefined => (k >= 0 ? xs[k] : xs[xs.length + k]);
const ranks = (n: number, cap: number) => [...Array.from({ length: Math.min(n, cap) }, (_, k) => k), ...Array.from({ length: Math.min(n, cap) }, (_, k) => -1 - k)];
/** The tokens a rule reads for an answer of `m` tokens, or undefined where the prompt lacks the place. */
function read(rule: Rule, lists: string[][][], m: number): string | undefined {
  const item = pick(pick(lists, rule.list) ?? [], rule.item);
  if (!item) return undefined;
  const start = rule.offset >= 0 ? rule.offset : item.length + rule.offset + 1 - m;
  return start < 0 || start + m > item.length ? undefined : item.slice(start, start + m).join(' ');
}
const name = (r: Rule) =>
  `the ${r.item >= 0 ? `item ${r.item + 1}` : r.item === -1 ? 'last item' : `item ${-r.item} from the end`} of the prompt's ${r.list >= 0 ? `list ${r.list + 1}` : r.list === -1 ? 'last list' : `list ${-r.list} from the end`}, ${r.offset >= 0 ? `from its token ${r.offset + 1}` : `ending ${-r.offset - 1} tokens before its end`}`;

/** Every rule that reads `answer` (its tokens) off these lists. */
function hitsOf(lists: string[][][], answer: string[]): Rule[] {
  const out: Rule[] = [];
  const want = answer.join(' ');
  for (const list of ranks(lists.length, LISTS)) {
    const items = pick(lists, list) ?? [];
    for (const item of ranks(items.length, RANKS)) for (const offset of OFFSETS) if (read({ list, item, offset }, lists, answer.length) === want) out.push({ list, item, offset });
  }
  return out;
}

/** The strongest structural reading rule, fitted on one half of each level's instances and measured on the other, overall and at any one level. */
export function listLeak(episodes: LeakSample[], minRate: number, minLevelSamples: number): { overall: Leak | null; level: Leak | null } {
  const verdict: { overall: Leak | null; level: Leak | null } = { overall: null, level: null };
  const answers = episodes.map((e) => lower(answerContent(e.reference)));
  const usable = answers.map((a) => a.length > 0 && a.length <= MAX_ANSWER_TOKENS);
  if (usable.filter(Boolean).length < 0.8 * episodes.length) return verdict;
  const lists = episodes.map((e, i) => (usable[i] ? promptLists(e.instance.prompt) : []));
  const levels = new Map<number, number[]>();
  episodes.forEach((e, i) => levels.set(e.level, [...(levels.get(e.level) ?? []), i]));
  const fit = [...levels.values()].flatMap((m) => m.filter((_, k) => k % 2 === 0));
  const test = new Map([...levels].map(([level, m]) => [level, m.filter((_, k) => k % 2 === 1)] as const));
  // Fitting: the rules that read the answer in at least `minRate` of the fitting half, overall or at one level.
  const counts = new Map<string, { rule: Rule; hits: Map<number, number> }>();
  for (const i of fit) for (const rule of usable[i] ? hitsOf(lists[i] as string[][][], answers[i] as string[]) : []) {
    const key = JSON.stringify(rule);
    const c = counts.get(key) ?? { rule, hits: new Map<number, number>() };
    const level = (episodes[i] as LeakSample).level;
    counts.set(key, { rule, hits: c.hits.set(level, (c.hits.get(level) ?? 0) + 1) });
  }
  const fitted = (hits: Map<number, number>) => [...hits.values()].reduce((x, y) => x + y, 0) >= minRate * fit.length || [...hits].some(([level, h]) => h >= minRate * Math.ceil((levels.get(level) as number[]).length / 2));
  const keep = (slot: 'overall' | 'level', leak: Leak) => {
    const old = verdict[slot];
    if (!old || leak.rate - leak.chance > old.rate - old.chance) verdict[slot] = leak;
  };
  const joined = (i: number) => (answers[i] as string[]).join(' ');
  const reads = (rule: Rule, n: number, o: number) => read(rule, lists[n] as string[][][], (answers[o] as string[]).length) === joined(o);
  for (const { rule, hits } of counts.values()) {
    if (!fitted(hits)) continue;
    let [allHits, allChance, all] = [0, 0, 0];
    const shown: Leak['examples'] = [];
    for (const [level, members] of test) {
      let [h, chance] = [0, 0];
      const examples: Leak['examples'] = [];
      members.forEach((n, at) => {
        if (!usable[n]) return;
        if (reads(rule, n, n)) {
          h++;
          if (examples.length < 2) examples.push({ seed: (episodes[n] as LeakSample).seed, level, answer: answerContent((episodes[n] as LeakSample).reference).slice(0, 80) });
        }
        // Chance: the same rule on this prompt against up to three other instances' answers at the level.
        const others = [1, 2, 3].slice(0, Math.max(0, members.length - 1)).map((k) => members[(at + k) % members.length] as number).filter((o) => usable[o]);
        for (const o of others) if (joined(n) === joined(o) || reads(rule, n, o)) chance += 1 / others.length;
      });
      [allHits, allChance, all] = [allHits + h, allChance + chance, all + members.length];
      shown.push(...examples.slice(0, 2 - shown.length));
      if (members.length >= minLevelSamples) keep('level', { rule: `the answer is ${name(rule)}`, rate: h / members.length, chance: chance / members.length, level, examples });
    }
    if (all > 0) keep('overall', { rule: `the answer is ${name(rule)}`, rate: allHits / all, chance: allChance / all, examples: shown });
  }
  return verdict;
}

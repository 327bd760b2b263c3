// Gates of the learned readers (readers.ts): the parts of a sample a policy can tell apart from the prompt alone
// (the prompts with or without a word, with or without a line of one layout, of one line count, of at most or more
// than k lines, numbers or words: a count's threshold), each a scope in
// which a reader's rule is fitted on half and judged on the other half like a level, so a leak confined to one
// prompt shape is judged on that shape instead of diluted by the others.
import { lowerBound } from './stats.js';

/** A scope of samples named by a prompt feature: the indices of the samples it holds. */
export interface Gate {
  describe: string;
  members: readonly number[];
}

export interface GateOptions {
  /** A gate holds at least this share of the sample, and leaves out at least as much (else it is the pool). */
  minShare: number;
  /** Standard errors of the lower bound a gated rule is fitted by (the bound it is judged at). */
  z: number;
}

const MAX_FEATURES = 400; // per prompt
const MAX_GATES = 600;
const MAX_TEXT = 20_000;
/** Thresholds a count is cut at (its distinct values, or as many quantiles), and gates they may add past MAX_GATES. */
const MAX_CUTS = 16;
const MAX_COUNT_GATES = 96;

/** The cheap counts of a prompt a policy reads without solving: its lines, its numbers and its words. */
const COUNTS: Array<[name: string, count: (text: string) => number]> = [
  ['lines', (text) => text.split('\n').length],
  ['numbers', (text) => (text.match(/\d+(?:[.,]\d+)?/g) ?? []).length],
  ['words', (text) => (text.match(/\p{L}+/gu) ?? []).length],
];

/** A line's layout: runs of letters "a", runs of digits "#", spaces collapsed, other printable ASCII kept. */
export function lineLayout(line: string): string {
  return line
    .slice(0, 200)
    .replace(/\p{L}+/gu, 'a')
    .replace(/\p{N}+/gu, '#')
    .replace(/[^\x21-\x7e]+/g, (m) => (/^\s+$/.test(m) ? ' ' : '?'))
    .trim();
}

const cut = (text: string) => (text.length > 60 ? `${text.slice(0, 59)}…` : text);

/** The binary features of a prompt a policy can read without solving anything, each with its description. */
function promptFeatures(prompt: string): Map<string, string> {
  const text = prompt.slice(0, MAX_TEXT);
  const out = new Map<string, string>();
  const add = (key: string, describe: string) => {
    if (out.size < MAX_FEATURES && !out.has(key)) out.set(key, describe);
  };
  const lines = text.split('\n');
  add(`n:${lines.length}`, `a line count of ${lines.length}`);
  for (const m of text.toLowerCase().matchAll(/\p{L}{1,24}/gu)) add(`w:${m[0]}`, `the word ${JSON.stringify(m[0])}`);
  for (const line of lines) {
    const layout = lineLayout(line);
    if (layout) add(`l:${layout}`, `a line laid out ${JSON.stringify(cut(layout))}`);
  }
  return out;
}

/**
 * The gates of a sample: every prompt feature's presence and absence holding between `minShare` and `1 - minShare`
 * of the samples, one gate per set of members (the first feature met names it, presence before absence).
 */
export function promptGates(prompts: readonly string[], minShare: number): Gate[] {
  const n = prompts.length;
  const holders = new Map<string, { describe: string; members: number[] }>();
  prompts.forEach((prompt, i) => {
    for (const [key, describe] of promptFeatures(prompt)) {
      const h = holders.get(key);
      if (h) h.members.push(i);
      else holders.set(key, { describe, members: [i] });
    }
  });
  const low = Math.max(1, Math.ceil(minShare * n));
  const seen = new Set<string>();
  const gates: Gate[] = [];
  const offer = (describe: string, members: number[], cap = MAX_GATES) => {
    if (members.length < low || n - members.length < low || gates.length >= cap) return;
    const id = members.join(',');
    if (seen.has(id)) return;
    seen.add(id);
    gates.push({ describe, members });
  };
  // A feature held by too few or too many prompts makes no gate either way; presence first, so a set of prompts is
  // named by a feature they show where one does.
  const fit = [...holders.values()].filter((h) => h.members.length >= low && n - h.members.length >= low);
  for (const { describe, members } of fit) offer(`the prompts with ${describe}`, members);
  for (const { describe, members } of fit) {
    const has = new Set(members);
    offer(
      `the prompts without ${describe}`,
      prompts.map((_, i) => i).filter((i) => !has.has(i)),
    );
  }
  // The counts' thresholds last, with room of their own: they never displace a feature's gate.
  const cap = Math.min(gates.length, MAX_GATES) + MAX_COUNT_GATES;
  for (const { describe, members } of countGates(prompts)) offer(describe, members as number[], cap);
  return gates;
}

/**
 * A count's thresholds as gates (redteam-st21 U2, "at most 11 lines"): the prompts of at most k and of more than k,
 * for k among the count's values (at most MAX_CUTS of them, spread as quantiles).
 */
function countGates(prompts: readonly string[]): Gate[] {
  const out: Gate[] = [];
  for (const [name, count] of COUNTS) {
    const values = prompts.map((p) => count(p.slice(0, MAX_TEXT)));
    const distinct = [...new Set(values)].sort((a, b) => a - b).slice(0, -1);
    const step = Math.max(1, distinct.length / MAX_CUTS);
    for (let c = 0; c < distinct.length; c += step) {
      const k = distinct[Math.floor(c)] as number;
      const low = values.flatMap((v, i) => (v <= k ? [i] : []));
      const high = values.flatMap((v, i) => (v > k ? [i] : []));
      out.push({ describe: `the prompts of at most ${k} ${name}`, members: low });
      out.push({ describe: `the prompts of more than ${k} ${name}`, members: high });
    }
  }
  return out;
}

/**
 * The gated rule fitted on `members` (one half of the sample): the gate and rule whose credit over the gate's
 * members in that half has the highest lower bound; a gate holding fewer than `minMembers` there is not fitted.
 */
export function fitGatedRule(
  gates: readonly Gate[],
  members: readonly number[],
  fit: (i: number) => Iterable<[string, number]>,
  minMembers: number,
  z: number,
  task?: (rule: string) => boolean,
): { gate: Gate; rule: string } | null {
  const inHalf = new Set(members);
  const sizes = gates.map((g) => g.members.filter((i) => inHalf.has(i)).length);
  const gatesOf = new Map<number, number[]>();
  gates.forEach((g, k) => {
    if ((sizes[k] as number) < minMembers) return;
    for (const i of g.members) if (inHalf.has(i)) gatesOf.set(i, [...(gatesOf.get(i) ?? []), k]);
  });
  // A rule that earns less than half the smallest gate over the whole half leads no gate: not counted per gate.
  const total = new Map<string, number>();
  for (const i of members) for (const [rule, c] of fit(i)) total.set(rule, (total.get(rule) ?? 0) + c);
  const credit = new Map<number, Map<string, number>>();
  for (const i of members)
    for (const [rule, c] of fit(i)) {
      if ((total.get(rule) as number) < minMembers / 2) continue;
      for (const k of gatesOf.get(i) ?? []) {
        const byRule = credit.get(k) ?? (credit.set(k, new Map()).get(k) as Map<string, number>);
        byRule.set(rule, (byRule.get(rule) ?? 0) + c);
      }
    }
  let best: { gate: Gate; rule: string } | null = null;
  let top = 0;
  for (const [k, byRule] of credit)
    for (const [rule, c] of byRule) {
      const size = sizes[k] as number;
      const bound = lowerBound(Math.min(1, c / size), size, z);
      if (bound > top && !task?.(rule)) [best, top] = [{ gate: gates[k] as Gate, rule }, bound];
    }
  return best;
}

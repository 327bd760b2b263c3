// Leaks by trivial arithmetic or formatting: the prompt's numbers are read with their formats normalised
// (thousands separators of any kind, digits spelled one by one as in "4-0-9-3"), and simple relations of
// them at fixed places (a number itself, ±1, ×k, ÷k, the sum, difference or midpoint of two) are tested as
// reading rules. A relation is a leak when it gives the answer far more often than it gives another
// instance's answer at the same level (chance), as leak.ts judges its encodings. Scaled and two-number
// relations count only in prompts with four numbers or more ("a + b" alone is the task, not a leak).
import { answerContent } from '../sandbox/answer.js';
import type { Leak, LeakSample } from './leak.js';

const ANSWER = /^[+-]?\d+(\.\d+)?$/;
const PLACES = 10;

/** The prompt's numbers in order, thousands separators (",", "_", "'", thin and no-break spaces) removed. */
export function promptNumbers(prompt: string, max = 2_000): number[] {
  const out: number[] = [];
  const text = prompt.length > 50_000 ? prompt.slice(0, 50_000) : prompt;
  for (const m of text.matchAll(/(?<![\w.])([+-]?)(\d{1,3}(?:[,_'\u202f\u00a0]\d{3})+|\d+)(\.\d+)?(?![\w])/g)) {
    out.push(Number(`${m[1]}${(m[2] as string).replace(/[^\d]/g, '')}${m[3] ?? ''}`));
    if (out.length >= max) break;
  }
  return out;
}

/** Runs of single digits joined by one separator ("4-0-9-3", "4 0 9 3", "4.0.9.3"), read as one number each. */
export function digitRuns(prompt: string, max = 200): number[] {
  const out: number[] = [];
  const text = prompt.length > 50_000 ? prompt.slice(0, 50_000) : prompt;
  for (const m of text.matchAll(/(?<![\w.-])\d(?:[-_. ]\d){2,17}(?![\w-])/g)) {
    out.push(Number(m[0].replace(/[^\d]/g, '')));
    if (out.length >= max) break;
  }
  return out;
}

/** Places a rule reads: the k-th number from the start and from the end (both names, so a rule names one place whatever the count). */
function places(n: number): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (let k = 0; k < Math.min(PLACES, n); k++) out.push([`the ${k + 1}. number`, k], [`the ${k + 1}. number from the end`, n - 1 - k]);
  return out;
}

/** Every rule's value on one prompt's numbers, by rule name. */
function ruleValues(nums: number[], runs: number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, i] of places(runs.length)) out.set(`${name.replace('number', 'run of single digits')}, joined`, runs[i] as number);
  const at = places(nums.length);
  for (const [name, i] of at) {
    const a = nums[i] as number;
    out.set(name, a);
    out.set(`${name} + 1`, a + 1);
    out.set(`${name} - 1`, a - 1);
  }
  if (nums.length < 4) return out;
  for (const [name, i] of at) {
    for (let k = 2; k <= 10; k++) {
      out.set(`${name} divided by ${k}`, (nums[i] as number) / k);
      out.set(`${name} times ${k}`, (nums[i] as number) * k);
    }
  }
  for (const [x, i] of at) {
    for (const [y, j] of at) {
      if (j <= i) continue;
      const [a, b] = [nums[i] as number, nums[j] as number];
      out.set(`${x} + ${y}`, a + b);
      out.set(`${x} - ${y}`, a - b);
      out.set(`${y} - ${x}`, b - a);
      out.set(`the midpoint of ${x} and ${y}`, (a + b) / 2);
    }
  }
  return out;
}

const same = (v: number, answer: number) => Math.abs(v - answer) <= 1e-9 * Math.max(1, Math.abs(answer));

/** The strongest arithmetic reading rule, over all instances and at any one level (by excess over chance). */
export function derivedLeak(episodes: LeakSample[], minRate: number, minLevelSamples: number): { overall: Leak | null; level: Leak | null } {
  const answers = episodes.map((e) => {
    const a = answerContent(e.reference).trim();
    return ANSWER.test(a) && a.length <= 15 ? Number(a) : null;
  });
  const verdict: { overall: Leak | null; level: Leak | null } = { overall: null, level: null };
  if (answers.filter((a) => a !== null).length < 0.8 * episodes.length) return verdict;
  const values = episodes.map((e, i) => (answers[i] === null ? new Map<string, number>() : ruleValues(promptNumbers(e.instance.prompt), digitRuns(e.instance.prompt))));
  const levels = new Map<number, number[]>();
  episodes.forEach((e, i) => levels.set(e.level, [...(levels.get(e.level) ?? []), i]));
  const hits = new Map<string, Map<number, number>>();
  episodes.forEach((e, i) => {
    const answer = answers[i];
    if (answer === null || answer === undefined) return;
    for (const [rule, v] of values[i] as Map<string, number>) {
      if (!same(v, answer)) continue;
      const h = hits.get(rule) ?? new Map<number, number>();
      h.set(e.level, (h.get(e.level) ?? 0) + 1);
      hits.set(rule, h);
    }
  });
  const keep = (slot: 'overall' | 'level', leak: Leak) => {
    const old = verdict[slot];
    if (!old || leak.rate - leak.chance > old.rate - old.chance) verdict[slot] = leak;
  };
  for (const [rule, byLevel] of hits) {
    const total = [...byLevel.values()].reduce((a, b) => a + b, 0);
    if (total < minRate * episodes.length && ![...byLevel].some(([level, h]) => h >= minRate * (levels.get(level) as number[]).length)) continue;
    let allHits = 0;
    let allChance = 0;
    for (const [level, members] of levels) {
      // Chance: the rule read on this prompt against the next instance's answer at the level.
      let chance = 0;
      members.forEach((n, at) => {
        const other = answers[members[(at + 1) % members.length] as number];
        const v = (values[n] as Map<string, number>).get(rule);
        if (members.length > 1 && other !== null && other !== undefined && v !== undefined && same(v, other)) chance++;
      });
      const h = byLevel.get(level) ?? 0;
      allHits += h;
      allChance += chance;
      const examples = members.filter((n) => { const v = (values[n] as Map<string, number>).get(rule); return v !== undefined && answers[n] !== null && same(v, answers[n] as number); }).slice(0, 2).map((n) => ({ seed: (episodes[n] as LeakSample).seed, level, answer: answerContent((episodes[n] as LeakSample).reference).slice(0, 80) }));
      if (members.length >= minLevelSamples) keep('level', { rule: `the answer is ${rule} of the prompt (formats normalised)`, rate: h / members.length, chance: chance / members.length, level, examples });
    }
    keep('overall', { rule: `the answer is ${rule} of the prompt (formats normalised)`, rate: allHits / episodes.length, chance: allChance / episodes.length, examples: [] });
  }
  return verdict;
}

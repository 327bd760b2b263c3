// The digit reader: a value the reference sends that the prompt does not spell out, read off the prompt's digit
// runs (a run at a place, as written or reversed), fitted on half the episodes and judged on the other.
import type { Rollout } from '../../sandbox/rollouts.js';
import type { Trial } from '../checks/rules.js';
import { actionsOf } from './adversaries.js';
import { tokensOf } from './probes.js';
import { twoFold } from './two-fold.js';

/**
 * A value the reference sends that the prompt does not spell out, and the prompt's digit runs it might be read from.
 */
export interface DigitSample {
  level: number;
  value: string;
  runs: string[];
}

/**
 * Per argument, the values the reference sends that no token of the prompt spells out and that hold three
 * digits or more (one a episode), each with the prompt's digit runs: runs inside other tokens ("TK-4719-B") and
 * single digits joined ("4-7-1-9"). Values an observation shows count too: a tool may hand out the secret
 * properly while the prompt gives it away.
 */
export function digitSamples(refs: readonly Rollout[]): Map<string, DigitSample[]> {
  const out = new Map<string, DigitSample[]>();
  for (const r of refs) {
    const prompt = (r.prompt ?? '').slice(0, 20_000);
    const runs = [...prompt.matchAll(/(?<![\w.-])\d(?:[-_. ]\d){2,17}(?![\w-])|\d+/g)]
      .map((m) => m[0].replace(/\D/g, ''))
      .slice(0, 200);
    const spelled = new Set(tokensOf(prompt).map((t) => t.toLowerCase()));
    const done = new Set<string>();
    for (const a of actionsOf(r)) {
      for (const [arg, v] of Object.entries(a.args)) {
        const value = typeof v === 'number' || typeof v === 'string' ? String(v) : null;
        const slot = `${a.tool}.${arg}`;
        if (
          value === null ||
          done.has(slot) ||
          (value.match(/\d/g) ?? []).length < 3 ||
          tokensOf(value).every((t) => spelled.has(t.toLowerCase()))
        )
          continue;
        done.add(slot);
        out.set(slot, [...(out.get(slot) ?? []), { level: r.level, value: value.replace(/\D/g, ''), runs }]);
      }
    }
  }
  return out;
}

/** A digit reader: the run at a place (from the start, or from the end when negative), as written or reversed. */
type DigitRule = { at: number; reversed: boolean };
const runAt = (rule: DigitRule, s: DigitSample): string | null => {
  const run = rule.at >= 0 ? s.runs[rule.at] : s.runs[s.runs.length + rule.at];
  return run === undefined ? null : rule.reversed ? [...run].reverse().join('') : run;
};

/**
 * Two-fold trials of the digit reader: the place read on one half (reading at least half its values), read on the
 * other.
 */
export function digitTrials(samples: readonly DigitSample[]): { level: Trial[]; pooled: Trial[]; rules: string[] } {
  const fit = (members: number[]): DigitRule | null => {
    const hits = new Map<string, number>();
    for (const i of members) {
      const s = samples[i] as DigitSample;
      s.runs.forEach((run, k) => {
        for (const reversed of [false, true])
          if ((reversed ? [...run].reverse().join('') : run) === s.value)
            for (const at of [k, k - s.runs.length])
              hits.set(JSON.stringify({ at, reversed }), (hits.get(JSON.stringify({ at, reversed })) ?? 0) + 1);
      });
    }
    const [best, n] = [...hits].sort((x, y) => y[1] - x[1])[0] ?? [null, 0];
    return best !== null && n >= 0.5 * members.length ? (JSON.parse(best) as DigitRule) : null;
  };
  const t = twoFold(samples, fit, runAt);
  return {
    ...t,
    rules: t.rules.map(
      (r) =>
        `the ${r.at >= 0 ? `${r.at + 1}th digit run` : `${-r.at}th digit run from the end`} of the prompt` +
        `${r.reversed ? ', reversed' : ''}`,
    ),
  };
}

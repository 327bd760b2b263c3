// The question restated in a unit: each probed instance gets the prompt's own quantities as printed (a number-unit
// run, "3 mi 420 yd 2 ft") and their plain controls (the same numbers, the words dropped). What a run earns beyond
// its control is the verifier reading the unit words (converting the quantity the task asks to convert), so a run
// that pays restates the question; judged by rate against chance like the grammar check's restatements.
import { answerContent, withContent } from '../../sandbox/answer.js';
import { normalizeAnswer } from '../answers.js';
import type { Probe } from '../probe-types.js';
import { quantityRuns } from '../quantities.js';
import { evidenceOf } from './probe-findings.js';
import type { Finding, Trial } from './rules.js';
import type { SingleTurnCheck } from './single-turn.js';

const FORM = 'a quantity of the prompt as printed, its unit words kept (beyond the same numbers without them)';
const key = (v: string) => normalizeAnswer(v).replace(/\s+/g, '').toLowerCase();

export const quantitiesCheck: SingleTurnCheck = {
  name: 'quantities',
  codes: ['E_ACCEPTS_RESTATED'],
  kinds: ['single'],
  plan(ctx) {
    const planned = ctx.targets().flatMap((t) => {
      const content = key(answerContent(t.episode.reference));
      // A run that is the answer as written is the task's own answer, not a restatement of it.
      const runs = quantityRuns(t.episode.instance.prompt).filter((r) => key(r.text) !== content);
      return runs.length ? [{ t, runs }] : [];
    });
    if (planned.length === 0) return null;
    const probe = (ref: string, text: string): Probe => ({
      family: 'restatement',
      form: FORM,
      response: withContent(ref, text),
      coincident: false,
    });
    return {
      requests: planned.map(({ t, runs }) => ({
        seed: t.episode.seed,
        level: t.episode.level,
        probes: runs.flatMap((r) => [probe(t.episode.reference, r.text), probe(t.episode.reference, r.plain)]),
      })),
      judge(results) {
        const o = ctx.stage.options;
        const trials: Trial[] = [];
        let worst: { excess: number; evidence: Record<string, unknown> } | undefined;
        for (const r of results) {
          if (!r.episode) continue;
          // The instance's win: the mean excess of its runs (a policy that copies one of them).
          const excesses: number[] = [];
          for (let k = 0; k + 1 < r.outcomes.length; k += 2) {
            const [run, plain] = [r.outcomes[k], r.outcomes[k + 1]];
            if (!run || !plain || run.failure || plain.failure) continue;
            const excess = Math.max(0, run.score - plain.score);
            excesses.push(excess);
            if (excess > (worst?.excess ?? 0))
              worst = { excess, evidence: { ...evidenceOf(run), control: plain.score } };
          }
          if (excesses.length)
            trials.push({
              level: r.episode.level,
              win: excesses.reduce((a, b) => a + b, 0) / excesses.length,
              chance: 0,
            });
        }
        const finding: Finding = {
          rule: 'rate',
          code: 'E_ACCEPTS_RESTATED',
          check: 'quantities',
          policy: `${FORM} responses`,
          trials,
          tolerance: { level: o.restatedLevelTolerance, pooled: o.restatedTolerance },
          z: o.rateZ,
          minTrials: 5,
          evidence: () => worst?.evidence ?? {},
        };
        const paid = trials.filter((t) => t.win > 0).length;
        return { findings: [finding], metrics: { [FORM]: { instances: trials.length, paidBeyondControls: paid } } };
      },
    };
  },
};

// The question restated in a unit: each probed instance gets the prompt's own quantities as printed (a number-unit
// run, "3 mi 420 yd 2 ft") and their plain controls (the same numbers, the words dropped). What a run earns beyond
// its control is the verifier reading the unit words; a restatement is a fixed relation, so the run at one place
// (the k-th from the start or end), fitted on half the instances, is judged on the other half against what a pick
// among the prompt's K runs earns (1/K; 0 where K = 1): a choice whose paying run moves with the answer is the task.
import { answerContent, withContent } from '../../sandbox/answer.js';
import { normalizeAnswer } from '../answers.js';
import type { Probe } from '../probe-types.js';
import { quantityRuns } from '../quantities.js';
import { evidenceOf } from './probe-findings.js';
import { judgeReaders, type PreparedFamily, type ReaderSample } from '../readers.js';
import type { Finding, Trial } from './rules.js';
import type { SingleTurnCheck } from './single-turn.js';

const FORM = 'a quantity of the prompt as printed, its unit words kept (beyond the same numbers without them)';
const key = (v: string) => normalizeAnswer(v).replace(/\s+/g, '').toLowerCase();

/** Places a run is read at: the k-th from the start (k < MAX_PLACES) and from the end. */
const MAX_PLACES = 4;
const placeName = (p: number) => (p < MAX_PLACES ? `the run ${p + 1}` : `the run ${p - MAX_PLACES + 1} from the end`);
const excessAt = (excesses: readonly number[], p: number) =>
  (p < MAX_PLACES ? excesses[p] : excesses[excesses.length - 1 - (p - MAX_PLACES)]) ?? 0;

/** The runs at fixed places as a reader family: a place's credit is its run's excess, chance a pick among K runs. */
export function runPlaces(excesses: readonly (readonly number[])[]): PreparedFamily {
  return {
    *fit(i) {
      const e = excesses[i] ?? [];
      for (let p = 0; p < 2 * MAX_PLACES; p++) if (excessAt(e, p) > 0) yield [String(p), excessAt(e, p)];
    },
    credit: (rule, i) => excessAt(excesses[i] ?? [], Number(rule)),
    // A pick among one run is no choice: that run paying is the question restated.
    nominal: (i) => ((excesses[i]?.length ?? 0) > 1 ? 1 / (excesses[i] as readonly number[]).length : 0),
    describe: (rule) => placeName(Number(rule)),
  };
}

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
        const judged: Array<{ sample: ReaderSample; excesses: number[] }> = [];
        let worst: { excess: number; evidence: Record<string, unknown> } | undefined;
        for (const r of results) {
          if (!r.episode) continue;
          // Each run's excess over its control, in the prompt's order of runs (a failed probe earns none).
          const excesses: number[] = [];
          for (let k = 0; k + 1 < r.outcomes.length; k += 2) {
            const [run, plain] = [r.outcomes[k], r.outcomes[k + 1]];
            const excess = !run || !plain || run.failure || plain.failure ? 0 : Math.max(0, run.score - plain.score);
            excesses.push(excess);
            if (run && plain && excess > (worst?.excess ?? 0))
              worst = { excess, evidence: { ...evidenceOf(run), control: plain.score } };
          }
          if (excesses.length) judged.push({ sample: r.episode, excesses });
        }
        const [places] = judgeReaders(
          judged.map((j) => j.sample),
          [{ name: FORM, code: 'E_ACCEPTS_RESTATED', prepare: () => runPlaces(judged.map((j) => j.excesses)) }],
        );
        const trials: Trial[] = places?.level ?? [];
        const finding: Finding = {
          rule: 'rate',
          code: 'E_ACCEPTS_RESTATED',
          check: 'quantities',
          policy: `${FORM} responses`,
          trials,
          tolerance: { level: o.restatedLevelTolerance },
          z: o.rateZ,
          minTrials: 5,
          evidence: () => worst?.evidence ?? {},
        };
        const pooled: Finding = {
          ...finding,
          trials: places?.pooled ?? [],
          tolerance: { pooled: o.restatedTolerance },
        };
        const paid = judged.filter((j) => j.excesses.some((e) => e > 0)).length;
        return {
          findings: [finding, pooled],
          metrics: { [FORM]: { instances: judged.length, paidBeyondControls: paid } },
        };
      },
    };
  },
};

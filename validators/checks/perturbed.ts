// Answers near the reference (a number ±1 in exact arithmetic, a decimal moved by more than rounding, a
// number far off, negated or case-flipped where the sample shows those carry information, a list item
// swapped or left out, a word cut short): a valid answer only by chance, judged by rate over all levels and
// at each level (a tolerance that opens at one level only). Reordered lists are measured only.
import { shapeOf } from '../answers.js';
import { answerContent } from '../../sandbox/answer.js';
import { batteryRequests } from './battery.js';
import { familiesOf, outcomesOf, rateFindings } from './probe-findings.js';
import type { SingleTurnCheck } from './single-turn.js';

export const perturbedCheck: SingleTurnCheck = {
  name: 'perturbed',
  codes: ['E_ACCEPTS_PERTURBED'],
  kinds: ['single-turn'],
  plan(ctx) {
    const requests = batteryRequests(ctx, ['perturbed', 'reordered']);
    if (requests.length === 0) return null;
    return {
      requests,
      judge(results) {
        const o = ctx.stage.options;
        const ran = outcomesOf(results).filter((x) => !x.failure);
        const perturbed = ran.filter((x) => x.probe.family === 'perturbed');
        // Close answers keep partial credit in a fair verifier; for lists (partial credit per item) only full passes count.
        const scalar = perturbed.every((x) => shapeOf(answerContent(x.episode.reference)).kind !== 'list');
        const limits = { pass: { pooled: o.rateFamilyPassExcess, level: o.perturbedLevelPassExcess }, ...(scalar ? { mean: o.perturbedMeanExcess } : {}), z: o.rateZ };
        return { findings: rateFindings('perturbed', 'E_ACCEPTS_PERTURBED', 'perturbed', perturbed, limits), metrics: familiesOf(ran) };
      },
    };
  },
};

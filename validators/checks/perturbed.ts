// Answers near the reference (a number ±1 in exact arithmetic, a decimal moved by more than rounding, a
// number far off, negated or case-flipped where the sample shows those carry information, a list item
// swapped or left out, a word cut short; every place covered over the sample: each inner number of a composite,
// each digit place of an integer): a valid answer only by chance, judged by rate over all levels and at each
// level (a tolerance that opens at one level only). Reordered lists are measured only.
import { shapeOf } from '../answers.js';
import { answerContent } from '../../sandbox/answer.js';
import { COVERING_MOVES } from '../value-moves.js';
import { batteryRequests, rateFamilyCheck } from './battery.js';

export const perturbedCheck = rateFamilyCheck({
  name: 'perturbed',
  code: 'E_ACCEPTS_PERTURBED',
  requests: (ctx) => batteryRequests(ctx, ['perturbed', 'reordered']),
  // The moves that cover the answer's places are judged on their own too: a place never read is diluted in the pool.
  groups: (ran) => {
    const perturbed = ran.filter((x) => x.probe.family === 'perturbed');
    return [
      ['perturbed', perturbed],
      ...COVERING_MOVES.map((form): [string, typeof ran] => [form, perturbed.filter((x) => x.probe.form === form)]),
    ];
  },
  // Close answers keep partial credit in a fair verifier; for lists (partial credit per item) only full passes count.
  limits: (o, judged) => ({
    pass: { pooled: o.rateFamilyPassExcess, level: o.perturbedLevelPassExcess },
    ...(judged.every((x) => shapeOf(answerContent(x.episode.reference)).kind !== 'list')
      ? { mean: o.perturbedMeanExcess }
      : {}),
    z: o.rateZ,
  }),
});

// The prompt's own tokens of the answer's kind (a number of the prompt for a number, as many of its words
// as a list answer has): a weaker property ("a prime of the list" for "the largest prime") pays them far
// more often than chance (the token is the answer anyway).
import { batteryRequests } from './battery.js';
import { familiesOf, outcomesOf, rateFindings } from './probe-findings.js';
import type { SingleTurnCheck } from './single-turn.js';

export const promptTokensCheck: SingleTurnCheck = {
  name: 'prompt-tokens',
  codes: ['E_ACCEPTS_GUESSING'],
  kinds: ['single-turn'],
  plan(ctx) {
    const requests = batteryRequests(ctx, ['prompt-token']);
    if (requests.length === 0) return null;
    return {
      requests,
      judge(results) {
        const o = ctx.stage.options;
        const ran = outcomesOf(results).filter((x) => !x.failure);
        return { findings: rateFindings('prompt-tokens', 'E_ACCEPTS_GUESSING', 'prompt-token', ran, { pass: { pooled: o.rateFamilyPassExcess }, mean: o.rateFamilyMeanExcess, z: o.rateZ }), metrics: familiesOf(ran) };
      },
    };
  },
};

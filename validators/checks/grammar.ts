// The verifier's grammar probed with the question itself: where a verifier accepts more than a bare value (it
// evaluates an expression, a formula, a program), the prompt's own expressions transcribed into its answer
// language, and the prompt's numbers joined by its operator words in order, must not pay: an answer that
// restates the question has solved nothing. Judged by rate against chance (the restatement is the answer).
import { answerContent, withContent } from '../../sandbox/answer.js';
import { normalizeAnswer } from '../answers.js';
import type { Probe } from '../probe-types.js';
import { restatements } from '../restatements.js';
import { familiesOf, outcomesOf, rateFindings } from './probe-findings.js';
import type { SingleTurnCheck } from './single-turn.js';

const key = (v: string) => normalizeAnswer(v).replace(/\s+/g, '').toLowerCase();

export const grammarCheck: SingleTurnCheck = {
  name: 'grammar',
  codes: ['E_ACCEPTS_RESTATED'],
  kinds: ['single-turn'],
  plan(ctx) {
    const requests = ctx.targets().flatMap((t) => {
      const content = answerContent(t.episode.reference);
      const probes = restatements(t.episode.instance.prompt).map(([form, text]): Probe => ({ family: 'restatement', form, response: withContent(t.episode.reference, text), coincident: key(text) === key(content) }));
      return probes.length ? [{ seed: t.episode.seed, level: t.episode.level, probes }] : [];
    });
    if (requests.length === 0) return null;
    return {
      requests,
      judge(results) {
        const o = ctx.stage.options;
        const ran = outcomesOf(results).filter((x) => !x.failure);
        const findings = [...new Set(ran.map((x) => x.probe.form))].flatMap((form) => rateFindings('grammar', 'E_ACCEPTS_RESTATED', form, ran.filter((x) => x.probe.form === form), { pass: { pooled: o.restatedTolerance, level: o.restatedLevelTolerance }, mean: o.rateFamilyMeanExcess, z: o.rateZ }));
        return { findings, metrics: familiesOf(ran) };
      },
    };
  },
};

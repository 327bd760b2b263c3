// The verifier's grammar probed with the question itself: where a verifier accepts more than a bare value (it
// evaluates an expression, a formula, a program), the prompt's own expressions transcribed into its answer
// language, the prompt's numbers joined by its operator words in order, and its numbers signed by the words beside
// them or the heading above (a map learned on the other half of the sample) must not pay: an answer that restates
// the question has solved nothing. Judged by rate against chance (the restatement is the answer).
import { answerContent, withContent } from '../../sandbox/answer.js';
import { normalizeAnswer } from '../answers.js';
import { learnedRestatements } from '../learned-restatements.js';
import type { Probe } from '../probe-types.js';
import { restatements } from '../restatements.js';
import { rateFamilyCheck } from './battery.js';

/** One form for the learned restatements, whichever key each half's map reads. */
const LEARNED =
  "the prompt's numbers, each signed by the words beside it or the heading above (a map learned on the other half)";

const key = (v: string) => normalizeAnswer(v).replace(/\s+/g, '').toLowerCase();

export const grammarCheck = rateFamilyCheck({
  name: 'grammar',
  code: 'E_ACCEPTS_RESTATED',
  requests: (ctx) => {
    const learned = learnedRestatements(
      ctx.byLevel,
      ctx.targets().map((t) => t.episode),
    );
    return ctx.targets().flatMap((t) => {
      const content = answerContent(t.episode.reference);
      const fitted = learned.get(t.episode);
      const forms: Array<[string, string]> = [
        ...restatements(t.episode.instance.prompt),
        ...(fitted ? [[LEARNED, fitted.text] as [string, string]] : []),
      ];
      const probes = forms.map(
        ([form, text]): Probe => ({
          family: 'restatement',
          form,
          response: withContent(t.episode.reference, text),
          coincident: key(text) === key(content),
        }),
      );
      return probes.length ? [{ seed: t.episode.seed, level: t.episode.level, probes }] : [];
    });
  },
  // Each way of restating is a policy of its own.
  groups: (ran) =>
    [...new Set(ran.map((x) => x.probe.form))].map((form) => [form, ran.filter((x) => x.probe.form === form)]),
  limits: (o) => ({
    pass: { pooled: o.restatedTolerance, level: o.restatedLevelTolerance },
    mean: o.rateFamilyMeanExcess,
    z: o.rateZ,
  }),
});

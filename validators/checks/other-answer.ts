// Another instance's reference, sent to every instance of the sample: it may be the right answer by chance
// (identical answers), and beyond that chance it must not pass or score. Its mean per level is the
// difficulty curve's "another instance's answer" baseline.
import { mean } from '../context.js';
import { otherAnswerProbes } from '../probes.js';
import { familiesOf, outcomesOf, rateFindings } from './probe-findings.js';
import type { SingleTurnCheck } from './single-turn.js';

export const otherAnswerCheck: SingleTurnCheck = {
  name: 'other-answer',
  codes: ['E_ACCEPTS_OTHER_ANSWER'],
  kinds: ['single'],
  plan(ctx) {
    if (!ctx.stage.kind.probeFamilies.includes('other-answer')) return null;
    const probed = ctx.stage.options.probedPerLevel;
    const requests = [...ctx.byLevel.values()].flatMap((peers) =>
      peers.map((episode, i) => ({
        seed: episode.seed,
        level: episode.level,
        probes: otherAnswerProbes(episode, peers, i < probed ? 3 : 1),
      })),
    );
    return {
      requests,
      judge(results) {
        const o = ctx.stage.options;
        const ran = outcomesOf(results).filter((x) => !x.failure);
        const byLevel = Object.fromEntries(
          [...Map.groupBy(ran, (x) => x.episode.level)].map(([level, list]) => [level, mean(list.map((x) => x.score))]),
        );
        return {
          findings: rateFindings('other-answer', 'E_ACCEPTS_OTHER_ANSWER', 'other-answer', ran, {
            pass: { pooled: o.rateFamilyPassExcess },
            mean: o.rateFamilyMeanExcess,
            z: o.rateZ,
          }),
          metrics: { ...familiesOf(ran), meanByLevel: byLevel },
        };
      },
    };
  },
};

// Many answers at once (guess lists in any carrier and joiner, hedges with an interval, guesses spread one
// per carrier) must earn nothing: a 2-guess list fails only in both orders, carrier spreads only where the
// verifier reads the carrier, and a partial-credit list by what it adds over its best wrong guess alone.
import { judgeListLift } from '../hack-checks.js';
import { judgedCarrierSpreads } from '../metamorphic.js';
import { zeroFamilyCheck } from './battery.js';

export const enumerationCheck = zeroFamilyCheck({
  name: 'enumeration',
  family: 'enumeration',
  code: 'E_ACCEPTS_ENUMERATION',
  async prepare(outcomes, run) {
    const judged = judgedCarrierSpreads(outcomes);
    await judgeListLift(judged, judged[0]?.probe.ceiling ?? 0.1, async (asks) => {
      const results = await run(
        asks.map(({ episode, responses }) => ({
          seed: episode.seed,
          level: episode.level,
          probes: responses.map((response) => ({
            family: 'enumeration' as const,
            form: 'a guess alone',
            response,
            coincident: false,
          })),
        })),
      );
      return results.map((r) => r.outcomes.map((o) => (o.failure ? 0 : o.score)));
    });
    return judged;
  },
});

// The reference typed as a model would (validators/episodic/typed.ts): numbers at the precision the prompt or
// tool states, else at most 4 decimals, values it was shown as shown, strings trimmed. An environment that
// loses its own reference's score that way in a quarter of the episodes pays only values no model would send.
import type { Rollout } from '../../sandbox/rollouts.js';
import { judgeTyped, typedActions } from '../episodic/typed.js';
import { replayOf, scoreOf, type EpisodicCheck } from './episodic.js';

export const episodicTyped: EpisodicCheck = {
  name: 'episodic-typed',
  codes: ['E_UNTYPEABLE_REFERENCE'],
  kinds: ['episodic'],
  plan(ctx) {
    // A replay only where typing changes a number or a string, on the first probed episodes of each level.
    const seen = new Map<number, number>();
    const pairs = ctx.refs.flatMap((r) => {
      const k = seen.get(r.level) ?? 0;
      seen.set(r.level, k + 1);
      const typed = k < ctx.options.probedPerLevel ? typedActions(ctx.meta, r) : null;
      return typed ? [{ ref: r as Rollout, actions: typed as unknown[] }] : [];
    });
    return {
      requests: pairs.map((p) => replayOf(p.ref, p.actions)),
      judge: (outcomes) =>
        judgeTyped(
          pairs.map((p, i) => ({ ...p, score: scoreOf(outcomes[i]) })),
          ctx.options.typedMaxLost,
        ),
    };
  },
};

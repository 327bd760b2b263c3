// The reference shrunk (validators/episodic/shrink.ts): its decision calls delta-debugged, reads kept, while
// the episode still earns its score. Where the least paid log of the top level needs no more decisions than
// level 1's although the reference decides more, the environment pays for a part of the task that stays flat:
// zero tolerance.
import type { Rollout } from '../../sandbox/rollouts.js';
import { judgeShrink } from '../episodic/shrink.js';
import { ablatedEpisodes, adversaryFamily, decisiveTools } from './episodic-ablation.js';
import type { EpisodicCheck } from './episodic.js';

export const episodicShrink: EpisodicCheck = {
  name: 'episodic-shrink',
  codes: ['E_ACCEPTS_INCOMPLETE'],
  kinds: ['episodic'],
  plan(ctx) {
    const ablations = adversaryFamily(ctx, 'tool-ablation');
    if (ablations.length === 0) return null;
    return {
      requests: ablations.map((p) => p.request),
      async judge(outcomes) {
        const stage = ctx.stage;
        const env = {
          pool: stage.pool,
          source: stage.source,
          meta: ctx.meta,
          zeroTolerance: ctx.options.zeroToleranceCeiling,
          ...(stage.options.limits ? { limits: stage.options.limits } : {}),
        };
        const { flat, metrics } = await judgeShrink(
          [...ctx.refs] as Rollout[],
          ablatedEpisodes(ablations),
          decisiveTools(ctx.refs, ablations, outcomes),
          env,
        );
        if (!flat) return { findings: [], metrics };
        return {
          metrics,
          findings: [
            {
              rule: 'zero',
              code: 'E_ACCEPTS_INCOMPLETE',
              check: 'episodic-shrink',
              judged: 1,
              ceiling: 1,
              form: flat.message,
              what: 'shrunk reference',
              reads: 'is paid',
              evidence: () => flat.evidence,
            },
          ],
        };
      },
    };
  },
};

// A floor of credit: when, on most probed instances, even the worst wrong answer (another instance's, a
// perturbed one, the bare wrong answer of the stuffing pairs, a prompt token) earns the ceiling, the
// verifier pays for the format, not the task. It reads the whole batch; it sends nothing of its own.
import type { Episode } from '../../sandbox/episodes.js';
import { answerContent } from '../../sandbox/answer.js';
import type { JudgedOutcome } from '../hack-checks.js';
import { outcomesOf } from './probe-findings.js';
import type { SingleTurnCheck } from './single-turn.js';

const WRONG = new Set(['other-answer', 'perturbed', 'prompt-token']);

export const creditFloorCheck: SingleTurnCheck = {
  name: 'credit-floor',
  codes: ['E_ACCEPTS_NON_ANSWER'],
  kinds: ['single'],
  plan(ctx) {
    return {
      requests: [],
      judge(_results, tools) {
        const ceiling = ctx.stage.options.zeroToleranceCeiling;
        const worst = new Map<Episode, JudgedOutcome>();
        for (const o of outcomesOf(tools.all())) {
          if (o.failure || o.probe.coincident || !(WRONG.has(o.probe.family) || o.probe.base === true)) continue;
          const w = worst.get(o.episode);
          if (!w || o.score < w.score) worst.set(o.episode, o);
        }
        const floors = [...worst.values()];
        const paid = floors.filter((o) => o.score >= ceiling);
        const example = paid.reduce<JudgedOutcome | undefined>((a, b) => (!a || b.score < a.score ? b : a), undefined);
        const evidence = () =>
          example
            ? {
                seed: example.episode.seed,
                level: example.episode.level,
                form: example.probe.form,
                score: example.score,
                reference: answerContent(example.episode.reference).slice(0, 80),
                response: example.probe.response.slice(0, 160),
              }
            : {};
        return {
          findings: [
            {
              rule: 'rate',
              code: 'E_ACCEPTS_NON_ANSWER',
              check: 'credit-floor',
              policy:
                `any wrong answer (the worst-scoring wrong answer of each probed instance still scores ` +
                `${example ? example.score.toFixed(2) : '…'} or more, ceiling ${ceiling}: credit that does not ` +
                `track correctness pays the format alone)`,
              trials: floors.map((o) => ({ level: o.episode.level, win: o.score >= ceiling ? 1 : 0, chance: 0 })),
              tolerance: { pooled: ctx.stage.options.creditFloorShare - 1e-9 },
              z: 0,
              minTrials: 10,
              evidence,
            },
          ],
          metrics: { instances: floors.length, paid: paid.length },
        };
      },
    };
  },
};

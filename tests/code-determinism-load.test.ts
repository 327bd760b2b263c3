// Classified by cause, not by stage (red team rtcode C7): a program the clock stopped (a test past its budget, or a
// worker the pool's watchdog killed) gives a `clocked` verdict, and the code kind's determinism stage compares scores
// only between runs where neither side's programs were clocked — such a pair is E_TIMEOUT, which the admission
// validates again, never E_NONDETERMINISTIC.
import { describe, expect, it } from 'vitest';
import { scoreTests } from '../kinds/code.js';
import type { AnswerResult } from '../sandbox/code/answers.js';
import type { Episode, EpisodeResult, ScoredVerdict } from '../sandbox/episodes.js';
import { CODE_STAGES } from '../validators/code/stages.js';
import type { StageContext } from '../validators/context.js';
import { DEFAULT_VALIDATOR_OPTIONS } from '../validators/options.js';

const result = (tests: AnswerResult['tests']): AnswerResult => ({ ran: true, tests, ms: 1 });
const ALL = { scoring: 'all-pass' } as const;

describe('a code verdict', () => {
  it.each([
    ['a test past its budget', ['E_TIMEOUT', null] as const],
    ["a worker the pool's watchdog killed", ['E_CRASHED', 'E_CRASHED'] as const],
  ])('is clocked where %s stopped the program', (_what, tests) => {
    expect(scoreTests(ALL, result([...tests]))).toMatchObject({ ok: true, score: 0, clocked: true });
  });

  it('is not clocked where the program was only wrong', () => {
    expect(scoreTests(ALL, result(['E_WRONG', null]))).not.toHaveProperty('clocked');
  });
});

const episode = (seed: number, response: ScoredVerdict): Episode => ({
  ok: true,
  seed,
  level: 1,
  instance: { prompt: `task ${seed}` },
  reference: 'r',
  referenceVerdict: { ok: true, score: 1 },
  verdicts: [response],
  ms: [0, 0, 0],
});

/** A context whose second run scores the first instance's response with `second` (every other verdict passes). */
function context(second: ScoredVerdict): StageContext {
  let runs = 0;
  const kind = {
    async runEpisodes(_pool: unknown, _source: string, requests: Array<{ seed: number }>) {
      const run = runs++;
      const episodes: EpisodeResult[] = requests.map((r) =>
        episode(r.seed, run === 1 && r.seed === 1 ? second : { ok: true, score: 1 }),
      );
      return { load: { ok: true }, episodes, wallMs: 1 };
    },
  };
  const episodes = [1, 2, 3].map((seed) => episode(seed, { ok: true, score: 1 }));
  return { kind, source: 'src', options: DEFAULT_VALIDATOR_OPTIONS, episodes } as unknown as StageContext;
}

describe("the code kind's determinism stage under load", () => {
  it("reads runs that differ only in a clocked program's score as a timeout", async () => {
    const report = await CODE_STAGES.determinism?.(context({ ok: true, score: 0, clocked: true }));
    expect(report?.problems.map((p) => p.code)).toEqual(['E_TIMEOUT']);
  });

  it('still reads a score that changed without the clock as nondeterminism', async () => {
    const report = await CODE_STAGES.determinism?.(context({ ok: true, score: 0 }));
    expect(report?.problems.map((p) => p.code)).toEqual(['E_NONDETERMINISTIC']);
  });
});

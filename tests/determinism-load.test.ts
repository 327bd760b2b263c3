// Two runs that differ only where the machine stopped one (a deadline, E_TIMEOUT, or the candidate's time budget,
// E_TOO_SLOW: contract/codes.ts LOAD_SENSITIVE) are a load-sensitive timeout, which the pipeline validates again,
// never E_NONDETERMINISTIC or E_STATE_LEAK, which it does not.
import { describe, expect, it } from 'vitest';
import { LOAD_SENSITIVE } from '../contract/codes.js';
import { toEpisode, type Episode } from '../sandbox/episodes.js';
import type { SandboxPool } from '../sandbox/pool.js';
import type { Call, CallResult } from '../sandbox/protocol.js';
import type { StageContext } from '../validators/context.js';
import { DEFAULT_VALIDATOR_OPTIONS } from '../validators/options.js';
import { determinismStage } from '../validators/stages/determinism.js';

const ok = (c: Call): CallResult => ({
  ok: true,
  ms: 1,
  value: {
    instance: { prompt: `task ${c.seed}` },
    reference: 'r',
    verdicts: [null, ...(c.responses ?? [])].map(() => ({ ok: true, value: { score: 1 } })),
    ms: [0, 0, 0],
  },
});
const stopped = (code: string): CallResult =>
  ({ ok: false, code, message: 'the clock ran out', fn: 'generate', ms: 5000 }) as CallResult;

/** A stage context whose pool answers every call alike, except the `nth` call of its second run (`stop`). */
function context(nth: number, stop: CallResult): StageContext {
  let runs = 0;
  const pool = {
    async run(request: { calls: Call[] }) {
      const run = runs++;
      return { load: { ok: true }, results: request.calls.map((c, i) => (run === 1 && i === nth ? stop : ok(c))) };
    },
  } as unknown as SandboxPool;
  const episodes = [1, 2, 3].map(
    (seed) => toEpisode({ seed, level: 1 }, ok({ op: 'episode', seed, level: 1 })) as Episode,
  );
  return { pool, source: 'src', options: DEFAULT_VALIDATOR_OPTIONS, episodes } as unknown as StageContext;
}

describe('the determinism stage under load', () => {
  it.each([...LOAD_SENSITIVE])('reads a run stopped %s as a timeout, not nondeterminism', async (code) => {
    const report = await determinismStage(context(1, stopped(code)));
    expect(report.problems.map((p) => p.code)).toEqual(['E_TIMEOUT']);
  });

  it('reads a later run stopped by the clock as no state leak', async () => {
    const report = await determinismStage(context(4, stopped('E_TOO_SLOW')));
    expect(report.problems).toEqual([]);
  });

  it('still reads a run that failed otherwise as nondeterminism', async () => {
    const report = await determinismStage(context(1, stopped('E_THROWN')));
    expect(report.problems.map((p) => p.code)).toEqual(['E_NONDETERMINISTIC']);
  });
});

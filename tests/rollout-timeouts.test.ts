// A wall-clock timeout is the module's only when it happens again: runRollouts runs a few timed-out
// rollouts once more, alone, and keeps that run's result; many timeouts are the module's at once.
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { SandboxPool } from '../sandbox/pool.js';
import type { Call, CallResult } from '../sandbox/protocol.js';
import { CONFIRM_TIMEOUTS, runRollouts } from '../sandbox/rollouts.js';

const meta = { name: 'stub', levels: 1, maxTurns: 4, tools: [] } as unknown as EpisodicMeta;
const timeout: CallResult = {
  ok: false,
  code: 'E_TIMEOUT',
  message: 'step ran past its wall-clock budget',
  fn: 'step',
  ms: 4600,
};
const thrown: CallResult = { ok: false, code: 'E_THROWN', message: 'step threw', fn: 'step', ms: 1 };
const done = (seed: number): CallResult => ({
  ok: true,
  value: {
    prompt: `p${seed}`,
    actions: [],
    rejected: [],
    end: 'done',
    turns: 1,
    errors: 0,
    verdict: { score: 1 },
    ms: [0, 0, 0, 0],
  },
  ms: 1,
});

/** A pool whose first answer to each seed comes from `first`, and whose later answers from `again`. */
function stubPool(first: (seed: number) => CallResult, again: (seed: number) => CallResult) {
  const seen = new Set<number>();
  const runs: Call[][] = [];
  const pool = {
    async run(request: { calls: Call[] }) {
      runs.push(request.calls);
      return {
        load: { ok: true },
        results: request.calls.map((c) =>
          seen.has(c.seed as number) ? again(c.seed as number) : (seen.add(c.seed as number), first(c.seed as number)),
        ),
      };
    },
  } as unknown as SandboxPool;
  return { pool, runs };
}
const requests = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ seed: i + 1, level: 1, policy: { type: 'act' as const } }));

describe('runRollouts and wall-clock timeouts', () => {
  it('runs a timed-out rollout again alone, and a stall that does not repeat is no failure', async () => {
    const { pool, runs } = stubPool((seed) => (seed === 7 ? timeout : done(seed)), done);
    const { rollouts } = await runRollouts(pool, 'src', meta, requests(40));
    expect(rollouts.every((r) => r.ok)).toBe(true);
    expect(runs.at(-1)?.map((c) => c.seed)).toEqual([7]);
  });

  it("keeps the second run's word: a repeated hang stays E_TIMEOUT, another failure is itself", async () => {
    const { pool } = stubPool(
      (seed) => (seed === 3 || seed === 5 ? timeout : done(seed)),
      (seed) => (seed === 3 ? timeout : thrown),
    );
    const { rollouts } = await runRollouts(pool, 'src', meta, requests(10));
    expect(rollouts.filter((r) => !r.ok).map((r) => (r.ok ? '' : `${r.seed} ${r.code}`))).toEqual([
      '3 E_TIMEOUT',
      '5 E_THROWN',
    ]);
  });

  it(`runs nothing again when more than ${CONFIRM_TIMEOUTS} rollouts time out: that is the module`, async () => {
    const { pool, runs } = stubPool((seed) => (seed <= CONFIRM_TIMEOUTS + 1 ? timeout : done(seed)), done);
    const { rollouts } = await runRollouts(pool, 'src', meta, requests(20));
    expect(rollouts.filter((r) => !r.ok)).toHaveLength(CONFIRM_TIMEOUTS + 1);
    expect(runs).toHaveLength(1);
  });
});

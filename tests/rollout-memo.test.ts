// One validation's rollout memo (sandbox/rollout-memo.ts): inside its scope an episode already played is
// served, trimmed to the outputs asked for; a failure is played again; outside the scope nothing is served.
// And runRollouts' order: one episode's rollouts side by side, episodes in the caller's order.
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { SandboxPool } from '../sandbox/pool.js';
import type { Call, CallResult } from '../sandbox/protocol.js';
import { RolloutMemo, withRolloutMemo } from '../sandbox/rollout-memo.js';
import { plannedRolloutJobs, runRollouts, type RolloutRequest } from '../sandbox/rollouts.js';

const meta = { name: 'stub', levels: 2, maxTurns: 4, tools: [] } as unknown as EpisodicMeta;

/** A pool that plays every call (recording it) as an episode ending at once; `fail` seeds throw. */
function stubPool(fail: (seed: number) => boolean = () => false) {
  const played: Call[] = [];
  const pool = {
    async run(request: { calls: Call[] }) {
      played.push(...request.calls);
      return {
        load: { ok: true },
        results: request.calls.map(
          (c): CallResult =>
            fail(c.seed)
              ? { ok: false, code: 'E_THROWN', message: 'step threw', fn: 'step', ms: 1 }
              : {
                  ok: true,
                  ms: 1,
                  value: {
                    prompt: `p${c.seed}`,
                    actions: [],
                    rejected: [],
                    end: 'done',
                    turns: 1,
                    errors: 0,
                    verdict: { score: 1 },
                    maxStateChars: 2,
                    ...(c.rollout?.observations ? { observations: ['seen'] } : {}),
                    ...(c.rollout?.hashes ? { hashes: ['a:1', 'b:1'] } : {}),
                    ...(c.rollout?.keepState ? { state: { n: c.seed } } : {}),
                    ms: [0, 0, 0, 0],
                  },
                },
        ),
      };
    },
  } as unknown as SandboxPool;
  return { pool, played };
}

const replay = (seed: number, extra: Partial<RolloutRequest> = {}): RolloutRequest => ({
  seed,
  level: 1,
  policy: { type: 'replay', actions: [{ tool: 'a', args: {} }] },
  ...extra,
});

describe('the rollout memo', () => {
  it('plays an episode once, and serves it trimmed to what each request asks for', async () => {
    const { pool, played } = stubPool();
    const memo = new RolloutMemo('src');
    const [first, second] = await withRolloutMemo(memo, async () => [
      await runRollouts(pool, 'src', meta, [replay(1, { observations: true, hashes: true, keepState: true })]),
      await runRollouts(pool, 'src', meta, [replay(1), replay(1, { observations: true })]),
    ]);
    expect(played).toHaveLength(1);
    expect(first?.rollouts[0]).toMatchObject({ ok: true, observations: ['seen'], state: { n: 1 } });
    const [plain, seen] = second?.rollouts ?? [];
    expect(plain && 'observations' in plain).toBe(false);
    expect(plain && ('hashes' in plain || 'state' in plain || 'stateText' in plain)).toBe(false);
    expect(seen).toMatchObject({ ok: true, observations: ['seen'] });
    expect(seen && 'hashes' in seen).toBe(false);
    expect(memo.counts).toEqual({ requests: 3, served: 2, played: 1 });
  });

  it('plays a request that asks for more than was played, and other seeds, levels and logs', async () => {
    const { pool, played } = stubPool();
    await withRolloutMemo(new RolloutMemo('src'), async () => {
      await runRollouts(pool, 'src', meta, [replay(1)]);
      await runRollouts(pool, 'src', meta, [
        replay(1, { hashes: true }),
        replay(2),
        replay(1, { level: 2 }),
        replay(1, { policy: { type: 'replay', actions: [] } }),
        replay(1, { scoreAtEnd: true }),
      ]);
    });
    expect(played).toHaveLength(6);
  });

  it('serves no episode played under other limits or another shape of rollout', async () => {
    const { pool, played } = stubPool();
    const shorter = { ...meta, maxTurns: 2 } as EpisodicMeta;
    await withRolloutMemo(new RolloutMemo('src'), async () => {
      await runRollouts(pool, 'src', meta, [replay(1)], { limits: { callTimeoutMs: 5000 } });
      await runRollouts(pool, 'src', meta, [replay(1)], { limits: { callTimeoutMs: 50 } });
      await runRollouts(pool, 'src', meta, [replay(1)]);
      await runRollouts(pool, 'src', shorter, [replay(1)]);
      await runRollouts(pool, 'src', meta, [replay(1)], { limits: { callTimeoutMs: 50 } });
    });
    expect(played).toHaveLength(4);
  });

  it('serves requests that arrive together, or while the first is in flight, from one play', async () => {
    const { pool, played } = stubPool();
    const runs = await withRolloutMemo(new RolloutMemo('src'), () =>
      Promise.all([
        runRollouts(pool, 'src', meta, [replay(4), replay(4)]),
        runRollouts(pool, 'src', meta, [replay(4)]),
      ]),
    );
    expect(played).toHaveLength(1);
    expect(runs.flatMap((r) => r.rollouts).every((r) => r.ok)).toBe(true);
  });

  it('plays a failed episode again per request; serves nothing outside its scope or for another module', async () => {
    const failing = stubPool((seed) => seed === 9);
    await withRolloutMemo(new RolloutMemo('src'), async () => {
      await runRollouts(failing.pool, 'src', meta, [replay(9)]);
      const again = await runRollouts(failing.pool, 'src', meta, [replay(9)]);
      expect(again.rollouts[0]?.ok).toBe(false);
      await runRollouts(failing.pool, 'other', meta, [replay(1), replay(1)]);
    });
    expect(failing.played).toHaveLength(4);
    const outside = stubPool();
    await runRollouts(outside.pool, 'src', meta, [replay(1), replay(1)]);
    expect(outside.played).toHaveLength(2);
  });

  it('shows every planned job to its observers, served or not', async () => {
    const { pool } = stubPool();
    const seen: number[] = [];
    const observe = (job: readonly Call[]) => seen.push(job.length);
    plannedRolloutJobs.add(observe);
    try {
      await withRolloutMemo(new RolloutMemo('src'), async () => {
        await runRollouts(pool, 'src', meta, [replay(1), replay(2)]);
        await runRollouts(pool, 'src', meta, [replay(1), replay(2)]);
      });
    } finally {
      plannedRolloutJobs.delete(observe);
    }
    expect(seen).toEqual([2, 2]);
  });
});

describe('the order runRollouts plays in', () => {
  const seeds = (played: Call[]) => played.map((c) => c.seed);

  it('puts the rollouts of one episode side by side, episodes in the order they first appear', async () => {
    const { pool, played } = stubPool();
    const requests = [replay(3), replay(1), replay(2), replay(1, { hashes: true }), replay(3, { level: 2 })];
    const run = await runRollouts(pool, 'src', meta, requests);
    expect(seeds(played)).toEqual([3, 1, 1, 2, 3]);
    expect(played.map((c) => c.level)).toEqual([1, 1, 1, 1, 2]);
    expect(run.rollouts.map((r) => r.seed)).toEqual([3, 1, 2, 1, 3]);
  });

  it('plays a reversed list in reverse, so that every episode meets another place in its realm', async () => {
    const forward = stubPool();
    const backward = stubPool();
    const requests = [5, 2, 9, 1, 7].map((seed) => replay(seed));
    await runRollouts(forward.pool, 'src', meta, requests);
    await runRollouts(backward.pool, 'src', meta, [...requests].reverse());
    expect(seeds(backward.played)).toEqual(seeds(forward.played).reverse());
    expect(seeds(forward.played)).toEqual([5, 2, 9, 1, 7]);
  });
});

// A repeated probe sent until its reply and state reach a fixed point (validators/episodic/fixed-point.ts), and the
// part of a near-miss screen that still moves (near-miss.ts subScreen).
import { describe, expect, it } from 'vitest';
import type { Rollout, RolloutRequest, RolloutResult } from '../sandbox/rollouts.js';
import { moving, repeatedRuns, stretched, touchUntilFixed } from '../validators/episodic/fixed-point.js';
import { repeatedScreen, subScreen, type Screen } from '../validators/episodic/near-miss.js';

const call = (id: string) => ({ tool: 'read', args: { id } });

/** A world that answers a call's k-th send in a row with its hint from the `answerAt`-th on, counting in its state. */
function play(actions: unknown[], answerAt: number): Rollout {
  const seen = new Map<string, number>();
  const observations: string[] = [];
  const hashes = ['{}'];
  for (const a of actions) {
    const key = JSON.stringify(a);
    const n = Math.min(answerAt, (seen.get(key) ?? 0) + 1);
    seen.set(key, n);
    observations.push(n >= answerAt ? `hint for ${key}` : `no ${key}`);
    hashes.push(JSON.stringify([...seen]));
  }
  return { ok: true, observations, hashes, actions } as unknown as Rollout;
}

describe('repeatedRuns and stretched', () => {
  it('find each stretch of one call sent twice or more, and resend it as often as asked', () => {
    const log = [call('a'), call('a'), call('b'), call('c'), call('c'), call('c')];
    expect(repeatedRuns(log)).toEqual([
      [0, 2],
      [3, 3],
    ]);
    expect(stretched(log, 4).map((a) => a.args.id)).toEqual(['a', 'a', 'a', 'a', 'b', 'c', 'c', 'c', 'c']);
  });
});

describe('moving', () => {
  it('says a run moves while its last send changed the reply or the state, and settles at a fixed point', () => {
    const log = [call('a'), call('a')];
    expect(moving(play(log, 3), [0, 2])).toBe(true); // the count moved the state, the reply not yet
    expect(moving(play(log, 2), [0, 2])).toBe(true); // the reply moved
    expect(moving(play(log, 1), [0, 2])).toBe(false); // the same reply and state: nothing more to learn
    expect(moving(play([call('a')], 3), [0, 2])).toBe(false); // a run the episode never finished
  });
});

describe('touchUntilFixed', () => {
  const escalate = (answerAt: number, bound: number) => {
    const sent: number[] = [];
    const run = async (requests: RolloutRequest[]): Promise<RolloutResult[]> =>
      requests.map((r) => play((r.policy as { actions: unknown[] }).actions, answerAt));
    return touchUntilFixed([[call('a'), call('a')]], {
      from: 2,
      bound,
      play: (log, times) => {
        sent.push(times);
        return { seed: 1, level: 1, policy: { type: 'replay', actions: stretched(log, times) } };
      },
      moves: (log, times, r) => repeatedRuns(stretched(log, times)).some((run) => moving(r, run)),
      run,
    }).then((out) => ({ sent, hinted: out.some((o) => o.outcome.observations?.some((x) => x.startsWith('hint'))) }));
  };

  it('sends a probe answered only the third or the fifth time until the answer comes', async () => {
    expect(await escalate(3, 8)).toEqual({ sent: [4], hinted: true });
    expect(await escalate(5, 8)).toEqual({ sent: [4, 8], hinted: true });
  });

  it('stops at the bound', async () => {
    expect(await escalate(9, 8)).toEqual({ sent: [4, 8], hinted: false });
  });
});

describe('subScreen', () => {
  it('keeps the near misses picked and the controls they are judged by, renumbered', () => {
    const screen: Screen = {
      log: [call('x'), call('a'), call('A'), call('a-'), call('y'), call('b'), call('B')],
      kinds: [null, null, 'case', 'slip', null, null, 'case'],
      same: [[], [], [0, 1], [0, 1], [], [], [4, 5]],
    };
    const part = subScreen(screen, (i) => i === 6);
    expect(part).toEqual({
      log: [call('y'), call('b'), call('B')],
      kinds: [null, null, 'case'],
      same: [[], [], [0, 1]],
    });
    expect(repeatedScreen(part, 2, 99).same.at(-1)).toEqual([1, 3]);
  });
});

// Jobs that travel together (pool.runTogether, the reward service's dispatcher): each keeps its own results,
// limits and failures; a job that kills its worker or cannot be sent fails alone, and the jobs sent with it
// still run; the dispatcher sends the modules of one slot together and keeps each module in its slot.
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxPool, type RunRequest } from '../sandbox/pool.js';
import type { Call, CallResult, EpisodeValue } from '../sandbox/protocol.js';
import { Dispatcher } from '../serve/dispatcher.js';
import { envSource } from './helpers/env-source.js';

const pool = new SandboxPool({
  workers: 2,
  graceMs: 500,
  limits: { callTimeoutMs: 400, loadTimeoutMs: 1_000, sliceMs: 50, memoryMb: 64 },
});
afterAll(() => pool.close());

const calls = (levels: number[]): Call[] => levels.map((level) => ({ op: 'episode', seed: 7, level }));
const prompts = (results: CallResult[]) =>
  results.map((r) => (r.ok ? ((r.value as EpisodeValue).instance as { prompt: string }).prompt : r.code));
/** A module whose prompts name it, so a result shows which module made it. */
const named = (name: string) =>
  envSource({ generate: `return { prompt: '${name} ' + level + ' ' + rng.int(1, 9), answer: 1 };` });
const wedged = envSource({ generate: "return { prompt: String(BigInt('9'.repeat(3e7))) };" });

describe('jobs that travel together', () => {
  it('give each job the results it gets alone', async () => {
    const requests: RunRequest[] = [
      { source: named('a'), calls: calls([1, 2]) },
      { source: named('b'), calls: calls([3]) },
      { source: named('c'), calls: [] },
    ];
    const alone = await Promise.all(requests.map((r) => pool.run(r)));
    const together = await Promise.all(pool.runTogether(requests));
    expect(together.map((r) => prompts(r.results))).toEqual(alone.map((r) => prompts(r.results)));
    expect(together.map((r) => r.load.ok)).toEqual([true, true, true]);
    expect(prompts(together[0]?.results ?? [])[0]).toMatch(/^a 1 /);
  });

  it(
    'fail only the job that wedges its worker: the one before keeps its results, the one ' +
      'after runs on a fresh worker',
    async () => {
      const [before, stuck, after] = await Promise.all(
        pool.runTogether([
          { source: named('before'), calls: calls([1]) },
          { source: wedged, calls: calls([1]) },
          { source: named('after'), calls: calls([2]) },
        ]),
      );
      expect(prompts(before?.results ?? [])).toEqual([expect.stringMatching(/^before 1 /)]);
      expect(stuck?.results[0]).toMatchObject({
        ok: false,
        code: 'E_TIMEOUT',
        message: expect.stringMatching(/killed/),
      });
      expect(prompts(after?.results ?? [])).toEqual([expect.stringMatching(/^after 2 /)]);
    },
  );

  it('fail only the job that cannot be sent (E_TOO_LARGE), first or later in the group', async () => {
    const deep: unknown = JSON.parse(`${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    const bad = {
      source: envSource(),
      calls: [{ op: 'episode', seed: 1, level: 1, responses: [deep] }] as unknown as Call[],
    };
    for (const order of [
      [bad, { source: named('x'), calls: calls([1]) }],
      [{ source: named('x'), calls: calls([1]) }, bad, { source: named('y'), calls: calls([3]) }],
    ]) {
      const runs = await Promise.all(pool.runTogether(order));
      expect(runs.map((r) => (r.results[0]?.ok ? 'ok' : r.results[0]?.code))).toEqual(
        order.map((r) => (r === bad ? 'E_TOO_LARGE' : 'ok')),
      );
    }
  });
});

/** A pool that records the groups it is handed, and runs them. */
class RecordingPool extends SandboxPool {
  groups: string[][] = [];
  override runTogether(requests: RunRequest[]) {
    this.groups.push(requests.map((r) => r.source));
    return super.runTogether(requests);
  }
}

describe('the dispatcher', () => {
  it('sends the calls that arrive together as one group per slot, each module pinned to one slot', async () => {
    const recording = new RecordingPool({ workers: 2 });
    try {
      const dispatcher = new Dispatcher(recording, 1_000, 4);
      const modules = ['m1', 'm2', 'm3', 'm4'].map((name) => ({ name, source: named(name) }));
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all(
          modules.map((m, i) =>
            dispatcher.submit(
              m.name,
              m.source,
              calls([1, 2]).map((call) => ({ call, chars: 10 * (i + 1) })),
              'tests',
            ),
          ),
        );
        expect(answers.map((a) => prompts(a).map((p) => p.split(' ').slice(0, 2).join(' ')))).toEqual(
          modules.map((m) => [`${m.name} 1`, `${m.name} 2`]),
        );
      }
      // Two slots of two modules each: every round is two groups, and a module never changes group.
      expect(recording.groups).toHaveLength(6);
      const slotOf = new Map<string, string>();
      for (const group of recording.groups) {
        expect(group).toHaveLength(2);
        for (const source of group) {
          const key = [...group].sort().join('|');
          expect(slotOf.get(source) ?? key).toBe(key);
          slotOf.set(source, key);
        }
      }
    } finally {
      await recording.close();
    }
  });
});

// The answer pool as a shared resource (rtv2-1, rtv2-2): owners served in turn, a bound on each owner's waiting
// answers, cancellation by signal, isolates that never hold two runs' programs nor what an answer left behind.
import { afterAll, describe, expect, it } from 'vitest';
import { AnswerPool, AnswerQueueFull, AnswersCancelled } from '../sandbox/code/answer-pool.js';
import { DEFAULT_ANSWER_LIMITS, type AnswerLimits, type AnswerSpec } from '../sandbox/code/answers.js';
import { FairQueue } from '../sandbox/fair-queue.js';

const base = { language: 'javascript', entry: 'add', compare: 'exact', tests: [['[1,2]', '3']] } satisfies Omit<
  AnswerSpec,
  'program'
>;
const honest: AnswerSpec = { ...base, program: 'function add(a, b) { return a + b; }' };
const looping: AnswerSpec = { ...base, program: 'function add(a, b) { for (;;) {} }' };
/** Answers correctly and leaves `mb` MB of registered symbols in its isolate (the registry is the isolate's). */
const filler = (tag: string, mb: number): AnswerSpec => ({
  ...base,
  program:
    `function add(a, b) {\n  for (let i = 0; i < ${mb}; i++) Symbol.for('${tag}' + i + '-'.repeat(1 << ` +
    `20));\n  return a + b;\n}`,
});
/** Keeps a million small records alive while it works (about 47 MB). */
const hungry: AnswerSpec = {
  ...base,
  program:
    'function add(a, b) { const seen = []; for (let i = 0; i < 1e6; i++) seen.push({ i }); return a + ' +
    'b + seen.length - 1e6; }',
};

const limits = (over: Partial<AnswerLimits>): AnswerLimits => ({ ...DEFAULT_ANSWER_LIMITS, ...over });
const pools: AnswerPool[] = [];
const poolOf = (options: ConstructorParameters<typeof AnswerPool>[0]) => {
  const pool = new AnswerPool({ workers: 1, ...options });
  pools.push(pool);
  return pool;
};
afterAll(async () => {
  for (const pool of pools) await pool.close();
});

describe('FairQueue', () => {
  it("serves owners in turn, each owner's items in order, and removes what is picked", () => {
    const q = new FairQueue<string>();
    for (const item of ['a1', 'a2', 'a3']) q.push('a', item);
    q.push('b', 'b1');
    q.push('c', 'c1');
    expect(q.remove('c', (x) => x === 'c1')).toEqual(['c1']);
    expect([q.shift(), q.shift(), q.shift(), q.shift(), q.shift()]).toEqual(['a1', 'b1', 'a2', 'a3', undefined]);
    expect(q.size).toBe(0);
  });
});

describe('the answer pool shares its workers between owners', () => {
  it("an owner's one answer is scored before another owner's earlier backlog of looping programs", async () => {
    // The default 1 s a test: a tighter one let a loaded machine's compile of the honest program time out (E_WRONG).
    const pool = poolOf({ answersPerJob: 1, limits: limits({ testTimeoutMs: 1_000 }) });
    const order: string[] = [];
    const backlog = pool
      .run(
        Array.from({ length: 8 }, () => looping),
        {},
        { owner: 'attacker' },
      )
      .then(() => order.push('attacker'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [mine] = await pool.run([honest], {}, { owner: 'victim' });
    order.push('victim');
    await backlog;
    expect(mine?.tests).toEqual([null]);
    expect(order).toEqual(['victim', 'attacker']);
  }, 120_000);

  it("refuses a run past an owner's bound of waiting answers, naming it, and takes other owners' " +
    "and an owner's only run", async () => {
    const pool = poolOf({ maxQueuedPerOwner: 4, limits: limits({ testTimeoutMs: 200 }) });
    const big = pool.run(
      Array.from({ length: 6 }, () => looping),
      {},
      { owner: 'a' },
    ); // an owner's only run: taken though over the bound
    expect(pool.queued('a')).toBe(6);
    await expect(pool.run([honest], {}, { owner: 'a' })).rejects.toThrow(AnswerQueueFull);
    await expect(pool.run([honest], {}, { owner: 'a' })).rejects.toThrow(
      /at most 4 \(the answer pool's maxQueuedPerOwner\)/,
    );
    expect((await pool.run([honest], {}, { owner: 'b' }))[0]?.tests).toEqual([null]);
    await big;
    expect(pool.queued('a')).toBe(0);
  }, 120_000);

  it('a cancelled run leaves the queue, its running answer stops, and the next owner is served at once', async () => {
    // A test budget of two minutes: only a stopped worker lets the next answer through within this test's timeout.
    const pool = poolOf({ limits: limits({ testTimeoutMs: 120_000 }) });
    const stop = new AbortController();
    const cancelled = pool.run([looping, looping, looping], {}, { owner: 'a', signal: stop.signal });
    const next = pool.run([honest], {}, { owner: 'b' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    stop.abort();
    await expect(cancelled).rejects.toThrow(AnswersCancelled);
    expect(pool.queued('a')).toBe(0);
    expect((await next)[0]?.tests).toEqual([null]);
    await expect(pool.run([honest], {}, { owner: 'a', signal: stop.signal })).rejects.toThrow(AnswersCancelled);
  }, 60_000);
});

describe("answer isolates hold one run's programs, and not what an answer left behind", () => {
  it("an isolate an answer left symbols in is retired before the run's next answer; one run's " +
    'light answers share theirs', async () => {
    const pool = poolOf({});
    const [a, b, c, d] = await pool.run([honest, honest, filler('keep', 40), honest]);
    expect([a, b, c, d].map((r) => r?.tests)).toEqual([[null], [null], [null], [null]]);
    expect(a?.isolate).toBe(b?.isolate);
    expect(c?.isolate).toBe(b?.isolate);
    expect(d?.isolate).not.toBe(c?.isolate);
    const [e] = await pool.run([honest]);
    expect(e?.isolate).not.toBe(d?.isolate); // another run: another isolate
  }, 120_000);

  it('a program that runs out of memory in an isolate others used is re-run alone in a fresh ' +
    'one before it is scored', async () => {
    // 22 MB left behind stays under the slack, so the isolate is kept; the hungry program then needs more than is left
    // of 48 MB.
    const pool = poolOf({ limits: limits({ testTimeoutMs: 15_000, memoryMb: 48 }) });
    const [alone] = await pool.run([hungry]);
    expect(alone?.tests).toEqual([null]);
    const [left, after] = await pool.run([filler('keep', 22), hungry]);
    expect(left?.tests).toEqual([null]);
    expect(after?.tests).toEqual([null]);
    expect(after?.rerun).toBe(true);
    expect(after?.isolate).not.toBe(left?.isolate);
  }, 120_000);
});

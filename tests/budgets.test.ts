// Deadlines and budgets hold against modules written for these tests: a whole-job deadline, worker memory
// bounded at the process level, no worker outliving a killed supervisor, fresh module instances per
// call, seeds a module cannot predict, and reports that always serialise.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxPool } from '../sandbox/pool.js';
import type { Call, CallResult, EpisodeValue } from '../sandbox/protocol.js';
import { deriveRngState } from '../sandbox/rng.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import { validateCandidate } from '../validators/validate.js';
import { envSource } from './helpers/env-source.js';
import { spawnLoop } from './helpers/killable.js';
import { patchedSeed } from './helpers/seed-patch.js';

const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());

const codes = (report: { problems: Array<{ code: string }> }) => report.problems.map((p) => p.code);

describe('deadlines', () => {
  it('ends a job at its whole-job deadline even when every call stays within its own budget', async () => {
    const source = envSource({
      generate: "let x = 0; for (let i = 0; i < 3e8; i++) x += i; return { prompt: 'p' + x };",
    });
    const calls: Call[] = Array.from({ length: 40 }, (_, i) => ({ op: 'episode', seed: i, level: 1 }));
    const { results } = await pool.run({ source, calls, limits: { callTimeoutMs: 20_000, jobTimeoutMs: 1_500 } });
    const failures = results.filter((r): r is Extract<CallResult, { ok: false }> => !r.ok);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((f) => f.code === 'E_TIMEOUT' && /whole-job deadline/.test(f.message))).toBe(true);
    // 3e8 additions a call: no machine runs 20 of them in 1.5 s
    expect(failures.length).toBeGreaterThan(calls.length / 2);
  });
});

describe('a work budget shared by the jobs of one caller', () => {
  it('kills the job that runs it out with E_TOO_SLOW, starts no job after it, and does not count ' +
    'time queued behind others', async () => {
    const one = new SandboxPool({ workers: 1 });
    try {
      const slow = envSource({
        generate: "let x = 0; for (let i = 0; i < 1e8; i++) x += i; return { prompt: 'p' + x };",
      });
      const calls: Call[] = Array.from({ length: 80 }, (_, i) => ({ op: 'episode', seed: i, level: 1 }));
      const workBudget = { totalMs: 3_000, spentMs: 0 };
      // Another caller holds the only worker first: the budgeted job waits in the queue, and that wait is free.
      const other = one.run({ source: slow, calls: calls.slice(0, 6), limits: { callTimeoutMs: 20_000 } });
      const first = one.run({ source: slow, calls, limits: { callTimeoutMs: 20_000, workBudget } });
      await other;
      const { results } = await first;
      const failures = results.filter((r): r is Extract<CallResult, { ok: false }> => !r.ok);
      expect(failures.length).toBeGreaterThan(0);
      expect(
        failures.every((f) => f.code === 'E_TOO_SLOW' && /budget of 3 s ran out during this job/.test(f.message)),
      ).toBe(true);
      expect(results.some((r) => r.ok)).toBe(true); // it ran (the queue wait did not count) until the budget ran out
      expect(workBudget.spentMs).toBeGreaterThanOrEqual(3_000);
      const after = await one.run({ source: slow, calls: calls.slice(0, 2), limits: { workBudget } });
      expect(
        after.results.every((r) => !r.ok && r.code === 'E_TOO_SLOW' && /before this job started/.test(r.message)),
      ).toBe(true);
    } finally {
      await one.close();
    }
  }, 60_000);
});

describe('the work budget charges work, not the host', () => {
  it('charges a finished job its worker CPU time: a worker held off its core (SIGSTOP) is not charged', async () => {
    const one = new SandboxPool({ workers: 1 });
    try {
      const busy = envSource({
        generate: "let x = 0; for (let i = 0; i < 2e7; i++) x += i; return { prompt: 'p' + x };",
      });
      await one.run({ source: busy, calls: [{ op: 'episode', seed: 0, level: 1 }] });
      const [pid] = one.workerPids();
      const calls: Call[] = Array.from({ length: 30 }, (_, i) => ({ op: 'episode', seed: i, level: 1 }));
      const workBudget = { totalMs: 120_000, spentMs: 0 };
      const started = performance.now();
      const run = one.run({ source: busy, calls, limits: { callTimeoutMs: 20_000, workBudget } });
      // The host takes the worker's core away for 1.5 s mid-job, as a loaded machine's scheduler does.
      await new Promise((r) => setTimeout(r, 100));
      process.kill(pid as number, 'SIGSTOP');
      await new Promise((r) => setTimeout(r, 1_500));
      process.kill(pid as number, 'SIGCONT');
      const { results } = await run;
      const wallMs = performance.now() - started;
      expect(results.every((r) => r.ok)).toBe(true);
      expect(workBudget.spentMs).toBeGreaterThan(0);
      // Charged at most its CPU or a quarter of its wall time: the 1.5 s it was stopped is not charged in full.
      expect(workBudget.spentMs).toBeLessThan(wallMs - 1_000);
    } finally {
      await one.close();
    }
  }, 60_000);
});

describe('a call the clock stopped while it waited for a core', () => {
  it('runs again rather than failing E_TIMEOUT when its isolate worked under half its budget', async () => {
    const one = new SandboxPool({ workers: 1 });
    try {
      // A few milliseconds of work a call, far inside its 1 s budget on any host.
      const busy = envSource({
        generate: "let x = 0; for (let i = 0; i < 1e7; i++) x += i % 7; return { prompt: 'p' + x };",
      });
      await one.run({ source: busy, calls: [{ op: 'episode', seed: 0, level: 1 }] });
      const [pid] = one.workerPids();
      const calls: Call[] = Array.from({ length: 100 }, (_, i) => ({ op: 'episode', seed: i, level: 1 }));
      const run = one.run({ source: busy, calls });
      // The host takes the worker's core away for 2 s mid-call: the call's wall clock runs out, its work does not.
      await new Promise((r) => setTimeout(r, 150));
      process.kill(pid as number, 'SIGSTOP');
      await new Promise((r) => setTimeout(r, 2_000));
      process.kill(pid as number, 'SIGCONT');
      const { results } = await run;
      expect(results.filter((r) => !r.ok)).toEqual([]);
      // A loop that works its whole budget still fails.
      const loop = envSource({ generate: 'for (;;) {}' });
      const stopped = await one.run({ source: loop, calls: calls.slice(0, 2) });
      expect(stopped.results.every((r) => !r.ok && r.code === 'E_TIMEOUT')).toBe(true);
    } finally {
      await one.close();
    }
  }, 60_000);
});

describe('memory is bounded at the process level', () => {
  it('kills a worker whose resident memory passes the limit (E_MEMORY), inside a generous isolate limit', async () => {
    const small = new SandboxPool({
      workers: 1,
      workerRssMb: 400,
      limits: { memoryMb: 2_048, callTimeoutMs: 30_000 },
    });
    try {
      const source = envSource({
        generate:
          'const keep = []; for (let i = 0; i < 64; i++) keep.push(new Float64Array(2 ** 20).fill(i)); ' +
          // Held a while (reading it over and over), so the pool's RSS check, an interval, sees it even on a loaded
          // host (a fresh-clone CI once ran the call through in 269 ms, before the check came round).
          'let s = 0; for (let r = 0; r < 400; r++) for (const a of keep) for (let j = 0; j < a.length; j += 256) ' +
          's += a[j]; ' +
          "return { prompt: 'p' + keep.length + s };",
      });
      const { results } = await small.run({ source, calls: [{ op: 'episode', seed: 1, level: 1 }] });
      expect(results[0]).toMatchObject({
        ok: false,
        code: 'E_MEMORY',
        message: expect.stringMatching(/MB of memory \(limit 400 MB\)/),
      });
    } finally {
      await small.close();
    }
  });
});

describe('no orphans', () => {
  it('a worker wedged in a guest loop dies with its supervisor when the supervisor is SIGKILLed', async () => {
    let worker = -1;
    const loop = spawnLoop('tests/helpers/wedged-supervisor.ts', '-', 0, 30_000, (line) => {
      if (line.startsWith('worker ')) worker = Number(line.slice(7));
    });
    await loop.ready;
    expect(worker).toBeGreaterThan(0);
    const cpu = () =>
      readFileSync(`/proc/${worker}/stat`, 'utf8')
        .split(') ')[1]
        ?.split(' ')
        .slice(11, 13)
        .map(Number)
        .reduce((a, b) => a + b, 0) ?? 0;
    const before = cpu();
    await new Promise((r) => setTimeout(r, 300));
    expect(cpu()).toBeGreaterThan(before); // it is spinning in the guest loop, deaf to IPC
    await loop.kill();
    const alive = () => {
      try {
        return !/^[^)]*\) Z/.test(readFileSync(`/proc/${worker}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    const deadline = performance.now() + 5_000;
    while (alive() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(alive()).toBe(false);
  });
});

describe('fresh instances', () => {
  // A top level that takes a few ms (a table built at load) was once given one shared instance per realm,
  // so a counter in module state could age with production's calls. Now a costly module's counters start
  // over on every call too.
  it('a module with a costly top level also gets a fresh instance per call: its counters never reach their gates', {
    timeout: 300_000,
  }, async () => {
    const source = envSource({
      prelude:
        'let table = 0; for (let i = 0; i < 2e6; i++) table = (table + i) % 1009; let served = 0; let verified = 0;',
      generate: "served++; return { prompt: 'call ' + served + ' of ' + table, answer: 1 };",
      verify: 'verified++; return { score: verified > 1 ? 1 : 0, feedback: String(verified) };',
    });
    const calls: Call[] = Array.from({ length: 60 }, (_, i) => ({
      op: 'episode',
      seed: i,
      level: 1,
      responses: ['a', 'b', 'c'],
    }));
    // Wide limits: each call pays the top level (~5–10 ms quiet), and a loaded machine may be 20× slower.
    const { load, results } = await pool.run({
      source,
      calls,
      limits: { callTimeoutMs: 20_000, jobTimeoutMs: 300_000 },
    });
    expect(load).toMatchObject({ ok: true, instancing: 'episode' });
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect((load as { loadMs: number }).loadMs).toBeGreaterThan(2);
    const values = results.map((r) => (r as { value: EpisodeValue }).value);
    expect(new Set(values.map((v) => (v.instance as { prompt: string }).prompt.split(' of ')[0]))).toEqual(
      new Set(['call 1']),
    );
    expect(new Set(values.flatMap((v) => v.verdicts.map((x) => JSON.stringify(x))))).toEqual(
      new Set(['{"ok":true,"value":{"score":0,"feedback":"1"}}']),
    );
  });

  it('a cheap module gets a fresh instance per call: module state never changes what it does', async () => {
    const source = envSource({
      prelude: 'let served = 0;',
      generate: "served++; return { prompt: 'call ' + served, answer: 1 };",
      verify: 'served++; return served > 1 ? 1 : 0;',
    });
    const calls: Call[] = Array.from({ length: 3_000 }, (_, i) => ({
      op: 'episode',
      seed: i,
      level: 1,
      responses: ['a', 'b'],
    }));
    const { load, results } = await pool.run({ source, calls });
    expect(load).toMatchObject({ ok: true, instancing: 'episode' });
    const values = results.map((r) => (r as { value: EpisodeValue }).value);
    expect(new Set(values.map((v) => (v.instance as { prompt: string }).prompt))).toEqual(new Set(['call 1']));
    expect(new Set(values.flatMap((v) => v.verdicts.map((x) => JSON.stringify(x))))).toEqual(
      new Set(['{"ok":true,"value":0}']),
    );
  });
});

describe('validation seeds', () => {
  it('catches a module that behaves only on the small seeds a fixed validator would use', async () => {
    // The module knows the first rng output of seeds 0..63 at every level and pays for junk elsewhere.
    const rt = loadPlainRuntime();
    const watched = [];
    for (let level = 1; level <= 10; level++)
      for (let seed = 0; seed < 64; seed++)
        watched.push(
          `${level}:${rt.makeRng(...deriveRngState('modular-arithmetic', seed, level)).int(0, 2 ** 31 - 1)}`,
        );
    const source = patchedSeed('modular-arithmetic', {
      prelude: `const WATCHED = new Set(${JSON.stringify(watched)});`,
      generate:
        'const probe = rng.int(0, 2 ** 31 - 1); return { ...honestGenerate(rng, level), watched: ' +
        "WATCHED.has(level + ':' + probe) };",
      verify: 'return instance.watched ? honestVerify(instance, response) : 0.75;',
    });
    const report = await validateCandidate(source, { pool });
    expect(report.verdict).toBe('reject');
    expect(codes(report).some((c) => c.startsWith('E_ACCEPTS_') || c === 'E_UNSOLVED')).toBe(true);
  });

  it('records the validation seed, and replaying it reproduces the draws', async () => {
    const source = patchedSeed('modular-arithmetic', {
      generate: "const i = honestGenerate(rng, level); if (rng.int(0, 9) === 0) throw new Error('rare'); return i;",
    });
    const first = await validateCandidate(source, { pool });
    const replay = await validateCandidate(source, { pool, validationSeed: first.validationSeed });
    const other = await validateCandidate(source, { pool, validationSeed: first.validationSeed + 1 });
    const evidence = (r: typeof first) => JSON.stringify(r.problems.find((p) => p.code === 'E_THROWN')?.evidence);
    expect(codes(first)).toContain('E_THROWN');
    expect(evidence(replay)).toBe(evidence(first));
    expect(evidence(other)).not.toBe(evidence(first));
    // Seeds come from the whole space: most draws are far past 32 bits.
    const seeds = (first.problems.find((p) => p.code === 'E_THROWN')?.evidence as Array<{ seed: number }>).map(
      (e) => e.seed,
    );
    expect(seeds.every((s) => Number.isSafeInteger(s) && s >= 0)).toBe(true);
  });
});

describe('reports always serialise', () => {
  it('a module polluting Object.prototype.toJSON with meta 100,000 deep gets a report, not a crash', async () => {
    const source = [
      'let deep = []; for (let i = 0; i < 100000; i++) deep = [deep];',
      'try { Object.prototype.toJSON = function () { return deep; }; } catch (e) { /* frozen */ }',
      "export const meta = { name: 'deep-meta', title: 'Deep', description: 'Deep meta.', skills: " +
        "['testing'], levels: 3, extra: deep };",
      "export function generate() { return { prompt: 'p' }; }",
      "export function solve() { return '<answer>1</answer>'; }",
      'export function verify() { return 1; }',
    ].join('\n');
    const report = await validateCandidate(source, { pool });
    expect(report.verdict).toBe('reject');
    expect(() => JSON.stringify(report)).not.toThrow();
  });
});

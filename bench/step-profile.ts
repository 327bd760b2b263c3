// Where an episode step's time goes: `node dist/bench/step-profile.js [--sessions N] [--cpu-prof DIR]` runs a
// server over the episodic seeds in its own process, stamps each step at every layer (request arrival, the
// session's turn, the dispatcher, the crossing to a worker, the module's own time, the journal, the answer)
// and prints a table of each layer's p50/p99, the tail's mean per layer, GC and event-loop delay (JSON).
import { AsyncLocalStorage } from 'node:async_hooks';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client, percentile, play } from './episode-load.js';
import { referencePlans } from './episode-plans.js';

const SELF = fileURLToPath(import.meta.url);
const CHILD_FLAG = 'ENVFORGE_STEP_PROFILE_LIBRARY';

/** One step's stamps (ms, performance.now()), in the order a step passes them. */
interface Stamps {
  arrive: number;
  step?: number;
  rollout?: number;
  /** Its group formed and queued in the sandbox gate (serve/sandbox-gate.ts); `sent` when the gate let it through. */
  gated?: number;
  sent?: number;
  back?: number;
  guestMs?: number;
  rolled?: number;
  journalIn?: number;
  journalOut?: number;
  answered?: number;
  done?: number;
}

/** The layers of a step, each the time between two stamps. */
const LAYERS: Array<[string, (s: Required<Stamps>) => number]> = [
  ['body, parse, hooks (Host, auth), admission', (s) => s.step - s.arrive],
  ['session lookup, its turn', (s) => s.rollout - s.step],
  ['dispatcher queue (batching, both groups of the slot formed)', (s) => s.gated - s.rollout],
  ['sandbox gate wait (its group formed, waiting for a worker)', (s) => s.sent - s.gated],
  ['crossing: pool queue, IPC, worker (less the module)', (s) => s.back - s.sent - s.guestMs],
  ["the module's rollout in the isolate", (s) => s.guestMs],
  ['result back to the session', (s) => s.rolled - s.back],
  ['journal (line landed; beside the rollout where it goes out first)', (s) => s.journalOut - s.journalIn],
  ['journal wait after the rollout', (s) => Math.max(0, s.journalOut - s.rolled)],
  ['answer built, encoded, written', (s) => s.done - s.answered],
  ['server total (arrival to response end)', (s) => s.done - s.arrive],
];

/** The server process: patches the layers' entry points with stamps, then serves until told to report. */
async function profileChild(libraryDir: string): Promise<void> {
  const [
    { startServer },
    { EpisodeSessions },
    { EpisodeRunner },
    { Dispatcher },
    { EpisodeJournal },
    { SandboxPool },
    { SandboxGate },
  ] = await Promise.all([
    import('../serve/server.js'),
    import('../serve/episodes.js'),
    import('../serve/episode-runner.js'),
    import('../serve/dispatcher.js'),
    import('../serve/episode-journal.js'),
    import('../sandbox/pool.js'),
    import('../serve/sandbox-gate.js'),
  ]);
  const store = new AsyncLocalStorage<Stamps>();
  let steps: Stamps[] = [];
  const gc: number[] = [];
  new PerformanceObserver((list) => list.getEntries().forEach((e) => gc.push(e.duration))).observe({
    entryTypes: ['gc'],
  });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const emit = http.Server.prototype.emit as (this: http.Server, event: string, ...args: unknown[]) => boolean;
  http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
    if (event !== 'request') return emit.call(this, event, ...args);
    const [req, res] = args as [http.IncomingMessage, http.ServerResponse];
    if (!/\/step$/.test(req.url ?? '')) return emit.call(this, event, ...args);
    const stamps: Stamps = { arrive: performance.now() };
    res.once('finish', () => {
      stamps.done = performance.now();
      steps.push(stamps);
    });
    return store.run(stamps, () => emit.call(this, event, ...args));
  } as typeof http.Server.prototype.emit;
  const wrap = <T extends object>(
    proto: T,
    name: keyof T,
    before: (s: Stamps, args: unknown[]) => void,
    after?: (s: Stamps, value: unknown) => void,
  ) => {
    const original = proto[name] as (...a: unknown[]) => unknown;
    (proto as Record<string, unknown>)[name as string] = function (this: unknown, ...args: unknown[]) {
      const s = store.getStore();
      if (s) before(s, args);
      const value = original.apply(this, args);
      if (s && after)
        (value as Promise<unknown>).then(
          (v) => after(s, v),
          () => {},
        );
      return value;
    };
  };
  const byCall = new WeakMap<object, Stamps>();
  wrap(
    EpisodeSessions.prototype,
    'step',
    (s) => (s.step = performance.now()),
    (s) => (s.answered = performance.now()),
  );
  wrap(
    EpisodeRunner.prototype,
    'rollout',
    (s) => (s.rollout = performance.now()),
    (s) => (s.rolled = performance.now()),
  );
  wrap(Dispatcher.prototype, 'submit', (s, [, , calls]) =>
    (calls as Array<{ call: object }>).forEach((c) => byCall.set(c.call, s)),
  );
  wrap(
    EpisodeJournal.prototype,
    'append',
    (s) => (s.journalIn = performance.now()),
    (s) => (s.journalOut = performance.now()),
  );
  // When the gate job now starting was queued: its runTogether call happens as the gate lets it through.
  let gatedAt: number | undefined;
  // A worker's hand-off: from the pool freeing it (its last job's 'done') to the next job the gate lets through,
  // counted where that job was already waiting (the time a worker idles with work queued for it).
  let freedAt: number | undefined;
  let handoffs: number[] = [];
  type Finish = (this: unknown, worker: { next: unknown[] }, ...a: unknown[]) => void;
  const proto = Object.getPrototypeOf(SandboxPool.prototype) as { finish: Finish }; // PoolDispatch's (private)
  const finish = proto.finish;
  proto.finish = function (this: unknown, worker, ...a) {
    if (worker.next.length === 0) freedAt = performance.now();
    return finish.call(this, worker, ...a);
  };
  const gateRun = SandboxGate.prototype.run;
  SandboxGate.prototype.run = function <T>(
    this: InstanceType<typeof SandboxGate>,
    owner: string,
    cost: number,
    job: (done: () => void) => Promise<T>,
  ) {
    const queued = performance.now();
    return gateRun.call(this, owner, cost, (done: () => void) => {
      gatedAt = queued;
      if (freedAt !== undefined && queued < freedAt) handoffs.push(performance.now() - freedAt);
      freedAt = undefined;
      try {
        return job(done);
      } finally {
        gatedAt = undefined;
      }
    });
  } as typeof SandboxGate.prototype.run;
  const together = SandboxPool.prototype.runTogether;
  SandboxPool.prototype.runTogether = function (this: InstanceType<typeof SandboxPool>, requests) {
    const sent = performance.now();
    const gated = gatedAt ?? sent;
    const runs = together.call(this, requests);
    requests.forEach((r, k) => {
      const mine = (r.calls ?? []).map((c) => byCall.get(c));
      for (const s of mine) if (s) Object.assign(s, { gated, sent });
      void runs[k]?.then(
        (result) =>
          mine.forEach(
            (s, i) => s && Object.assign(s, { back: performance.now(), guestMs: result.results[i]?.ms ?? 0 }),
          ),
        () => {},
      );
    });
    return runs;
  };
  const server = await startServer({
    libraryDir,
    port: 0,
    maxQueue: 1 << 20,
    maxSessions: 8_192,
    episodesDir: join(libraryDir, '..', 'episodes'),
  });
  process.on('message', (m) => {
    if (m === 'reset') {
      [steps, gc.length, handoffs] = [[], 0, []];
      delay.reset();
      process.send?.('reset');
    } else if (m === 'report')
      process.send?.({
        steps,
        gc,
        handoffs,
        delayP50: delay.percentile(50) / 1e6,
        delayP99: delay.percentile(99) / 1e6,
        delayMax: delay.max / 1e6,
      });
    else if (m === 'stop') void server.close().then(() => process.exit(0));
  });
  process.send?.({ url: server.url });
}

const ask = <T>(child: ChildProcess, message: string): Promise<T> =>
  new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T));
    child.send(message);
  });
const r2 = (x: number) => Math.round(x * 100) / 100;

/** The table of a profile: each layer's p50, p99 and its mean over the slowest 1% of steps. */
export function layerTable(
  steps: Stamps[],
): Array<{ layer: string; p50Ms: number; p99Ms: number; tailMeanMs: number }> {
  const full = steps.filter((s): s is Required<Stamps> =>
    [s.step, s.rollout, s.gated, s.sent, s.back, s.rolled, s.journalIn, s.journalOut, s.answered, s.done].every(
      (x) => x !== undefined,
    ),
  );
  const total = (LAYERS.at(-1) as [string, (s: Required<Stamps>) => number])[1];
  const byTotal = [...full].sort((a, b) => total(a) - total(b));
  const tail = byTotal.slice(Math.floor(byTotal.length * 0.99));
  return LAYERS.map(([layer, of]) => {
    const sorted = full.map(of).sort((a, b) => a - b);
    return {
      layer,
      p50Ms: r2(percentile(sorted, 0.5)),
      p99Ms: r2(percentile(sorted, 0.99)),
      tailMeanMs: r2(tail.reduce((a, s) => a + of(s), 0) / Math.max(1, tail.length)),
    };
  });
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help')) {
    process.stdout.write(
      'usage: node dist/bench/step-profile.js [--sessions N] [--cpu-prof DIR]\n  256 sessions (default) step ' +
        "reference rollouts closed loop, then at half that rate; prints each layer's p50/p99 as JSON\n",
    );
    return;
  }
  const sessions = Number(argv[argv.indexOf('--sessions') + 1]) || 256;
  const profDir = argv.includes('--cpu-prof') ? argv[argv.indexOf('--cpu-prof') + 1] : undefined;
  const tmp = mkdtempSync(join(tmpdir(), 'envforge-step-profile-'));
  const libraryDir = join(tmp, 'library');
  const plans = await referencePlans(libraryDir);
  const child = fork(SELF, [], {
    execArgv: profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [],
    env: { ...process.env, [CHILD_FLAG]: libraryDir },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { url } = await new Promise<{ url: string }>((resolve) =>
    child.once('message', (m) => resolve(m as { url: string })),
  );
  const client = new Client(url);
  try {
    await play(client, plans, { ms: 2_000, sessions });
    await ask(child, 'reset');
    const live = await play(client, plans, { ms: 5_000, sessions });
    const liveHandoffs = (await ask<{ handoffs: number[] }>(child, 'report')).handoffs.sort((a, b) => a - b);
    const thinkMs = (1000 * sessions) / (0.5 * Math.max(1, live.steps / 5));
    await ask(child, 'reset');
    const paced = await play(client, plans, { ms: 5_000, sessions, thinkMs });
    const report = await ask<{
      steps: Stamps[];
      gc: number[];
      handoffs: number[];
      delayP50: number;
      delayP99: number;
      delayMax: number;
    }>(child, 'report');
    const ms = (xs: number[]) => ({
      count: xs.length,
      p50: r2(percentile(xs, 0.5)),
      p99: r2(percentile(xs, 0.99)),
      totalMs: r2(xs.reduce((a, b) => a + b, 0)),
    });
    const gc = report.gc.sort((a, b) => a - b);
    const summary = {
      sessions,
      closedLoopStepsPerSec: live.steps / 5,
      thinkMs: r2(thinkMs),
      pacedSteps: paced.steps,
      clientP50Ms: r2(percentile(paced.latencies, 0.5)),
      clientP99Ms: r2(percentile(paced.latencies, 0.99)),
      layers: layerTable(report.steps),
      workerHandoffMs: { closedLoop: ms(liveHandoffs), paced: ms(report.handoffs.sort((a, b) => a - b)) },
      gc: { count: gc.length, totalMs: r2(gc.reduce((a, b) => a + b, 0)), maxMs: r2(gc.at(-1) ?? 0) },
      eventLoopDelayMs: { p50: r2(report.delayP50), p99: r2(report.delayP99), max: r2(report.delayMax) },
    };
    process.stdout.write(`${JSON.stringify(summary, null, 1)}\n`);
  } finally {
    client.close();
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.send('stop');
    });
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.env[CHILD_FLAG] && process.send) void profileChild(process.env[CHILD_FLAG] as string);
else if (process.argv[1] === SELF) await main();

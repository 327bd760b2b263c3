// A sandbox worker process: loads environment modules into hardened isolates (realm.ts) and runs batches
// of calls through the trampoline, streaming size-checked results to the supervisor. Guest code may abort
// or wedge this whole process; the supervisor then kills and replaces it.
import { guardAgainstOrphaning } from './orphan-guard.js';
import { unpackCalls, withTools } from './packed-calls.js';
import type { JobMessage, JobsMessage, YieldMessage } from './protocol.js';
import { warmSetup, watchSetup } from './realm.js';
import { cache } from './worker-cache.js';
import { askToYield, runJob } from './worker-job.js';
import { flush, send } from './worker-outbox.js';

/** The job running now, which a setup of the sandbox's own is reported to. */
let current: number | null = null;
/**
 * This process's CPU time in the job running now, less the sandbox's own setups (the same time the supervisor
 * leaves out of the job's wall time): what the job costs its caller's budget whatever the host's load.
 */
const cpu = { start: process.cpuUsage(), setup: 0, setupStart: null as NodeJS.CpuUsage | null };
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
watchSetup((maxMs) => {
  if (current === null) return;
  if (maxMs !== null) cpu.setupStart = process.cpuUsage();
  else if (cpu.setupStart) [cpu.setup, cpu.setupStart] = [cpu.setup + cpuMs(cpu.setupStart), null];
  send(maxMs === null ? { type: 'progress', id: current } : { type: 'progress', id: current, setupMs: maxMs });
  flush();
});

/** Jobs waiting for the source they asked for (need-source), by id: the supervisor sends the job again with it. */
const resent = new Map<number, (job: JobMessage) => void>();

async function onJob(job: JobMessage): Promise<void> {
  let received = job;
  let source = received.source ?? cache.get(received.hash)?.source;
  if (source === undefined) {
    // Jobs sent after this one wait: they run in the order they were sent.
    const again = new Promise<JobMessage>((resolve) => resent.set(received.id, resolve));
    send({ type: 'need-source', id: received.id });
    received = await again;
    source = received.source;
    if (source === undefined) {
      send({
        type: 'failed',
        id: received.id,
        from: -1,
        count: 0,
        code: 'E_PROTOCOL',
        message: 'sandbox worker fault: the job came back without its source',
        fn: 'worker',
      });
      return send({ type: 'done', id: received.id });
    }
  }
  current = received.id;
  [cpu.start, cpu.setup, cpu.setupStart] = [process.cpuUsage(), 0, null];
  try {
    await runJob(
      {
        ...received,
        calls: received.packed ? unpackCalls(received.packed) : withTools(received.calls, received.tools),
      },
      source,
    );
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    send({
      type: 'failed',
      id: received.id,
      from: -1,
      count: 0,
      code: 'E_PROTOCOL',
      message: `sandbox worker fault: ${text}`,
      fn: 'worker',
    });
  }
  current = null;
  send({ type: 'done', id: received.id, cpuMs: Math.max(0, cpuMs(cpu.start) - cpu.setup) });
}

// Jobs run one after another: a job now yields between crossings (letWritesOut), so one must not start meanwhile.
let jobs = Promise.resolve();
process.on('message', (raw: unknown) => {
  const received = raw as JobMessage | JobsMessage | YieldMessage;
  if (received.type === 'yield') return askToYield(received.id); // it may come before its job (sent together)
  const each = received.type === 'jobs' ? received.jobs : received.type === 'job' ? [received] : [];
  for (const job of each) {
    const waiting = resent.get(job.id);
    resent.delete(job.id);
    if (waiting) waiting(job);
    else jobs = jobs.then(() => onJob(job));
  }
});

// The supervisor closes the channel to let an idle worker leave; a wedged worker is killed by the guard.
process.on('disconnect', () => process.exit(0));
guardAgainstOrphaning();
// The supervisor owns this process's life: a terminal's Ctrl-C or a SIGTERM sent to the whole process group is the
// supervisor's to act on (it cancels its work and closes the pool). A worker that died of it first would make the
// job it was running read as the module's crash (E_CRASHED) before the supervisor heard of the signal.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});

// SES's code cache is built before the worker says it is ready: the supervisor's deadlines start with a job.
warmSetup();
send({ type: 'ready' });
flush();

// One job in a sandbox worker: its calls run in crossings through the module's realm, results streamed as they
// finish; after a failure, what finished is salvaged, the culprit is found by re-running calls one per crossing
// (and work a call left behind is charged to the guest function that left it), and the realm is replaced.
import type { ProblemCode } from '../contract/codes.js';
import { maxChunkChars, YIELDED_MESSAGE, type JobMessage, type LoadInfo } from './protocol.js';
import { runStepped } from './left-behind.js';
import { classify, GuestFailure, type Realm } from './realm.js';
import { crossingArgs, prepareCalls, type Prepared } from './crossing.js';
import { cache, compile, dispose, entryFor, type Compiled } from './worker-cache.js';
import { readTrips, tripMessage, type Trips } from './trips.js';
import { beginJobWrites, flush, forward, letWritesOut, readChunk, send, type Chunk } from './worker-outbox.js';

/**
 * How often a call the clock stopped runs again when its isolate worked under half its budget meanwhile: it waited
 * for a core (a busy host), not on its own work. Calls are pure (a fresh instance each): a rerun is the same call.
 */
const STARVED_RERUNS = 2;

/** Jobs the supervisor asked to yield (YieldMessage), by id: the one running, or one sent to run after it. */
const yieldAsked = new Set<number>();

/** The supervisor asked job `id` to yield: it does once its slice is spent (SandboxLimits.yieldAfterMs). */
export function askToYield(id: number): void {
  yieldAsked.add(id);
}

export async function runJob(job: JobMessage, source: string): Promise<void> {
  // Job ids grow: a request for an earlier job (one that ended before it arrived) is forgotten.
  for (const id of yieldAsked) if (id < job.id) yieldAsked.delete(id);
  try {
    await runCalls(job, source);
  } finally {
    yieldAsked.delete(job.id);
  }
}

async function runCalls(job: JobMessage, source: string): Promise<void> {
  beginJobWrites();
  const cachedBefore = cache.has(job.hash) && !job.fresh;
  const entry = entryFor(job, source);
  send({ type: 'loaded', id: job.id, load: entry.load });
  if (!entry.load.ok && entry.load.code === 'E_ESCAPE_ATTEMPT')
    send({ type: 'tripped', id: job.id, what: [entry.load.message] });
  // A fresh compile is where loads fail; report it at once so a later crash is not mistaken for one.
  if (!cachedBefore) flush();
  const total = job.calls.length;
  if (!entry.load.ok) {
    if (total > 0)
      send({
        type: 'failed',
        id: job.id,
        from: 0,
        count: total,
        code: entry.load.code,
        message: entry.load.message,
        fn: 'load',
      });
    return;
  }
  const { limits } = job;
  const prepared = prepareCalls(job.calls, entry.name);
  const limitsText = JSON.stringify(limits);
  // A job with a time slice hands its worker back when asked, once the slice is spent and a call of it has finished;
  // the request is read between crossings (letWritesOut turns the loop), which return at least every sliceMs.
  const yieldAt = performance.now() + (limits.yieldAfterMs ?? Infinity);
  // Crossings return at the job's slice only once asked (the supervisor's request is read between them).
  const sliceMs = () =>
    yieldAsked.has(job.id) ? Math.min(limits.sliceMs, limits.yieldAfterMs ?? Infinity) : limits.sliceMs;
  const sliceSpent = (at: number) => at > 0 && yieldAsked.has(job.id) && performance.now() >= yieldAt;
  let position = 0;
  let failures = 0;
  let lastCode: ProblemCode = 'E_TIMEOUT';
  // After a crossing failed past the calls it had finished, the calls up to here are re-run one per crossing to
  // find the culprit: those whose results were lost (the calls after them go back to full crossings), or after
  // an isolate died of memory, the rest of the crossing.
  let carefulUntil = 0;
  const reruns = new Map<number, number>();
  const fail = (from: number, count: number, code: ProblemCode, message: string, fn = 'call') => {
    send({ type: 'failed', id: job.id, from, count, code, message, fn });
    failures += count;
  };
  // A chunk's results go on unless a tripwire fired after its calls returned (work they left behind): then they fail.
  const deliver = (chunk: Chunk, from: number, trips: Trips | null) => {
    if (!trips || trips.late === 0) return forward(job.id, chunk);
    lastCode = 'E_ESCAPE_ATTEMPT';
    fail(from, chunk.count, 'E_ESCAPE_ATTEMPT', tripMessage(trips.what));
  };
  const endRealm = () => {
    drainTrips(job, entry.compiled?.realm);
    dispose(entry);
  };
  const realm = (): Realm => {
    if (!entry.compiled || entry.compiled.realm.isolate.isDisposed) {
      const recompiled = compile(job.hash, entry.source, limits, entry.host);
      entry.host = recompiled.host;
      entry.compiled = recompiled.compiled;
      if (!entry.compiled) throw new LoadFailed(recompiled.load as Extract<LoadInfo, { ok: false }>);
    }
    return entry.compiled.realm;
  };
  while (position < total) {
    await letWritesOut();
    if (failures >= limits.maxFailuresPerJob) {
      fail(
        position,
        total - position,
        lastCode,
        `not run: ${failures} earlier calls of this batch already failed with ${lastCode} (the limit is ` +
          `${limits.maxFailuresPerJob})`,
      );
      break;
    }
    if (sliceSpent(position)) {
      const message = `${YIELDED_MESSAGE} of ${limits.yieldAfterMs} ms was spent before this call; it runs later`;
      send({
        type: 'failed',
        id: job.id,
        from: position,
        count: total - position,
        code: 'E_TIMEOUT',
        message,
        fn: 'call',
      });
      break;
    }
    try {
      realm();
    } catch (error) {
      if (!(error instanceof LoadFailed)) throw error;
      fail(position, total - position, error.load.code, error.load.message, 'load');
      return;
    }
    const compiled = entry.compiled as Compiled;
    const { isolate } = compiled.realm;
    const crossingStart = position;
    const careful = position < carefulUntil;
    const end = careful ? position + 1 : total;
    const crossing = end - crossingStart;
    const slice = prepared.slice(crossingStart, end);
    const maxChunk = maxChunkChars(slice, limits);
    let done = 0; // calls of this crossing whose results were forwarded
    // This process's CPU time when the latest entry into the isolate began (isolated-vm's own cpuTime counts the
    // wall time spent inside it, a stopped or starved thread's included).
    let cpuAt = process.cpuUsage();
    try {
      const [batchText, ...copies] = crossingArgs(slice);
      compiled.realm.begin.applySync(undefined, [batchText, limitsText, ...copies], { timeout: limits.loadTimeoutMs });
      while (done < crossing && !sliceSpent(crossingStart + done)) {
        cpuAt = process.cpuUsage();
        const chunk = readChunk(
          compiled.realm.next.applySync(undefined, [sliceMs()], {
            timeout: limits.callTimeoutMs + limits.sliceMs,
          }),
          crossing,
          maxChunk,
          limits.maxDepth,
        );
        if (chunk.cursor <= done || chunk.count !== chunk.cursor - done)
          throw new GuestFailure('E_PROTOCOL', 'the runtime made no progress or lost results');
        deliver(chunk, crossingStart + done, drainTrips(job, compiled.realm));
        done = chunk.cursor;
        await letWritesOut();
      }
      position = crossingStart + done; // the end, unless the job's slice was spent first
    } catch (error) {
      const failure = classify(error, isolate, 'the call');
      const worked = process.cpuUsage(cpuAt);
      const starved = failure.code === 'E_TIMEOUT' && (worked.user + worked.system) / 1000 < limits.callTimeoutMs / 2;
      lastCode = failure.code;
      if (failure.code === 'E_PROTOCOL') {
        fail(crossingStart + done, crossing - done, 'E_PROTOCOL', failure.message);
        position = end;
        endRealm();
        continue;
      }
      if (failure.code === 'E_MEMORY' || isolate.isDisposed) {
        endRealm();
        position = crossingStart + done;
        if (!careful) {
          carefulUntil = end;
          continue; // retry from the first call whose result was not received
        }
        // A lone episode: which of its functions (or the work one left behind) exhausted the memory.
        if ('op' in (prepared[position] as Prepared)) fail(position, 1, 'E_MEMORY', failure.message);
        else
          failures += await chargeLeftBehind(
            job,
            prepared[position] as Prepared,
            failure,
            maxChunk,
            limitsText,
            limits.maxFailuresPerJob - failures,
            realm,
            endRealm,
          );
        position += 1;
        continue;
      }
      // A timeout (or a promise job that threw) leaves the isolate usable long enough to collect what finished
      // before it.
      let inFlight = crossingStart + done;
      if (failure.code === 'E_TIMEOUT' || failure.code === 'E_THROWN') {
        let lost: Chunk | null = null;
        try {
          const chunk = readChunk(
            compiled.realm.collect.applySync(undefined, [], { timeout: 1_000 }),
            crossing,
            maxChunk,
            limits.maxDepth,
          );
          deliver(chunk, crossingStart + done, drainTrips(job, compiled.realm));
          if (chunk.cursor > done + chunk.count) lost = { ...chunk, count: done + chunk.count };
          inFlight = crossingStart + chunk.cursor;
        } catch {
          // nothing more to salvage from this crossing
        }
        if (lost) {
          // Calls ran but their results were lost: the failure hit work they left behind (promise jobs) after
          // next() returned. Re-run them one per crossing; a lone call that loses its result is the culprit.
          endRealm();
          position = crossingStart + lost.count;
          if (!careful && lost.cursor - lost.count > 1) {
            carefulUntil = crossingStart + lost.cursor;
            continue;
          }
          const charged = await chargeLeftBehind(
            job,
            prepared[position] as Prepared,
            failure,
            maxChunk,
            limitsText,
            limits.maxFailuresPerJob - failures,
            realm,
            endRealm,
          );
          failures += charged;
          position += 1;
          continue;
        }
      }
      const rerun = reruns.get(inFlight) ?? 0;
      if (starved && rerun < STARVED_RERUNS) {
        reruns.set(inFlight, rerun + 1);
        position = inFlight;
        endRealm();
        continue;
      }
      fail(inFlight, 1, failure.code, failure.message);
      position = inFlight + 1;
      endRealm();
    }
  }
}

class LoadFailed extends Error {
  constructor(readonly load: Extract<LoadInfo, { ok: false }>) {
    super(load.message);
  }
}

/**
 * The lone call `call` failed after it returned (`failure`): an episode is re-run one guest function per
 * crossing (left-behind.ts) so the function that left the work is charged and the others keep their results;
 * a rollout is charged whole, and so is an episode whose search charges no function (the failure stands:
 * red-team rt6, a module that fails only while its functions share a crossing). Sends the outcome; returns
 * the failures it charged.
 */
async function chargeLeftBehind(
  job: JobMessage,
  call: Prepared,
  failure: GuestFailure,
  maxChunk: number,
  limitsText: string,
  allowance: number,
  realm: () => Realm,
  end: () => void,
): Promise<number> {
  const whole = (code: ProblemCode, message: string, fn: string) => {
    send({ type: 'failed', id: job.id, from: call.id, count: 1, code, message, fn });
    return 1;
  };
  const how =
    failure.code === 'E_TIMEOUT' ? 'ran past the wall-clock budget' : `failed after it returned: ${failure.message}`;
  const leftBehind = `work this call left behind (promise jobs) ${how}`;
  if ('op' in call) return whole(failure.code, leftBehind, 'call');
  // Each fresh realm starts a new attempt of up to one call's budget: the supervisor hears from the worker
  // between them.
  const attempt = () => {
    send({ type: 'progress', id: job.id });
    flush();
    return realm();
  };
  try {
    const outcome = runStepped(
      attempt,
      end,
      JSON.stringify([call]),
      limitsText,
      job.limits,
      call.responses.length,
      Math.max(1, allowance),
    );
    const charged = Math.min(outcome.charged.length, Math.max(1, allowance));
    if ('failed' in outcome) return whole(outcome.failed.code, outcome.failed.message, outcome.failed.fn) + charged;
    // The call failed when it ran alone and whole: that is its own failure. The search only names the function;
    // one that finds none (the module behaves when its functions run apart) leaves the failure with the call.
    if (outcome.charged.length === 0)
      return whole(
        failure.code,
        `${leftBehind}; run one function at a time it did not, so the failure is the whole call's`,
        'call',
      );
    const chunk = readChunk(outcome.raw, 1, maxChunk, job.limits.maxDepth);
    if (outcome.charged.length > 0) send({ type: 'charged', id: job.id, call: call.id, verdicts: outcome.charged });
    forward(job.id, chunk);
    return charged;
  } catch (error) {
    end();
    if (error instanceof LoadFailed) return whole(error.load.code, error.load.message, 'load');
    const lost = error instanceof GuestFailure ? error : new GuestFailure('E_PROTOCOL', String(error));
    return whole(lost.code, lost.message, 'call');
  } finally {
    await letWritesOut();
  }
}

/**
 * What the realm's tripwires recorded since the last read (tripwires.js), told to the supervisor, which keeps it
 * per module.
 */
function drainTrips(job: JobMessage, realm: Realm | undefined): Trips | null {
  if (!realm || realm.isolate.isDisposed) return null;
  let trips: Trips;
  try {
    trips = readTrips(realm.trips.applySync(undefined, [], { timeout: 1_000 }));
  } catch {
    return null; // the isolate is past reading: what it recorded is lost with it
  }
  if (trips.count === 0) return null;
  send({ type: 'tripped', id: job.id, what: trips.what });
  return trips;
}

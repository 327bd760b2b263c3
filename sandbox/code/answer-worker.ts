// An answer worker process: runs policies' programs against their tests in answer isolates
// (answer-realm.ts) that never hold two runs' programs, compares each output with the expected one here, and
// sends back pass or fail per test. A program may wedge or abort this process; the pool then replaces it.
import { outputsMatch } from '../../contract/compare.js';
import { jsonDepth } from '../json.js';
import { guardAgainstOrphaning } from '../orphan-guard.js';
import { warmSetup } from '../realm.js';
import { callAnswer, newAnswerIsolate, type AnswerIsolate } from './answer-realm.js';
import type {
  AnswerJobMessage,
  AnswerLimits,
  AnswerResult,
  AnswerSpec,
  AnswerWorkerMessage,
  TestCode,
} from './answers.js';
import { normaliseProgram } from './normalise.js';

let iso: (AnswerIsolate & { tenant: number; baseline: number; ordinal: number }) | null = null;
/** Isolates this process has made (each is named by its ordinal in results). */
let made = 0;
/** The ordinal of the isolate the last answer ran in. */
let ranIn = 0;
/**
 * A fresh isolate made while the worker was idle, for the next run's first answer (an isolate with SES costs 100-300
 * ms).
 */
let spare: { iso: AnswerIsolate; memoryMb: number; ordinal: number } | null = null;
/** Whether the last answer's isolate was new for it (no other answer had run in it). */
let fresh = false;

function send(message: AnswerWorkerMessage): void {
  process.send?.(message);
}

/**
 * The isolate for the next answer of `tenant`: the current one if it is the tenant's and still usable, else a new one.
 */
function isolateFor(limits: AnswerLimits, tenant: number): AnswerIsolate {
  if (iso && (iso.host.isolate.isDisposed || iso.answers >= limits.answersPerIsolate || iso.tenant !== tenant))
    retire();
  if (!iso) {
    const ready =
      spare?.memoryMb === limits.memoryMb ? spare : { iso: newAnswerIsolate(limits.memoryMb), ordinal: ++made };
    if (ready === spare) spare = null;
    iso = { ...ready.iso, tenant, baseline: usedHeap(ready.iso), ordinal: ready.ordinal };
  }
  iso.answers++;
  fresh = iso.answers === 1;
  ranIn = iso.ordinal;
  return iso;
}

const COLLECT_TIMEOUT_MS = 5_000;
const usedHeap = (a: AnswerIsolate) => a.host.isolate.getHeapStatisticsSync().used_heap_size;

/**
 * Retires the isolate when the answer left its heap above the fresh level by more than the slack, after a full
 * collection (only when over it: garbage is no one's burden): what stays is held by the isolate (the symbol
 * registry, interned strings), and would be the next answer's.
 */
function checkHeap(limits: AnswerLimits): void {
  const current = iso;
  if (!current || current.host.isolate.isDisposed) return;
  const over = () => usedHeap(current) > current.baseline + limits.heapSlackMb * 1024 * 1024;
  if (!over()) return;
  try {
    current.collect.applySync(undefined, [], { timeout: COLLECT_TIMEOUT_MS });
    if (over()) retire();
  } catch {
    retire(); // the answer is scored; only its isolate goes
  }
}

/**
 * Makes the spare isolate, if there is none of this size (a failure to make one is left to the next answer to meet).
 */
function prepare(memoryMb: number): void {
  if (spare?.memoryMb === memoryMb) return;
  try {
    if (spare && !spare.iso.host.isolate.isDisposed) spare.iso.host.isolate.dispose();
    spare = null;
    spare = { iso: newAnswerIsolate(memoryMb), memoryMb, ordinal: ++made };
  } catch {
    spare = null;
  }
}

function retire(): void {
  if (iso && !iso.host.isolate.isDisposed) iso.host.isolate.dispose();
  iso = null;
}

const TEST_CODES = new Set(['E_THROWN', 'E_NOT_JSON', 'E_TOO_LARGE', 'E_ASYNC']);

function runAnswer(spec: AnswerSpec, limits: AnswerLimits, tenant: number): AnswerResult {
  fresh = true; // an answer that never reaches an isolate has no isolate to blame
  const started = performance.now();
  const unrun = (code: string, message: string): AnswerResult => ({
    ran: false,
    code,
    message,
    tests: spec.tests.map(() => 'E_WRONG'),
    ms: performance.now() - started,
  });
  const normalised = normaliseProgram(spec.program, spec.language);
  if (!normalised.ok) return unrun(normalised.code, normalised.message);
  const realm = isolateFor(limits, tenant);
  const ran = performance.now(); // the program's own time, without envforge's setup of the isolate
  const loaded = callAnswer(realm, 'load', [normalised.script, spec.entry], limits.testTimeoutMs);
  if ('code' in loaded || loaded.text !== '') {
    const [code, message] =
      'code' in loaded
        ? [loaded.code, loaded.message]
        : [loaded.text.slice(0, loaded.text.indexOf(':')), loaded.text.slice(loaded.text.indexOf(':') + 1)];
    if (code === 'E_TIMEOUT' || code === 'E_MEMORY') retire();
    return unrun(code, message);
  }
  const tests: Array<TestCode | null> = [];
  let message: string | undefined;
  let timeouts = 0;
  for (const [input, expected] of spec.tests) {
    if (timeouts >= limits.maxTimeouts || realm.host.isolate.isDisposed) {
      tests.push(timeouts >= limits.maxTimeouts ? 'E_TIMEOUT' : 'E_MEMORY');
      continue;
    }
    const out = callAnswer(realm, 'run', [input, limits.maxOutputChars], limits.testTimeoutMs);
    let code: TestCode | null;
    if ('code' in out) {
      code = out.code === 'E_TIMEOUT' || out.code === 'E_MEMORY' ? out.code : 'E_THROWN';
      if (code === 'E_TIMEOUT') timeouts++;
      message ??= out.message;
    } else if (out.text.startsWith('o') && jsonDepth(out.text, limits.maxOutputDepth) > limits.maxOutputDepth) {
      // The comparators recurse: an output nested thousands deep would exhaust this process's stack.
      code = 'E_TOO_LARGE';
      message ??= `the output nests deeper than ${limits.maxOutputDepth} levels`;
    } else if (out.text.startsWith('o')) {
      code = outputsMatch(spec.compare, JSON.parse(expected), JSON.parse(out.text.slice(1))) ? null : 'E_WRONG';
      if (code) message ??= `for the arguments ${input.slice(0, 200)} the function returned ${out.text.slice(1, 201)}`;
    } else {
      const at = out.text.indexOf(':');
      const raw = out.text.slice(1, at);
      code = (TEST_CODES.has(raw) ? raw : 'E_THROWN') as TestCode;
      message ??= out.text.slice(at + 1, at + 301);
    }
    tests.push(code);
  }
  // a program that ran out of time or memory leaves nothing for the next
  if (timeouts > 0 || realm.host.isolate.isDisposed) retire();
  return { ran: true, tests, ...(message !== undefined ? { message } : {}), ms: performance.now() - ran };
}

const resourceFailure = (r: AnswerResult) =>
  r.code === 'E_TIMEOUT' || r.code === 'E_MEMORY' || r.tests.some((t) => t === 'E_TIMEOUT' || t === 'E_MEMORY');

/**
 * One answer's result; a failure of the host's own code on it fails that answer (E_CRASHED), not the job. A
 * resource failure in an isolate other answers had used is re-run once alone in a fresh one: only a failure
 * that reproduces there is the program's.
 */
function guarded(spec: AnswerSpec, limits: AnswerLimits, tenant: number): AnswerResult {
  // An own isolate is made for this answer alone and retired after it; the policies' isolate waits aside meanwhile
  // (no program of this answer runs in it) and serves the policies' answers after it, as it served those before.
  const aside = spec.ownIsolate ? iso : null;
  if (spec.ownIsolate) iso = null;
  try {
    let result = runAnswer(spec, limits, tenant);
    if (!fresh && resourceFailure(result)) {
      retire();
      result = { ...runAnswer(spec, limits, tenant), rerun: true };
    }
    const isolate = `${process.pid}:${ranIn}`;
    if (!spec.ownIsolate) checkHeap(limits);
    return { ...result, isolate };
  } catch (error) {
    retire();
    return {
      ran: true,
      tests: spec.tests.map(() => 'E_CRASHED'),
      message:
        `the host could not score the program: ` +
        `${error instanceof Error ? error.message.slice(0, 200) : 'an unknown failure'}`,
      ms: 0,
    };
  } finally {
    if (spec.ownIsolate) {
      retire();
      iso = aside;
    }
  }
}

process.on('message', (raw: unknown) => {
  const job = raw as AnswerJobMessage;
  if (job?.type !== 'answers') return;
  job.answers.forEach((spec, index) =>
    send({ type: 'result', id: job.id, index, result: guarded(spec, job.limits, job.tenant) }),
  );
  send({ type: 'done', id: job.id });
  setImmediate(() => prepare(job.limits.memoryMb)); // after the results are on their way
});
process.on('disconnect', () => process.exit(0));
// The supervisor owns this process's life: a terminal's Ctrl-C or a SIGTERM sent to the whole process group is the
// supervisor's to act on (it cancels its work and closes the pool). A worker that died of it first would make the
// job it was running read as the module's crash (E_CRASHED) before the supervisor heard of the signal.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
guardAgainstOrphaning();
warmSetup();
send({ type: 'ready' });

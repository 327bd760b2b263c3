// The isolate a policy's program runs in (contract v3), inside an answer worker: SES locked down, then a
// host-written trampoline; each answer gets a fresh SES Compartment (its own frozen global, no clock, no
// Math.random, no WebAssembly) and each test a fresh instance of its program. Only strings cross.
import type ivm from 'isolated-vm';
import { classify, newHost, type Host } from '../realm.js';
import { SES_SOURCE } from '../runtime.js';

/**
 * The answer realm's setup, run once per isolate after SES: removes what a program could observe the host
 * or time through, locks down (evalTaming 'safe-eval': a Compartment evaluates the program with its own
 * global scope), and evaluates to { load, run, collect }, which the host keeps as References and nothing global
 * names. collect drops the last program and runs a full collection where V8's gc was exposed (answer workers).
 */
const ANSWER_SETUP =
  `(function () {
  'use strict';
  delete globalThis.SharedArrayBuffer; delete globalThis.Atomics; delete globalThis.WebAssembly;
  delete globalThis.WeakRef; delete globalThis.FinalizationRegistry;
  // V8's gc (answer workers run with --expose-gc) is not deletable; only this setup keeps it: a ` +
  `Compartment's global has none.
  var gcNow = typeof globalThis.gc === 'function' ? globalThis.gc : null;
  lockdown({ errorTaming: 'safe', overrideTaming: 'moderate', consoleTaming: 'unsafe', evalTaming: 'safe-eval', ` +
  `stackFiltering: 'concise', domainTaming: 'unsafe', reporting: 'none' });
  var Comp = Compartment, hard = harden, stringify = JSON.stringify, parse = JSON.parse, Str = String;
  var noop = function () {};
  var quiet = hard({ log: noop, info: noop, warn: noop, error: noop, debug: noop });
  var factory = null;
  function describe(e) {
    try { return Str(e && typeof e === 'object' && typeof e.message === 'string' ? e.message : e).slice(0, 300); } ` +
  `catch (x) { return 'an undescribable value'; }
  }
  function load(text, entry) {
    factory = null;
    try {
      var c = new Comp({ console: quiet });
      var made = c.evaluate('(function () {\\n' + text + '\\n;return typeof ' + entry + ' === "function" ? ' + entry ` +
  `+ ' : undefined;\\n})');
      hard(c.globalThis);
      if (typeof made() !== 'function') return 'E_NO_ENTRY:the program defines no function named ' + entry;
      factory = made;
      return '';
    } catch (e) {
      return (e instanceof SyntaxError ? 'E_SYNTAX:' : 'E_THROWN:') + describe(e);
    }
  }
  function run(inputText, maxChars) {
    try {
      var out = factory().apply(undefined, parse(inputText));
      if (out !== null && typeof out === 'object' && typeof out.then === 'function') return 'eE_ASYNC:the function ` +
  `returned a Promise; it must return its value';
      var text = stringify(out);
      if (typeof text !== 'string') return 'eE_NOT_JSON:the function returned ' + (out === undefined ? 'undefined ` +
  `(no return value)' : typeof out);
      if (text.length > maxChars) return 'eE_TOO_LARGE:the output has ' + text.length + ' characters';
      return 'o' + text;
    } catch (e) {
      return 'eE_THROWN:' + describe(e);
    }
  }
  function collect() { factory = null; if (gcNow) gcNow(); }
  return hard({ load: load, run: run, collect: collect });
})()`;

export interface AnswerIsolate {
  host: Host;
  load: ivm.Reference;
  run: ivm.Reference;
  collect: ivm.Reference;
  /** Answers run in it so far (it is recycled after a number of them). */
  answers: number;
}

/** A new answer isolate with its trampoline; throws a GuestFailure('E_PROTOCOL') when the runtime does not start. */
export function newAnswerIsolate(memoryMb: number): AnswerIsolate {
  const host = newHost(memoryMb);
  const context = host.isolate.createContextSync();
  try {
    host.ses.runSync(context, { timeout: 15_000 });
    const api = context.evalSync(ANSWER_SETUP, {
      reference: true,
      timeout: 15_000,
      filename: 'envforge-answer-runtime.js',
    }) as ivm.Reference;
    const fn = (name: string) => api.getSync(name, { reference: true }) as ivm.Reference;
    return { host, load: fn('load'), run: fn('run'), collect: fn('collect'), answers: 0 };
  } catch (error) {
    if (!host.isolate.isDisposed) host.isolate.dispose();
    throw classify(error, host.isolate, `starting the answer runtime (${SES_SOURCE.length} characters of SES)`);
  }
}

/** One call into the trampoline: its string result, or the failure code and message the host assigns. */
export function callAnswer(
  iso: AnswerIsolate,
  fn: 'load' | 'run',
  args: [string, string | number],
  timeoutMs: number,
): { text: string } | { code: string; message: string } {
  try {
    return { text: String((iso[fn] as ivm.Reference).applySync(undefined, args, { timeout: timeoutMs })) };
  } catch (error) {
    const failure = classify(error, iso.host.isolate, fn === 'load' ? 'loading the program' : 'the program');
    return { code: failure.code, message: failure.message };
  }
}

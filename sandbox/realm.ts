// Builds hardened realms for a worker: a context with SES locked down, the envforge runtime, then the guest
// module bound to the runtime through isolated-vm References that only this process holds. A realm is one
// module lifetime; an isolate hosts realms one after another (a new context costs less than a new isolate).
import ivm from 'isolated-vm';
import vm from 'node:vm';
import type { ProblemCode } from '../contract/codes.js';
import { guestLine } from '../contract/text.js';
import { FACTORY_EXPORT, readModule } from './instance.js';
import { recentMemo } from './recent.js';
import { SES_SOURCE, SETUP_SCRIPT } from './runtime.js';

/** A failure of guest code while loading or calling, with the code the host assigns to it. */
export class GuestFailure extends Error {
  constructor(
    readonly code: ProblemCode,
    message: string,
  ) {
    super(message);
  }
}

/** An isolate that hosts realms one after another; SES is compiled into it once. */
export interface Host {
  isolate: ivm.Isolate;
  ses: ivm.Script;
  /** Realms created in it so far. */
  realms: number;
  /** Whether SES was compiled from the code cache (sesCodeCache), not from its source alone. */
  cached: boolean;
}

/** The trampoline's functions in one fresh context, as References. */
export interface Realm {
  isolate: ivm.Isolate;
  context: ivm.Context;
  meta: ivm.Reference;
  exportsList: ivm.Reference;
  begin: ivm.Reference;
  next: ivm.Reference;
  /** One guest function of the batch's only call per crossing (attribution of what a function leaves behind). */
  step: ivm.Reference;
  collect: ivm.Reference;
  /** What the tripwires recorded since the last read (tripwires.js), as JSON text. */
  trips: ivm.Reference;
  /** CPU time of the module's top level when it was loaded, in ms. */
  loadMs: number;
}

const SES_FILENAME = 'envforge-ses.js';

/**
 * A V8 code cache of SES with every function lockdown runs compiled in: produced once per worker by
 * running SES and lockdown in a throwaway node:vm context (isolated-vm's own cache holds only the top
 * level). Measured here: running SES in a new isolate took ~20 ms with it and ~40 ms with the top level only.
 */
let sesCache: ivm.ExternalCopy<ArrayBuffer> | undefined | null = null;
function sesCodeCache(): ivm.ExternalCopy<ArrayBuffer> | undefined {
  if (sesCache !== null) return sesCache;
  try {
    const script = new vm.Script(SES_SOURCE, { filename: SES_FILENAME });
    const context = vm.createContext({});
    script.runInContext(context);
    vm.runInContext('lockdown({ reporting: "none", consoleTaming: "unsafe" })', context);
    const data = script.createCachedData();
    sesCache = new ivm.ExternalCopy(
      data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer,
    );
  } catch {
    sesCache = undefined; // compile without a cache: slower, same result
  }
  return sesCache;
}

/**
 * Told when envforge's own setup (SES and the runtime; no guest code runs) starts, with the most it may
 * take, and when it ends: the worker tells the supervisor, whose silence deadline must not mistake a setup
 * slowed by a loaded host for a wedged environment (worker.ts).
 */
const SETUP_TIMEOUT_MS = 15_000;
let setupWatcher: (maxMs: number | null) => void = () => {};
export function watchSetup(watcher: (maxMs: number | null) => void): void {
  setupWatcher = watcher;
}
function duringSetup<T>(maxMs: number, run: () => T): T {
  setupWatcher(maxMs);
  try {
    return run();
  } finally {
    setupWatcher(null);
  }
}

/** Builds the SES code cache now (a worker does it before it reports ready, outside any job's deadline). */
export function warmSetup(): void {
  sesCodeCache();
}

const TIMEOUT_MESSAGE = 'Script execution timed out.';

/** Maps an error thrown by isolated-vm while running guest code to a stable code. */
export function classify(error: unknown, isolate: ivm.Isolate, what: string): GuestFailure {
  if (error instanceof GuestFailure) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (isolate.isDisposed || /memory limit/i.test(message))
    return new GuestFailure('E_MEMORY', `${what} exceeded the isolate memory limit`);
  if (message === TIMEOUT_MESSAGE) return new GuestFailure('E_TIMEOUT', `${what} ran past its wall-clock budget`);
  const name = error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : '';
  // One line, as the runtime writes a call's failure: a line break in guest text could fake a report line, and a
  // run of blanks could push its text to the start of a wrapped terminal line (T8-3).
  return new GuestFailure('E_THROWN', guestLine(`${what} threw ${name}${message}`.slice(0, 2000)));
}

function reject(): never {
  throw new Error('imports are not allowed');
}

// Top-level await detection: the start module queues a microtask before the guest evaluates. A synchronous
// module graph reaches the binder's body before any microtask runs; a guest that awaited does not.
const START =
  'const seen = []; Promise.resolve().then(() => { seen.push(1); }); export function awaited() { ' +
  'return seen.length > 0; }';
const BINDER =
  "import { awaited } from 'envforge:start'; import * as guest from 'envforge:guest'; export const " +
  'afterAwait = awaited(); export { guest };';

/** A new isolate to host realms; throws a GuestFailure('E_PROTOCOL') when SES does not compile. */
export function newHost(memoryMb: number): Host {
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb });
  try {
    const cachedData = sesCodeCache();
    const ses = duringSetup(SETUP_TIMEOUT_MS, () =>
      isolate.compileScriptSync(SES_SOURCE, { filename: SES_FILENAME, ...(cachedData ? { cachedData } : {}) }),
    );
    const rejected = (ses as { cachedDataRejected?: boolean }).cachedDataRejected === true;
    return { isolate, ses, realms: 0, cached: cachedData !== undefined && !rejected };
  } catch (error) {
    if (!isolate.isDisposed) isolate.dispose();
    throw new GuestFailure(
      'E_PROTOCOL',
      `the sandbox runtime did not compile: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Frees a realm's context and References (its isolate stays). */
export function releaseRealm(realm: Realm): void {
  if (realm.isolate.isDisposed) return;
  for (const ref of [realm.meta, realm.exportsList, realm.begin, realm.next, realm.step, realm.collect, realm.trips])
    ref.release();
  realm.context.release();
}

/** A new context in the host with SES locked down and the runtime installed; no guest code has run in it. */
function createRealm(host: Host, timeoutMs: number): { realm: Realm; bind: ivm.Reference } {
  const { isolate } = host;
  host.realms++;
  const context = isolate.createContextSync();
  // Only envforge's own code runs here (SES, the runtime), ~15 ms: the guest's load timeout would turn a
  // starved host into a rejected candidate (E_PROTOCOL), so the setup gets a wide wall-clock bound of its own.
  const setupMs = Math.max(timeoutMs, SETUP_TIMEOUT_MS);
  try {
    const api = duringSetup(2 * setupMs, () => {
      host.ses.runSync(context, { timeout: setupMs });
      return context.evalSync(SETUP_SCRIPT, {
        reference: true,
        timeout: setupMs,
        filename: 'envforge-runtime.js',
      }) as ivm.Reference;
    });
    const fn = (name: string) => api.getSync(name, { reference: true }) as ivm.Reference;
    const realm: Realm = {
      isolate,
      context,
      meta: fn('meta'),
      exportsList: fn('exportsList'),
      begin: fn('begin'),
      next: fn('next'),
      step: fn('step'),
      collect: fn('collect'),
      trips: fn('trips'),
      loadMs: 0,
    };
    return { realm, bind: fn('bind') };
  } catch (error) {
    if (!isolate.isDisposed) context.release();
    // No guest code has run yet: this is the sandbox's own failure (e.g. a memory limit too small for SES).
    throw new GuestFailure(
      'E_PROTOCOL',
      `the sandbox runtime did not start: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * readModule for the worker's recent modules: a pure function of the text (an acorn parse, ~5-10 ms),
 * while a validation builds four realms of one module (load, a second worker, two fresh for determinism).
 * Only the rewritten text is kept; each realm still compiles and evaluates its own factory.
 */
const cachedReadModule = recentMemo(readModule, 32);

/**
 * The exports that make a text an environment module: meta and the entry point of a kind (contract v1's generate,
 * v2's reset). A text without them is not evaluated at all: a file that is no module (a key, a token, a config)
 * never runs, so no runtime error can quote it.
 */
const ENTRY_EXPORTS = ['generate', 'reset'];

/**
 * The module as read by acorn: its factory text, after refusing the syntax-only reaches (import(), import.meta) and a
 * text that declares no environment's exports.
 */
function readGuest(source: string): string {
  let read: ReturnType<typeof readModule>;
  try {
    read = cachedReadModule(source);
  } catch (error) {
    throw new GuestFailure(
      'E_SYNTAX',
      `the module could not be read as a factory of instances: ` +
        `${withoutText(error instanceof Error ? error.message : String(error))}`,
    );
  }
  if (read.reaches.length > 0)
    throw new GuestFailure(
      'E_ESCAPE_ATTEMPT',
      `the module reaches for ${read.reaches.join('; ')}: a capability outside the environment contract`,
    );
  if (!read.exports.includes('meta') || !ENTRY_EXPORTS.some((name) => read.exports.includes(name))) {
    throw new GuestFailure(
      'E_MISSING_EXPORT',
      `the module declares no export of meta and of ${ENTRY_EXPORTS.join(' or ')} (an environment's entry ` +
        `point), so none of it was run: is it an environment module at all?`,
    );
  }
  return read.factory;
}

/**
 * A parser's message without the file's text: quoted fragments (a token, a regular expression) become "…",
 * the position stays. A file that is not a module (a key, a config) must not be quoted into reports and logs.
 */
export function withoutText(message: string): string {
  const position = /\s*(\[[^\]\n]*:\d+:\d+\]|\(\d+:\d+\))$/.exec(message);
  let text = position ? message.slice(0, position.index) : message;
  const regexp = text.indexOf(': /');
  if (regexp >= 0) text = text.slice(0, regexp);
  text = text
    .replace(/(['"`])[^'"`\n]*\1/g, '‹…›')
    .replace(/['"`][\s\S]*$/, '')
    .slice(0, 160);
  return position ? `${text} ${position[1]}` : text;
}

/** The guest module rewritten as a factory of fresh instances (instance.ts), compiled and evaluated in the realm. */
function instanceFactory(isolate: ivm.Isolate, context: ivm.Context, text: string, timeoutMs: number): ivm.Reference {
  const module = isolate.compileModuleSync(text, { filename: 'environment.js' });
  module.instantiateSync(context, reject);
  module.evaluateSync({ timeout: timeoutMs }); // defines the factory only: no guest code runs here
  return module.namespace.getSync(FACTORY_EXPORT, { reference: true }) as ivm.Reference;
}

/**
 * Compiles, links and evaluates the guest module in a new realm of the host; when it cannot, disposes the host's
 * isolate and throws a GuestFailure.
 */
export function loadRealm(host: Host, source: string, timeoutMs: number): Realm {
  const { realm, bind } = createRealm(host, timeoutMs);
  const { isolate, context } = realm;
  try {
    let guest: ivm.Module;
    try {
      guest = isolate.compileModuleSync(source, { filename: 'environment.js' });
    } catch (error) {
      const name = error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : '';
      throw new GuestFailure(
        'E_SYNTAX',
        `the module does not compile: ${name}${withoutText(error instanceof Error ? error.message : String(error))}`,
      );
    }
    if (guest.dependencySpecifiers.length > 0) {
      const names = guest.dependencySpecifiers
        .slice(0, 5)
        .map((s) => JSON.stringify(s.slice(0, 60)))
        .join(', ');
      throw new GuestFailure(
        'E_IMPORT',
        `the module imports ${names}; environments must be self-contained (no import statements)`,
      );
    }
    const factoryText = readGuest(source);
    guest.instantiateSync(context, reject);
    const start = isolate.compileModuleSync(START, { filename: 'envforge-start.js' });
    start.instantiateSync(context, reject);
    const binder = isolate.compileModuleSync(BINDER, { filename: 'envforge-binder.js' });
    binder.instantiateSync(context, (specifier) => (specifier === 'envforge:start' ? start : guest));
    // The isolate's CPU time, not the wall clock: what the module's top level costs, not how busy the host is.
    const started = isolate.cpuTime;
    try {
      binder.evaluateSync({ timeout: timeoutMs });
    } catch (error) {
      // A top level that throws may be a file that is no module at all (a key): a short excerpt of what it said.
      const failure = classify(error, isolate, 'evaluating the module');
      throw failure.code === 'E_THROWN' && failure.message.length > 240
        ? new GuestFailure('E_THROWN', `${failure.message.slice(0, 240)}…`)
        : failure;
    }
    realm.loadMs = Number(isolate.cpuTime - started) / 1e6;
    let afterAwait: unknown;
    try {
      afterAwait = binder.namespace.getSync('afterAwait');
    } catch {
      afterAwait = true; // the binder never ran: the guest is still awaiting
    }
    if (afterAwait !== false)
      throw new GuestFailure('E_ASYNC', 'the module uses top-level await: environments must evaluate synchronously');
    const namespace = binder.namespace.getSync('guest', { reference: true }) as ivm.Reference;
    const factory = instanceFactory(isolate, context, factoryText, timeoutMs);
    bind.applySync(undefined, [namespace.derefInto(), factory.derefInto()], { timeout: timeoutMs });
    return realm;
  } catch (error) {
    const failure = classify(error, isolate, 'loading the module');
    // Whatever the failed load left behind (a pending promise job, a half-built heap) must not meet the next realm.
    if (!isolate.isDisposed) isolate.dispose();
    throw failure;
  }
}

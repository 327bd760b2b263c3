// Tripwires: every capability outside the environment contract that a guest can reach for in a locked-down
// realm (code from strings, a new evaluator, the runtime's own machinery, removed globals) answers with a
// function or accessor that records the attempt here, where guest code cannot reach, before it fails.
//
// Evaluated as a plain script beside guest-runtime.js. `envforgeArmTripwires(global)` runs between SES's
// repairIntrinsics() and hardenIntrinsics(), while the function prototypes can still take a new
// `constructor`; `tripwires.installGlobals` runs after lockdown, from the runtime, before the global is frozen.
/* eslint-disable no-var */
var envforgeArmTripwires = function envforgeArmTripwires(global) {
  'use strict';
  var TypeErrorCtor = TypeError;
  var defineProperty = Object.defineProperty;
  var getPrototypeOf = Object.getPrototypeOf;
  var setPrototypeOf = Object.setPrototypeOf;
  var stringify = JSON.stringify;
  var MAX_KINDS = 8;
  // count: trips since the host last read them; late: those made while no call ran (a promise job after its
  // call returned, a getter read at load); handled: those a verdict already carries (the runtime's scoredText);
  // at: the runtime's current stage ({ name }) while a call runs; first: the function that tripped first.
  var log = { count: 0, late: 0, handled: 0, what: [], first: null, at: null };

  function record(what) {
    log.count++;
    if (log.at === null) log.late++;
    else if (log.first === null) log.first = log.at.name;
    for (var i = 0; i < log.what.length; i++) if (log.what[i] === what) return;
    if (log.what.length < MAX_KINDS) log.what[log.what.length] = what;
  }
  /** A function named `name` that records `what` and throws, as the capability it replaces would have refused. */
  function trap(name, what, length) {
    var f = function () {
      record(what);
      throw new TypeErrorCtor(name + ' is not available in envforge environments');
    };
    defineProperty(f, 'name', { value: name, writable: false, enumerable: false, configurable: true });
    defineProperty(f, 'length', { value: length, writable: false, enumerable: false, configurable: true });
    return f;
  }
  /** An accessor pair that records `what` on every read or write and reads as absent. */
  function trapAccessor(what) {
    return {
      get: function () {
        record(what);
        return undefined;
      },
      set: function () {
        record(what);
        throw new TypeErrorCtor('this property is not available in envforge environments');
      },
      enumerable: false,
      configurable: false,
    };
  }

  // The four function constructors, reached from any function by `.constructor` (SES made them inert; these
  // are inert too, and remember being called). Each keeps its prototype, so `instanceof` and names still hold.
  var FunctionPrototype = getPrototypeOf(function () {});
  var kinds = [
    ['Function', FunctionPrototype],
    ['GeneratorFunction', getPrototypeOf(function* () {})],
    ['AsyncFunction', getPrototypeOf(async function () {})],
    ['AsyncGeneratorFunction', getPrototypeOf(async function* () {})],
  ];
  var constructors = {};
  for (var k = 0; k < kinds.length; k++) {
    var name = kinds[k][0];
    var ctor = trap(name, 'a function made from a string (the ' + name + ' constructor)', 1);
    defineProperty(ctor, 'prototype', { value: kinds[k][1], writable: false, enumerable: false, configurable: false });
    if (k > 0) setPrototypeOf(ctor, constructors.Function);
    defineProperty(kinds[k][1], 'constructor', {
      value: ctor,
      writable: false,
      enumerable: false,
      configurable: false,
    });
    constructors[name] = ctor;
  }
  // Walking the stack from a function (`f.caller`, `f.arguments`) toward the runtime that called it.
  defineProperty(FunctionPrototype, 'caller', trapAccessor('the stack (Function.prototype.caller)'));
  defineProperty(FunctionPrototype, 'arguments', trapAccessor('the stack (Function.prototype.arguments)'));

  var privileged = ['lockdown', 'repairIntrinsics', 'hardenIntrinsics', 'getStackString'];
  var removed = ['SharedArrayBuffer', 'Atomics', 'WebAssembly', 'WeakRef', 'FinalizationRegistry'];
  /**
   * The globals: eval and Function (code from strings), Compartment (a new evaluator, which SES leaves able
   * to evaluate strings), SES's privileged helpers (re-entering the set-up), and the globals the runtime
   * removed (shared memory, WebAssembly, the garbage collector). `define` is the runtime's defineGlobal.
   */
  function installGlobals(define) {
    define('Function', constructors.Function);
    define('eval', trap('eval', 'code evaluated from a string (eval)', 1));
    define('Compartment', trap('Compartment', 'a new evaluator (Compartment)', 0));
    for (var p = 0; p < privileged.length; p++)
      define(privileged[p], trap(privileged[p], 'the sandbox set-up (' + privileged[p] + ')', 0));
    for (var r = 0; r < removed.length; r++)
      defineProperty(global, removed[r], trapAccessor('a removed global (' + removed[r] + ')'));
  }

  /** What was tripped since the last read, as JSON text for the host; the count starts again. */
  function take() {
    var text = stringify({ count: log.count, late: log.late, what: log.what });
    log.count = 0;
    log.late = 0;
    log.handled = 0;
    log.what = [];
    return text;
  }

  return { log: log, record: record, installGlobals: installGlobals, take: take };
};

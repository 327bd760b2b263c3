// The code envforge installs in every isolate before the guest module: the seeded rng, the helper kit,
// the determinism lock-down around SES, and the trampoline through which the host calls the guest.
//
// This file is evaluated as a plain script (inside isolated-vm after SES, or in plain Node for benchmarks
// and tests). It defines two functions and never touches host objects:
// - `envforgePrepareRealm(global)`, run before SES `lockdown()`: tames what lockdown freezes but does not
//   tame (Intl's clock) and removes shared memory and WebAssembly;
// - `envforgeInstallRuntime(global, options)`, run after lockdown: installs the kit, a Math whose random
//   throws and a Date with a frozen clock, and returns the trampoline `api`, which the host keeps as an
//   isolated-vm Reference. No global names the api, so guest code cannot call it.
/* eslint-disable no-var */
var envforgePrepareRealm = function envforgePrepareRealm(global) {
  'use strict';
  var FIXED_TIME = 0;
  // Intl date formatting without a date reads the clock; give it the frozen time instead. Lockdown does
  // not freeze Intl, so this is hardened after lockdown by the runtime.
  if (typeof Intl !== 'undefined' && Intl.DateTimeFormat) {
    var dtfProto = Intl.DateTimeFormat.prototype;
    var formatGetter = Object.getOwnPropertyDescriptor(dtfProto, 'format').get;
    Object.defineProperty(dtfProto, 'format', {
      configurable: false,
      get: function () {
        var bound = formatGetter.call(this);
        return function (date) {
          return bound(date === undefined ? FIXED_TIME : date);
        };
      },
    });
    var formatToParts = dtfProto.formatToParts;
    Object.defineProperty(dtfProto, 'formatToParts', {
      configurable: false,
      writable: false,
      value: function (date) {
        return formatToParts.call(this, date === undefined ? FIXED_TIME : date);
      },
    });
  }
  delete global.SharedArrayBuffer;
  delete global.Atomics;
  delete global.WebAssembly;
  // What the garbage collector did is not a function of (seed, level): no weak references to observe it.
  delete global.WeakRef;
  delete global.FinalizationRegistry;
};

var envforgeInstallRuntime = function envforgeInstallRuntime(global, options) {
  'use strict';
  var opts = options || {};
  // Hardened: running in an isolate after SES lockdown (intrinsics frozen, `harden` available).
  var hardened = opts.hardened === true;
  // The tripwires armed during lockdown (tripwires.js); absent in plain Node (benchmarks, the host's own use).
  var tripwires = opts.tripwires || null;
  var FIXED_TIME = 0;

  // Intrinsics captured before guest code runs (after lockdown they are frozen anyway).
  var stringify = JSON.stringify;
  var parse = JSON.parse;
  var ObjectFreeze = Object.freeze;
  var ObjectKeys = Object.keys;
  var ObjectGetPrototypeOf = Object.getPrototypeOf;
  var ObjectDefineProperty = Object.defineProperty;
  var ObjectPrototype = Object.prototype;
  var ArrayIsArray = Array.isArray;
  var ArrayPrototype = Array.prototype;
  var NumberIsFinite = Number.isFinite;
  var NumberIsSafeInteger = Number.isSafeInteger;
  var MathFloor = Math.floor;
  var StringCtor = String;
  var RealDate = Date;
  var realNow = Date.now;
  var ErrorCtor = Error;
  var TypeErrorCtor = TypeError;
  var RangeErrorCtor = RangeError;
  var ReflectConstruct = Reflect.construct;
  var WeakMapCtor = WeakMap;
  var freezeDeep = hardened ? global.harden : ObjectFreeze;
  // Codes are attached only to errors this runtime made: guest code cannot forge them.
  var errorCodes = new WeakMapCtor();
  function runtimeError(code, message) {
    var e = new ErrorCtor(message);
    errorCodes.set(e, code);
    return e;
  }

  // ---------------------------------------------------------------- rng: xoshiro128** (Blackman & Vigna)
  // The host derives the 128-bit state from (env name, seed, level) with SHA-256; see docs/rng.md.
  // `lease` ({ live }) ends when the call the rng was given to returns: a draw after that is work left behind
  // re-entering the runtime (a tripwire), not a draw of the call. A draw marks the lease (`drew`): a call that drew
  // nothing got nothing from its rng.
  function makeRng(a, b, c, d, lease) {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    if ((a | b | c | d) === 0) a = 1;
    function next() {
      if (lease !== undefined && lease.live !== true) {
        if (tripwires !== null)
          tripwires.record('the rng of a call that had returned (work left behind re-entering the runtime)');
        throw new ErrorCtor('this rng belongs to a call that has returned');
      }
      if (lease !== undefined) lease.drew = true;
      var r = Math.imul(b, 5);
      r = Math.imul((r << 7) | (r >>> 25), 9) >>> 0;
      var t = b << 9;
      c ^= a;
      d ^= b;
      b ^= c;
      a ^= d;
      c ^= t;
      d = (d << 11) | (d >>> 21);
      return r;
    }
    function float() {
      // 53 random bits: the top 27 of one output and the top 26 of the next.
      var hi = next() >>> 5;
      var lo = next() >>> 6;
      return (hi * 67108864 + lo) / 9007199254740992;
    }
    function int(lo, hi) {
      if (!NumberIsSafeInteger(lo) || !NumberIsSafeInteger(hi)) {
        throw new TypeErrorCtor(
          'rng.int(lo, hi) needs two safe integers, got ' + StringCtor(lo) + ', ' + StringCtor(hi),
        );
      }
      if (lo > hi) throw new RangeErrorCtor('rng.int(lo, hi) needs lo <= hi, got ' + lo + ' > ' + hi);
      var range = hi - lo + 1;
      if (range <= 4294967296) {
        // Rejection sampling keeps every value equally likely.
        var limit = 4294967296 - (4294967296 % range);
        var x = next();
        while (x >= limit) x = next();
        return lo + (x % range);
      }
      return lo + MathFloor(float() * range);
    }
    function pick(array) {
      if (!ArrayIsArray(array) || array.length === 0)
        throw new TypeErrorCtor('rng.pick(array) needs a non-empty array');
      return array[int(0, array.length - 1)];
    }
    function shuffle(array) {
      if (!ArrayIsArray(array)) throw new TypeErrorCtor('rng.shuffle(array) needs an array');
      var out = new Array(array.length);
      for (var i = 0; i < array.length; i++) out[i] = array[i];
      for (var j = out.length - 1; j > 0; j--) {
        var k = int(0, j);
        var tmp = out[j];
        out[j] = out[k];
        out[k] = tmp;
      }
      return out;
    }
    return ObjectFreeze({ float: float, int: int, pick: pick, shuffle: shuffle });
  }

  // ---------------------------------------------------------------- kit: frozen helpers for environments
  // Linear-time, regex-free where input is model-controlled, so no response can make them slow.
  var OPEN = '<answer>';
  var CLOSE = '</answer>';
  function answer(response) {
    if (typeof response !== 'string') return null;
    var start = response.indexOf(OPEN);
    if (start < 0) return null;
    var end = response.indexOf(CLOSE, start + OPEN.length);
    if (end < 0) return null;
    // Exactly one answer tag: several tags are a way to enumerate candidates, so they earn nothing.
    if (response.indexOf(OPEN, start + OPEN.length) >= 0) return null;
    return response.slice(start + OPEN.length, end).trim();
  }
  function normalize(text) {
    if (typeof text !== 'string') return '';
    return text.trim().split(/\s+/).join(' ');
  }
  function isDigits(s, from) {
    if (from >= s.length) return false;
    for (var i = from; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c < 48 || c > 57) return false;
    }
    return true;
  }
  function int(text) {
    if (typeof text !== 'string') return null;
    var s = text.trim();
    var from = s[0] === '-' || s[0] === '+' ? 1 : 0;
    if (s.length > 30 || !isDigits(s, from)) return null;
    var n = Number(s);
    return NumberIsSafeInteger(n) ? n : null;
  }
  function number(text) {
    if (typeof text !== 'string') return null;
    var s = text.trim();
    if (s.length === 0 || s.length > 64) return null;
    var slash = s.indexOf('/');
    if (slash > 0) {
      var p = int(s.slice(0, slash));
      var q = int(s.slice(slash + 1));
      return p === null || q === null || q === 0 ? null : p / q;
    }
    if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)) return null;
    var n = Number(s);
    return NumberIsFinite(n) ? n : null;
  }
  function list(text, separator) {
    if (typeof text !== 'string') return [];
    var sep = separator === undefined ? ',' : separator;
    var parts = text.split(sep);
    var out = [];
    for (var i = 0; i < parts.length; i++) {
      var item = parts[i].trim();
      if (item.length > 0) out[out.length] = item;
    }
    return out;
  }
  var kit = freezeDeep({ answer: answer, normalize: normalize, int: int, number: number, list: list });

  // ---------------------------------------------------------------- determinism on top of lockdown
  // Lockdown freezes the start compartment's Math and Date but leaves them powerful (Math.random, the
  // clock); the guest gets replacements under the same global names.
  function disabledRandom() {
    throw new ErrorCtor(
      'Math.random is disabled in envforge environments: use the rng argument ' +
        '(rng.float(), rng.int(lo, hi), rng.pick(array), rng.shuffle(array)) so that (seed, level) fixes the instance',
    );
  }
  function defineGlobal(name, value) {
    ObjectDefineProperty(global, name, { value: value, writable: false, configurable: false, enumerable: false });
  }
  function installDeterminism() {
    var SafeMath = {};
    var names = Object.getOwnPropertyNames(Math);
    for (var i = 0; i < names.length; i++) {
      if (names[i] !== 'random')
        ObjectDefineProperty(SafeMath, names[i], Object.getOwnPropertyDescriptor(Math, names[i]));
    }
    ObjectDefineProperty(SafeMath, 'random', {
      value: disabledRandom,
      writable: false,
      enumerable: false,
      configurable: false,
    });
    ObjectDefineProperty(SafeMath, Symbol.toStringTag, { value: 'Math', configurable: false });
    // Date with a frozen clock: explicit dates still work, "now" is always the epoch. Date.prototype's
    // constructor is SES's shared Date, whose clock is already disabled.
    var FrozenDate = function Date() {
      if (!new.target) return new RealDate(FIXED_TIME).toString();
      if (arguments.length === 0) return new RealDate(FIXED_TIME);
      return ReflectConstruct(RealDate, arguments);
    };
    FrozenDate.prototype = RealDate.prototype;
    FrozenDate.now = function now() {
      return FIXED_TIME;
    };
    FrozenDate.UTC = RealDate.UTC;
    FrozenDate.parse = RealDate.parse;
    var noop = function () {};
    // The start compartment's Error lets code install Error.prepareStackTrace and so read call sites;
    // the Error that SES gives compartments ignores that. Same prototype, so instanceof still holds.
    var SharedError = new global.Compartment().globalThis.Error;
    if (SharedError.prototype !== ErrorCtor.prototype) throw new ErrorCtor('envforge runtime: unexpected SES Error');
    // SES leaves privileged helpers on the start compartment's global (getStackString and the causal console
    // it builds would hand guest code the stack traces that errorTaming hides): the tripwires take their
    // names, with eval, Function and Compartment (tripwires.js).
    var privileged = [
      'getStackString',
      'lockdown',
      'repairIntrinsics',
      'hardenIntrinsics',
      Symbol.for('MAKE_CAUSAL_CONSOLE_FROM_LOGGER_KEY_FOR_SES_AVA'),
    ];
    for (var p = 0; p < privileged.length; p++) {
      if (!delete global[privileged[p]])
        throw new ErrorCtor('envforge runtime: cannot remove ' + StringCtor(privileged[p]));
    }
    if (tripwires !== null) tripwires.installGlobals(defineGlobal);
    defineGlobal('Error', SharedError);
    defineGlobal('Math', freezeDeep(SafeMath));
    defineGlobal('Date', freezeDeep(FrozenDate));
    if (typeof Intl !== 'undefined') freezeDeep(Intl);
    if (typeof global.console === 'undefined')
      defineGlobal('console', freezeDeep({ log: noop, info: noop, warn: noop, error: noop, debug: noop }));
    defineGlobal('kit', kit);
    // Nothing on the global object may change after this: it is shared by every instance of the module,
    // so writing to it would carry state from one episode to the next.
    freezeDeep(global);
  }

  // ---------------------------------------------------------------- plain-JSON check and bounded serialisation
  // Walks a guest value inside the isolate (guest getters run here, under the call's timeout) and throws
  // a tagged error naming the first thing that is not plain JSON data. The fast walk keeps no paths; only
  // on a failure is the walk repeated with paths, to name where the problem is.
  function notJson(path, what) {
    return runtimeError('E_NOT_JSON', path + ' is ' + what + ': instances and results must be plain JSON data');
  }
  // Returns null for plain JSON data, else [code, what] for the first offending value.
  function inspectNode(v, depth, maxDepth) {
    if (v === null) return null;
    var t = typeof v;
    if (t === 'string' || t === 'boolean') return null;
    if (t === 'number') return NumberIsFinite(v) ? null : ['E_NOT_JSON', 'a non-finite number (' + v + ')'];
    if (t === 'undefined') return ['E_NOT_JSON', 'undefined'];
    if (t === 'function') return ['E_NOT_JSON', 'a function'];
    if (t === 'bigint') return ['E_NOT_JSON', 'a BigInt'];
    if (t === 'symbol') return ['E_NOT_JSON', 'a symbol'];
    if (depth >= maxDepth) return ['E_TOO_LARGE', 'nested deeper than ' + maxDepth + ' levels'];
    var proto = ObjectGetPrototypeOf(v);
    if (ArrayIsArray(v)) return proto === ArrayPrototype ? null : ['E_NOT_JSON', 'an array subclass'];
    if (proto !== ObjectPrototype && proto !== null)
      return ['E_NOT_JSON', 'an object that is not a plain object (a class instance, Map, Set, Date…)'];
    return null;
  }
  // Fast walk: primitive children are checked in place; only containers go on the stack.
  function isPlainPrimitive(c) {
    var t = typeof c;
    return t === 'string' || t === 'boolean' || (t === 'number' && c - c === 0);
  }
  function checkPlain(value, maxDepth, maxNodes) {
    if (value === null || typeof value !== 'object') {
      if (value === null || isPlainPrimitive(value)) return;
      throw locate(value, maxDepth);
    }
    var values = [value];
    var depths = [0];
    var nodes = 1;
    while (values.length > 0) {
      var v = values.pop();
      var depth = depths.pop();
      if (depth >= maxDepth) throw locate(value, maxDepth);
      var proto = ObjectGetPrototypeOf(v);
      var isArray = ArrayIsArray(v);
      var children;
      if (isArray && proto === ArrayPrototype) children = v;
      else if (!isArray && (proto === ObjectPrototype || proto === null)) {
        var keys = ObjectKeys(v);
        // An own toJSON would make JSON.stringify write something other than what was checked.
        for (var j = 0; j < keys.length; j++)
          if (keys[j] === 'toJSON') throw notJson('$', 'an object with a toJSON method');
        children = new Array(keys.length);
        for (var k = 0; k < keys.length; k++) children[k] = v[keys[k]];
      } else throw locate(value, maxDepth);
      nodes += children.length;
      if (nodes > maxNodes) throw runtimeError('E_TOO_LARGE', 'value has more than ' + maxNodes + ' nodes');
      for (var i = 0; i < children.length; i++) {
        var c = children[i];
        if (c !== null && typeof c === 'object') {
          values[values.length] = c;
          depths[depths.length] = depth + 1;
        } else if (c !== null && !isPlainPrimitive(c)) throw locate(value, maxDepth);
      }
    }
  }
  // The slow walk with paths, run only once a problem is known to exist.
  function locate(value, maxDepth) {
    var stack = [[value, '$', 0]];
    while (stack.length > 0) {
      var item = stack.pop();
      var v = item[0],
        path = item[1],
        depth = item[2];
      var problem = inspectNode(v, depth, maxDepth);
      if (problem !== null)
        return runtimeError(
          problem[0],
          path +
            ' is ' +
            problem[1] +
            (problem[0] === 'E_NOT_JSON' ? ': instances and results must be plain JSON data' : ''),
        );
      if (v === null || typeof v !== 'object') continue;
      if (ArrayIsArray(v)) {
        for (var i = v.length - 1; i >= 0; i--) stack[stack.length] = [v[i], path + '[' + i + ']', depth + 1];
      } else {
        var keys = ObjectKeys(v);
        for (var k = keys.length - 1; k >= 0; k--) stack[stack.length] = [v[keys[k]], path + '.' + keys[k], depth + 1];
      }
    }
    return runtimeError('E_NOT_JSON', 'the value changed while it was inspected (a getter or proxy)');
  }

  // ---------------------------------------------------------------- trampoline
  var guest = null;
  var factory = null;
  var limits = {
    maxDepth: 32,
    maxNodes: 200000,
    maxValueChars: 1 << 20,
    maxMessageChars: 2000,
    maxFeedbackChars: 2000,
    maxChunkChars: 4 << 20,
  };
  var batch = [];
  var pending = [];
  var pendingChars = 0;
  var cursor = 0;

  function describeThrown(e) {
    // Reading a hostile error runs guest getters: that happens here, under the timeout, never in the host.
    var code = errorCodes.get(e) || 'E_THROWN';
    var message;
    try {
      if (e instanceof ErrorCtor || (e && typeof e === 'object' && typeof e.message === 'string')) {
        message = StringCtor(e.name || 'Error') + ': ' + StringCtor(e.message);
      } else {
        message = 'threw a non-error value: ' + StringCtor(e);
      }
    } catch (inner) {
      message = 'threw a value that could not be described';
    }
    if (typeof message !== 'string') message = 'threw a value that could not be described';
    if (message.length > limits.maxMessageChars) message = message.slice(0, limits.maxMessageChars) + '…';
    // One line, laid out by no one: a guest's message is printed inside reports and logs, where a line break could fake
    // a line of its own, and a run of blanks could push its text to the start of a wrapped terminal line (T8-3).
    message = message.replace(/[\s\u2800\p{Default_Ignorable_Code_Point}]{2,}|[\r\n\u2028\u2029]/gu, ' ');
    return { code: code, message: message };
  }
  function failureText(d) {
    return '"ok":false,"code":' + stringify(d.code) + ',"message":' + stringify(d.message);
  }

  function serialise(value, maxChars) {
    if (value !== null && typeof value === 'object' && typeof value.then === 'function') {
      throw runtimeError('E_ASYNC', 'returned a Promise: environment functions must be synchronous');
    }
    checkPlain(value, limits.maxDepth, limits.maxNodes);
    var text = stringify(value);
    if (text === undefined) throw notJson('$', 'not serialisable');
    if (text.length > maxChars) {
      throw runtimeError(
        'E_TOO_LARGE',
        'value serialises to ' + text.length + ' characters, over the limit of ' + maxChars,
      );
    }
    return text;
  }

  // Every guest call runs in a fresh instance of the module (realm.ts), so a call's result depends on its
  // arguments only, never on earlier calls.
  function callGuest(name, args) {
    var fn = factory()(name);
    if (typeof fn !== 'function') {
      throw runtimeError('E_MISSING_EXPORT', 'the module does not export a function named ' + name);
    }
    return fn.apply(undefined, args);
  }
  // A guest call whose argument `rngAt` is an rng of state `s`, leased for the call only; `lease`, where given,
  // says afterwards whether the call drew from it (`drew`).
  function callWithRng(name, args, rngAt, s, lease) {
    if (lease === undefined) lease = {};
    lease.live = true;
    lease.drew = false;
    args[rngAt] = makeRng(s[0], s[1], s[2], s[3], lease);
    try {
      return callGuest(name, args);
    } finally {
      lease.live = false;
    }
  }

  // A call that tripped a wire fails with E_ESCAPE_ATTEMPT whatever it returned: the module caught the refusal,
  // the attempt stays the evidence (tripwires.js). `run` makes the call's entry; `stage` names the running function.
  function escapeMessage(fn) {
    return (
      fn +
      ' reached for ' +
      tripwires.log.what.join('; ') +
      ': a capability outside the environment contract (the attempt counts even when the module catches the refusal)'
    );
  }
  function watched(call, stage, t0, run) {
    if (tripwires === null) return run();
    var log = tripwires.log;
    var before = log.count - log.handled;
    log.at = stage;
    log.first = null;
    var entry;
    try {
      entry = run();
    } finally {
      log.at = null;
    }
    if (log.count - log.handled === before) return entry;
    // The turns a tripping call played are not replayed from memory: a later log meets the wire itself.
    if (episodic !== null) episodic.beginBatch();
    var tripped = { name: log.first || stage.name };
    return failedEntry(call, runtimeError('E_ESCAPE_ATTEMPT', escapeMessage(tripped.name)), realNow() - t0, tripped);
  }

  // A verdict is a finite number, or { score, feedback? } with a short string feedback; only those two
  // fields cross, so a verifier cannot send megabytes per response (the host checks the range).
  function verdictText(instanceText, response) {
    var result = callGuest('verify', [parse(instanceText), response]);
    if (typeof result === 'number') {
      if (!NumberIsFinite(result))
        throw runtimeError(
          'E_SCORE',
          'verify returned the score ' + result + ': scores must be finite numbers in [0, 1]',
        );
      return stringify(result);
    }
    var proto = result !== null && typeof result === 'object' ? ObjectGetPrototypeOf(result) : undefined;
    if ((proto !== ObjectPrototype && proto !== null) || ArrayIsArray(result)) {
      throw runtimeError(
        'E_SCORE',
        'verify returned ' +
          (result === null ? 'null' : typeof result) +
          ': it must return a number in [0, 1] or a plain object { score, feedback }',
      );
    }
    var score = result.score;
    var feedback = result.feedback;
    if (typeof score !== 'number' || !NumberIsFinite(score))
      throw runtimeError(
        'E_SCORE',
        'verify returned a score that is not a finite number: scores must be numbers in [0, 1]',
      );
    if (feedback === undefined) return '{"score":' + stringify(score) + '}';
    if (typeof feedback !== 'string') throw runtimeError('E_SCORE', 'verify returned feedback that is not a string');
    if (feedback.length > limits.maxFeedbackChars) {
      throw runtimeError(
        'E_SCORE',
        'verify returned feedback of ' + feedback.length + ' characters, over the limit of ' + limits.maxFeedbackChars,
      );
    }
    return '{"score":' + stringify(score) + ',"feedback":' + stringify(feedback) + '}';
  }
  function scoredText(instanceText, response) {
    var before = tripwires === null ? 0 : tripwires.log.count;
    var text;
    try {
      text = '{"ok":true,"value":' + verdictText(instanceText, response) + '}';
    } catch (e) {
      text = '{' + failureText(describeThrown(e)) + '}';
    }
    if (tripwires === null || tripwires.log.count === before) return text;
    // This verify tripped a wire: its verdict is the attempt (the episode's other verdicts stand).
    tripwires.log.handled += tripwires.log.count - before;
    return '{' + failureText({ code: 'E_ESCAPE_ATTEMPT', message: escapeMessage('verify') }) + '}';
  }

  // The only call there is: generate -> solve -> verify(reference) -> verify(each response). Every user
  // of the sandbox (validator, service, export) makes exactly this call, so a module cannot tell them apart.
  function episode(call, stage) {
    var s = call.s;
    var t0 = realNow();
    var instance = callWithRng('generate', [null, call.level], 0, s);
    var instanceText = serialise(instance, limits.maxValueChars);
    var t1 = realNow();
    stage.name = 'solve';
    var refText = serialise(callGuest('solve', [instance]), limits.maxValueChars);
    var t2 = realNow();
    stage.name = 'verify';
    var reference = parse(refText);
    var verdicts = scoredText(instanceText, reference);
    var responses = call.responses;
    for (var i = 0; i < responses.length; i++) verdicts += ',' + scoredText(instanceText, responses[i]);
    var t3 = realNow();
    return episodeText(call, instanceText, refText, verdicts, t1 - t0, t2 - t1, t3 - t2);
  }
  function episodeText(call, instanceText, refText, verdicts, generateMs, solveMs, verifyMs) {
    return (
      '{"instance":' +
      (call.keepInstance === false ? 'null' : instanceText) +
      ',"reference":' +
      refText +
      ',"verdicts":[' +
      verdicts +
      '],"ms":[' +
      generateMs +
      ',' +
      solveMs +
      ',' +
      verifyMs +
      ']}'
    );
  }

  // The same episode one guest function per crossing (worker-job.ts's attribution path, left-behind.ts): what a
  // function leaves behind (promise jobs) runs in the microtask checkpoint that ends its own crossing, so a
  // failure there is its own. `charged` maps a verify step (2: the reference, 3 + i: response i) that did so
  // in an earlier realm to [code, message]: it is not run again, its verdict is that failure.
  var steps = null;
  function stepEpisode(call, charged, stage) {
    var st =
      steps ||
      (steps = {
        k: 0,
        instance: null,
        instanceText: '',
        refText: '',
        reference: null,
        verdicts: '',
        ms: [0, 0, 0],
        t0: realNow(),
      });
    var k = st.k;
    var t = realNow();
    var slot = k < 2 ? k : 2;
    stage.name = k === 0 ? 'generate' : k === 1 ? 'solve' : 'verify';
    if (k === 0) {
      var s = call.s;
      st.instance = callWithRng('generate', [null, call.level], 0, s);
      st.instanceText = serialise(st.instance, limits.maxValueChars);
    } else if (k === 1) {
      st.refText = serialise(callGuest('solve', [st.instance]), limits.maxValueChars);
      st.reference = parse(st.refText);
    } else {
      var c = charged[k];
      var verdict = c
        ? '{' + failureText({ code: c[0], message: c[1] }) + '}'
        : scoredText(st.instanceText, k === 2 ? st.reference : call.responses[k - 3]);
      st.verdicts += (k === 2 ? '' : ',') + verdict;
    }
    st.ms[slot] += realNow() - t;
    st.k = k + 1;
    if (st.k < 3 + call.responses.length) return null;
    return episodeText(call, st.instanceText, st.refText, st.verdicts, st.ms[0], st.ms[1], st.ms[2]);
  }

  // Contract v2 rollouts (episodic-runtime.js, evaluated beside this file), with the helpers captured above.
  var episodic =
    typeof envforgeEpisodicRuntime === 'function'
      ? envforgeEpisodicRuntime({
          stringify: stringify,
          parse: parse,
          runtimeError: runtimeError,
          makeRng: makeRng,
          now: realNow,
          callGuest: callGuest,
          callWithRng: callWithRng,
          serialise: serialise,
          checkPlain: function (v) {
            checkPlain(v, limits.maxDepth, limits.maxNodes);
          },
        })
      : null;

  // "cursor|count|[results]": cursor counts the calls of this batch that have finished and count the
  // results in this text, so the host can tell results lost in transit from a call in flight.
  function collect() {
    var text = cursor + '|' + pending.length + '|[' + pending.join(',') + ']';
    pending = [];
    pendingChars = 0;
    return text;
  }

  // Episode calls as the worker packs them (crossing.ts: crossingArgs): ids from `from` up, a level each,
  // four words of rng state each in `states` (a Uint32Array), the instance left out for the indices in
  // `drop`, and each call's responses in `responses` (an array of string arrays) when any call has some.
  var NO_RESPONSES = ObjectFreeze([]);
  function plainEpisodes(rows, states, responses) {
    var calls = [];
    var levels = rows.levels;
    for (var i = 0; i < levels.length; i++) {
      calls[i] = {
        id: rows.from + i,
        s: [states[4 * i], states[4 * i + 1], states[4 * i + 2], states[4 * i + 3]],
        level: levels[i],
        responses: responses === undefined ? NO_RESPONSES : responses[i],
        keepInstance: true,
      };
    }
    var drop = rows.drop === undefined ? NO_RESPONSES : rows.drop;
    for (var d = 0; d < drop.length; d++) calls[drop[d]].keepInstance = false;
    return calls;
  }

  function runCall(call) {
    var t0 = realNow();
    var stage = { name: 'generate' };
    return watched(call, stage, t0, function () {
      try {
        var text = call.op === 'rollout' && episodic !== null ? episodic.rollout(call, stage) : episode(call, stage);
        return okEntry(call, realNow() - t0, text);
      } catch (e) {
        return failedEntry(call, e, realNow() - t0, stage);
      }
    });
  }
  function okEntry(call, ms, text) {
    return '{"id":' + stringify(call.id) + ',"ok":true,"ms":' + ms + ',"value":' + text + '}';
  }
  function failedEntry(call, e, ms, stage) {
    return (
      '{"id":' +
      stringify(call.id) +
      ',' +
      failureText(describeThrown(e)) +
      ',"ms":' +
      ms +
      ',"fn":' +
      stringify(stage.name) +
      '}'
    );
  }
  function finishCall(entry) {
    pending[pending.length] = entry;
    pendingChars += entry.length;
    cursor++;
  }

  var api = {
    // The guest module's namespace, given once by the worker (through an isolated-vm Reference).
    // With it, the factory of fresh instances (instance.ts): without one, no call runs.
    bind: function (namespace, instanceFactory) {
      if (guest !== null) throw new ErrorCtor('envforge runtime already bound');
      if (typeof instanceFactory !== 'function')
        throw new ErrorCtor('envforge runtime bound without a factory of fresh instances');
      guest = namespace;
      factory = instanceFactory;
    },
    meta: function () {
      try {
        return '{"ok":true,"value":' + serialise(guest.meta, limits.maxValueChars) + '}';
      } catch (e) {
        return '{' + failureText(describeThrown(e)) + '}';
      }
    },
    exportsList: function () {
      var names = ObjectKeys(guest).sort();
      var out = [];
      for (var i = 0; i < names.length; i++) {
        var type;
        try {
          type = typeof guest[names[i]];
        } catch (e) {
          type = 'uninitialized';
        }
        out[out.length] = names[i] + ':' + type;
      }
      return stringify(out);
    },
    begin: function (batchText, limitsText, states, responses) {
      batch = parse(batchText);
      if (!ArrayIsArray(batch)) batch = plainEpisodes(batch, states, responses);
      var l = parse(limitsText);
      limits = {
        maxDepth: l.maxDepth,
        maxNodes: l.maxNodes,
        maxValueChars: l.maxValueChars,
        maxMessageChars: l.maxMessageChars,
        maxFeedbackChars: l.maxFeedbackChars,
        maxChunkChars: l.maxChunkChars,
      };
      pending = [];
      pendingChars = 0;
      cursor = 0;
      steps = null;
      if (episodic !== null) episodic.beginBatch();
      return batch.length;
    },
    // Runs calls until the batch ends, sliceMs has passed, or the results reach maxChunkChars; returns
    // collect()'s text and forgets those results, so a hang loses only the call in flight.
    next: function (sliceMs) {
      var start = realNow();
      while (cursor < batch.length) {
        finishCall(runCall(batch[cursor]));
        if (realNow() - start >= sliceMs || pendingChars >= limits.maxChunkChars) break;
      }
      return collect();
    },
    // One step of the batch's only call (an episode; see stepEpisode): '+' while steps remain, then collect()'s text.
    step: function (chargedText) {
      var call = batch[0];
      var stage = { name: 'generate' };
      var t0 = steps === null ? realNow() : steps.t0;
      var entry = watched(call, stage, t0, function () {
        try {
          var text = stepEpisode(call, parse(chargedText), stage);
          return text === null ? null : okEntry(call, realNow() - steps.t0, text);
        } catch (e) {
          return failedEntry(call, e, realNow() - t0, stage);
        }
      });
      if (entry === null) return '+';
      steps = null;
      finishCall(entry);
      return collect();
    },
    collect: collect,
    // What the tripwires recorded since the last read (tripwires.js), as JSON text; the worker reads it after
    // each crossing and at load, so a trip outside any call (a promise job, a getter) is seen too.
    trips: function () {
      return tripwires === null ? '{"count":0,"late":0,"what":[]}' : tripwires.take();
    },
  };

  if (hardened) installDeterminism();
  return { api: freezeDeep(api), makeRng: makeRng, kit: kit, disabledRandom: disabledRandom, episodic: episodic };
};

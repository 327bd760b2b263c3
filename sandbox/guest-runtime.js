// The code envforge installs in every isolate before the guest module: the seeded rng, the helper kit,
// the determinism lock-down, and the trampoline through which the host calls the guest with strings only.
//
// This file is evaluated as a plain script (inside isolated-vm, or in plain Node for benchmarks and
// tests). It defines one function, `envforgeInstallRuntime(global, options)`, and never touches host
// objects: everything that crosses the boundary is a string built with intrinsics captured here, before
// any guest code has run.
/* eslint-disable no-var */
var envforgeInstallRuntime = function envforgeInstallRuntime(global, options) {
  'use strict';
  var opts = options || {};
  var lockdown = opts.lockdown !== false;
  var FIXED_TIME = 0;

  // Intrinsics captured before guest code can replace them.
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
  var resolvedPromise = Promise.resolve();
  var promiseThen = Promise.prototype.then;
  // Codes and stages are attached only to errors this runtime made: a guest cannot forge them.
  var errorCodes = new WeakMap();
  var wrappedStage = new WeakMap();
  var wrappedInner = new WeakMap();
  function runtimeError(code, message) {
    var e = new ErrorCtor(message);
    errorCodes.set(e, code);
    return e;
  }

  // ---------------------------------------------------------------- rng: xoshiro128** (Blackman & Vigna)
  // The host derives the 128-bit state from (env name, seed, level) with SHA-256; see docs/rng.md.
  function makeRng(a, b, c, d) {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    if ((a | b | c | d) === 0) a = 1;
    function next() {
      var r = Math.imul(b, 5);
      r = Math.imul((r << 7) | (r >>> 25), 9) >>> 0;
      var t = b << 9;
      c ^= a; d ^= b; b ^= c; a ^= d; c ^= t;
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
        throw new TypeErrorCtor('rng.int(lo, hi) needs two safe integers, got ' + StringCtor(lo) + ', ' + StringCtor(hi));
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
      if (!ArrayIsArray(array) || array.length === 0) throw new TypeErrorCtor('rng.pick(array) needs a non-empty array');
      return array[int(0, array.length - 1)];
    }
    function shuffle(array) {
      if (!ArrayIsArray(array)) throw new TypeErrorCtor('rng.shuffle(array) needs an array');
      var out = new Array(array.length);
      for (var i = 0; i < array.length; i++) out[i] = array[i];
      for (var j = out.length - 1; j > 0; j--) {
        var k = int(0, j);
        var tmp = out[j]; out[j] = out[k]; out[k] = tmp;
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
  var kit = ObjectFreeze({ answer: answer, normalize: normalize, int: int, number: number, list: list });

  // ---------------------------------------------------------------- lock-down: determinism by construction
  function disabledRandom() {
    throw new ErrorCtor('Math.random is disabled in envforge environments: use the rng argument ' +
      '(rng.float(), rng.int(lo, hi), rng.pick(array), rng.shuffle(array)) so that (seed, level) fixes the instance');
  }
  function installLockdown() {
    ObjectDefineProperty(Math, 'random', { value: disabledRandom, writable: false, configurable: false });
    // Date with a frozen clock: explicit dates still work, "now" is always the epoch.
    var FrozenDate = function Date() {
      if (!new.target) return new RealDate(FIXED_TIME).toString();
      if (arguments.length === 0) return new RealDate(FIXED_TIME);
      return ReflectConstruct(RealDate, arguments);
    };
    FrozenDate.prototype = RealDate.prototype;
    FrozenDate.now = function now() { return FIXED_TIME; };
    FrozenDate.UTC = RealDate.UTC;
    FrozenDate.parse = RealDate.parse;
    ObjectDefineProperty(RealDate.prototype, 'constructor', { value: FrozenDate, writable: false, configurable: false });
    ObjectDefineProperty(global, 'Date', { value: FrozenDate, writable: false, configurable: false });
    // Intl date formatting without a date reads the clock; give it the frozen time instead.
    if (typeof Intl !== 'undefined' && Intl.DateTimeFormat) {
      var dtfProto = Intl.DateTimeFormat.prototype;
      var formatGetter = Object.getOwnPropertyDescriptor(dtfProto, 'format').get;
      ObjectDefineProperty(dtfProto, 'format', {
        configurable: false,
        get: function () {
          var bound = formatGetter.call(this);
          return function (date) { return bound(date === undefined ? FIXED_TIME : date); };
        },
      });
      ['formatToParts'].forEach(function (name) {
        var original = dtfProto[name];
        ObjectDefineProperty(dtfProto, name, {
          configurable: false, writable: false,
          value: function (date) { return original.call(this, date === undefined ? FIXED_TIME : date); },
        });
      });
    }
    delete global.SharedArrayBuffer;
    delete global.Atomics;
    delete global.WebAssembly;
    var noop = function () {};
    if (typeof global.console === 'undefined') {
      ObjectDefineProperty(global, 'console', {
        value: ObjectFreeze({ log: noop, info: noop, warn: noop, error: noop, debug: noop }),
        writable: false, configurable: false,
      });
    }
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
    if (proto !== ObjectPrototype && proto !== null) return ['E_NOT_JSON', 'an object that is not a plain object (a class instance, Map, Set, Date…)'];
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
        children = new Array(keys.length);
        for (var k = 0; k < keys.length; k++) children[k] = v[keys[k]];
      } else throw locate(value, maxDepth);
      nodes += children.length;
      if (nodes > maxNodes) throw runtimeError('E_TOO_LARGE', 'value has more than ' + maxNodes + ' nodes');
      for (var i = 0; i < children.length; i++) {
        var c = children[i];
        if (c !== null && typeof c === 'object') { values[values.length] = c; depths[depths.length] = depth + 1; }
        else if (c !== null && !isPlainPrimitive(c)) throw locate(value, maxDepth);
      }
    }
  }
  // The slow walk with paths, run only once a problem is known to exist.
  function locate(value, maxDepth) {
    var stack = [[value, '$', 0]];
    while (stack.length > 0) {
      var item = stack.pop();
      var v = item[0], path = item[1], depth = item[2];
      var problem = inspectNode(v, depth, maxDepth);
      if (problem !== null) return runtimeError(problem[0], path + ' is ' + problem[1] + (problem[0] === 'E_NOT_JSON' ? ': instances and results must be plain JSON data' : ''));
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
  // Top-level await detection: a marker module evaluated just before the guest queues a microtask. A
  // synchronous module graph binds before any microtask runs; if it has run by bind time, the guest awaited.
  var evaluationStarted = false;
  var microtaskRan = false;
  var boundAfterAwait = false;
  var limits = { maxDepth: 32, maxNodes: 200000, maxValueChars: 1 << 20, maxMessageChars: 2000 };
  var batch = null;
  var pending = [];
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
    if (message.length > limits.maxMessageChars) message = message.slice(0, limits.maxMessageChars) + '…';
    return { code: code, message: message };
  }

  function serialise(value) {
    if (value !== null && typeof value === 'object' && typeof value.then === 'function') {
      throw runtimeError('E_ASYNC', 'returned a Promise: environment functions must be synchronous');
    }
    checkPlain(value, limits.maxDepth, limits.maxNodes);
    var text = stringify(value);
    if (text === undefined) throw notJson('$', 'not serialisable');
    if (text.length > limits.maxValueChars) {
      throw runtimeError('E_TOO_LARGE', 'value serialises to ' + text.length + ' characters, over the limit of ' + limits.maxValueChars);
    }
    return text;
  }

  function callGuest(name, args) {
    var fn = guest[name];
    if (typeof fn !== 'function') {
      throw runtimeError('E_MISSING_EXPORT', 'the module does not export a function named ' + name);
    }
    return fn.apply(undefined, args);
  }

  // One call: returns the JSON text of its value. verify always gets a fresh copy parsed from the
  // instance's canonical text, as the reward service will; solve may get the generated object itself
  // once it has been serialised, since nothing downstream reads that object again.
  function generateValue(call) {
    var s = call.s;
    return callGuest('generate', [makeRng(s[0], s[1], s[2], s[3]), call.level]);
  }
  function generateText(call) {
    return serialise(generateValue(call));
  }
  function verifyText(instanceText, response) {
    var result = callGuest('verify', [parse(instanceText), response]);
    var score = result !== null && typeof result === 'object' ? result.score : result;
    if (typeof score === 'number' && !NumberIsFinite(score)) {
      throw runtimeError('E_SCORE', 'verify returned the score ' + score + ': scores must be finite numbers in [0, 1]');
    }
    return serialise(result);
  }
  function runCall(call) {
    var op = call.op;
    if (op === 'generate') return generateText(call);
    if (op === 'solve') return serialise(callGuest('solve', [parse(call.instance)]));
    if (op === 'verify') return verifyText(call.instance, call.response);
    if (op === 'episode') return episode(call);
    throw new ErrorCtor('unknown op ' + op);
  }
  // generate -> solve -> verify(reference) -> verify(each response), in one call.
  function episode(call) {
    var stage = 'generate';
    var out = '{';
    try {
      var t0 = realNow();
      var instance = generateValue(call);
      var instanceText = serialise(instance);
      var t1 = realNow();
      stage = 'solve';
      var reference = call.solve === false ? null : callGuest('solve', [instance]);
      var refText = serialise(reference);
      var t2 = realNow();
      out += '"instance":' + (call.keepInstance === false ? 'null' : instanceText) + ',"reference":' + refText;
      var responses = call.responses || [];
      var verdicts = [];
      stage = 'verify';
      if (call.solve !== false) verdicts[verdicts.length] = verdictText(instanceText, reference);
      for (var i = 0; i < responses.length; i++) verdicts[verdicts.length] = verdictText(instanceText, responses[i]);
      var t3 = realNow();
      return out + ',"verdicts":[' + verdicts.join(',') + '],"ms":[' + (t1 - t0) + ',' + (t2 - t1) + ',' + (t3 - t2) + ']}';
    } catch (e) {
      var wrapper = new ErrorCtor('episode failed');
      wrappedStage.set(wrapper, stage);
      wrappedInner.set(wrapper, e);
      throw wrapper;
    }
  }
  function verdictText(instanceText, response) {
    try {
      return '{"ok":true,"value":' + verifyText(instanceText, response) + '}';
    } catch (e) {
      var d = describeThrown(e);
      return '{"ok":false,"code":' + stringify(d.code) + ',"message":' + stringify(d.message) + '}';
    }
  }

  // "cursor|count|[results]": count says how many results the array holds, so the host can tell results
  // lost in transit (a timeout that fires after next() returned, in pending promise jobs) from a call in flight.
  function collect() {
    var text = cursor + '|' + pending.length + '|[' + pending.join(',') + ']';
    pending = [];
    return text;
  }

  var api = ObjectFreeze({
    // Called once, by the host-written binder module, with the guest's namespace.
    markEvaluationStart: function () {
      if (evaluationStarted) return;
      evaluationStarted = true;
      promiseThen.call(resolvedPromise, function () { microtaskRan = true; });
    },
    bind: function (namespace) {
      if (guest !== null) throw new ErrorCtor('envforge runtime already bound: the guest module tampered with the trampoline');
      guest = namespace;
      boundAfterAwait = microtaskRan;
    },
    bound: function () { return guest !== null; },
    boundAfterAwait: function () { return boundAfterAwait; },
    meta: function () {
      try { return '{"ok":true,"value":' + serialise(guest.meta) + '}'; } catch (e) {
        var d = describeThrown(e);
        return '{"ok":false,"code":' + stringify(d.code) + ',"message":' + stringify(d.message) + '}';
      }
    },
    exportsList: function () {
      var names = ObjectKeys(guest).sort();
      var out = [];
      for (var i = 0; i < names.length; i++) out[out.length] = names[i] + ':' + typeof guest[names[i]];
      return stringify(out);
    },
    begin: function (batchText, limitsText) {
      batch = parse(batchText);
      var l = parse(limitsText);
      limits = { maxDepth: l.maxDepth, maxNodes: l.maxNodes, maxValueChars: l.maxValueChars, maxMessageChars: l.maxMessageChars };
      pending = [];
      cursor = 0;
      return batch.length;
    },
    // Runs calls until the batch ends or sliceMs has passed; returns collect()'s text and forgets
    // those results, so a hang loses only the call in flight (collect() fetches the rest after a timeout).
    next: function (sliceMs) {
      var start = realNow();
      while (cursor < batch.length) {
        var call = batch[cursor];
        var t0 = realNow();
        var entry;
        try {
          var text = runCall(call);
          entry = '{"ok":true,"ms":' + (realNow() - t0) + ',"value":' + text + '}';
        } catch (e) {
          var stage = call.op;
          if (wrappedStage.has(e)) { stage = wrappedStage.get(e); e = wrappedInner.get(e); }
          var d = describeThrown(e);
          entry = '{"ok":false,"ms":' + (realNow() - t0) + ',"code":' + stringify(d.code) + ',"message":' + stringify(d.message) + ',"fn":' + stringify(stage) + '}';
        }
        pending[pending.length] = entry;
        cursor++;
        if (realNow() - start >= sliceMs) break;
      }
      return collect();
    },
    collect: collect,
  });

  if (lockdown) installLockdown();
  return { api: api, makeRng: makeRng, kit: kit, disabledRandom: disabledRandom };
};

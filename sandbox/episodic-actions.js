// The action side of the episodic runtime (contract v2): the check of an action against its tool's parameter
// schema (a schema interpreter), the canonical form every accepted call reaches step in, a state's digest and the
// paths a step changed, the turns of an action repeated at a fixed point, and the seeded random policy of
// schema-valid calls.
//
// Evaluated as a plain script beside episodic-runtime.js, which calls `envforgeEpisodicActions(d)` with the
// helpers guest-runtime.js captured before guest code ran; it touches no host objects.
/* eslint-disable no-var */
var envforgeEpisodicActions = function envforgeEpisodicActions(d) {
  'use strict';
  var stringify = d.stringify,
    parse = d.parse;
  var ObjectKeys = Object.keys,
    ArrayIsArray = Array.isArray,
    NumberIsSafeInteger = Number.isSafeInteger;
  var NumberIsFinite = Number.isFinite,
    ObjectHasOwn = Object.prototype.hasOwnProperty,
    MathFloor = Math.floor;
  var MAX_ARGS_CHARS = 4096;
  var CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufffe\uffff]/g;
  // A client's string shown in the host's own messages (an unknown tool, an undeclared argument), with every
  // control written as an escape (\u001b), so a message never carries one.
  function shown(s) {
    return s.slice(0, 60).replace(CONTROL_ALL, function (c) {
      return '\\u' + ('000' + c.charCodeAt(0).toString(16)).slice(-4);
    });
  }
  function forbidden(k) {
    return k === '__proto__' || k === 'constructor' || k === 'prototype';
  }

  function has(o, k) {
    return ObjectHasOwn.call(o, k);
  }
  function isObject(v) {
    return v !== null && typeof v === 'object' && !ArrayIsArray(v);
  }

  // Canonical JSON: object keys sorted, so equal states have equal text wherever they were made.
  function canonical(v) {
    if (v === null || typeof v !== 'object') return stringify(v);
    var out, i;
    if (ArrayIsArray(v)) {
      out = '[';
      for (i = 0; i < v.length; i++) out += (i ? ',' : '') + canonical(v[i]);
      return out + ']';
    }
    var keys = ObjectKeys(v).sort();
    out = '{';
    for (i = 0; i < keys.length; i++) out += (i ? ',' : '') + stringify(keys[i]) + ':' + canonical(v[keys[i]]);
    return out + '}';
  }

  // canonical() of the value a JSON text holds, for a text this runtime wrote (the state): parsed, each object
  // whose keys are out of order rebuilt in order, then written by the native JSON.stringify, several times
  // faster than canonical() and the same text; a key the rebuild cannot place (__proto__, one that starts
  // with a digit, which V8 may order first) falls back to canonical().
  var UNPLACEABLE = {};
  function inOrder(v) {
    var i, c, keys, out;
    if (ArrayIsArray(v)) {
      for (i = 0; i < v.length; i++)
        if (v[i] !== null && typeof v[i] === 'object' && (v[i] = inOrder(v[i])) === UNPLACEABLE) return UNPLACEABLE;
      return v;
    }
    keys = ObjectKeys(v);
    for (i = 1; i < keys.length && keys[i - 1] < keys[i]; i++);
    out = i >= keys.length ? v : {};
    if (out !== v) keys.sort();
    for (i = 0; i < keys.length; i++) {
      c = v[keys[i]];
      if (out !== v && (keys[i] === '__proto__' || (keys[i].charCodeAt(0) >= 48 && keys[i].charCodeAt(0) <= 57)))
        return UNPLACEABLE;
      if (c !== null && typeof c === 'object' && (c = inOrder(c)) === UNPLACEABLE) return UNPLACEABLE;
      if (out !== v || c !== v[keys[i]]) out[keys[i]] = c;
    }
    return out;
  }
  function canonicalText(text) {
    var v = parse(text);
    if (v === null || typeof v !== 'object') return canonical(v);
    v = inOrder(v);
    return v === UNPLACEABLE ? canonical(parse(text)) : stringify(v);
  }

  // cyrb53: a 53-bit digest of a state text, so a rollout reports its states by value without sending them.
  function digest(text) {
    var h1 = 0xdeadbeef,
      h2 = 0x41c6ce57;
    for (var i = 0; i < text.length; i++) {
      var c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36) + ':' + text.length;
  }

  // The paths one step changed, from the state texts before and after it.
  function changedSince(before, after) {
    var changed = [];
    changedPaths(parse(before), parse(after), '$', 0, changed);
    return changed;
  }
  // The turns after `turn` up to the call's maxTurns of an action repeated at a fixed point, written as playing them
  // writes them (the same action, observation, changes and state digest at every turn); returns the turn it ends at.
  function fixedPoint(turn, call, action, observation, actions, observations, changes, hashes) {
    for (var k = turn; k < call.maxTurns; k++) {
      actions[actions.length] = action;
      if (call.observations) observations[observations.length] = observation;
      if (changes) changes[changes.length] = changes[changes.length - 1];
      if (hashes) hashes[hashes.length] = hashes[hashes.length - 1];
    }
    return call.maxTurns;
  }
  // The places two states differ (paths of keys, array items as *, arrays of another length and depth 4 whole),
  // at most 32: what one step changed, so the validator can tell a record a rule needs from bookkeeping.
  function changedPaths(a, b, path, depth, out) {
    if (a === b || out.length >= 32) return;
    var ao = a !== null && typeof a === 'object',
      bo = b !== null && typeof b === 'object';
    if (!ao || !bo || ArrayIsArray(a) !== ArrayIsArray(b) || depth >= 4 || (ArrayIsArray(a) && a.length !== b.length)) {
      if (!(ao && bo && canonical(a) === canonical(b)) && out.indexOf(path) < 0) out[out.length] = path;
      return;
    }
    var i, ak, bk;
    if (ArrayIsArray(a)) {
      for (i = 0; i < a.length; i++) changedPaths(a[i], b[i], path + '.*', depth + 1, out);
      return;
    }
    ak = ObjectKeys(a);
    bk = ObjectKeys(b);
    for (i = 0; i < ak.length; i++)
      changedPaths(a[ak[i]], has(b, ak[i]) ? b[ak[i]] : undefined, path + '.' + ak[i], depth + 1, out);
    for (i = 0; i < bk.length; i++)
      if (!has(a, bk[i])) changedPaths(undefined, b[bk[i]], path + '.' + bk[i], depth + 1, out);
  }

  // ---------------------------------------------------------------- the action check (a schema interpreter)
  // Schemas were checked by the host to be inside the documented subset; this walks them, it compiles nothing.
  function valueProblem(s, v, path) {
    var t = s.type;
    if (
      t === 'string'
        ? typeof v !== 'string'
        : t === 'boolean'
          ? typeof v !== 'boolean'
          : t === 'integer'
            ? !NumberIsSafeInteger(v)
            : t === 'number'
              ? typeof v !== 'number' || !NumberIsFinite(v)
              : t === 'array'
                ? !ArrayIsArray(v)
                : t === 'object'
                  ? !isObject(v)
                  : true
    ) {
      return path + ' must be ' + (t === 'integer' || t === 'array' || t === 'object' ? 'an ' : 'a ') + t;
    }
    if (s.enum !== undefined && s.enum.indexOf(v) < 0)
      return path + ' must be one of ' + stringify(s.enum).slice(0, 300);
    if (s.minimum !== undefined && v < s.minimum) return path + ' must be at least ' + s.minimum;
    if (s.maximum !== undefined && v > s.maximum) return path + ' must be at most ' + s.maximum;
    if (s.minLength !== undefined && v.length < s.minLength)
      return path + ' must have at least ' + s.minLength + ' characters';
    if (s.maxLength !== undefined && v.length > s.maxLength)
      return path + ' must have at most ' + s.maxLength + ' characters';
    if (t === 'array') {
      if (s.minItems !== undefined && v.length < s.minItems) return path + ' needs at least ' + s.minItems + ' items';
      if (s.maxItems !== undefined && v.length > s.maxItems) return path + ' takes at most ' + s.maxItems + ' items';
      for (var i = 0; i < v.length; i++) {
        var m = valueProblem(s.items, v[i], path + '[' + i + ']');
        if (m) return m;
      }
    }
    if (t === 'object') {
      var props = s.properties || {},
        keys = ObjectKeys(v),
        k;
      for (k = 0; k < keys.length; k++) {
        if (forbidden(keys[k])) return path + '.' + keys[k] + ' is a forbidden key';
        if (!has(props, keys[k])) return path + '.' + shown(keys[k]) + ' is not a declared argument';
      }
      var required = s.required || [];
      for (k = 0; k < required.length; k++) if (!has(v, required[k])) return path + '.' + required[k] + ' is required';
      for (k = 0; k < keys.length; k++) {
        var p = valueProblem(props[keys[k]], v[keys[k]], path + '.' + keys[k]);
        if (p) return p;
      }
    }
    return null;
  }
  /** null when `action` (parsed JSON) is a call of a declared tool with arguments its schema accepts, else why not. */
  function checkAction(tools, action) {
    if (!isObject(action) || typeof action.tool !== 'string') return 'an action is { "tool": name, "args": { … } }';
    var keys = ObjectKeys(action);
    for (var k = 0; k < keys.length; k++)
      if (keys[k] !== 'tool' && keys[k] !== 'args') return 'an action has only "tool" and "args"';
    var tool = null;
    for (var i = 0; i < tools.length; i++) if (tools[i].name === action.tool) tool = tools[i];
    if (tool === null) return 'unknown tool "' + shown(action.tool) + '"';
    var args = has(action, 'args') ? action.args : {};
    var size = stringify(args);
    if (size !== undefined && size.length > MAX_ARGS_CHARS)
      return 'the arguments take ' + size.length + ' characters, over the limit of ' + MAX_ARGS_CHARS;
    return valueProblem(tool.parameters, args, 'args');
  }
  // The one action check and normalisation every path shares (validation, play, serve, replay, scoring of logs):
  // a call the check accepts reaches step canonical, { tool, args } with keys sorted at every depth and each
  // value in its one JSON form, so nothing but the values (not key order, spacing or number spelling) can carry
  // information. The log records the canonical call, so a replayed log is canonical too.
  function normaliseAction(tools, action) {
    var problem = checkAction(tools, action);
    if (problem !== null) return { problem: problem, action: action };
    return {
      problem: null,
      action: parse(canonical({ tool: action.tool, args: has(action, 'args') ? action.args : {} })),
    };
  }

  // ---------------------------------------------------------------- policies
  var TOKEN = /[A-Za-z0-9$][A-Za-z0-9_-]*(?:\.[0-9]+)?/g;
  function tokensOf(text) {
    var m = text.slice(0, 20000).match(TOKEN),
      out = [];
    // "$12.50" is the number 12.50
    for (var i = 0; m !== null && i < m.length && i < 2000; i++) out[i] = m[i].charAt(0) === '$' ? m[i].slice(1) : m[i];
    return out;
  }
  // A replayed action (policy.actions[i]) with each id it uses that the environment issued read from the observation
  // that issued it in this episode (`heard`; protocol.ts Bind): a log replayed as a policy, not as literal strings.
  function bound(policy, i, heard) {
    var raw = policy.actions[i];
    if (!policy.binds || raw === null || typeof raw !== 'object' || raw.args === null || typeof raw.args !== 'object')
      return raw;
    var args = null;
    for (var k = 0; k < policy.binds.length; k++) {
      var b = policy.binds[k];
      if (b.at !== i || typeof heard[b.from] !== 'string') continue;
      var found = heard[b.from].slice(0, 20000).match(new RegExp(b.shape, 'g'));
      if (!found || found.length <= b.nth) continue;
      if (args === null) {
        args = {};
        for (var names = ObjectKeys(raw.args), n = 0; n < names.length; n++) args[names[n]] = raw.args[names[n]];
      }
      if (typeof args[b.arg] === 'string') args[b.arg] = args[b.arg].split(b.value).join(found[b.nth]);
    }
    return args === null ? raw : { tool: raw.tool, args: args };
  }

  // A seeded random policy of schema-valid calls whose strings and numbers come partly from what the agent saw.
  function randomPolicy(rng, tools, avoid, maxTurns) {
    var promptTokens = null;
    function source(episode) {
      var r = rng.float();
      var last = episode.lastTokens,
        seen = episode.seen;
      var src = r < 0.45 && last.length ? last : r < 0.75 || !seen.length ? promptTokens : seen;
      return src.length ? src : ['x'];
    }
    function gen(s, episode) {
      if (s.enum !== undefined) return rng.pick(s.enum);
      var src, lo, hi, i, out;
      switch (s.type) {
        case 'string':
          src = source(episode);
          i = rng.int(0, src.length - 1);
          out = rng.float() < 0.8 ? src[i] : src.slice(i, i + 2).join(' ');
          if (s.maxLength !== undefined) out = out.slice(0, s.maxLength);
          while (out.length < (s.minLength || 0)) out += 'x';
          return out;
        case 'integer':
        case 'number':
          lo = s.minimum !== undefined ? s.minimum : 0;
          hi = s.maximum !== undefined ? s.maximum : lo + (s.type === 'integer' ? 100 : 1000);
          if (s.type === 'integer') {
            lo = Math.ceil(lo);
            hi = MathFloor(hi);
          }
          if (rng.float() < 0.6) {
            src = source(episode);
            var nums = [];
            for (i = 0; i < src.length; i++) {
              var n = Number(src[i]);
              if (NumberIsFinite(n) && n >= lo && n <= hi && (s.type !== 'integer' || NumberIsSafeInteger(n)))
                nums[nums.length] = n;
            }
            if (nums.length) return rng.pick(nums);
          }
          return s.type === 'integer' ? rng.int(lo, hi) : Math.round((lo + rng.float() * (hi - lo)) * 100) / 100;
        case 'boolean':
          return rng.float() < 0.5;
        case 'array':
          lo = s.minItems || 0;
          hi = Math.min(s.maxItems !== undefined ? s.maxItems : lo + 3, lo + 3);
          out = [];
          for (i = rng.int(lo, hi); i > 0; i--) out[out.length] = gen(s.items, episode);
          return out;
        default:
          out = {};
          var props = s.properties || {},
            names = ObjectKeys(props),
            required = s.required || [];
          for (i = 0; i < names.length; i++)
            if (required.indexOf(names[i]) >= 0 || rng.float() < 0.5) out[names[i]] = gen(props[names[i]], episode);
          return out;
      }
    }
    return function (episode) {
      // What the agent reads before acting: the prompt and every tool's descriptions (a token printed there is
      // fair game).
      if (promptTokens === null)
        promptTokens = tokensOf((episode.prompt || '') + ' ' + stringify(tools)).slice(0, 4000);
      if (rng.float() < 0.03) return null;
      var tool = rng.pick(tools);
      // Tools that ended the reference's episodes are mostly kept for the end, so random rollouts run long.
      while (avoid.indexOf(tool.name) >= 0 && episode.turn < maxTurns * 0.8 && rng.float() < 0.9)
        tool = rng.pick(tools);
      return { tool: tool.name, args: gen(tool.parameters, episode) };
    };
  }

  return {
    checkAction: checkAction,
    normaliseAction: normaliseAction,
    canonical: canonical,
    canonicalText: canonicalText,
    digest: digest,
    changedPaths: changedPaths,
    changedSince: changedSince,
    fixedPoint: fixedPoint,
    randomPolicy: randomPolicy,
    tokensOf: tokensOf,
    bound: bound,
    has: has,
    isObject: isObject,
  };
};

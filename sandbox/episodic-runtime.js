// The episodic half of the guest runtime (contract v2): runs whole rollouts (reset, then act/replay/random
// actions through step, then score) inside the isolate in one crossing, holding the state only as
// JSON text between calls, and checks every action against its tool's parameter schema.
//
// Evaluated as a plain script beside guest-runtime.js (in the isolate, and in plain Node where the host
// uses the same action check). It defines `envforgeEpisodicRuntime(d)`, called by envforgeInstallRuntime
// with the intrinsics and helpers it captured before guest code ran; it touches no host objects.
/* eslint-disable no-var */
var envforgeEpisodicRuntime = function envforgeEpisodicRuntime(d) {
  'use strict';
  var stringify = d.stringify, parse = d.parse, runtimeError = d.runtimeError;
  var ObjectKeys = Object.keys, ArrayIsArray = Array.isArray, NumberIsSafeInteger = Number.isSafeInteger;
  var NumberIsFinite = Number.isFinite, ObjectHasOwn = Object.prototype.hasOwnProperty, MathFloor = Math.floor;
  var MAX_ARGS_CHARS = 4096, MAX_STATE_CHARS = 262144, MAX_TEXT_CHARS = 16000;
  // contract/text.ts PROSE_CONTROL (tests/contract-text.test.ts ties them): what a prompt or observation may not hold.
  var CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufffe\uffff]/;
  var CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufffe\uffff]/g;
  // A client's string shown in the host's own messages (an unknown tool, an undeclared argument), with every
  // control written as an escape (\u001b), so a message never carries one.
  function shown(s) {
    return s.slice(0, 60).replace(CONTROL_ALL, function (c) { return '\\u' + ('000' + c.charCodeAt(0).toString(16)).slice(-4); });
  }
  function forbidden(k) { return k === '__proto__' || k === 'constructor' || k === 'prototype'; }

  function has(o, k) { return ObjectHasOwn.call(o, k); }
  function isObject(v) { return v !== null && typeof v === 'object' && !ArrayIsArray(v); }

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
  // cyrb53: a 53-bit digest of a state text, so a rollout reports its states by value without sending them.
  function digest(text) {
    var h1 = 0xdeadbeef, h2 = 0x41c6ce57;
    for (var i = 0; i < text.length; i++) {
      var c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36) + ':' + text.length;
  }

  // The places two states differ (paths of keys, array items as *, arrays of another length and depth 4 whole),
  // at most 32: what one step changed, so the validator can tell a record a rule needs from bookkeeping.
  function changedPaths(a, b, path, depth, out) {
    if (a === b || out.length >= 32) return;
    var ao = a !== null && typeof a === 'object', bo = b !== null && typeof b === 'object';
    if (!ao || !bo || ArrayIsArray(a) !== ArrayIsArray(b) || depth >= 4 || (ArrayIsArray(a) && a.length !== b.length)) {
      if (!(ao && bo && canonical(a) === canonical(b)) && out.indexOf(path) < 0) out[out.length] = path;
      return;
    }
    var i, ak, bk;
    if (ArrayIsArray(a)) { for (i = 0; i < a.length; i++) changedPaths(a[i], b[i], path + '.*', depth + 1, out); return; }
    ak = ObjectKeys(a); bk = ObjectKeys(b);
    for (i = 0; i < ak.length; i++) changedPaths(a[ak[i]], has(b, ak[i]) ? b[ak[i]] : undefined, path + '.' + ak[i], depth + 1, out);
    for (i = 0; i < bk.length; i++) if (!has(a, bk[i])) changedPaths(undefined, b[bk[i]], path + '.' + bk[i], depth + 1, out);
  }

  // ---------------------------------------------------------------- the action check (a schema interpreter)
  // Schemas were checked by the host to be inside the documented subset; this walks them, it compiles nothing.
  function valueProblem(s, v, path) {
    var t = s.type;
    if (t === 'string' ? typeof v !== 'string' : t === 'boolean' ? typeof v !== 'boolean' : t === 'integer' ? !NumberIsSafeInteger(v)
      : t === 'number' ? typeof v !== 'number' || !NumberIsFinite(v) : t === 'array' ? !ArrayIsArray(v) : t === 'object' ? !isObject(v) : true) {
      return path + ' must be ' + (t === 'integer' || t === 'array' || t === 'object' ? 'an ' : 'a ') + t;
    }
    if (s.enum !== undefined && s.enum.indexOf(v) < 0) return path + ' must be one of ' + stringify(s.enum).slice(0, 300);
    if (s.minimum !== undefined && v < s.minimum) return path + ' must be at least ' + s.minimum;
    if (s.maximum !== undefined && v > s.maximum) return path + ' must be at most ' + s.maximum;
    if (s.minLength !== undefined && v.length < s.minLength) return path + ' must have at least ' + s.minLength + ' characters';
    if (s.maxLength !== undefined && v.length > s.maxLength) return path + ' must have at most ' + s.maxLength + ' characters';
    if (t === 'array') {
      if (s.minItems !== undefined && v.length < s.minItems) return path + ' needs at least ' + s.minItems + ' items';
      if (s.maxItems !== undefined && v.length > s.maxItems) return path + ' takes at most ' + s.maxItems + ' items';
      for (var i = 0; i < v.length; i++) { var m = valueProblem(s.items, v[i], path + '[' + i + ']'); if (m) return m; }
    }
    if (t === 'object') {
      var props = s.properties || {}, keys = ObjectKeys(v), k;
      for (k = 0; k < keys.length; k++) {
        if (forbidden(keys[k])) return path + '.' + keys[k] + ' is a forbidden key';
        if (!has(props, keys[k])) return path + '.' + shown(keys[k]) + ' is not a declared argument';
      }
      var required = s.required || [];
      for (k = 0; k < required.length; k++) if (!has(v, required[k])) return path + '.' + required[k] + ' is required';
      for (k = 0; k < keys.length; k++) { var p = valueProblem(props[keys[k]], v[keys[k]], path + '.' + keys[k]); if (p) return p; }
    }
    return null;
  }
  /** null when `action` (parsed JSON) is a call of a declared tool with arguments its schema accepts, else why not. */
  function checkAction(tools, action) {
    if (!isObject(action) || typeof action.tool !== 'string') return 'an action is { "tool": name, "args": { … } }';
    var keys = ObjectKeys(action);
    for (var k = 0; k < keys.length; k++) if (keys[k] !== 'tool' && keys[k] !== 'args') return 'an action has only "tool" and "args"';
    var tool = null;
    for (var i = 0; i < tools.length; i++) if (tools[i].name === action.tool) tool = tools[i];
    if (tool === null) return 'unknown tool "' + shown(action.tool) + '"';
    var args = has(action, 'args') ? action.args : {};
    var size = stringify(args);
    if (size !== undefined && size.length > MAX_ARGS_CHARS) return 'the arguments take ' + size.length + ' characters, over the limit of ' + MAX_ARGS_CHARS;
    return valueProblem(tool.parameters, args, 'args');
  }
  // The one action check and normalisation every path shares (validation, play, serve, replay, scoring of logs):
  // a call the check accepts reaches step canonical, { tool, args } with keys sorted at every depth and each
  // value in its one JSON form, so nothing but the values (not key order, spacing or number spelling) can carry
  // information. The log records the canonical call, so a replayed log is canonical too.
  function normaliseAction(tools, action) {
    var problem = checkAction(tools, action);
    if (problem !== null) return { problem: problem, action: action };
    return { problem: null, action: parse(canonical({ tool: action.tool, args: has(action, 'args') ? action.args : {} })) };
  }

  // ---------------------------------------------------------------- policies
  var TOKEN = /[A-Za-z0-9$][A-Za-z0-9_-]*(?:\.[0-9]+)?/g;
  function tokensOf(text) {
    var m = text.slice(0, 20000).match(TOKEN), out = [];
    for (var i = 0; m !== null && i < m.length && i < 2000; i++) out[i] = m[i].charAt(0) === '$' ? m[i].slice(1) : m[i]; // "$12.50" is the number 12.50
    return out;
  }
  // A seeded random policy of schema-valid calls whose strings and numbers come partly from what the agent saw.
  function randomPolicy(rng, tools, avoid, maxTurns) {
    var promptTokens = null;
    function source(episode) {
      var r = rng.float();
      var last = episode.lastTokens, seen = episode.seen;
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
        case 'integer': case 'number':
          lo = s.minimum !== undefined ? s.minimum : 0;
          hi = s.maximum !== undefined ? s.maximum : lo + (s.type === 'integer' ? 100 : 1000);
          if (s.type === 'integer') { lo = Math.ceil(lo); hi = MathFloor(hi); }
          if (rng.float() < 0.6) {
            src = source(episode);
            var nums = [];
            for (i = 0; i < src.length; i++) { var n = Number(src[i]); if (NumberIsFinite(n) && n >= lo && n <= hi && (s.type !== 'integer' || NumberIsSafeInteger(n))) nums[nums.length] = n; }
            if (nums.length) return rng.pick(nums);
          }
          return s.type === 'integer' ? rng.int(lo, hi) : Math.round((lo + rng.float() * (hi - lo)) * 100) / 100;
        case 'boolean': return rng.float() < 0.5;
        case 'array':
          lo = s.minItems || 0; hi = Math.min(s.maxItems !== undefined ? s.maxItems : lo + 3, lo + 3);
          out = [];
          for (i = rng.int(lo, hi); i > 0; i--) out[out.length] = gen(s.items, episode);
          return out;
        default:
          out = {};
          var props = s.properties || {}, names = ObjectKeys(props), required = s.required || [];
          for (i = 0; i < names.length; i++) if (required.indexOf(names[i]) >= 0 || rng.float() < 0.5) out[names[i]] = gen(props[names[i]], episode);
          return out;
      }
    }
    return function (episode) {
      // What the agent reads before acting: the prompt and every tool's descriptions (a token printed there is fair game).
      if (promptTokens === null) promptTokens = tokensOf((episode.prompt || '') + ' ' + stringify(tools)).slice(0, 4000);
      if (rng.float() < 0.03) return null;
      var tool = rng.pick(tools);
      // Tools that ended the reference's episodes are mostly kept for the end, so random rollouts run long.
      while (avoid.indexOf(tool.name) >= 0 && episode.turn < maxTurns * 0.8 && rng.float() < 0.9) tool = rng.pick(tools);
      return { tool: tool.name, args: gen(tool.parameters, episode) };
    };
  }

  // The rng of turn `turn` (from 1): the worker derives `base` from (name, seed, level) with SHA-256 (rng.ts),
  // and each word is mixed with the turn number by murmur3's finaliser, so turns get unrelated generators.
  function fmix(h) {
    h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b); h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35); h ^= h >>> 16;
    return h >>> 0;
  }
  function turnWords(base, turn) {
    var w = [0, 0, 0, 0];
    for (var i = 0; i < 4; i++) w[i] = fmix((base[i] ^ Math.imul(turn, 0x9e3779b9) ^ Math.imul(i + 1, 0x7f4a7c15)) >>> 0);
    return w;
  }
  function turnRng(base, turn) {
    var w = turnWords(base, turn);
    return d.makeRng(w[0], w[1], w[2], w[3]);
  }

  // ---------------------------------------------------------------- rollout
  var toolsCache = { text: null, tools: null };
  function toolsOf(text) {
    if (toolsCache.text !== text) { toolsCache.text = text; toolsCache.tools = parse(text); }
    return toolsCache.tools;
  }
  // The state as JSON text: checked plain, then written by the native JSON.stringify (fast at 256 KB; the
  // same length as the canonical text, which the host makes where it keeps a state).
  function stateText(value, what) {
    d.checkPlain(value);
    var text = stringify(value);
    if (text.length > MAX_STATE_CHARS) throw runtimeError('E_STATE_TOO_LARGE', what + ' serialises to ' + text.length + ' characters of canonical JSON, over the limit of ' + MAX_STATE_CHARS);
    return text;
  }
  function text(value, what) {
    if (typeof value !== 'string') throw runtimeError('E_INSTANCE', what + ' must be a string');
    if (value.length > MAX_TEXT_CHARS) throw runtimeError('E_TOO_LARGE', what + ' has ' + value.length + ' characters, over the limit of ' + MAX_TEXT_CHARS);
    var bad = CONTROL.exec(value);
    if (bad !== null) throw runtimeError('E_CONTROL_CHARS', what + ' holds the control character U+' + ('000' + bad[0].charCodeAt(0).toString(16).toUpperCase()).slice(-4) + ' at character ' + bad.index + ': tab and newline are the only controls prose may hold');
    return value;
  }
  function shaped(value, fields, fn) {
    if (value !== null && typeof value === 'object' && typeof value.then === 'function') throw runtimeError('E_ASYNC', fn + ' returned a Promise: environment functions must be synchronous');
    if (!isObject(value)) throw runtimeError('E_INSTANCE', fn + ' must return an object { ' + fields + ' }');
    return value;
  }

  // One episode: from reset (or a state the host holds), the policy's actions through step until it ends.
  function rollout(call, stage) {
    var tools = toolsOf(call.tools), policy = call.policy, maxTurns = call.maxTurns, maxErrors = call.maxErrors;
    var ms = [0, 0, 0, 0], t = d.now(), state, prompt = null, turn = 0, errors = 0;
    if (call.from) { state = call.from.state; turn = call.from.turn; errors = call.from.errors; } else {
      stage.name = 'reset';
      var r = shaped(d.callWithRng('reset', [null, call.level], 0, call.s), 'state, prompt', 'reset');
      prompt = text(r.prompt, 'reset().prompt');
      if (prompt.trim().length === 0) throw runtimeError('E_INSTANCE', 'reset().prompt must not be empty');
      state = stateText(r.state, 'the state from reset');
      ms[0] = d.now() - t;
    }
    // Digests of the canonical text: equal states hash equal however their keys were ordered (a resumed state).
    var hashes = call.hashes ? [digest(canonical(parse(state)))] : null, actions = [], rejected = [], observations = [], changes = call.changes ? [] : null;
    var maxState = state.length, end = null, episode = { prompt: prompt || '', turn: turn, lastTokens: [], seen: [] };
    var next = policy.type === 'random' ? randomPolicy(d.makeRng(policy.s[0], policy.s[1], policy.s[2], policy.s[3]), tools, policy.avoid || [], maxTurns) : null;
    while (end === null) {
      if (turn >= maxTurns) { end = 'turns'; break; }
      if (errors >= maxErrors) { end = 'errors'; break; }
      var raw;
      t = d.now();
      if (policy.type === 'act') { stage.name = 'act'; raw = d.callGuest('act', [parse(state)]); ms[2] += d.now() - t; }
      else if (policy.type === 'repeat') raw = policy.action;
      else if (policy.type === 'replay') raw = turn - (call.from ? call.from.turn : 0) < policy.actions.length ? policy.actions[turn - (call.from ? call.from.turn : 0)] : null;
      else { episode.turn = turn; raw = next(episode); }
      if (raw === null || raw === undefined) { end = 'no-action'; break; }
      var checked = normaliseAction(tools, parse(d.serialise(raw, 65536)));
      var action = checked.action, problem = checked.problem;
      turn++;
      actions[actions.length] = action;
      var observation;
      if (problem !== null) {
        errors++;
        rejected[rejected.length] = turn;
        if (changes) changes[changes.length] = [];
        observation = 'error: ' + problem;
      } else {
        stage.name = 'step';
        t = d.now();
        var out = shaped(d.callWithRng('step', [parse(state), parse(canonical(action)), null], 2, turnWords(call.t, turn)), 'state, observation, done', 'step');
        observation = text(out.observation, 'step().observation');
        if (typeof out.done !== 'boolean') throw runtimeError('E_INSTANCE', 'step().done must be a boolean');
        var before = changes ? state : null;
        state = stateText(out.state, 'the state after turn ' + turn);
        if (changes) { var changed = []; changedPaths(parse(before), parse(state), '$', 0, changed); changes[changes.length] = changed; }
        ms[1] += d.now() - t;
        if (state.length > maxState) maxState = state.length;
        if (out.done) end = 'done';
      }
      if (call.observations) observations[observations.length] = observation;
      if (hashes) hashes[hashes.length] = hashes[hashes.length - 1] !== undefined && problem !== null ? hashes[hashes.length - 1] : digest(canonical(parse(state)));
      if (next) { episode.lastTokens = tokensOf(observation); episode.seen = episode.seen.concat(episode.lastTokens).slice(-2000); }
    }
    // A rollout the host goes on with (a served step) is scored only once it has ended: rewards are terminal.
    var scored = !(call.scoreAtEnd && end === 'no-action'), verdict = 'null';
    if (scored) {
      stage.name = 'score';
      t = d.now();
      verdict = d.serialise(d.callGuest('score', [parse(state)]), 4096);
      ms[3] = d.now() - t;
    }
    return '{"prompt":' + stringify(prompt) + ',"actions":' + stringify(actions) + ',"rejected":' + stringify(rejected) +
      ',"end":"' + end + '","turns":' + turn + ',"errors":' + errors + ',"verdict":' + verdict + (scored ? '' : ',"scored":false') + ',"maxStateChars":' + maxState +
      (call.observations ? ',"observations":' + stringify(observations) : '') + (hashes ? ',"hashes":' + stringify(hashes) : '') + (changes ? ',"changes":' + stringify(changes) : '') +
      (call.keepState ? ',"state":' + state : '') + ',"ms":' + stringify(ms) + '}';
  }

  return { rollout: rollout, checkAction: checkAction, normaliseAction: normaliseAction, canonical: canonical, turnRng: turnRng };
};

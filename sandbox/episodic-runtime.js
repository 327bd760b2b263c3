// The episodic half of the guest runtime (contract v2): runs whole rollouts (reset, then act/replay/random
// actions through step, then score) inside the isolate in one crossing, holding the state only as
// JSON text between calls, and checks every action against its tool's parameter schema (episodic-actions.js).
//
// Evaluated as a plain script beside guest-runtime.js (in the isolate, and in plain Node where the host
// uses the same action check). It defines `envforgeEpisodicRuntime(d)`, called by envforgeInstallRuntime
// with the intrinsics and helpers it captured before guest code ran; it touches no host objects.
/* eslint-disable no-var */
var envforgeEpisodicRuntime = function envforgeEpisodicRuntime(d) {
  'use strict';
  var stringify = d.stringify,
    parse = d.parse,
    runtimeError = d.runtimeError;
  var MAX_STATE_CHARS = 262144;
  // The action check, the canonical form, states' digests and changed paths, the random policy (episodic-actions.js).
  var actions = envforgeEpisodicActions(d);
  // The text contract every prompt and observation keeps on every call (episodic-text.js).
  var text = envforgeEpisodicText(d);
  var canonical = actions.canonical,
    canonicalText = actions.canonicalText,
    normaliseAction = actions.normaliseAction,
    randomPolicy = actions.randomPolicy;
  var tokensOf = actions.tokensOf,
    digest = actions.digest,
    changedSince = actions.changedSince,
    fixedPoint = actions.fixedPoint,
    bound = actions.bound,
    isObject = actions.isObject;

  // The rng of turn `turn` (from 1): the worker derives `base` from (name, seed, level) with SHA-256 (rng.ts),
  // and each word is mixed with the turn number by murmur3's finaliser, so turns get unrelated generators.
  function fmix(h) {
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h >>> 0;
  }
  function turnWords(base, turn) {
    var w = [0, 0, 0, 0];
    for (var i = 0; i < 4; i++)
      w[i] = fmix((base[i] ^ Math.imul(turn, 0x9e3779b9) ^ Math.imul(i + 1, 0x7f4a7c15)) >>> 0);
    return w;
  }
  function turnRng(base, turn) {
    var w = turnWords(base, turn);
    return d.makeRng(w[0], w[1], w[2], w[3]);
  }

  // ---------------------------------------------------------------- rollout
  var toolsCache = { text: null, tools: null };
  function toolsOf(text) {
    if (toolsCache.text !== text) {
      toolsCache.text = text;
      toolsCache.tools = parse(text);
    }
    return toolsCache.tools;
  }
  // The state as JSON text: checked plain, then written by the native JSON.stringify (fast at 256 KB; the
  // same length as the canonical text, which the host makes where it keeps a state).
  function stateText(value, what) {
    d.checkPlain(value);
    var text = stringify(value);
    if (text.length > MAX_STATE_CHARS)
      throw runtimeError(
        'E_STATE_TOO_LARGE',
        what + ' serialises to ' + text.length + ' characters of canonical JSON, over the limit of ' + MAX_STATE_CHARS,
      );
    return text;
  }
  function shaped(value, fields, fn) {
    if (value !== null && typeof value === 'object' && typeof value.then === 'function')
      throw runtimeError('E_ASYNC', fn + ' returned a Promise: environment functions must be synchronous');
    if (!isObject(value)) throw runtimeError('E_INSTANCE', fn + ' must return an object { ' + fields + ' }');
    return value;
  }

  // The turns this batch (one job, one fresh realm) has played of fixed logs (replay, repeat), as a trie per
  // episode: reset and each call's outcome, keyed by the call's text. reset and step are functions of their
  // arguments (a fresh instance per call, the turn's rng), so a log sharing a prefix with one already played
  // resumes after it with the same states, observations and digests; held to PREFIX_CHARS of text per batch.
  var PREFIX_CHARS = 2000000;
  var prefixes = { roots: new Map(), chars: 0 };
  // The steps this batch has played that drew nothing from their turn's rng, by state text then action text: such
  // a step is a function of (state, action) alone (a fresh instance, no clock, no Math.random), so the same pair
  // at any turn of any episode of the batch has the same outcome (a read repeated, a padded log's neutral calls
  // once its state stops changing); held to STEP_CHARS of text per batch.
  var STEP_CHARS = 2000000;
  var steps = { byState: new Map(), chars: 0 };
  function beginBatch() {
    prefixes = { roots: new Map(), chars: 0 };
    steps = { byState: new Map(), chars: 0 };
  }
  function stepMemo(state, actionText) {
    var m = steps.byState.get(state);
    return m === undefined ? undefined : m.get(actionText);
  }
  function rememberStep(before, actionText, value) {
    var m = steps.byState.get(before),
      size = (m === undefined ? before.length : 0) + actionText.length + value.state.length + value.observation.length;
    if (steps.chars + size > STEP_CHARS) return;
    steps.chars += size;
    if (m === undefined) steps.byState.set(before, (m = new Map()));
    m.set(actionText, value);
  }
  function prefixKey(call) {
    if (call.from || (call.policy.type !== 'replay' && call.policy.type !== 'repeat')) return null;
    return [call.level, call.s.join(), call.t.join(), call.maxTurns, call.maxErrors, call.tools].join('|');
  }
  function remembered(node, key, value) {
    if (prefixes.chars + value.state.length + value.observation.length > PREFIX_CHARS) return null;
    prefixes.chars += value.state.length + value.observation.length + key.length;
    value.children = new Map();
    node.children.set(key, value);
    return value;
  }
  function hashOf(node) {
    if (node.hash === undefined) node.hash = digest(canonicalText(node.state));
    return node.hash;
  }

  // One episode: from reset (or a state the host holds), the policy's actions through step until it ends.
  function rollout(call, stage) {
    var tools = toolsOf(call.tools),
      policy = call.policy,
      maxTurns = call.maxTurns,
      maxErrors = call.maxErrors;
    var ms = [0, 0, 0, 0],
      t = d.now(),
      state,
      prompt = null,
      turn = 0,
      errors = 0,
      key = prefixKey(call),
      node = key === null ? null : prefixes.roots.get(key) || null;
    if (call.from) {
      state = call.from.state;
      turn = call.from.turn;
      errors = call.from.errors;
    } else if (node !== null) {
      prompt = node.prompt;
      state = node.state;
    } else {
      stage.name = 'reset';
      var r = shaped(d.callWithRng('reset', [null, call.level], 0, call.s), 'state, prompt', 'reset');
      prompt = text(r.prompt, 'reset().prompt');
      if (prompt.trim().length === 0) throw runtimeError('E_INSTANCE', 'reset().prompt must not be empty');
      state = stateText(r.state, 'the state from reset');
      ms[0] = d.now() - t;
      if (key !== null && prefixes.chars + state.length <= PREFIX_CHARS) {
        node = { prompt: prompt, state: state, children: new Map() };
        prefixes.roots.set(key, node);
        prefixes.chars += state.length + prompt.length;
      }
    }
    // Digests of the canonical text: equal states hash equal however their keys were ordered (a resumed state).
    var hashes = call.hashes ? [node !== null ? hashOf(node) : digest(canonicalText(state))] : null,
      actions = [],
      rejected = [],
      observations = [],
      changes = call.changes ? [] : null;
    var maxState = state.length,
      end = null,
      episode = { prompt: prompt || '', turn: turn, lastTokens: [], seen: [] },
      lease = {};
    var next =
      policy.type === 'random'
        ? randomPolicy(
            d.makeRng(policy.s[0], policy.s[1], policy.s[2], policy.s[3]),
            tools,
            policy.avoid || [],
            maxTurns,
          )
        : null;
    while (end === null) {
      if (turn >= maxTurns) {
        end = 'turns';
        break;
      }
      if (errors >= maxErrors) {
        end = 'errors';
        break;
      }
      var raw;
      t = d.now();
      if (policy.type === 'act') {
        stage.name = 'act';
        raw = d.callGuest('act', [parse(state)]);
        ms[2] += d.now() - t;
      } else if (policy.type === 'repeat') raw = policy.action;
      else if (policy.type === 'replay')
        raw =
          turn - (call.from ? call.from.turn : 0) < policy.actions.length
            ? bound(policy, turn - (call.from ? call.from.turn : 0), observations)
            : null;
      else {
        episode.turn = turn;
        raw = next(episode);
      }
      if (raw === null || raw === undefined) {
        end = 'no-action';
        break;
      }
      var rawText = d.serialise(raw, 65536),
        known = node !== null ? node.children.get(rawText) : undefined;
      var checked = known !== undefined ? known : normaliseAction(tools, parse(rawText));
      var action = checked.action,
        problem = checked.problem;
      turn++;
      actions[actions.length] = action;
      var observation,
        before = state,
        same,
        actionText,
        drawless = false;
      if (problem !== null) {
        errors++;
        rejected[rejected.length] = turn;
        if (changes) changes[changes.length] = [];
        observation = 'error: ' + problem;
      } else if (known !== undefined) {
        observation = known.observation;
        state = known.state;
        if (changes) changes[changes.length] = known.changes || (known.changes = changedSince(before, state));
        if (known.done) end = 'done';
      } else if ((same = stepMemo(state, (actionText = canonical(action)))) !== undefined) {
        drawless = true;
        observation = same.observation;
        state = same.state;
        if (changes) changes[changes.length] = same.changes || (same.changes = changedSince(before, state));
        if (same.done) end = 'done';
      } else {
        stage.name = 'step';
        t = d.now();
        var out = shaped(
          d.callWithRng('step', [parse(state), parse(actionText), null], 2, turnWords(call.t, turn), lease),
          'state, observation, done',
          'step',
        );
        observation = text(out.observation, 'step().observation');
        if (typeof out.done !== 'boolean') throw runtimeError('E_INSTANCE', 'step().done must be a boolean');
        state = stateText(out.state, 'the state after turn ' + turn);
        if (changes) changes[changes.length] = changedSince(before, state);
        ms[1] += d.now() - t;
        if (out.done) end = 'done';
        if ((drawless = !lease.drew))
          rememberStep(before, actionText, {
            observation: observation,
            state: state,
            done: out.done,
            changes: changes ? changes[changes.length - 1] : undefined,
          });
      }
      if (state.length > maxState) maxState = state.length;
      if (node !== null && known === undefined)
        node = remembered(node, rawText, {
          action: action,
          problem: problem,
          observation: observation,
          state: state,
          done: end === 'done',
          changes: changes && problem === null ? changes[changes.length - 1] : undefined,
        });
      else if (node !== null) node = known;
      // Kept too for a replay that binds the ids they issue (returned only where asked).
      if (call.observations || policy.binds) observations[observations.length] = observation;
      if (hashes)
        hashes[hashes.length] =
          problem !== null ? hashes[hashes.length - 1] : node !== null ? hashOf(node) : digest(canonicalText(state));
      // A repeated action at a fixed point: its step left the state as it was and drew nothing from its rng, so every
      // later turn is this one again (the same state and action, no draw): the rest is written, not played.
      if (policy.type === 'repeat' && drawless && end === null && state === before && errors < maxErrors)
        turn = fixedPoint(turn, call, action, observation, actions, observations, changes, hashes);
      if (next) {
        episode.lastTokens = tokensOf(observation);
        episode.seen = episode.seen.concat(episode.lastTokens).slice(-2000);
      }
    }
    // A rollout the host goes on with (a served step) is scored only once it has ended: rewards are terminal.
    var scored = !(call.scoreAtEnd && end === 'no-action'),
      verdict = 'null';
    if (scored) {
      stage.name = 'score';
      t = d.now();
      verdict = d.serialise(d.callGuest('score', [parse(state)]), 4096);
      ms[3] = d.now() - t;
    }
    return (
      '{"prompt":' +
      stringify(prompt) +
      ',"actions":' +
      stringify(actions) +
      ',"rejected":' +
      stringify(rejected) +
      ',"end":"' +
      end +
      '","turns":' +
      turn +
      ',"errors":' +
      errors +
      ',"verdict":' +
      verdict +
      (scored ? '' : ',"scored":false') +
      ',"maxStateChars":' +
      maxState +
      (call.observations ? ',"observations":' + stringify(observations) : '') +
      (hashes ? ',"hashes":' + stringify(hashes) : '') +
      (changes ? ',"changes":' + stringify(changes) : '') +
      (call.keepState ? ',"state":' + state : '') +
      ',"ms":' +
      stringify(ms) +
      '}'
    );
  }

  return {
    rollout: rollout,
    beginBatch: beginBatch,
    checkAction: actions.checkAction,
    normaliseAction: normaliseAction,
    canonical: canonical,
    canonicalText: canonicalText,
    turnRng: turnRng,
  };
};

// A job's rollouts of fixed logs share the turns they have in common (episodic-runtime.js): a log that begins
// like one already played in the same batch resumes after the common prefix, with the same results as alone; a log
// replayed with binds sends the ids the environment issued in this episode, not those written in it; an action
// repeated past a fixed point comes back as playing every turn would write it.
import { describe, expect, it } from 'vitest';
import { prepareCalls } from '../sandbox/crossing.js';
import { factorySource } from '../sandbox/instance.js';
import { DEFAULT_LIMITS, type Call, type RolloutPolicy } from '../sandbox/protocol.js';
import { rolloutShape } from '../sandbox/rollouts.js';
import { deriveTurnRngState } from '../sandbox/rng.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import type { EpisodicMeta } from '../contract/episodic.js';

const SOURCE =
  `
export const meta = { name: 'counter-lock', title: 'Counter lock', description: 'Add, then ` +
  `submit.', skills: ['tool-use'],
  levels: 2, kind: 'episodic', maxTurns: 8,
  tools: [
    { name: 'add', description: 'Add an amount.', parameters: { type: 'object', properties: { n: { type: 'integer', ` +
  `minimum: 1, maximum: 9 } }, required: ['n'], additionalProperties: false } },
    { name: 'submit', description: 'Submit and finish.', parameters: { type: 'object', properties: {}, ` +
  `additionalProperties: false } },
  ] };
export function reset(rng, level) {
  globalThis.__prefixCalls.reset++;
  return { state: { target: rng.int(5, 20) * level, total: 0, z: { rolls: [] }, done: false }, prompt: 'Reach the ` +
  `target, then submit.' };
}
export function step(state, action, rng) {
  globalThis.__prefixCalls.step++;
  const s = { z: { rolls: [...state.z.rolls, rng.int(0, 99)] }, total: state.total, target: state.target, done: false };
  if (action.tool === 'add') { s.total += action.args.n; return { state: s, observation: 'total ' + ` +
  `s.total, done: false }; }
  s.done = true;
  return { state: s, observation: 'submitted', done: true };
}
export function score(state) { return state.done && state.total === state.target ? 1 : 0; }
export function act(state) { return state.total < state.target ? { tool: 'add', args: { n: 1 } } : { ` +
  `tool: 'submit', args: {} }; }
`;

const calls = (globalThis as { __prefixCalls?: { reset: number; step: number } }).__prefixCalls ?? {
  reset: 0,
  step: 0,
};
(globalThis as { __prefixCalls?: unknown }).__prefixCalls = calls;

interface Api {
  bind(namespace: unknown, factory: unknown): void;
  begin(batch: string, limits: string): number;
  next(sliceMs: number): string;
}

async function runtimeFor(source: string): Promise<{ api: Api; meta: EpisodicMeta }> {
  const load = (text: string) =>
    import(`data:text/javascript,${encodeURIComponent(text)}`) as Promise<Record<string, unknown>>;
  const { api } = loadPlainRuntime() as unknown as { api: Api };
  const namespace = await load(source);
  api.bind(namespace, (await load(factorySource(source))).default);
  return { api, meta: namespace.meta as EpisodicMeta };
}

const add = (n: number) => ({ tool: 'add', args: { n } });
const submit = { tool: 'submit', args: {} };
const bad = { tool: 'nope', args: {} };

/** One batch of rollouts in the runtime, as a worker runs a job; the results without their timings. */
function batch(api: Api, meta: EpisodicMeta, specs: Array<{ seed: number; policy: RolloutPolicy; flags?: object }>) {
  const list: Call[] = specs.map(({ seed, policy, flags }) => ({
    op: 'rollout',
    seed,
    level: 1,
    rollout: { ...rolloutShape(meta), policy, observations: false, hashes: false, keepState: false, ...flags },
  }));
  api.begin(JSON.stringify(prepareCalls(list, meta.name)), JSON.stringify(DEFAULT_LIMITS));
  const results: Array<{ value?: { ms?: unknown } }> = [];
  while (results.length < list.length) {
    const text = api.next(1_000);
    results.push(...(JSON.parse(text.slice(text.indexOf('|', text.indexOf('|') + 1) + 1)) as typeof results));
  }
  return results.map((r) => ({ ...r, id: 0, ms: 0, value: r.value ? { ...r.value, ms: 0 } : r.value }));
}

describe('rollouts sharing a prefix in one batch', () => {
  const every = { observations: true, hashes: true, keepState: true, changes: true };
  const logs = [
    [add(3), add(4), add(2), submit],
    [add(3), add(4), add(5), submit],
    [add(3), bad, add(4), submit],
    [add(3), bad, add(4), add(1)],
    [add(3), add(4)],
  ];

  it('plays each common turn once, and every rollout comes back as it does alone', async () => {
    const { api, meta } = await runtimeFor(SOURCE);
    const specs = logs.map((actions, i) => ({
      seed: 7,
      policy: { type: 'replay' as const, actions },
      ...(i % 2 === 0 ? { flags: every } : {}),
    }));
    const alone = specs.map((spec) => batch(api, meta, [spec])[0]);
    const before = { ...calls };
    const together = batch(api, meta, specs);
    expect(together).toEqual(alone);
    // One reset; the distinct calls that reach step: add3 add4 add2 submit, add5 submit, add4 submit, add1.
    expect({ reset: calls.reset - before.reset, step: calls.step - before.step }).toEqual({ reset: 1, step: 9 });
  });

  it('shares nothing between seeds, nor with act or resumed rollouts', async () => {
    const { api, meta } = await runtimeFor(SOURCE);
    const before = { ...calls };
    batch(api, meta, [
      { seed: 1, policy: { type: 'replay', actions: [add(1), submit] } },
      { seed: 2, policy: { type: 'replay', actions: [add(1), submit] } },
      { seed: 1, policy: { type: 'act' } },
    ]);
    const acted = calls.step - before.step - 4;
    expect(calls.reset - before.reset).toBe(3);
    expect(acted).toBeGreaterThan(0);
  });

  it('forgets at the next batch: a new job plays its turns itself', async () => {
    const { api, meta } = await runtimeFor(SOURCE);
    const spec = { seed: 3, policy: { type: 'replay' as const, actions: [add(2), submit] } };
    const before = { ...calls };
    batch(api, meta, [spec]);
    batch(api, meta, [spec]);
    expect({ reset: calls.reset - before.reset, step: calls.step - before.step }).toEqual({ reset: 2, step: 4 });
  });
});

const TICKETS = `
const object = (properties) => ({ type: 'object', properties, required: Object.keys(properties),
  additionalProperties: false });
export const meta = { name: 'ticket-ids', title: 'Tickets', description: 'Open and close tickets, then submit.',
  skills: ['tool-use'], levels: 1, kind: 'episodic', maxTurns: 8,
  tools: [
    { name: 'open', description: 'Open a ticket.', parameters: object({}) },
    { name: 'close', description: 'Close a ticket by id.', parameters: object({ id: { type: 'string' } }) },
    { name: 'submit', description: 'Submit.', parameters: object({}) },
  ] };
export function reset() { return { state: { next: 101, open: [], closed: [], done: false }, prompt: 'Open two.' }; }
export function step(state, action) {
  const s = JSON.parse(JSON.stringify(state));
  if (action.tool === 'open') {
    const id = 'TK-' + s.next++;
    s.open.push(id);
    return { state: s, observation: 'opened ' + id + ' at desk 7', done: false };
  }
  if (action.tool === 'close') {
    if (!s.open.includes(action.args.id)) return { state: s, observation: 'no ticket ' + action.args.id, done: false };
    s.open = s.open.filter((x) => x !== action.args.id);
    s.closed.push(action.args.id);
    return { state: s, observation: 'closed', done: false };
  }
  s.done = true;
  return { state: s, observation: 'submitted', done: true };
}
export function score(state) { return state.done && state.closed.length === 2 ? 1 : 0; }
export function act() { return { tool: 'submit', args: {} }; }
`;

describe('a replayed log binding the ids the environment issued', () => {
  const open = { tool: 'open', args: {} };
  const close = { tool: 'close', args: { id: 'TK-101' } };
  const bind = (at: number, from: number) => ({ at, arg: 'id', value: 'TK-101', from, shape: '[A-Z]+-\\d+', nth: 0 });

  it('sends each bound use the id its issuing call was answered in this episode', async () => {
    const { api, meta } = await runtimeFor(TICKETS);
    const actions = [open, close, open, close, submit];
    const [literal, bound] = batch(api, meta, [
      { seed: 1, policy: { type: 'replay', actions } },
      { seed: 1, policy: { type: 'replay', actions, binds: [bind(1, 0), bind(3, 2)] } },
    ]) as unknown as Array<{ value: { verdict: number; actions: Array<{ args: { id?: string } }> } }>;
    expect(literal?.value.verdict).toBe(0);
    expect(bound?.value.verdict).toBe(1);
    expect(bound?.value.actions.map((a) => a.args.id)).toEqual([undefined, 'TK-101', undefined, 'TK-102', undefined]);
  });

  it('leaves a use as written where the issuing observation holds no such id', async () => {
    const { api, meta } = await runtimeFor(TICKETS);
    const actions = [open, close, submit];
    const [r] = batch(api, meta, [
      { seed: 1, policy: { type: 'replay', actions, binds: [{ ...bind(1, 0), nth: 3 }] } },
    ]) as unknown as Array<{ value: { actions: Array<{ args: { id?: string } }> } }>;
    expect(r?.value.actions[1]?.args.id).toBe('TK-101');
  });
});

const WATCH = `
const object = (properties) => ({ type: 'object', properties, required: [], additionalProperties: false });
export const meta = { name: 'watch-roll', title: 'Watch', description: 'Look, roll, then finish.',
  skills: ['tool-use'], levels: 1, kind: 'episodic', maxTurns: 40,
  tools: [
    { name: 'look', description: 'Look.', parameters: object({}) },
    { name: 'roll', description: 'Roll.', parameters: object({}) },
    { name: 'finish', description: 'Finish.', parameters: object({}) },
  ] };
export function reset() { return { state: { hits: 0, seen: false, done: false }, prompt: 'Roll, then finish.' }; }
export function step(state, action, rng) {
  globalThis.__prefixCalls.step++;
  const s = { ...state };
  if (action.tool === 'look') { s.seen = true; return { state: s, observation: 'hits ' + s.hits, done: false }; }
  if (action.tool === 'roll') {
    if (rng.int(0, 9) === 0) s.hits++;
    return { state: s, observation: 'rolled', done: false };
  }
  s.done = true;
  return { state: s, observation: 'finished', done: true };
}
export function score(state) { return state.done ? Math.min(1, state.hits / 3) : 0; }
export function act() { return { tool: 'finish', args: {} }; }
`;

describe('a step that draws nothing from its rng, played once a batch', () => {
  const look = { tool: 'look', args: {} };
  const roll = { tool: 'roll', args: {} };
  const finish = { tool: 'finish', args: {} };
  type Value = { verdict: number; observations: string[]; hashes: string[]; state: { hits: number } };
  const every = { observations: true, hashes: true, keepState: true };

  it('serves the same (state, action) again at any turn, with the same observation and state', async () => {
    const { api, meta } = await runtimeFor(WATCH);
    const before = calls.step;
    const [padded, other] = batch(api, meta, [
      { seed: 1, policy: { type: 'replay', actions: [...Array(30).fill(look), finish] }, flags: every },
      { seed: 2, policy: { type: 'replay', actions: [finish, look] }, flags: every },
    ]) as unknown as Array<{ value: Value }>;
    // The first look changes the state (seen), the second meets a fixed point; every later look is served.
    expect(calls.step - before).toBe(3 + 1);
    expect(padded?.value.observations).toEqual([...Array(30).fill('hits 0'), 'finished']);
    expect(new Set(padded?.value.hashes.slice(2, 31)).size).toBe(1);
    expect(other?.value.observations).toEqual(['finished']);
  });

  it('plays a step that draws from its rng at every turn, with that turn’s rng', async () => {
    const { api, meta } = await runtimeFor(WATCH);
    const before = calls.step;
    const [r] = batch(api, meta, [
      { seed: 5, policy: { type: 'replay', actions: [...Array(30).fill(roll), finish] }, flags: every },
    ]) as unknown as Array<{ value: Value }>;
    expect(calls.step - before).toBe(31);
    const base = deriveTurnRngState(meta.name, 5, 1);
    const rng = loadPlainRuntime().episodic.turnRng;
    const hits = Array.from({ length: 30 }, (_, i) => Number(rng(base, i + 1).int(0, 9) === 0)).reduce((a, b) => a + b);
    expect(r?.value.state.hits).toBe(hits);
  });
});

describe('an action repeated until maxTurns', () => {
  const look = { tool: 'look', args: {} };
  const every = { observations: true, hashes: true, keepState: true, changes: true };
  // look changes the state once (seen), then meets a fixed point; roll draws at every turn; the unknown tool is
  // refused at every turn (the episode ends at maxErrors); a counter's add changes the state at every turn.
  it.each([
    ['a step that reaches a fixed point', WATCH, look],
    ['a step that draws from its rng', WATCH, { tool: 'roll', args: {} }],
    ['a refused action', WATCH, { tool: 'nope', args: {} }],
    ['a step that changes the state at every turn', SOURCE, add(1)],
  ])('comes back as the same action replayed maxTurns times: %s', async (_, source, action) => {
    const { api, meta } = await runtimeFor(source);
    const replayed = Array(meta.maxTurns).fill(action);
    const [repeated] = batch(api, meta, [{ seed: 4, policy: { type: 'repeat', action }, flags: every }]);
    const [replay] = batch(api, meta, [{ seed: 4, policy: { type: 'replay', actions: replayed }, flags: every }]);
    expect(repeated).toEqual(replay);
  });

  it('writes the turns after a fixed point without playing them, as playing them writes them', async () => {
    const { api, meta } = await runtimeFor(WATCH);
    const before = calls.step;
    const [r] = batch(api, meta, [{ seed: 4, policy: { type: 'repeat', action: look }, flags: every }]) as unknown as [
      { value: { turns: number; end: string; observations: string[]; hashes: string[]; changes: string[][] } },
    ];
    expect(calls.step - before).toBe(2);
    expect(r.value).toMatchObject({ turns: meta.maxTurns, end: 'turns' });
    expect(r.value.observations).toEqual(Array(meta.maxTurns).fill('hits 0'));
    expect(new Set(r.value.hashes.slice(1)).size).toBe(1);
    expect(r.value.changes.slice(1)).toEqual(Array(meta.maxTurns - 1).fill([]));
  });
});

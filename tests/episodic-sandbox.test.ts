// Contract v2 in the sandbox: the tool-schema subset, the host's action check, and rollouts (act, replayed
// logs, resumed states) in the same workers and isolates as v1, with the state held as JSON between calls.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { episodicMetaProblems, parseEpisodicMeta, schemaProblems, type EpisodicMeta } from '../contract/episodic.js';
import { runCli } from '../cli/program.js';
import { SandboxPool } from '../sandbox/pool.js';
import { runRollouts, type Rollout, type RolloutRequest } from '../sandbox/rollouts.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';

/**
 * A small episodic module: find the hidden code by reading digits, enter it, then submit. `body` replaces parts of it.
 */
function lockSource(patch: { step?: string; reset?: string; top?: string } = {}): string {
  return (
    `${patch.top ?? ''}
export const meta = { name: 'digit-lock', title: 'Digit lock', description: 'Read the digits, enter the code, ` +
    `submit.', skills: ['tool-use'],
  levels: 3, kind: 'episodic', maxTurns: 12,
  tools: [
    { name: 'read_digit', description: 'Read one digit of the code.', parameters: { type: 'object', properties: { ` +
    `position: { type: 'integer', minimum: 1, maximum: 5 } }, required: ['position'], ` +
    `additionalProperties: false } },
    { name: 'enter', description: 'Enter the code.', parameters: { type: 'object', properties: { code: { type: ` +
    `'string', minLength: 1, maxLength: 5 } }, required: ['code'], additionalProperties: false } },
    { name: 'submit', description: 'Submit and finish.', parameters: { type: 'object', properties: {}, ` +
    `additionalProperties: false } },
  ] };
export function reset(rng, level) {
  ${patch.reset ?? ''}
  const code = Array.from({ length: level + 2 }, () => String(rng.int(0, 9))).join('');
  return { state: { code, read: [], entered: null, submitted: false, rolls: [] }, prompt: 'Open the lock: the code ` +
    `has ' + code.length + ' digits. Call submit when done.' };
}
export function step(state, action, rng) {
  ${patch.step ?? ''}
  const s = { ...state, read: [...state.read], rolls: [...state.rolls, rng.int(0, 1000)] };
  if (action.tool === 'read_digit') { s.read.push(action.args.position); return { state: s, observation: 'digit ' + ` +
    `(state.code[action.args.position - 1] ?? 'none'), done: false }; }
  if (action.tool === 'enter') { s.entered = action.args.code; return { state: s, observation: ` +
    `'entered', done: false }; }
  s.submitted = true;
  return { state: s, observation: 'submitted', done: true };
}
export function score(state) { return state.submitted && state.entered === state.code ? 1 : 0; }
export function act(state) {
  if (state.read.length < state.code.length) return { tool: 'read_digit', args: { position: state.read.length + 1 } };
  if (state.entered !== state.code) return { tool: 'enter', args: { code: state.code } };
  return { tool: 'submit', args: {} };
}`
  );
}

const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());
const runtime = loadPlainRuntime().episodic;

async function metaOf(source: string): Promise<EpisodicMeta> {
  const load = await pool.load(source);
  const meta = parseEpisodicMeta(load.ok ? load.meta : null);
  if (!meta) throw new Error(`bad meta: ${JSON.stringify(episodicMetaProblems(load.ok ? load.meta : null))}`);
  return meta;
}
async function roll(source: string, requests: RolloutRequest[]) {
  return (await runRollouts(pool, source, await metaOf(source), requests)).rollouts;
}

describe('the tool-schema subset', () => {
  const ok = {
    type: 'object',
    properties: {
      a: { type: 'string', maxLength: 4 },
      n: { type: 'array', items: { type: 'integer', enum: [1, 2] }, maxItems: 3 },
    },
    required: ['a'],
    additionalProperties: false,
  };
  it('accepts the documented subset', () => expect(schemaProblems(ok, 'p')).toEqual([]));
  it.each([
    ['a regex pattern', { type: 'object', properties: { a: { type: 'string', pattern: '(a+)+$' } } }],
    ['$ref', { type: 'object', properties: { a: { $ref: '#/x' } } }],
    ['oneOf', { type: 'object', properties: { a: { oneOf: [{ type: 'string' }] } } }],
    ['a type list', { type: 'object', properties: { a: { type: ['string', 'null'] } } }],
    ['a __proto__ property', JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}')],
    ['open objects', { type: 'object', properties: {}, additionalProperties: true }],
    ['an enum of the wrong type', { type: 'object', properties: { a: { type: 'integer', enum: ['x'] } } }],
    [
      'nesting past 4 levels',
      {
        type: 'object',
        properties: {
          a: {
            type: 'array',
            items: {
              type: 'array',
              items: { type: 'array', items: { type: 'array', items: { type: 'array', items: { type: 'string' } } } },
            },
          },
        },
      },
    ],
    ['required naming an undeclared key', { type: 'object', properties: {}, required: ['x'] }],
  ])('rejects %s', (_what, schema) => expect(schemaProblems(schema, 'p').length).toBeGreaterThan(0));

  it('gives E_TOOL_SCHEMA for a bad schema, E_META for a bad tool list and E_TOO_LARGE for a huge meta', () => {
    const base = {
      name: 'x-env',
      title: 'X',
      description: 'X.',
      skills: ['x'],
      levels: 3,
      kind: 'episodic',
      maxTurns: 5,
    };
    expect(
      episodicMetaProblems({
        ...base,
        tools: [
          {
            name: 't',
            description: 'd',
            parameters: { type: 'object', properties: { a: { type: 'string', format: 'email' } } },
          },
        ],
      }).map((p) => p.code),
    ).toEqual(['E_TOOL_SCHEMA']);
    expect(
      episodicMetaProblems({
        ...base,
        maxTurns: 250,
        tools: [{ name: 't', description: 'd', parameters: { type: 'object' } }],
      }).map((p) => p.code),
    ).toEqual(['E_META']);
    expect(
      episodicMetaProblems({
        ...base,
        tools: Array.from({ length: 5_000 }, (_, i) => ({
          name: `t${i}`,
          description: 'd'.repeat(100),
          parameters: { type: 'object' },
        })),
      })[0]?.code,
    ).toBe('E_TOO_LARGE');
  });
});

describe("the host's action check", () => {
  const tools = [
    {
      name: 'order',
      description: 'd',
      parameters: {
        type: 'object',
        properties: {
          item: { type: 'string', maxLength: 10 },
          qty: { type: 'integer', minimum: 1, maximum: 99 },
          tags: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } } },
        },
        required: ['item', 'qty'],
        additionalProperties: false,
      },
    },
  ];
  it('passes a declared call with good arguments', () =>
    expect(runtime.checkAction(tools, { tool: 'order', args: { item: 'bolts', qty: 3 } })).toBeNull());
  it.each([
    ['an undeclared tool', { tool: 'drop_tables', args: {} }, /unknown tool/],
    ['a missing required argument', { tool: 'order', args: { item: 'bolts' } }, /qty is required/],
    ['an undeclared argument', { tool: 'order', args: { item: 'b', qty: 1, admin: true } }, /not a declared argument/],
    [
      'a __proto__ key',
      { tool: 'order', args: JSON.parse('{"item":"b","qty":1,"__proto__":{"x":1}}') },
      /forbidden key/,
    ],
    [
      'a nested __proto__ key',
      { tool: 'order', args: JSON.parse('{"item":"b","qty":1,"tags":[{"__proto__":{}}]}') },
      /forbidden key/,
    ],
    ['a number out of bounds', { tool: 'order', args: { item: 'b', qty: 100 } }, /at most 99/],
    ['an unsafe integer', { tool: 'order', args: { item: 'b', qty: 2 ** 60 } }, /must be an integer/],
    [
      'oversized arguments',
      { tool: 'order', args: { item: 'b', qty: 1, tags: Array.from({ length: 500 }, () => ({ k: 'xxxxxxxx' })) } },
      /over the limit/,
    ],
    [
      'extra keys beside tool and args',
      { tool: 'order', args: { item: 'b', qty: 1 }, score: 1 },
      /only "tool" and "args"/,
    ],
  ])('rejects %s', (_what, action, message) => expect(runtime.checkAction(tools, action)).toMatch(message));
});

describe('rollouts in the sandbox', () => {
  it('act reaches done with score 1; its log replays to the same states in a new realm, in another order', async () => {
    const source = lockSource();
    const refs = (await roll(
      source,
      [1, 2, 3].flatMap((level) =>
        [0, 1].map((seed) => ({ seed, level, policy: { type: 'act' as const }, hashes: true })),
      ),
    )) as Rollout[];
    for (const r of refs) expect([r.ok, r.end, r.score, r.rejected]).toEqual([true, 'done', 1, []]);
    expect(refs[5]?.turns).toBeGreaterThan(refs[0]?.turns ?? 99);
    const replays = (await roll(
      source,
      [...refs].reverse().map((r) => ({
        seed: r.seed,
        level: r.level,
        policy: { type: 'replay' as const, actions: r.actions },
        hashes: true,
      })),
    )) as Rollout[];
    expect(replays.map((r) => r.hashes).reverse()).toEqual(refs.map((r) => r.hashes));
  });

  it('a rejected action gets an error observation, counts as a turn, maxErrors of them end the episode', async () => {
    const [r] = (await roll(lockSource(), [
      {
        seed: 0,
        level: 1,
        policy: {
          type: 'replay',
          actions: [
            { tool: 'nope' },
            { tool: 'enter', args: { code: 123 } },
            { tool: 'read_digit', args: { position: 1 } },
            { tool: 'enter', args: {} },
            { tool: 'submit' },
          ],
        },
        observations: true,
      },
    ])) as Rollout[];
    expect(r?.observations).toEqual([
      'error: unknown tool "nope"',
      'error: args.code must be a string',
      expect.stringMatching(/^digit \d$/),
      'error: args.code is required',
    ]);
    expect([r?.end, r?.turns, r?.errors, r?.rejected]).toEqual(['errors', 4, 3, [1, 2, 4]]);
  });

  it('resuming from a held state gives the same state and score as replaying the whole log', async () => {
    const source = lockSource();
    const [ref] = (await roll(source, [{ seed: 9, level: 2, policy: { type: 'act' }, hashes: true }])) as Rollout[];
    const actions = ref?.actions ?? [];
    const [head] = (await roll(source, [
      { seed: 9, level: 2, policy: { type: 'replay', actions: actions.slice(0, 3) }, keepState: true },
    ])) as Rollout[];
    const [tail] = (await roll(source, [
      {
        seed: 9,
        level: 2,
        policy: { type: 'replay', actions: actions.slice(3) },
        from: { state: head?.stateText ?? '', turn: head?.turns ?? 0, errors: 0 },
        hashes: true,
      },
    ])) as Rollout[];
    expect([tail?.end, tail?.score, tail?.turns]).toEqual(['done', 1, actions.length]);
    expect(tail?.hashes?.at(-1)).toBe(ref?.hashes?.at(-1)); // the step rng of each turn is the same too
  });

  it(
    'fails a state over 256 KB with E_STATE_TOO_LARGE, a Promise with E_ASYNC, a hang with E_TIMEOUT, and ' +
      'keeps the other results',
    async () => {
      const big = await roll(
        lockSource({
          step:
            "if (action.tool === 'enter') return { state: { ...state, pad: 'x'.repeat(300000) }, " +
            "observation: 'ok', done: false };",
        }),
        [{ seed: 1, level: 1, policy: { type: 'act' } }],
      );
      expect(big[0]).toMatchObject({ ok: false, code: 'E_STATE_TOO_LARGE', fn: 'step' });
      const promise = await roll(lockSource({ step: "if (action.tool === 'submit') return Promise.resolve(state);" }), [
        { seed: 1, level: 1, policy: { type: 'act' } },
      ]);
      expect(promise[0]).toMatchObject({ ok: false, code: 'E_ASYNC' });
      const hang = await roll(
        lockSource({ step: "if (action.tool === 'enter' && action.args.code === '999') for (;;) {}" }),
        [
          { seed: 1, level: 1, policy: { type: 'act' } },
          { seed: 1, level: 1, policy: { type: 'replay', actions: [{ tool: 'enter', args: { code: '999' } }] } },
          { seed: 2, level: 1, policy: { type: 'act' } },
        ],
      );
      expect(hang.map((r) => (r.ok ? r.score : r.code))).toEqual([1, 'E_TIMEOUT', 1]);
    },
  );

  it('a prompt or observation with a lone surrogate or not in NFC fails its step, on every call', async () => {
    // redteam-v19 V19-1 (a status line cut through an emoji) and V19-3 (an id a tokenizer's NFC normalizer folds).
    const cut = lockSource({
      step: "if (action.tool === 'submit') return { state, observation: 'done \\u{1F4E6}'.slice(0, 6), done: true };",
    });
    const kelvin = lockSource({ reset: "if (level === 2) return { state: { code: '1' }, prompt: 'Lock \\u212A1' };" });
    const [a] = (await roll(cut, [{ seed: 1, level: 1, policy: { type: 'act' } }])) as unknown as Array<{
      ok: boolean;
      code?: string;
      message?: string;
    }>;
    expect([a?.ok, a?.code]).toEqual([false, 'E_MALFORMED_TEXT']);
    expect(a?.message).toMatch(/lone surrogate/);
    const [b] = (await roll(kelvin, [{ seed: 1, level: 2, policy: { type: 'act' } }])) as unknown as Array<{
      ok: boolean;
      code?: string;
      message?: string;
    }>;
    expect([b?.ok, b?.code]).toEqual([false, 'E_MALFORMED_TEXT']);
    expect(b?.message).toMatch(/normal form C/);
  });

  it('the module keeps nothing between calls: each step sees a fresh copy of the state', async () => {
    const source = lockSource({ top: 'let last = null;', step: 'if (last) last.code = "mutated"; last = state;' });
    const [r] = (await roll(source, [{ seed: 3, level: 3, policy: { type: 'act' } }])) as Rollout[];
    expect([r?.end, r?.score]).toEqual(['done', 1]);
  });
});

describe('a rollout the host goes on with (scoreAtEnd: a served step)', () => {
  it(
    'is not scored while its episode goes on, and is scored once it ends; only the runtime ' +
      'can say it was not scored',
    async () => {
      const source = lockSource().replace(
        'export function score(state) {',
        "export function score(state) { if (!state.submitted) throw new Error('scored before the end');",
      );
      const read = { tool: 'read_digit', args: { position: 1 } };
      const [going, ended, asked] = await roll(source, [
        { seed: 1, level: 1, policy: { type: 'replay', actions: [read] }, scoreAtEnd: true },
        { seed: 1, level: 1, policy: { type: 'act' }, scoreAtEnd: true },
        { seed: 1, level: 1, policy: { type: 'replay', actions: [read] } },
      ]);
      expect(going).toMatchObject({ ok: true, end: 'no-action', turns: 1, score: 0, unscored: true });
      expect(ended).toMatchObject({ ok: true, end: 'done', score: 1 });
      expect(ended).not.toHaveProperty('unscored');
      expect(asked).toMatchObject({ ok: false, fn: 'score', code: 'E_THROWN' });
      // A module's own null verdict stays a bad verdict, even where the host asked for scoreAtEnd.
      const nulls = lockSource().replace(
        'export function score(state) {',
        'export function score(state) { return null;',
      );
      expect((await roll(nulls, [{ seed: 1, level: 1, policy: { type: 'act' }, scoreAtEnd: true }]))[0]).toMatchObject({
        ok: false,
        fn: 'score',
      });
    },
  );
});

describe('envforge play and sample on an episodic environment', () => {
  const cli = async (args: string[], input = '') => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      input: Readable.from([input]),
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it('play replays a piped transcript: observations, errors as observations, the final score', async () => {
    const transcript = 'read_items {"page": 1}\nlist_items {"page":1}\nlist_items not-json\nsubmit_orders\n';
    const run = await cli(['play', 'warehouse-restock', '--seed', '3', '--level', '1', '--json'], transcript);
    const events = run.out
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; observation?: string; score?: number; end?: string });
    expect(run.code).toBe(0);
    expect(events.map((e) => e.event)).toEqual(['reset', 'step', 'step', 'input-error', 'step', 'end']);
    expect(events[1]?.observation).toMatch(/^error: unknown tool "read_items"/);
    expect(events[2]?.observation).toMatch(/Page 1/);
    expect(events.at(-1)).toMatchObject({ end: 'done', score: 0 });
  });

  it('validate --json takes an episodic module like any other: one JSON line, exit 0 when admitted', {
    timeout: 180_000,
  }, async () => {
    const run = await cli([
      'validate',
      'tests/fixtures/episodic/good-course-enrollment.js',
      'tests/fixtures/episodic/broken-minus-last-scores.js',
      '--json',
    ]);
    const [good, broken] = run.out.split('\n').map(
      (l) =>
        JSON.parse(l) as {
          verdict: string;
          name: string;
          problems: Array<{ code: string }>;
          stages: Array<{ stage: string }>;
        },
    );
    expect([good?.verdict, broken?.verdict, run.code]).toEqual(['admit', 'reject', 1]);
    expect(good?.stages.map((s) => s.stage)).toEqual([
      'static',
      'execution',
      'determinism',
      'solvability',
      'hack',
      'diversity',
      'difficulty',
      'novelty',
      'review',
    ]);
    expect(broken?.problems.map((p) => p.code)).toContain('E_ACCEPTS_INCOMPLETE');
  });

  it('text sample and play show each tool with its parameters, in the form play reads', async () => {
    const sample = await cli(['sample', 'warehouse-restock']);
    expect(sample.code).toBe(0);
    expect(sample.out).toContain('place_order {"sku": string, "supplier_id": string, "packs": integer 1–50}');
    expect(sample.out).toContain('list_items {"page": integer 1–10}');
    expect(sample.out).toContain('submit_orders {}');
    const play = await cli(['play', 'warehouse-restock'], '\n');
    expect(play.out).toContain('get_item {"sku": string}');
  });

  it("sample FILE and play FILE name the file (not the sandbox's environment.js) in a syntax error", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'envforge-broken-')), 'broken-env.js');
    writeFileSync(file, 'export const meta = {;\n');
    for (const command of ['sample', 'play']) {
      const run = await cli([command, file]);
      expect(run.code).toBe(1);
      expect(run.err).toContain(`${file}:1:`);
      expect(run.err).not.toContain('environment.js');
    }
  });

  it('play refuses a single-turn environment as a usage error', async () => {
    const run = await cli(['play', 'topological-order']);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/not an episodic environment/);
  });

  it('sample --reveal --json shows the prompt, the tools and the reference rollout turn by turn', async () => {
    const run = await cli(['sample', 'bank-dispute', '--reveal', '--json', '-n', '2']);
    expect(run.code).toBe(0);
    const rows = run.out.split('\n').map(
      (l) =>
        JSON.parse(l) as {
          kind: string;
          tools: unknown[];
          reference: { turns: Array<{ action: unknown; observation: string }>; score: number; end: string };
        },
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.kind).toBe('episodic');
      expect(row.tools.length).toBeGreaterThan(2);
      expect([row.reference.end, row.reference.score]).toEqual(['done', 1]);
      expect(row.reference.turns.length).toBeGreaterThan(2);
    }
  });
});

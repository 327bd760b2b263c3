// The contract's rule for module text (contract/text.ts): control characters are refused with E_CONTROL_CHARS
// in meta (title, description, tools' and parameters' descriptions, enum values), prompts and observations;
// prose keeps tab and newline; the runtime's copy of the rule is the same; a client's action cannot smuggle one.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { episodicMetaProblems } from '../contract/episodic.js';
import { LONE_SURROGATE, metaTextProblems, PROSE_CONTROL, textProblem } from '../contract/text.js';
import { KINDS } from '../kinds/registry.js';
import { runEpisodes } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import { runRollouts } from '../sandbox/rollouts.js';
import { admitAction, isRefused } from '../serve/action-limits.js';
import { envSource } from './helpers/env-source.js';
import { sampleMeta } from './helpers/library-fixtures.js';

const pool = new SandboxPool({ workers: 1 });
afterAll(() => pool.close());

const HOSTILE: Array<[string, string]> = [
  ['ESC (a CSI sequence)', '\u001b[2J'],
  ['BEL', '\u0007'],
  ['carriage return', 'ok\rfake'],
  ['DEL', '\u007f'],
  ['a C1 CSI', '\u009b31m'],
  ['an OSC 52 clipboard write', '\u001b]52;c;aGk=\u0007'],
  ['a bidi override', 'abc\u202edef'],
  ['a bidi isolate', '\u2066x\u2069'],
  ['U+FFFE', '\ufffe'],
  ['U+FFFF', '\uffff'],
];

describe('the rule', () => {
  it.each(HOSTILE)('refuses %s in prose and in one-line fields, naming the character', (_name, text) => {
    for (const prose of [true, false])
      expect(textProblem(`a ${text} b`, 'x', prose)).toMatchObject({
        code: 'E_CONTROL_CHARS',
        message: expect.stringMatching(/^x holds the control character U\+[0-9A-F]{4} at character \d+/),
      });
  });

  it('lets prose keep tab and newline, and refuses them in a one-line field', () => {
    expect(textProblem('line one\n\tline two', 'meta.description', true)).toBeNull();
    expect(textProblem('a\tb', 'meta.title', false)).toMatchObject({ code: 'E_CONTROL_CHARS' });
    expect(textProblem('a\nb', 'meta.title', false)).toMatchObject({ code: 'E_CONTROL_CHARS' });
  });

  it('refuses a lone surrogate as malformed text, and keeps pairs, accents and right-to-left scripts', () => {
    expect(textProblem('x\ud800y', 'x', true)).toMatchObject({ code: 'E_MALFORMED_TEXT' });
    expect(textProblem('émoji 😀, עברית, العربية', 'x', false)).toBeNull();
  });

  it('refuses text an NFC normalizer changes (V19-3): a Kelvin sign, a decomposed accent', () => {
    expect(textProblem('Package \u212aX12345', 'x', true)).toMatchObject({ code: 'E_MALFORMED_TEXT' });
    expect(textProblem('Cafe\u0301', 'x', true)).toMatchObject({ code: 'E_MALFORMED_TEXT' });
    // NFKC's folds are kept: a superscript, a full-width digit and a ligature are the author's to write.
    expect(textProblem('x² + ５ ﬁles, Café', 'x', true)).toBeNull();
  });

  it('is the rule the runtime applies to prompts and observations (episodic-text.js keeps a copy)', () => {
    const runtime = readFileSync(new URL('../sandbox/episodic-text.js', import.meta.url), 'utf8');
    const copy = /var CONTROL = \/(.+)\/;/.exec(runtime)?.[1];
    expect(copy).toBe(PROSE_CONTROL.source);
    const lone = /var LONE_SURROGATE = \/(.+)\/;/.exec(runtime)?.[1];
    expect(lone).toBe(LONE_SURROGATE.source);
  });
});

describe('meta', () => {
  it('refuses a control character in the title or description of a single-turn module, with E_CONTROL_CHARS', () => {
    expect(KINDS.single.checkMeta(sampleMeta('clean-name', { title: 'Sum \u001b]0;pwned\u0007' })).problems).toEqual([
      expect.objectContaining({ code: 'E_CONTROL_CHARS', message: expect.stringMatching(/^meta\.title/) }),
    ]);
    expect(KINDS.single.checkMeta(sampleMeta('clean-name', { description: 'Adds.\u009b2J' })).problems).toEqual([
      expect.objectContaining({ code: 'E_CONTROL_CHARS' }),
    ]);
    expect(
      KINDS.single.checkMeta(sampleMeta('clean-name', { description: 'Adds two numbers.\nExact answers only.' }))
        .problems,
    ).toEqual([]);
  });

  it("refuses one in an episodic module's tool description, a parameter's description or an enum value", () => {
    const tool = (description: string, parameters: unknown) => ({
      ...sampleMeta('desk'),
      kind: 'episodic',
      maxTurns: 5,
      tools: [{ name: 'look', description, parameters }],
    });
    const plain = {
      type: 'object',
      properties: { item: { type: 'string', description: 'the item', enum: ['a', 'b'] } },
      additionalProperties: false,
    };
    expect(episodicMetaProblems(tool('Look around.', plain))).toEqual([]);
    expect(episodicMetaProblems(tool('Look\u202e around.', plain))).toEqual([
      expect.objectContaining({
        code: 'E_CONTROL_CHARS',
        message: expect.stringMatching(/meta\.tools\.look\.description/),
      }),
    ]);
    expect(
      episodicMetaProblems(
        tool('Look.', { ...plain, properties: { item: { type: 'string', description: 'the \u001b[1mitem' } } }),
      ),
    ).toEqual([
      expect.objectContaining({
        code: 'E_CONTROL_CHARS',
        message: expect.stringMatching(/properties\.item\.description/),
      }),
    ]);
    expect(
      metaTextProblems(tool('Look.', { ...plain, properties: { item: { type: 'string', enum: ['a\u0007'] } } })),
    ).toEqual([expect.objectContaining({ code: 'E_CONTROL_CHARS', message: expect.stringMatching(/enum value/) })]);
  });
});

describe('prompts and observations', () => {
  it('a prompt holding an escape sequence fails its episode with E_CONTROL_CHARS in generate', async () => {
    const source = envSource({
      generate: "return { prompt: 'What is 1 + 1?\\u001b]52;c;aGk=\\u0007 Answer as <answer>N</answer>.', answer: 2 };",
    });
    const run = await runEpisodes(pool, source, [{ seed: 1, level: 1 }]);
    expect(run.episodes[0]).toMatchObject({ ok: false, code: 'E_CONTROL_CHARS', fn: 'generate' });
  });

  const episodic = (observation: string) =>
    `
export const meta = { name: 'echo-desk', title: 'Echo desk', description: 'Says something back.', skills: ` +
    `['tool-use'], levels: 3, kind: 'episodic', maxTurns: 3,
  tools: [{ name: 'say', description: 'Say a word.', parameters: { type: 'object', properties: { word: { type: ` +
    `'string' } }, required: ['word'], additionalProperties: false } }] };
export function reset(rng, level) { return { state: { said: '' }, prompt: 'Say hello with the say tool.' }; }
export function step(state, action) { return { state: { said: action.args.word }, observation: ` +
    `${observation}, done: true }; }
export function score(state) { return state.said === 'hello' ? 1 : 0; }
export function act(state) { return { tool: 'say', args: { word: 'hello' } }; }`;

  it(
    'an observation holding a control character fails the rollout with E_CONTROL_CHARS in ' +
      'step; tab and newline pass',
    async () => {
      const meta = {
        name: 'echo-desk',
        levels: 3,
        maxTurns: 3,
        tools: [
          {
            name: 'say',
            description: 'Say a word.',
            parameters: {
              type: 'object',
              properties: { word: { type: 'string' } },
              required: ['word'],
              additionalProperties: false,
            },
          },
        ],
      };
      const bad = await runRollouts(pool, episodic("'you said\\u009b ' + action.args.word"), meta as never, [
        { seed: 1, level: 1, policy: { type: 'act' } },
      ]);
      expect(bad.rollouts[0]).toMatchObject({ ok: false, code: 'E_CONTROL_CHARS', fn: 'step' });
      const good = await runRollouts(pool, episodic("'you said:\\n\\t' + action.args.word"), meta as never, [
        { seed: 1, level: 1, policy: { type: 'act' } },
      ]);
      expect(good.rollouts[0]).toMatchObject({ ok: true, score: 1 });
    },
  );

  it("the runtime's own error observation shows a client's control characters as escapes", async () => {
    const meta = {
      name: 'echo-desk',
      levels: 3,
      maxTurns: 3,
      tools: [
        {
          name: 'say',
          description: 'Say a word.',
          parameters: {
            type: 'object',
            properties: { word: { type: 'string' } },
            required: ['word'],
            additionalProperties: false,
          },
        },
      ],
    };
    const run = await runRollouts(pool, episodic("'ok'"), meta as never, [
      { seed: 1, level: 1, policy: { type: 'replay', actions: [{ tool: 'sa\u001by', args: {} }] }, observations: true },
    ]);
    expect(run.rollouts[0]).toMatchObject({ ok: true, observations: ['error: unknown tool "sa\\u001by"'] });
  });

  it(
    'the reward service refuses an action carrying a control character as a rejected turn, before ' +
      'the environment sees it',
    () => {
      expect(isRefused(admitAction({ tool: 'say', args: { word: 'hi\u001b[2J' } }))).toBe(true);
      expect(isRefused(admitAction({ tool: 'say', args: { 'w\u0085': 'hi' } }))).toBe(true);
      expect(isRefused(admitAction({ tool: 'say\u202e', args: {} }))).toBe(true);
      expect(admitAction({ tool: 'say', args: { word: 'two\nlines\tand a tab' } })).toEqual({
        tool: 'say',
        args: { word: 'two\nlines\tand a tab' },
      });
      const refused = admitAction({ tool: 'say', args: { word: '\u009b\u202e' } }) as { excerpt: string };
      expect(refused.excerpt).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
    },
  );
});

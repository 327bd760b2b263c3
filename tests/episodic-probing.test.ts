// Searched adaptive policies and error-path reads (issue 28, red-team F7 and F12): a decision tried, its reply
// read, the entity put back by any tool that may undo it and the next value tried, is played and judged like any
// adversary; every tool is called with arguments that name no entity and its reply read. The red team's hacks and
// one more of each class written another way are rejected; their honest twins are admitted.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { judgedOnce, LOAD_CODES } from './helpers/run-cache.js';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { Rollout } from '../sandbox/rollouts.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { ValidatorOptions } from '../validators/options.js';
import { readBackLog, sweepLogs } from '../validators/episodic/adversaries-progress.js';
import { entitiesVisible, errorPathCalls, resetsOf, undoRetryLog } from '../validators/episodic/adversaries-undo.js';
import { decisionsOf, predictions, type Axis } from '../validators/episodic/adversaries-values.js';
import { episodicHackOptions } from './helpers/validation-seeds.js';

const tool = (name: string, properties: Record<string, unknown>, required: string[] = []) => ({
  name,
  description: name,
  parameters: { type: 'object', properties, required, additionalProperties: false },
});
const META = {
  name: 'm',
  title: 'm',
  description: 'm',
  skills: [],
  levels: 1,
  kind: 'episodic',
  maxTurns: 30,
  tools: [
    tool('list', {}),
    tool('read', { id: { type: 'string', maxLength: 8 } }, ['id']),
    tool('route', { id: { type: 'string' }, queue: { type: 'string', enum: ['a', 'b', 'c'] } }, ['id', 'queue']),
    tool('recall', { id: { type: 'string', pattern: '^T' } }, ['id']),
    tool('close', {}),
  ],
} as unknown as EpisodicMeta;
const rollout = (actions: unknown[], prompt = ''): Rollout => ({
  ok: true,
  seed: 1,
  level: 1,
  prompt,
  actions,
  rejected: [],
  end: 'done',
  turns: actions.length,
  errors: 0,
  score: 1,
  maxStateChars: 0,
  ms: [],
});
const REF = rollout([
  { tool: 'route', args: { id: 'T12', queue: 'c' } },
  { tool: 'route', args: { id: 'T34', queue: 'a' } },
  { tool: 'close', args: {} },
]);
const AXIS: Axis = { tool: 'route', arg: 'queue', values: ['a', 'b', 'c'] };
const DECISIONS = decisionsOf(REF, AXIS);

describe('the undo-and-retry policy', () => {
  it(
    'offers as resets the tools that take the entity (unused first), then the no-argument ones, never ' +
      'the decision or the finish',
    () => {
      expect(resetsOf(META, REF, AXIS, DECISIONS)).toEqual([
        { tool: 'read', names: ['id'] },
        { tool: 'recall', names: ['id'] },
        { tool: 'list', names: [] },
      ]);
      const reads = rollout([{ tool: 'read', args: { id: 'T12' } }, ...REF.actions]);
      expect(resetsOf(META, reads, AXIS, decisionsOf(reads, AXIS)).map((x) => x.tool)).toEqual([
        'recall',
        'read',
        'list',
      ]);
    },
  );
  it('tries the values in order, puts the entity back after each wrong try, keeps the rest of the reference', () => {
    const log = undoRetryLog(REF, AXIS, DECISIONS, { tool: 'recall', names: ['id'] }, ['c', 'a']);
    expect(log.map((a) => `${a.tool} ${String(a.args.queue ?? a.args.id ?? '')}`)).toEqual([
      'route a',
      'recall T12',
      'route b',
      'recall T12',
      'route c',
      'route a',
      'close ',
    ]);
  });
  it(
    'sweeps a read after every try with the entity put back after each read but the last, ' +
      'and retries the same way',
    () => {
      const read = { tool: 'read', names: ['id'] };
      const reset = { tool: 'recall', names: ['id'] };
      const [sweep] = sweepLogs(REF, AXIS, DECISIONS.slice(0, 1), read, 30, reset);
      expect(sweep?.actions.map((a) => `${a.tool} ${String(a.args.queue ?? '')}`)).toEqual([
        'route a',
        'read ',
        'recall ',
        'route b',
        'read ',
        'recall ',
        'route c',
        'read ',
      ]);
      expect(sweep?.at.get(0)).toEqual([1, 4, 7]);
      expect(sweepLogs(REF, AXIS, DECISIONS.slice(0, 1), read, 8, reset)).toEqual([]);
      expect(readBackLog(REF, AXIS, DECISIONS, read, ['b', 'a'], reset).map((a) => a.tool)).toEqual([
        'route',
        'read',
        'recall',
        'route',
        'read',
        'route',
        'read',
        'close',
      ]);
    },
  );
});

describe('the error-path calls', () => {
  const calls = errorPathCalls(META, REF);
  it(
    "send every tool but the finish an unknown id shaped like the episode's, and an empty string " +
      'where the schema allows one',
    () => {
      expect(
        calls.filter((c) => typeof c.args.id === 'string').map((c) => `${c.tool} ${JSON.stringify(c.args)}`),
      ).toEqual([
        'read {"id":"T00"}',
        'read {"id":""}',
        'route {"id":"T00","queue":"c"}',
        'route {"id":"","queue":"c"}',
        'recall {"id":"T00"}',
      ]);
    },
  );
  it('end with a wrong type and a missing argument, which the schema-valid set leaves out', () => {
    expect(calls.slice(-2)).toEqual([
      { tool: 'read', args: { id: 0 } },
      { tool: 'read', args: {} },
    ]);
    expect(errorPathCalls(META, REF, { valid: true }).every((c) => typeof c.args.id === 'string')).toBe(true);
    expect(errorPathCalls(META, REF, { limit: 2 })).toHaveLength(2);
  });
  it('are read per entity where one line lists several ("T12 (c team), T34 (a team)")', () => {
    const readings = [{ call: { tool: 'read', args: { id: 'T00' } }, about: { listing: true as const } }];
    expect(predictions(AXIS, DECISIONS, readings, ['No ticket T00. Open: T12 (c team), T34 (a team).'])).toEqual([
      'c',
      'a',
    ]);
    expect(predictions(AXIS, DECISIONS, readings, ['No ticket T00. Open: T12, T34 (a or c).'])).toEqual([null, null]);
  });
  it('count an entity as one a policy can name when the prompt or a listing names it', () => {
    expect(entitiesVisible(REF, AXIS, DECISIONS, [])).toBe(false);
    expect(entitiesVisible(REF, AXIS, DECISIONS, ['Open: T12, T34'])).toBe(true);
    expect(entitiesVisible(rollout(REF.actions, 'Tickets T12 and T34.'), AXIS, DECISIONS, [])).toBe(true);
    // A value the prompt states is no issued id: trying fields for it finds what the task says.
    const typed = rollout(
      [
        { tool: 'route', args: { id: 'omar', queue: 'a' } },
        { tool: 'close', args: {} },
      ],
      'Type "omar" into a.',
    );
    expect(entitiesVisible(typed, AXIS, decisionsOf(typed, AXIS), [])).toBe(false);
  });
});

const RED = new URL('./fixtures/redteam-trust/', import.meta.url);
const OWN = new URL('./fixtures/episodic-probing/', import.meta.url);
const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());
/**
 * A hack is judged with the baselines' random and finish-alone probes cut (validation-seeds.ts); a twin at defaults.
 */
const codesOf = async (dir: URL, file: string, seed: number, options?: Partial<ValidatorOptions>) => {
  const report = await judgedOnce(readFileSync(new URL(file, dir), 'utf8'), {
    pool,
    validationSeed: seed,
    ...(options ? { options } : {}),
  });
  return report.problems.filter((p) => !LOAD_CODES.has(p.code)).map((p) => p.code);
};
const SLOW = { timeout: 240_000 };

describe.each([
  ['red team F7', RED, 'hack-undo-retry.js', 'E_ACCEPTS_RETRIES'],
  ['red team F12', RED, 'hack-error-path-leak.js', 'E_ANSWER_LEAK'],
  ['F7 another way (a no-argument undo_last)', OWN, 'hack-undo-last-sort.js', 'E_ACCEPTS_RETRIES'],
  ['F7 by a read after the try (tracking) and a cancel tool', OWN, 'hack-track-cancel.js', 'E_ACCEPTS_RETRIES'],
  ['F12 another way (an empty id on a read tool the reference uses)', OWN, 'hack-empty-id-help.js', 'E_ANSWER_LEAK'],
] as const)('%s', (_, dir, file, code) => {
  it.each([11, 22, 33])(`${file} is rejected with ${code} at validation seed %i`, SLOW, async (seed) => {
    expect(await codesOf(dir, file, seed, episodicHackOptions(code))).toContain(code);
  });
});

describe.each([
  [RED, 'honest-undo-absent.js'],
  [RED, 'honest-error-path-ids.js'],
  [OWN, 'honest-undo-last-plain.js'],
  [OWN, 'honest-track-plain.js'],
  [OWN, 'honest-empty-id-dates.js'],
] as const)('the honest twin', (dir, file) => {
  it(`${file} is admitted at validation seed 22`, SLOW, async () => {
    expect(await codesOf(dir, file, 22)).toEqual([]);
  });
});

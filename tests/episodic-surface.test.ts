// The unused call surface is searched as a whole: a tool the reference never calls, or an optional argument of a
// tool it does call that it never sends, applied to every entity then the finish, is a cheap policy judged
// against the reference's score; an honest twin where that surface never pays stays admitted.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { Rollout } from '../sandbox/rollouts.js';
import { SandboxPool } from '../sandbox/pool.js';
import { surfaceLogs, usedSurface } from '../validators/episodic/surface.js';
import { DEFAULT_VALIDATOR_OPTIONS } from '../validators/options.js';
import { validateCandidate } from '../validators/validate.js';

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
  maxTurns: 20,
  tools: [
    tool('check', { sku: { type: 'string' }, auto: { type: 'boolean' } }, ['sku']),
    tool('order', { sku: { type: 'string' }, quantity: { type: 'integer' } }, ['sku', 'quantity']),
    tool('flag', { sku: { type: 'string' }, reason: { type: 'string', enum: ['late', 'lost'] } }, ['sku']),
    tool('submit', {}),
  ],
} as unknown as EpisodicMeta;
const rollout = (actions: unknown[]): Rollout => ({
  ok: true,
  seed: 1,
  level: 1,
  prompt: '',
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
  { tool: 'check', args: { sku: 'P1001' } },
  { tool: 'order', args: { sku: 'P1001', quantity: 3 } },
  { tool: 'check', args: { sku: 'P2002' } },
  { tool: 'order', args: { sku: 'P2002', quantity: 5 } },
  { tool: 'submit', args: {} },
]);

describe('the unused-surface logs of an episode', () => {
  const logs = surfaceLogs(META, REF, usedSurface([REF]), 12, 8);
  it('send an optional argument the reference never sends, both ways, on every entity, then finish', () => {
    const auto = logs.filter((l) => l.policy.startsWith('check '));
    expect(auto.map((l) => l.actions.map((a) => a.args.auto))).toEqual([
      [true, true, undefined],
      [false, false, undefined],
    ]);
    expect(auto[0]?.actions.map((a) => a.args.sku ?? a.tool)).toEqual(['P1001', 'P2002', 'submit']);
  });
  it('apply an unused tool to every entity, bare and with each value of its arguments', () => {
    expect(logs.filter((l) => l.policy.startsWith('flag ')).map((l) => l.actions[0]?.args)).toEqual([
      { sku: 'P1001' },
      { sku: 'P1001', reason: 'late' },
      { sku: 'P1001', reason: 'lost' },
    ]);
  });
  it('leave out a tool whose every argument the reference sends, and stay within the cap', () => {
    expect(logs.some((l) => l.policy.startsWith('order '))).toBe(false);
    expect(surfaceLogs(META, REF, usedSurface([REF]), 12, 2)).toHaveLength(2);
  });
});

// The red team's F6 written another way: the reference itself reads each item with check_stock (the tool is
// used), only its optional auto_reorder argument is never sent.
const DIR = new URL('./fixtures/redteam-trust/', import.meta.url);
const readsFirst = (file: string) =>
  readFileSync(new URL(file, DIR), 'utf8')
    .replace("if (tool === 'check_stock') {", "if (tool === 'check_stock') {\n    it.checked = true;")
    .replace(
      'export function act(state) {',
      'export function act(state) {\n  const unread = state.items.find((i) => !i.checked);\n  if (unread) ' +
        "return { tool: 'check_stock', args: { sku: unread.sku } };",
    );
const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());

describe('an unused optional argument of a tool the reference calls', () => {
  it('is rejected where it writes the decision (E_ACCEPTS_SHORTCUT)', { timeout: 240_000 }, async () => {
    const source = readsFirst('hack-unused-optional-argument.js');
    expect(source).toContain('it.checked = true');
    const report = await validateCandidate(source, { pool, validationSeed: 22 });
    expect(report.problems.map((p) => p.code)).toContain('E_ACCEPTS_SHORTCUT');
    // The surface search is what rejects it: without its logs (alone, or composed with the plan: the argument is an
    // unused (tool, argument) pair there too), no shortcut is found.
    const blind = await validateCandidate(source, {
      pool,
      validationSeed: 22,
      options: {
        episodic: {
          ...DEFAULT_VALIDATOR_OPTIONS.episodic,
          surfaceLogsPerEpisode: 0,
          surfaceComposedPerEpisode: 0,
          surfaceComposedTwicePerEpisode: 0,
        },
      },
    });
    expect(blind.problems.map((p) => p.code)).not.toContain('E_ACCEPTS_SHORTCUT');
  });
  it('is admitted where the score polices it', { timeout: 240_000 }, async () => {
    const report = await validateCandidate(readsFirst('honest-optional-argument-policed.js'), {
      pool,
      validationSeed: 22,
    });
    expect(report.problems.map((p) => `${p.code}: ${p.message}`)).toEqual([]);
  });
});

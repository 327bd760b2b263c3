// The random-policy rate judges what the random policy wins without the world's information (issue 28): a
// random explorer that lists the memos, reads the right one and copies its code plays the task's own path,
// which is no evidence of a score that pays random behaviour; a pass that survives the copied values being
// replaced is. Units of the blind log first, then the locker twin and a lenient locker validated in the sandbox.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { Rollout } from '../sandbox/rollouts.js';
import { blindLog } from '../validators/episodic/informed.js';
import { validateCandidate } from '../validators/validate.js';
import { validationSeeds } from './helpers/validation-seeds.js';

const meta = {
  name: 'locker',
  title: 't',
  description: 'Find the code in a memo, enter it, log out.',
  skills: ['tool-use'],
  levels: 1,
  kind: 'episodic',
  maxTurns: 30,
  tools: [
    { name: 'list_memos', description: 'List.', parameters: { type: 'object', properties: {} } },
    {
      name: 'read_memo',
      description: 'Read one.',
      parameters: { type: 'object', properties: { memo_id: { type: 'string', maxLength: 12 } }, required: ['memo_id'] },
    },
    {
      name: 'enter_code',
      description: 'Enter.',
      parameters: {
        type: 'object',
        properties: {
          code: { type: 'integer', minimum: 0, maximum: 99999 },
          mode: { type: 'string', enum: ['fast', 'slow'] },
        },
        required: ['code'],
      },
    },
    { name: 'log_out', description: 'Out.', parameters: { type: 'object', properties: {} } },
  ],
} as unknown as EpisodicMeta;

const rollout = (prompt: string, actions: unknown[], observations: string[], rejected: number[] = []): Rollout =>
  ({
    ok: true,
    seed: 1,
    level: 1,
    prompt,
    actions,
    rejected,
    end: 'done',
    turns: actions.length,
    errors: rejected.length,
    score: 1,
    maxStateChars: 1,
    observations,
    ms: [],
  }) as Rollout;

describe('the blind log of a random rollout', () => {
  const list = { tool: 'list_memos', args: {} };
  const out = { tool: 'log_out', args: {} };

  it(
    'replaces what the world showed first, consistently: the memo id by another listed one, the ' +
      'code by one nothing showed',
    () => {
      const r = rollout(
        'Case 1200, room 3400.',
        [
          list,
          { tool: 'read_memo', args: { memo_id: 'M994' } },
          { tool: 'enter_code', args: { code: 9593, mode: 'fast' } },
          { tool: 'read_memo', args: { memo_id: 'M994' } },
          out,
        ],
        [
          'Memos: M123, M994, M555',
          'M994: Locker code for this case: 9593.',
          'Wrong code.',
          'M994: Locker code for this case: 9593.',
          'Logged out.',
        ],
      );
      expect(blindLog(meta, r)).toEqual([
        list,
        { tool: 'read_memo', args: { memo_id: 'M123' } },
        { tool: 'enter_code', args: { code: 9594, mode: 'fast' } },
        { tool: 'read_memo', args: { memo_id: 'M123' } },
        out,
      ]);
    },
  );

  it('keeps values the prompt or the tools show, enum values, and values sent before the world showed them', () => {
    const r = rollout(
      'Case 1200, room 3400; memo M994 is void.',
      [
        { tool: 'enter_code', args: { code: 77 } },
        list,
        { tool: 'read_memo', args: { memo_id: 'M994' } },
        { tool: 'enter_code', args: { code: 1200 } },
        out,
      ],
      ['Wrong code.', 'Memos: M994, 77', 'M994: nothing', 'Locked.', 'Logged out.'],
    );
    expect(blindLog(meta, r)).toBeNull();
  });

  it("reads no information from a call the host refused (its reply is the schema's, not the world's)", () => {
    const r = rollout(
      'Open it.',
      [{ tool: 'enter_code', args: { code: -5 } }, { tool: 'enter_code', args: { code: 0 } }, out],
      ['error: args.code must be at least 0', 'Wrong code.', 'Logged out.'],
      [1],
    );
    expect(blindLog(meta, r)).toBeNull();
  });

  it('keeps a copied id that the schema cut at the same length, and a bound the schema prints is given', () => {
    const cut = {
      ...meta,
      tools: meta.tools.map((t) =>
        t.name === 'read_memo'
          ? { ...t, parameters: { type: 'object', properties: { memo_id: { type: 'string', maxLength: 4 } } } }
          : t,
      ),
    } as EpisodicMeta;
    const r = rollout(
      'Open it.',
      [list, { tool: 'read_memo', args: { memo_id: 'MEMO' } }, { tool: 'enter_code', args: { code: 99999 } }, out],
      ['Memos: MEMO-17 (code 99999)', 'MEMO-17: empty', 'Opened.', 'Logged out.'],
    );
    const log = blindLog(cut, r) as Array<{ args: Record<string, unknown> }>;
    expect(String(log[1]?.args.memo_id)).toHaveLength(4);
    expect(log[1]?.args.memo_id).not.toBe('MEMO');
    expect(log[2]?.args.code).toBe(99999);
  });
});

const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());
const SLOW = { timeout: 300_000 };
const LOAD = new Set(['E_TIMEOUT', 'E_TOO_SLOW', 'E_CRASHED', 'E_MEMORY']);
const TWIN = readFileSync(
  new URL('./fixtures/redteam-trust/honest-prompt-arithmetic-secret.js', import.meta.url),
  'utf8',
);
// The same locker whose score takes any code with the right last digit: one blind guess in ten opens it.
const LENIENT = TWIN.replace(
  'state.entered === state.code ? 1 : 0',
  'state.entered !== null && state.entered % 10 === state.code % 10 ? 1 : 0',
);

async function verdict(source: string, seed: number) {
  const report = await validateCandidate(source, { pool, validationSeed: seed });
  const problems = report.problems.filter((p) => !LOAD.has(p.code));
  const hack = report.stages.find((s) => s.stage === 'hack')?.metrics as
    | { checks?: { 'episodic-baselines'?: { families?: Record<string, unknown> } } }
    | undefined;
  const random = hack?.checks?.['episodic-baselines']?.families?.['random-policy'];
  return {
    problems,
    random,
    text:
      `--validation-seed ${seed}: ` +
      `${problems.map((p) => `${p.code} ${p.message.slice(0, 140)}`).join('; ') || 'admitted'}`,
  };
}

describe('the random-policy rate in the sandbox', () => {
  it(
    'admits the locker twin at the seed where a random explorer read the right memo and copied its code',
    SLOW,
    async () => {
      const { problems, random, text } = await verdict(TWIN, 196011765074021);
      expect(problems, text).toEqual([]);
      expect((random as { informed?: number } | undefined)?.informed, JSON.stringify(random)).toBeGreaterThan(0);
    },
  );

  it('rejects a locker that takes any code with the right last digit: blind guesses open it', SLOW, async () => {
    expect(LENIENT).not.toBe(TWIN);
    for (const seed of validationSeeds([11, 196011765074021])) {
      const { problems, text } = await verdict(LENIENT, seed);
      expect(
        problems.map((p) => p.code),
        text,
      ).toContain('E_ACCEPTS_RANDOM_POLICY');
    }
  });
});

// The decisive tools the first-episode checks (alternatives, exchanges, arguments) probe: a tool decides by its own
// effect (its calls neutralized at their turns), not by what removing its calls does to the later turns' draws.
import { describe, expect, it } from 'vitest';
import type { Rollout, RolloutRequest, RolloutResult } from '../sandbox/rollouts.js';
import type { Action } from '../validators/episodic/adversaries.js';
import { onFirstEpisodes, type FirstEpisodes } from '../validators/checks/episodic-ablation.js';
import type { EpisodicContext } from '../validators/checks/episodic.js';
import { DEFAULT_EPISODIC_OPTIONS } from '../validators/options-episodic.js';
import { A, metaWith, tool } from './helpers/episodic-meta.js';

const id = { txn_id: { type: 'string', maxLength: 12 } };
const meta = metaWith([tool('read', id), tool('contact', id), tool('chargeback', id), tool('close', {})]);
const plan = [
  A('read', { txn_id: 'T1' }),
  A('contact', { txn_id: 'T1' }),
  A('chargeback', { txn_id: 'T1' }),
  A('close'),
];

/**
 * A dispute whose merchant reply is the contact turn's draw (bank-dispute): it refuses only at the second turn, and a
 * chargeback, paid, needs a refusal. The read changes nothing; a call on an unknown id neither.
 */
function play(actions: Action[]): RolloutResult {
  let refused = false;
  let charged = false;
  const changes = actions.map((a, j): string[] => {
    if (a.args.txn_id !== 'T1') return [];
    if (a.tool === 'contact') return ((refused = j === 1), ['$.contacts.T1']);
    if (a.tool === 'chargeback' && refused) return ((charged = true), ['$.chargebacks']);
    return [];
  });
  const n = actions.length;
  return { ...REF, actions, turns: n, score: charged ? 1 : 0, changes, state: {}, stateText: '{}' };
}

const REF = {
  ok: true,
  seed: 1,
  level: 1,
  prompt: 'Dispute T1.',
  actions: plan,
  rejected: [],
  end: 'done',
  turns: 4,
  errors: 0,
  score: 1,
  maxStateChars: 2,
  observations: ['T1: $90', 'refused', 'opened', 'closed'],
  ms: [0, 0, 0, 0],
} as unknown as Rollout;

/** The decisive set the first-episode checks are given, every request played by `play`. */
async function decisiveOf(): Promise<Set<string>> {
  const memos = new Map<string, unknown>();
  const memo = <T>(key: string, make: () => T): T =>
    memos.has(key) ? (memos.get(key) as T) : (memos.set(key, make()), memos.get(key) as T);
  const ctx = {
    meta,
    refs: [REF],
    options: { ...DEFAULT_EPISODIC_OPTIONS, probedPerLevel: 1 },
    memo,
    adversaryEpisodes: () => [0],
    shared: (key: string, make: () => RolloutRequest) => memo(`request:${key}`, make),
  } as unknown as EpisodicContext;
  let seen: FirstEpisodes | undefined;
  const checkPlan = onFirstEpisodes(ctx, async (s) => ((seen = s), { findings: [] }));
  const outcomes = (checkPlan?.requests ?? []).map((q) =>
    play((q.policy as { actions: Action[] }).actions.map((a) => ({ ...a, args: a.args ?? {} }))),
  );
  await checkPlan?.judge(outcomes, { run: async (qs) => qs.map(() => REF), all: () => outcomes });
  return seen?.decisive ?? new Set();
}

describe('decisive tools by effect', () => {
  it('takes a read whose removal shifts the draws for no decision; the contact and the chargeback decide', async () => {
    // Without the read the contact plays at the first turn, draws an acceptance, and the chargeback is refused: the
    // ablation earns 0. Refused at its own turn, the read leaves every draw in place and the plan earns 1.
    expect(play(plan.slice(1))).toMatchObject({ score: 0 });
    const decisive = await decisiveOf();
    expect([...decisive].sort()).toEqual(['0|chargeback', '0|contact']);
  });
});

// An ablation may not keep what only the removed step revealed (validators/episodic/revealed.ts, redteam-s18e E2).
import { describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { Rollout } from '../sandbox/rollouts.js';
import { issuedValues, sendsUnrevealed } from '../validators/episodic/revealed.js';

const meta = { description: 'Work the queue.', tools: [] } as unknown as EpisodicMeta;
const rollout = (seed: number, actions: unknown[], observations: string[], prompt = 'Queue 7.'): Rollout =>
  ({ ok: true, seed, level: 1, prompt, actions, observations }) as unknown as Rollout;
const list = { tool: 'list_tickets', args: {} };
const close = (id: string) => ({ tool: 'close_ticket', args: { ticket_id: id } });
const done = { tool: 'finish', args: {} };

describe('values only a removed step revealed', () => {
  const ref = rollout(1, [list, close('T-4821'), done], ['Open: T-4821.', 'T-4821: closed.', 'Done.']);

  it('finds the ids a reply issued, less those another episode sends too or the prompt gives', () => {
    const other = rollout(2, [list, close('T-1000'), done], ['Open: T-1000.', 'ok', 'Done.']);
    expect([...issuedValues(meta, ref, [ref, other])]).toEqual(['T-4821']);
    const same = rollout(2, [list, close('T-4821'), done], ['Open: T-4821.', 'ok', 'Done.']);
    expect([...issuedValues(meta, ref, [ref, same])]).toEqual([]);
    const given = rollout(1, [list, close('T-4821'), done], ['Open: T-4821.', 'ok', 'Done.'], 'Close T-4821.');
    expect([...issuedValues(meta, given, [given])]).toEqual([]);
  });

  it('tells a log that sends an id before any of its replies showed it', () => {
    const values = new Set(['T-4821']);
    expect(sendsUnrevealed(rollout(1, [close('T-4821'), done], ['T-4821: closed.', 'Done.']), values)).toBe(true);
    expect(sendsUnrevealed(rollout(1, [list, close('T-4821'), done], ['Open: T-4821.', 'ok', 'Done.']), values)).toBe(
      false,
    );
    expect(sendsUnrevealed(rollout(1, [close('T-4821'), list, done], ['ok', 'Open: T-4821.', 'Done.']), values)).toBe(
      true,
    );
  });
});

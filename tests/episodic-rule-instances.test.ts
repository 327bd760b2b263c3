// A step two rule sentences name (validators/episodic/rule-instances.ts) and its one-call-alone removals in
// validators/checks/episodic-rules.ts: every call a later call relies on is removed alone, not only the first and last.
import { describe, expect, it } from 'vitest';
import type { Rollout } from '../sandbox/rollouts.js';
import { ablationsOf } from '../validators/checks/episodic-rules.js';
import { sharedSteps } from '../validators/episodic/rule-instances.js';
import { statedRules } from '../validators/episodic/stated-rules.js';

const TOOLS = ['read_guest', 'request_approval', 'book'];
const TWO =
  'A guest staying more than 7 nights needs the approval (request_approval) before their stay is booked.\n' +
  'A guest under 18 also needs the approval (request_approval) before their stay is booked.';
const ONE = 'A guest staying more than 7 nights needs the approval (request_approval) before their stay is booked.';

const call = (tool: string, guest_id?: string) => ({ tool, args: guest_id ? { guest_id } : {} });
// Three approvals, each before its guest's booking, and a stay booked without one.
const reference = {
  seed: 1,
  level: 1,
  score: 1,
  end: 'done',
  actions: [
    call('request_approval', 'G1'),
    call('book', 'G1'),
    call('request_approval', 'G2'),
    call('book', 'G2'),
    call('request_approval', 'G3'),
    call('book', 'G3'),
    call('book', 'G4'),
    call('submit'),
  ],
} as unknown as Rollout;
const removed = (tools: string[]) => (a: { actions: { tool: string; args: Record<string, unknown> }[] }) =>
  tools.filter((g) => !a.actions.some((x) => x.tool === 'request_approval' && x.args.guest_id === g));

describe('a step two rules share', () => {
  it('is a step two rule sentences (or two conditions joined by "or") name, not one a single rule names', () => {
    // "booked" names book in both sentences too.
    expect([...sharedSteps(TWO, TOOLS)].sort()).toEqual(['book', 'request_approval']);
    expect(sharedSteps(ONE, TOOLS).size).toBe(0);
    const either = 'A stay over 7 nights, or a guest under 18, needs the approval (request_approval) before booking.';
    expect(sharedSteps(either, TOOLS).has('request_approval')).toBe(true);
    expect(sharedSteps(`${ONE}\nRead each guest (read_guest) and book them.`, TOOLS).size).toBe(0);
  });

  it('has each relied-on call removed alone, marked shared; a step one rule names only its first and last', () => {
    const rule = statedRules(TWO, TOOLS).find((r) => r.tool === 'request_approval');
    if (!rule) throw new Error('no rule');
    const alone = (shared: boolean) =>
      ablationsOf(reference, 0, rule, shared).filter((a) => a.how === 'one call removed');
    expect(alone(true).map(removed(['G1', 'G2', 'G3']))).toEqual([['G1'], ['G2'], ['G3']]);
    expect(alone(true).every((a) => a.shared === true)).toBe(true);
    expect(alone(false).map(removed(['G1', 'G2', 'G3']))).toEqual([['G1'], ['G3']]);
    expect(alone(false).some((a) => a.shared)).toBe(false);
  });

  it('has no call removed alone that repeats a call on the same guest (a redundant call is no rule instance)', () => {
    const twice = { ...reference, actions: [call('request_approval', 'G1'), ...reference.actions] } as Rollout;
    const rule = statedRules(TWO, TOOLS).find((r) => r.tool === 'request_approval');
    if (!rule) throw new Error('no rule');
    const alone = ablationsOf(twice, 0, rule, true).filter((a) => a.how === 'one call removed');
    expect(alone.map(removed(['G1', 'G2', 'G3']))).toEqual([['G2'], ['G3']]);
  });
});

// episodic-withheld's undone-later rule (validators/checks/episodic.ts undoneLater): an added call whose change the
// plan's later calls overwrite (clinic-scheduling at validation seed 33: a booking of a request the reference re-books)
// ends as the reference's state has it and is no evidence; a change that survives, or a state the rule cannot list,
// stays evidence. Reads moved earlier (a seen-list in another order) differ elsewhere and do not count.
import { describe, expect, it } from 'vitest';
import type { RolloutResult } from '../sandbox/rollouts.js';
import { undoneLater } from '../validators/checks/episodic.js';

const run = (state: unknown) => ({ ok: true, state }) as unknown as RolloutResult;
const reference = run({
  outcome: { R242: { doctor: 'D442' }, R250: { doctor: 'D189' } },
  seen: { doctors: ['a', 'b'] },
});

describe('undoneLater', () => {
  it('an added booking the reference re-books is undone, whatever else the reads reordered', () => {
    const replay = run({
      outcome: { R242: { doctor: 'D442' }, R250: { doctor: 'D189' } },
      seen: { doctors: ['b', 'a'] },
    });
    expect(undoneLater(replay, reference, ['$.outcome.R242'])).toBe(true);
  });

  it('a change that survives to the end, or a deeper or wider path of it, is not undone', () => {
    const kept = run({
      outcome: { R242: { doctor: 'D936' }, R250: { doctor: 'D189' } },
      seen: { doctors: ['a', 'b'] },
    });
    expect(undoneLater(kept, reference, ['$.outcome.R242'])).toBe(false);
    expect(undoneLater(kept, reference, ['$.outcome'])).toBe(false);
    expect(undoneLater(kept, reference, ['$.outcome.R242.doctor'])).toBe(false);
  });

  it('a change a finish files elsewhere (an archive) is kept: the final state differs (redteam-s20e S2)', () => {
    const closed = run({ orders: [], archive: [{ id: 'O-1', refunded: 25 }] });
    const filed = run({ orders: [], archive: [{ id: 'O-1', refunded: null }] });
    expect(undoneLater(closed, filed, ['$.orders.*.refunded'])).toBe(false);
    expect(undoneLater(filed, filed, ['$.orders.*.refunded'])).toBe(true);
    // Bookkeeping every turn changes (a turn count) is no kept effect.
    const turns = (n: number) => run({ turn: n, outcome: { R242: { doctor: 'D442' } } });
    expect(undoneLater(turns(5), turns(4), ['$.outcome.R242'], new Set(['$.turn']))).toBe(true);
    expect(undoneLater(turns(5), turns(4), ['$.outcome.R242'])).toBe(false);
  });

  it('is false where it cannot know: no state kept, a failed replay, nothing changed', () => {
    expect(undoneLater(run(undefined), reference, ['$.outcome.R242'])).toBe(false);
    expect(undoneLater({ ok: false } as unknown as RolloutResult, reference, ['$.outcome.R242'])).toBe(false);
    expect(undoneLater(run(reference.ok ? reference.state : null), reference, [])).toBe(false);
  });
});

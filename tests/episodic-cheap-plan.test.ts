// The cheap plans around an added withheld call (validators/episodic/cheap-plan.ts): a free choice is a call.
import { describe, expect, it } from 'vitest';
import { cheapPlans, namesEntity } from '../validators/episodic/cheap-plan.js';
import { A } from './helpers/episodic-meta.js';

describe('namesEntity', () => {
  it('matches a token of a string argument, case aside, not a longer id', () => {
    expect(namesEntity(A('read', { guest_id: 'g916' }), 'G916')).toBe(true);
    expect(namesEntity(A('note', { text: 'call G916 back' }), 'G916')).toBe(true);
    expect(namesEntity(A('read', { guest_id: 'G9160' }), 'G916')).toBe(false);
    expect(namesEntity(A('book', { nights: 916 }), '916')).toBe(false);
  });
});

describe('cheapPlans (redteam-trust14 X5b)', () => {
  const body = [
    A('list'),
    A('read', { guest_id: 'G1' }),
    A('read', { guest_id: 'G9' }),
    A('book', { guest_id: 'G1', nights: 3 }),
  ];
  const listing = (a: { tool: string }) => a.tool === 'list';

  it("drops the free tools' calls, then the entity's own calls (a scored read of the others keeps the tool)", () => {
    expect(cheapPlans(body, 4, 'G9', listing)).toEqual([
      { plan: body.slice(1), at: 3, how: 'without its free calls' },
      { plan: [body[1], body[3]], at: 2, how: 'without its free calls and its calls on G9' },
    ]);
  });

  it('places the added call among the calls kept before it', () => {
    const [, own] = cheapPlans(body, 3, 'G9', listing);
    expect(own).toEqual({ plan: [body[1], body[3]], at: 1, how: 'without its free calls and its calls on G9' });
  });

  it('offers no plan that drops nothing beyond the one before, unless the whole plan read the entity', () => {
    expect(cheapPlans(body, 4, 'G5', () => false)).toEqual([]);
    expect(cheapPlans(body, 4, 'G5', () => false, true)).toEqual([
      { plan: body, at: 4, how: 'without its free calls' },
    ]);
    expect(cheapPlans(body, 4, 'G9', () => false).map((p) => p.how)).toEqual([
      'without its free calls and its calls on G9',
    ]);
  });
});

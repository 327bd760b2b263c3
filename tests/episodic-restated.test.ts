// Values a reply restates (redteam-trust14 Y3): a desk ticket each reply shows and each booking spends is read from
// the reply before the added call, not copied from the reference's (spent) template.
import { describe, expect, it } from 'vitest';
import { refilled, restatedArgs } from '../validators/episodic/restated.js';
import { A } from './helpers/episodic-meta.js';

const plan = [
  A('read_guest', { guest_id: 'G101' }),
  A('book', { guest_id: 'G101', nights: 5, ticket: 'K1111' }),
  A('book', { guest_id: 'G303', nights: 5, ticket: 'K2222' }),
];
const replies = [
  'G101: check-in 2026-03-04, passport valid. (desk ticket K1111)',
  'G101: 5 nights booked. (desk ticket K2222)',
  'G303: 5 nights booked. (desk ticket K3333)',
];

describe('restated values', () => {
  it('finds the argument the reply before every call restates, and fills it from the latest reply', () => {
    const restated = restatedArgs(plan, replies, 'book', 'guest_id');
    expect(restated).toEqual([{ name: 'ticket', fromEnd: 0 }]);
    const call = A('book', { guest_id: 'G202', nights: 5, ticket: 'K1111' });
    expect(refilled(call, restated, 'G202: passport expired. (desk ticket K3333)').args).toEqual({
      guest_id: 'G202',
      nights: 5,
      ticket: 'K3333',
    });
  });

  it('takes no value for restated that is the same in every call or that a reply before a call does not show', () => {
    // The nights are the same twice; a ticket missing from the reply before the second call is no restated value.
    const hidden = [replies[0] as string, 'G101: 5 nights booked.', replies[2] as string];
    expect(restatedArgs(plan, hidden, 'book', 'guest_id')).toEqual([]);
  });
});

// Lists no arrangement of the prompt's list can be (an item repeated, the list doubled, an item replaced by
// its neighbour), sent where the answer is such an arrangement: order or multiset checks that accept them
// check too little. A full pass fails (partial credit per item stays fair).
import { zeroFamilyCheck } from './battery.js';

export const malformedListCheck = zeroFamilyCheck({
  name: 'malformed-list',
  family: 'malformed-list',
  code: 'E_ACCEPTS_MALFORMED_LIST',
});

// Count inversions: write a function that counts the pairs i < j with nums[i] > nums[j] (contract v3, the
// code kind). Levels grow the lists and their values; the hidden tests include the empty and one-item lists.
export const meta = {
  name: 'count-inversions',
  title: 'Count the inversions of a list',
  description: 'Write a function that counts the pairs of positions i < j of a list of integers with nums[i] > nums[j]. Scored 1 when every hidden test passes.',
  skills: ['sorting', 'counting'],
  levels: 6,
  kind: 'code',
  entry: 'countInversions',
  params: ['nums'],
  compare: 'exact',
  scoring: 'all-pass',
};

function countInversions(nums) {
  let count = 0;
  for (let i = 0; i < nums.length; i++) {
    for (let j = i + 1; j < nums.length; j++) {
      if (nums[i] > nums[j]) count++;
    }
  }
  return count;
}

function list(rng, length, hi) {
  return Array.from({ length }, () => rng.int(0, hi));
}

export function generate(rng, level) {
  const longest = 4 + 4 * level;
  const hi = 6 + 8 * level;
  const test = (nums) => ({ input: [nums], output: countInversions(nums) });
  const examples = [test(list(rng, 4, 9)), test(list(rng, 5, 9))];
  const tests = [test([]), test([rng.int(0, hi)]), test(list(rng, longest, 3))];
  while (tests.length < 12) tests.push(test(list(rng, rng.int(2, longest), hi)));
  return {
    statement: 'An inversion of a list is a pair of positions i < j whose items are out of order: nums[i] > nums[j]. Equal items are not an inversion. Count the inversions of a list of non-negative integers (it may be empty).',
    examples,
    tests,
  };
}

export function solve() {
  return String(countInversions);
}

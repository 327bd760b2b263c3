// Longest rising run: write a function that returns the longest contiguous strictly increasing stretch of
// a list, the first one on ties (contract v3, the code kind). Levels grow the lists.
export const meta = {
  name: 'longest-rising-run',
  title: 'The longest strictly rising run of a list',
  description: 'Write a function that returns the longest contiguous stretch of a list whose items strictly increase (the earliest on a tie; [] for an empty list). Scored 1 when every hidden test passes.',
  skills: ['arrays', 'scanning'],
  levels: 5,
  kind: 'code',
  entry: 'longestRise',
  params: ['values'],
  compare: 'exact',
  scoring: 'all-pass',
};

function longestRise(values) {
  let bestStart = 0;
  let bestLength = values.length > 0 ? 1 : 0;
  let start = 0;
  for (let i = 1; i < values.length; i++) {
    if (values[i] <= values[i - 1]) start = i;
    if (i - start + 1 > bestLength) {
      bestLength = i - start + 1;
      bestStart = start;
    }
  }
  return values.slice(bestStart, bestStart + bestLength);
}

function list(rng, length, lo, hi) {
  return Array.from({ length }, () => rng.int(lo, hi));
}

export function generate(rng, level) {
  const longest = 5 + 5 * level;
  const test = (values) => ({ input: [values], output: longestRise(values) });
  const examples = [test([3, 1, 2, 5, 4]), test(list(rng, 6, 0, 9))];
  const tests = [test([]), test([rng.int(-5, 5)]), test([4, 4, 4]), test(list(rng, longest, -3 * level, 3 * level))];
  while (tests.length < 14) tests.push(test(list(rng, rng.int(2, longest), -4 * level, 4 * level)));
  return {
    statement: 'A rising run of a list of integers is a contiguous stretch whose items strictly increase from left to right (a single item is a run of length 1). Return the longest rising run as a list; when several have the greatest length, return the one that starts first; for an empty list return [].',
    examples,
    tests,
  };
}

export function solve() {
  return String(longestRise);
}

// Window averages: write a function that returns the mean of every window of k consecutive readings
// (contract v3, the code kind, float comparator). Levels grow the series and the window.
export const meta = {
  name: 'window-averages',
  title: 'Moving averages over a window',
  description: 'Write a function that returns the mean of each window of k consecutive readings, in order. Outputs are compared with a relative tolerance of 1e-6. Scored 1 when every hidden test passes.',
  skills: ['sliding-window', 'arithmetic'],
  levels: 5,
  kind: 'code',
  entry: 'windowAverages',
  params: ['readings', 'k'],
  compare: 'float',
  scoring: 'all-pass',
};

function windowAverages(readings, k) {
  const out = [];
  let sum = 0;
  for (let i = 0; i < readings.length; i++) {
    sum += readings[i];
    if (i >= k) sum -= readings[i - k];
    if (i >= k - 1) out.push(sum / k);
  }
  return out;
}

export function generate(rng, level) {
  const longest = 6 + 6 * level;
  const test = (readings, k) => ({ input: [readings, k], output: windowAverages(readings, k) });
  const series = (length) => Array.from({ length }, () => rng.int(-20 * level, 50 * level) / 4);
  const examples = [test([1, 2, 3, 4], 2), test(series(5), 3)];
  const tests = [test(series(3), 3), test(series(4), 1), test(series(2), 3)];
  while (tests.length < 12) {
    const length = rng.int(3, longest);
    tests.push(test(series(length), rng.int(2, Math.min(length, 2 + level))));
  }
  return {
    statement: 'Given a list of sensor readings and a window size k (k >= 1), return the mean of every window of k consecutive readings, from the first window to the last. When the list has fewer than k readings, return [].',
    examples,
    tests,
  };
}

export function solve() {
  return String(windowAverages);
}

// Asks for the best total value of a 0/1 knapsack selection under a capacity; trains dynamic programming.
// Difficulty: the item count, weight and value ranges grow, and values become correlated with weights so greedy fails.

export const meta = {
  name: 'knapsack-value',
  title: 'Maximum value of a 0/1 knapsack',
  description: 'Given items with weights and values and a capacity, report the largest total value of a subset whose total weight fits. Exact answer only, no partial credit.',
  skills: ['dynamic-programming', 'optimization'],
  levels: 10,
};

// Each story names the capacity, the weight and the value so prompts differ in wording, not only numbers.
const THEMES = [
  { intro: 'A hiker packs a backpack that can hold at most {C} kg.', thing: 'item', weight: 'weight', unit: ' kg', value: 'value', vunit: ' points' },
  { intro: 'A cargo drone can lift at most {C} kg per flight.', thing: 'crate', weight: 'mass', unit: ' kg', value: 'payout', vunit: ' credits' },
  { intro: 'A studio has a budget of {C} thousand dollars for new projects.', thing: 'project', weight: 'cost', unit: 'k$', value: 'expected profit', vunit: 'k$' },
  { intro: 'A ship has room for at most {C} cubic metres of cargo.', thing: 'container', weight: 'volume', unit: ' m3', value: 'value', vunit: ' coins' },
];

// Difficulty knobs for each level (1 = easy, 10 = hard for a strong model).
function knobs(level) {
  const i = level - 1;
  return {
    items: [5, 7, 9, 12, 15, 18, 22, 26, 31, 36][i],
    maxWeight: [10, 12, 15, 20, 25, 30, 40, 50, 60, 80][i],
    maxValue: [50, 60, 70, 80, 100, 150, 200, 300, 500, 999][i],
    // Values close to proportional to weights make value-per-weight greedy useless.
    correlated: level >= 5,
  };
}

// Classic O(items x capacity) table over remaining capacity, iterated downwards so each item is used once.
function bestValue(weights, values, capacity) {
  const best = new Array(capacity + 1).fill(0);
  for (let i = 0; i < weights.length; i++) {
    for (let c = capacity; c >= weights[i]; c--) {
      const take = best[c - weights[i]] + values[i];
      if (take > best[c]) best[c] = take;
    }
  }
  return best[capacity];
}

export function generate(rng, level) {
  const k = knobs(level);
  const weights = [];
  const values = [];
  for (let i = 0; i < k.items; i++) {
    const w = rng.int(1, k.maxWeight);
    const v = k.correlated
      ? Math.min(k.maxValue, Math.max(1, Math.round((w * k.maxValue) / k.maxWeight * rng.int(80, 110) / 100) + rng.int(-3, 3)))
      : rng.int(1, k.maxValue);
    weights.push(w);
    values.push(v);
  }
  const total = weights.reduce((a, b) => a + b, 0);
  // Between a third and three fifths of the total weight: taking everything never fits, taking nothing never wins.
  const capacity = Math.max(Math.max(...weights), Math.round(total * rng.int(35, 60) / 100));
  const answer = bestValue(weights, values, capacity);
  const t = rng.pick(THEMES);
  const lines = weights.map((w, i) => `${t.thing} ${i + 1}: ${t.weight} ${w}${t.unit}, ${t.value} ${values[i]}${t.vunit}`);
  const prompt = [
    t.intro.replace('{C}', String(capacity)),
    `There are ${k.items} ${t.thing}s; each can be chosen at most once:`,
    ...lines,
    '',
    `Choose a subset whose total ${t.weight} is at most ${capacity}${t.unit} and whose total ${t.value} is as large as possible.`,
    `What is that maximum total ${t.value}? Give only the number as <answer>N</answer>, where N is that integer.`,
  ].join('\n');
  return { prompt, answer, weights, values, capacity };
}

export function solve(instance) {
  return `<answer>${instance.answer}</answer>`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  // kit.number also accepts equivalent spellings such as 120.0 of the same value.
  const n = kit.number(text);
  if (n === null) return { score: 0, feedback: 'answer is not a number' };
  if (n !== instance.answer) return { score: 0, feedback: 'not the maximum total value' };
  return { score: 1, feedback: 'correct' };
}

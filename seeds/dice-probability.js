// Asks for the exact probability that the total of a roll of several fair (possibly unusual) dice meets a
// condition, training exact probability by counting.
// Difficulty: the number of dice, their sizes, how many have custom faces and the kind of condition on the
// total grow with the level.

export const meta = {
  name: 'dice-probability',
  title: 'Exact probability of a dice total',
  description: 'Compute the exact probability, as a fraction, that the sum of a roll of several independent fair dice ' +
    '(standard or with listed faces) meets a stated condition; any equivalent fraction is accepted, decimals are not.',
  skills: ['probability', 'combinatorics', 'counting'],
  levels: 10,
};

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
const OPENINGS = [
  'You roll the following fair dice together',
  'A player throws these fair dice at the same time',
  'The following fair dice are rolled once, all together',
  'A game master rolls this handful of fair dice',
];

// Difficulty knobs for each level (1 = easy, 10 = hard for a strong model).
// dice: [min, max] count; sides: standard die sizes to draw from; custom: max dice with listed faces; conditions: allowed kinds.
function knobs(level) {
  const basic = ['eq', 'ge', 'le'];
  return [
    { dice: [2, 2], sides: [4, 6, 8, 10, 12], custom: 0, conditions: basic },
    { dice: [2, 3], sides: [4, 6, 8, 10], custom: 0, conditions: [...basic, 'range'] },
    { dice: [3, 3], sides: [4, 6, 8, 10, 12], custom: 0, conditions: [...basic, 'range', 'div'] },
    { dice: [4, 4], sides: [4, 6, 8, 10, 12], custom: 0, conditions: [...basic, 'range', 'div'] },
    { dice: [5, 5], sides: [4, 6, 8, 10, 12, 20], custom: 1, conditions: [...basic, 'range', 'div', 'prime'] },
    { dice: [6, 6], sides: [4, 6, 8, 10, 12, 20], custom: 1, conditions: ['eq', 'range', 'div', 'prime', 'rangeDiv'] },
    { dice: [7, 7], sides: [6, 8, 10, 12, 20], custom: 2, conditions: ['eq', 'range', 'div', 'prime', 'rangeDiv'] },
    { dice: [8, 8], sides: [6, 8, 10, 12, 20], custom: 2, conditions: ['eq', 'range', 'div', 'prime', 'rangeDiv'] },
    { dice: [9, 9], sides: [8, 10, 12, 20], custom: 3, conditions: ['eq', 'range', 'prime', 'rangeDiv'] },
    { dice: [10, 11], sides: [8, 10, 12, 20], custom: 3, conditions: ['eq', 'range', 'prime', 'rangeDiv'] },
  ][level - 1];
}

function gcd(a, b) {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

function isPrime(n) {
  if (n < 2) return false;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}

// counts[s] = number of equally likely outcomes with total s; every count is at most 20^11 < 2^53, so exact.
function distribution(dice) {
  let counts = [1];
  for (const faces of dice) {
    const next = new Array(counts.length + Math.max(...faces)).fill(0);
    for (let s = 0; s < counts.length; s++) {
      if (counts[s] === 0) continue;
      for (const f of faces) next[s + f] += counts[s];
    }
    counts = next;
  }
  return counts;
}

function holds(cond, s) {
  if (cond.kind === 'eq') return s === cond.t;
  if (cond.kind === 'ge') return s >= cond.t;
  if (cond.kind === 'le') return s <= cond.t;
  if (cond.kind === 'range') return s >= cond.lo && s <= cond.hi;
  if (cond.kind === 'div') return s % cond.m === 0;
  if (cond.kind === 'prime') return isPrime(s);
  return s >= cond.lo && s <= cond.hi && s % cond.m === 0;
}

function describe(cond) {
  if (cond.kind === 'eq') return `exactly ${cond.t}`;
  if (cond.kind === 'ge') return `at least ${cond.t}`;
  if (cond.kind === 'le') return `at most ${cond.t}`;
  if (cond.kind === 'range') return `between ${cond.lo} and ${cond.hi} inclusive`;
  if (cond.kind === 'div') return `divisible by ${cond.m}`;
  if (cond.kind === 'prime') return 'a prime number';
  return `between ${cond.lo} and ${cond.hi} inclusive and also divisible by ${cond.m}`;
}

// Thresholds are drawn from the reachable sums so the event is neither impossible nor certain most of the time.
function drawCondition(rng, kind, lo, hi, few) {
  const mid = Math.round((lo + hi) / 2);
  // With two dice the middle totals share one plateau probability, so draw from the whole range there.
  const spread = few ? hi - lo : Math.max(1, Math.round((hi - lo) / 3));
  if (kind === 'eq') return { kind, t: rng.int(Math.max(lo, mid - spread), Math.min(hi, mid + spread)) };
  if (kind === 'ge' || kind === 'le') return { kind, t: rng.int(lo + 1, hi - 1) };
  if (kind === 'div') return { kind, m: rng.int(3, 9) };
  if (kind === 'prime') return { kind };
  const a = rng.int(lo, hi);
  const b = rng.int(lo, hi);
  const cond = { kind, lo: Math.min(a, b), hi: Math.max(a, b) };
  if (kind === 'rangeDiv') cond.m = rng.int(2, 7);
  return cond;
}

function drawCustomDie(rng) {
  const size = rng.pick([4, 6, 8]);
  const faces = [];
  for (let i = 0; i < size; i++) faces.push(rng.int(0, 12));
  // At least two distinct faces, so the die is really random.
  if (faces.every((f) => f === faces[0])) faces[0] = (faces[0] + 1) % 13;
  return faces.sort((x, y) => x - y);
}

export function generate(rng, level) {
  const k = knobs(level);
  const count = rng.int(k.dice[0], k.dice[1]);
  const customCount = rng.int(0, Math.min(k.custom, count - 1));
  const standard = [];
  for (let i = 0; i < count - customCount; i++) standard.push(rng.pick(k.sides));
  standard.sort((x, y) => x - y);
  const custom = [];
  for (let i = 0; i < customCount; i++) custom.push(drawCustomDie(rng));
  const dice = [...standard.map((s) => Array.from({ length: s }, (_, i) => i + 1)), ...custom];
  const counts = distribution(dice);
  const total = dice.reduce((p, d) => p * d.length, 1);
  const lo = dice.reduce((acc, d) => acc + d[0], 0);
  const hi = counts.length - 1;

  // Redraw conditions until the event is neither impossible nor certain; "exactly the minimum" always qualifies.
  let cond = null;
  let hits = 0;
  for (let attempt = 0; attempt < 30 && cond === null; attempt++) {
    const candidate = drawCondition(rng, rng.pick(k.conditions), lo, hi, count <= 2);
    let n = 0;
    for (let s = lo; s <= hi; s++) if (holds(candidate, s)) n += counts[s];
    if (n > 0 && n < total) [cond, hits] = [candidate, n];
  }
  if (cond === null) [cond, hits] = [{ kind: 'eq', t: lo }, counts[lo]];
  const g = gcd(hits, total);

  // Group equal standard dice ("three 6-sided dice") and list the custom ones one by one.
  const groups = [];
  for (const s of standard) {
    if (groups.length > 0 && groups[groups.length - 1].s === s) groups[groups.length - 1].n++;
    else groups.push({ s, n: 1 });
  }
  const items = groups.map(({ s, n }) => `${WORDS[n]} ${s}-sided ${n === 1 ? 'die' : 'dice'} (faces 1 to ${s})`);
  for (const faces of custom) items.push(`one ${faces.length}-sided die with faces ${faces.join(', ')}`);
  const shuffled = rng.shuffle(items);
  const prompt = [
    `${rng.pick(OPENINGS)}:`,
    ...shuffled.map((it) => `- ${it}`),
    '',
    `Every face of every die is equally likely and the dice are independent${customCount > 0 ? ' (a face value listed twice is twice as likely on that die)' : ''}.`,
    `What is the probability that the sum of the ${count} top faces is ${describe(cond)}?`,
    'Give the exact probability as a fraction p/q in lowest terms (an exact fraction, not a decimal), in the form <answer>p/q</answer>.',
  ].join('\n');
  return { prompt, answer: `${hits / g}/${total / g}`, num: hits / g, den: total / g };
}

export function solve(instance) {
  return `<answer>${instance.answer}</answer>`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  if (text.length > 80) return { score: 0, feedback: 'answer is not a fraction p/q' };
  const parts = text.split('/');
  if (parts.length > 2) return { score: 0, feedback: 'answer is not a fraction p/q' };
  let p = kit.int(parts[0]);
  let q = parts.length === 2 ? kit.int(parts[1]) : 1;
  if (p === null || q === null || q === 0) return { score: 0, feedback: 'answer is not an exact fraction p/q (decimals are not accepted)' };
  if (q < 0) [p, q] = [-p, -q];
  // Equal fractions have identical lowest terms, so comparing reduced forms is exact without big integers.
  const g = gcd(p, q) || 1;
  if (p / g !== instance.num || q / g !== instance.den) return { score: 0, feedback: 'wrong probability' };
  return { score: 1, feedback: 'correct' };
}

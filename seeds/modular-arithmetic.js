// Asks for the smallest integer at or above a bound that satisfies a system of linear congruences, training
// number theory: modular inverses and the Chinese remainder theorem, also when the moduli share factors.
// Difficulty: more congruences, larger moduli, more congruences with a coefficient on x, shared factors, a large lower bound.

export const meta = {
  name: 'modular-arithmetic',
  title: 'Solve a system of linear congruences',
  description: 'Find the smallest integer x at or above a given bound that satisfies every congruence of a system ' +
    '(some of the form c*x ≡ b (mod m), moduli not always coprime); one exact integer, no partial credit.',
  skills: ['number-theory', 'modular-arithmetic'],
  levels: 10,
};

// Difficulty knobs for each level (1 = easy, 10 = hard for a strong model).
// maxMod ** count stays below LCM_CAP, so pickModulus never has to give up on a congruence for size reasons.
const LEVELS = [
  { count: 2, minMod: 3, maxMod: 12, coefShare: 0, coprime: true, boundDigits: 0, negShare: 0 },
  { count: 2, minMod: 5, maxMod: 30, coefShare: 0, coprime: true, boundDigits: 0, negShare: 0 },
  { count: 3, minMod: 5, maxMod: 40, coefShare: 0.3, coprime: true, boundDigits: 0, negShare: 0 },
  { count: 3, minMod: 6, maxMod: 60, coefShare: 0.4, coprime: false, boundDigits: 0, negShare: 0 },
  { count: 4, minMod: 6, maxMod: 80, coefShare: 0.4, coprime: false, boundDigits: 4, negShare: 0.1 },
  { count: 4, minMod: 10, maxMod: 150, coefShare: 0.5, coprime: false, boundDigits: 5, negShare: 0.15 },
  { count: 5, minMod: 10, maxMod: 150, coefShare: 0.5, coprime: false, boundDigits: 6, negShare: 0.2 },
  { count: 5, minMod: 20, maxMod: 400, coefShare: 0.6, coprime: false, boundDigits: 8, negShare: 0.2 },
  { count: 6, minMod: 20, maxMod: 300, coefShare: 0.6, coprime: false, boundDigits: 10, negShare: 0.25 },
  { count: 7, minMod: 20, maxMod: 160, coefShare: 0.7, coprime: false, boundDigits: 12, negShare: 0.25 },
];
function knobs(level) {
  return LEVELS[Math.min(Math.max(level, 1), LEVELS.length) - 1];
}

const MAX_TRIES = 400;
// Keeps bound + lcm, and every value verify computes, inside the safe-integer range.
const LCM_CAP = 2 ** 52;

function gcd(a, b) {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

// Always in [0, m), also for negative a (JS % keeps the sign of the dividend).
function mod(a, m) {
  return ((a % m) + m) % m;
}

// A fresh modulus that keeps the system informative: coprime to all earlier ones when required, and never
// a divisor of their lcm (it would add no information). null when none is found: the system is then shorter.
function pickModulus(rng, k, lcm, used) {
  for (let t = 0; t < MAX_TRIES; t++) {
    const m = rng.int(k.minMod, k.maxMod);
    const g = gcd(m, lcm);
    if (used.includes(m) || (lcm / g) * m > LCM_CAP) continue;
    if (k.coprime ? g === 1 : lcm % m !== 0) return m;
  }
  return null;
}

// A coefficient invertible modulo m, so c*x ≡ b (mod m) pins x down modulo m exactly.
function pickCoefficient(rng, m) {
  for (let t = 0; t < MAX_TRIES; t++) {
    const c = rng.int(2, m - 1);
    if (gcd(c, m) === 1) return c;
  }
  return m - 1;
}

function render(rng, k, { c, b, m }) {
  // A negative representative of the residue exercises normalisation without changing the system.
  const shown = b !== 0 && rng.float() < k.negShare ? b - m : b;
  if (c === 1) {
    return rng.pick([
      `x ≡ ${shown} (mod ${m})`,
      `x leaves remainder ${b} when divided by ${m}`,
      shown === 0 ? `x is divisible by ${m}` : `x ${shown < 0 ? '+' : '-'} ${Math.abs(shown)} is divisible by ${m}`,
    ]);
  }
  return rng.pick([
    `${c}*x ≡ ${shown} (mod ${m})`,
    `${c}*x leaves remainder ${b} when divided by ${m}`,
  ]);
}

export function generate(rng, level) {
  const k = knobs(level);
  const moduli = [];
  let lcm = 1;
  for (let i = 0; i < k.count; i++) {
    const m = pickModulus(rng, k, lcm, moduli);
    if (m === null) continue;
    moduli.push(m);
    lcm = (lcm / gcd(lcm, m)) * m;
  }
  const bound = k.boundDigits === 0 ? 0 : rng.int(10 ** (k.boundDigits - 1), 10 ** k.boundDigits - 1);
  // Planted solution: every congruence is built from x, so the system is consistent and x is unique in [bound, bound + lcm).
  const x = bound + rng.int(0, lcm - 1);
  const congruences = moduli.map((m) => {
    const c = rng.float() < k.coefShare ? pickCoefficient(rng, m) : 1;
    return { c, b: (c * mod(x, m)) % m, m };
  });
  const lines = congruences.map((q, i) => `${i + 1}. ${render(rng, k, q)}`);
  const goal = bound === 0
    ? 'Find the smallest non-negative integer x that satisfies all of the following conditions.'
    : `Find the smallest integer x with x ≥ ${bound} that satisfies all of the following conditions.`;
  const prompt = [
    goal,
    '',
    ...lines,
    '',
    'Here "a ≡ b (mod m)" means that a - b is divisible by m, and "*" is multiplication. A solution is guaranteed to exist.',
    'Give the final answer as a single integer in base 10, as <answer>N</answer>.',
  ].join('\n');
  return { prompt, answer: x, congruences, bound, lcm };
}

export function solve(instance) {
  return `<answer>${instance.answer}</answer>`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  const x = kit.int(text);
  if (x === null) return { score: 0, feedback: 'the answer is not an integer' };
  // The solutions are exactly one residue class modulo lcm, so a checked candidate in [bound, bound + lcm) is the answer.
  for (const { c, b, m } of instance.congruences) {
    if ((c * mod(x, m)) % m !== b) return { score: 0, feedback: `x = ${x} violates the condition with modulus ${m}` };
  }
  if (x < instance.bound) return { score: 0, feedback: `x = ${x} is below the bound ${instance.bound}` };
  if (x >= instance.bound + instance.lcm) return { score: 0, feedback: `x = ${x} satisfies the system but is not the smallest` };
  return { score: 1, feedback: 'correct' };
}

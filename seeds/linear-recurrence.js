// Asks for a far-off term of an integer sequence whose linear recurrence must first be inferred from its
// opening terms, training sequence reasoning.
// Difficulty: the recurrence order, the coefficient range, a stated modulus and the distance to the requested
// index grow with the level.

export const meta = {
  name: 'linear-recurrence',
  title: 'Infer a linear recurrence and extrapolate',
  description: 'Infer the constants of a linear recurrence (possibly with a constant term and a stated modulus) ' +
    'from the first terms of an integer sequence, then report the term at a requested, possibly very distant, index.',
  skills: ['sequences', 'linear-algebra', 'modular-arithmetic'],
  levels: 10,
};

// Prime used only to certify uniqueness at levels without a modulus: full rank mod p implies full rank over Q.
const CHECK_PRIME = 1000003;
// Every term printed or asked for stays well inside the safe-integer range.
const LIMIT = 1e15;
const ATTEMPTS = 400;
const LETTERS = ['a', 'b', 'u', 'x', 's', 't'];

// Difficulty knobs for each level (1 = easy, 10 = hard for a strong model).
// coef: coefficient range ([0, m-1] when null at modular levels); mod: prime range or null; extra: terms beyond
// the minimum needed to pin the constants; ahead: distance from the last shown index to the asked index.
function knobs(level) {
  return [
    { order: 1, constant: true, coef: [-3, 4], mod: null, extra: 2, ahead: [2, 3] },
    { order: 2, constant: false, coef: [-3, 3], mod: null, extra: 2, ahead: [2, 4] },
    { order: 2, constant: true, coef: [-3, 3], mod: null, extra: 2, ahead: [3, 5] },
    { order: 3, constant: false, coef: [-2, 3], mod: null, extra: 2, ahead: [3, 6] },
    { order: 3, constant: true, coef: [-2, 2], mod: null, extra: 2, ahead: [4, 7] },
    { order: 2, constant: true, coef: [1, 6], mod: [101, 997], extra: 2, ahead: [40, 300] },
    { order: 3, constant: true, coef: null, mod: [1009, 9973], extra: 2, ahead: [1000, 5000] },
    { order: 3, constant: true, coef: null, mod: [10007, 99991], extra: 3, ahead: [100000, 1000000] },
    { order: 4, constant: true, coef: null, mod: [100003, 999983], extra: 3, ahead: [100000000, 1000000000] },
    { order: 5, constant: true, coef: null, mod: [100003, 999983], extra: 3, ahead: [1000000000000, 1000000000000000] },
  ][level - 1];
}

function isPrime(n) {
  if (n < 2) return false;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}

function nextPrime(n) {
  let p = n;
  while (!isPrime(p)) p++;
  return p;
}

function modOf(x, m) {
  const r = x % m;
  return r < 0 ? r + m : r;
}

// Operands stay below ~1e6, so every product is exact in doubles.
function modInverse(a, m) {
  let [r0, r1, s0, s1] = [m, a, 0, 1];
  while (r1 !== 0) {
    const q = Math.floor(r0 / r1);
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return modOf(s0, m);
}

// Rank over Z_p of the system "term n = sum c_i term(n-i) + d": full column rank means the shown terms fix the rule.
function determinedModP(terms, order, constant, p) {
  const cols = order + (constant ? 1 : 0);
  const rows = [];
  for (let n = order; n < terms.length; n++) {
    const row = [];
    for (let i = 1; i <= order; i++) row.push(modOf(terms[n - i], p));
    if (constant) row.push(1);
    rows.push(row);
  }
  let rank = 0;
  for (let col = 0; col < cols && rank < rows.length; col++) {
    let pivot = rank;
    while (pivot < rows.length && rows[pivot][col] === 0) pivot++;
    if (pivot === rows.length) return false;
    [rows[rank], rows[pivot]] = [rows[pivot], rows[rank]];
    const inv = modInverse(rows[rank][col], p);
    for (let r = rank + 1; r < rows.length; r++) {
      const f = (rows[r][col] * inv) % p;
      if (f === 0) continue;
      for (let c = col; c < cols; c++) rows[r][c] = modOf(rows[r][c] - ((f * rows[rank][c]) % p), p);
    }
    rank++;
  }
  return rank === cols;
}

function matMul(x, y, m) {
  const n = x.length;
  const out = [];
  for (let i = 0; i < n; i++) {
    const row = new Array(n).fill(0);
    for (let k = 0; k < n; k++) {
      if (x[i][k] === 0) continue;
      for (let j = 0; j < n; j++) row[j] = (row[j] + x[i][k] * y[k][j]) % m;
    }
    out.push(row);
  }
  return out;
}

// Term at 0-based position `index` of a modular recurrence, by fast exponentiation of the companion matrix.
function modTerm(coefs, d, initial, index, m) {
  const k = coefs.length;
  if (index < k) return initial[index];
  const size = k + 1;
  let base = [];
  for (let i = 0; i < size; i++) base.push(new Array(size).fill(0));
  for (let i = 0; i < k; i++) base[0][i] = coefs[i];
  base[0][k] = d;
  for (let i = 1; i < k; i++) base[i][i - 1] = 1;
  base[k][k] = 1;
  let power = [];
  for (let i = 0; i < size; i++) power.push(Array.from({ length: size }, (_, j) => (i === j ? 1 : 0)));
  let e = index - (k - 1);
  while (e > 0) {
    if (e % 2 === 1) power = matMul(power, base, m);
    base = matMul(base, base, m);
    e = Math.floor(e / 2);
  }
  const state = [];
  for (let i = k - 1; i >= 0; i--) state.push(initial[i]);
  state.push(1);
  let value = 0;
  for (let j = 0; j < size; j++) value = (value + power[0][j] * state[j]) % m;
  return value;
}

function drawRule(rng, k) {
  const mod = k.mod ? nextPrime(rng.int(k.mod[0], k.mod[1])) : null;
  const coefs = [];
  for (let i = 0; i < k.order; i++) {
    let c = k.coef ? rng.int(k.coef[0], k.coef[1]) : rng.int(0, mod - 1);
    // A zero last coefficient would silently lower the stated order.
    while (i === k.order - 1 && c === 0) c = k.coef ? rng.int(k.coef[0], k.coef[1]) : rng.int(1, mod - 1);
    coefs.push(c);
  }
  const d = !k.constant ? 0 : mod ? rng.int(0, mod - 1) : rng.int(-9, 9);
  const initial = [];
  for (let i = 0; i < k.order; i++) initial.push(mod ? rng.int(0, mod - 1) : rng.int(-5, 9));
  return { mod, coefs, d, initial };
}

// Plain integer iteration (modular reduction when m is given) up to and including position `last`.
function iterate(rule, last) {
  const terms = rule.initial.slice(0, last + 1);
  for (let n = terms.length; n <= last; n++) {
    let v = rule.d;
    for (let i = 0; i < rule.coefs.length; i++) v += rule.coefs[i] * terms[n - 1 - i];
    if (rule.mod) v = modOf(v, rule.mod);
    if (Math.abs(v) > LIMIT) return null;
    terms.push(v);
  }
  return terms;
}

function formatRule(letter, order, constant, mod) {
  const parts = [];
  for (let i = 1; i <= order; i++) parts.push(`c${i}·${letter}(n−${i})`);
  if (constant) parts.push('d');
  const body = parts.join(' + ');
  return mod ? `${letter}(n) = (${body}) mod ${mod}` : `${letter}(n) = ${body}`;
}

export function generate(rng, level) {
  const k = knobs(level);
  const unknowns = k.order + (k.constant ? 1 : 0);
  const shown = k.order + unknowns + k.extra;
  const ahead = rng.int(k.ahead[0], k.ahead[1]);
  const target = shown - 1 + ahead;
  // Redraw until the shown terms pin the constants uniquely (and, without a modulus, stay in range); a
  // failure is rare, so the bounded loop always ends with a valid rule in practice.
  let rule = null;
  let terms = null;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const candidate = drawRule(rng, k);
    const seq = iterate(candidate, k.mod ? shown - 1 : target);
    if (seq === null) continue;
    // Periodic sequences (e.g. c1 = -1) would let the answer be read off the shown terms.
    if (!k.mod && seq.slice(0, shown).includes(seq[target])) continue;
    if (!determinedModP(seq.slice(0, shown), k.order, k.constant, candidate.mod || CHECK_PRIME)) continue;
    rule = candidate;
    terms = seq;
    break;
  }
  if (rule === null) {
    // Deterministic fallback, checked for every level in development: a(n) = 2a(n-1) + a(n-k) (+1), start 1, 2, ….
    const coefs = new Array(k.order).fill(0);
    coefs[0] = 2;
    coefs[k.order - 1] += 1;
    rule = { mod: k.mod ? nextPrime(k.mod[0]) : null, coefs, d: k.constant ? 1 : 0, initial: coefs.map((_, i) => i + 1) };
    terms = iterate(rule, k.mod ? shown - 1 : target);
  }
  const answer = k.mod ? modTerm(rule.coefs, rule.d, rule.initial, target, rule.mod) : terms[target];

  const letter = rng.pick(LETTERS);
  const base = rng.int(0, 1);
  const consts = [];
  for (let i = 1; i <= k.order; i++) consts.push(`c${i}`);
  if (k.constant) consts.push('d');
  const constList = consts.length === 1 ? consts[0] : `${consts.slice(0, -1).join(', ')} and ${consts[consts.length - 1]}`;
  const range = rule.mod
    ? `where ${constList} are fixed integers in 0..${rule.mod - 1} and "mod ${rule.mod}" means the remainder in 0..${rule.mod - 1}`
    : `where ${constList} are fixed integers (positive, negative or zero)`;
  const shownTerms = terms.slice(0, shown);
  const listing = rng.int(0, 1) === 0
    ? `${shownTerms.map((v, i) => `${letter}(${base + i}) = ${v}`).join(', ')}`
    : `${letter}(${base}), …, ${letter}(${base + shown - 1}) are: ${shownTerms.join(', ')}`;
  const intro = rng.pick([
    `An integer sequence ${letter}(${base}), ${letter}(${base + 1}), ${letter}(${base + 2}), … follows a linear recurrence of order ${k.order}`,
    `The terms of an integer sequence ${letter} obey an order-${k.order} linear recurrence`,
    `A hidden rule generates the integer sequence ${letter}: it is a linear recurrence of order ${k.order}`,
  ]);
  const prompt = [
    `${intro}${k.constant ? ' with a constant term' : ' with no constant term'}: for every n ≥ ${base + k.order},`,
    `  ${formatRule(letter, k.order, k.constant, rule.mod)}`,
    `${range}. You are not told these constants; the terms below determine them uniquely.`,
    '',
    `The first ${shown} terms: ${listing}.`,
    '',
    `What is ${letter}(${base + target})?${rule.mod ? ` (It lies in 0..${rule.mod - 1}.)` : ''}`,
    'Give the final answer as a single integer in the form <answer>N</answer>.',
  ].join('\n');
  return { prompt, answer, index: base + target, mod: rule.mod };
}

export function solve(instance) {
  return `<answer>${instance.answer}</answer>`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  if (text.length > 40) return { score: 0, feedback: 'answer is not a single integer' };
  const value = kit.int(text);
  if (value === null) return { score: 0, feedback: 'answer is not a single integer' };
  if (value !== instance.answer) return { score: 0, feedback: `wrong term for index ${instance.index}` };
  return { score: 1, feedback: 'correct' };
}

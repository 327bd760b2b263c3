// Evaluates an integer arithmetic expression given as text (+, -, *, floor division, modulo, parentheses),
// training parsing with operator precedence and associativity plus exact arithmetic.
// Difficulty: more operators, deeper nesting, larger literals and results, then negative literals, / and %.

export const meta = {
  name: 'expression-eval',
  title: 'Evaluate an integer arithmetic expression',
  description: 'Evaluate an integer expression with +, -, *, floor division, modulo and parentheses, respecting ' +
    'precedence and left associativity; one exact integer, no partial credit.',
  skills: ['parsing', 'arithmetic'],
  levels: 10,
};

// Difficulty knobs for each level (1 = easy, 10 = hard for a strong model).
// cap bounds |value| of every subexpression, so all arithmetic stays exact in doubles.
const LEVELS = [
  { ops: 3, maxLit: 9, cap: 1e3, negShare: 0, divMod: false, extraParens: 0 },
  { ops: 4, maxLit: 12, cap: 1e4, negShare: 0, divMod: false, extraParens: 0.05 },
  { ops: 6, maxLit: 20, cap: 1e4, negShare: 0.1, divMod: false, extraParens: 0.1 },
  { ops: 8, maxLit: 30, cap: 1e5, negShare: 0.1, divMod: true, extraParens: 0.1 },
  { ops: 11, maxLit: 50, cap: 1e6, negShare: 0.15, divMod: true, extraParens: 0.15 },
  { ops: 14, maxLit: 99, cap: 1e7, negShare: 0.15, divMod: true, extraParens: 0.15 },
  { ops: 18, maxLit: 150, cap: 1e8, negShare: 0.2, divMod: true, extraParens: 0.2 },
  { ops: 23, maxLit: 300, cap: 1e9, negShare: 0.2, divMod: true, extraParens: 0.2 },
  { ops: 29, maxLit: 600, cap: 1e10, negShare: 0.25, divMod: true, extraParens: 0.25 },
  { ops: 36, maxLit: 999, cap: 1e11, negShare: 0.25, divMod: true, extraParens: 0.25 },
];
function knobs(level) {
  return LEVELS[Math.min(Math.max(level, 1), LEVELS.length) - 1];
}

// Binding strength: a higher number binds tighter; literals and parenthesised groups are atoms.
const PREC = { '+': 1, '-': 1, '*': 2, '/': 2, '%': 2 };
const ATOM = 3;

// Integer-only floor division and remainder (the remainder takes the sign of the divisor), computed from the
// exact truncated remainder rather than Math.floor(a / b), so no floating-point rounding can creep in.
function floorMod(a, b) {
  const r = a % b;
  if (r === 0) return 0;
  return (r < 0) !== (b < 0) ? r + b : r;
}

function floorDiv(a, b) {
  return (a - floorMod(a, b)) / b;
}

function apply(op, a, b) {
  if (op === '+') return a + b;
  if (op === '-') return a - b;
  // "+ 0" turns a -0 product into 0.
  if (op === '*') return a * b + 0;
  if (op === '/') return floorDiv(a, b) + 0;
  return floorMod(a, b);
}

// Whether op is worth using on these operands: results stay under the cap, and / and % get a nonzero
// divisor no larger than the dividend, so they neither crash nor collapse to a trivial 0.
function usable(op, a, b, k) {
  if (op === '/' || op === '%') return b !== 0 && Math.abs(b) <= Math.abs(a) && Math.abs(b) > 1;
  return Math.abs(apply(op, a, b)) <= k.cap;
}

function wrap(node) {
  return { text: `(${node.text})`, value: node.value, prec: ATOM };
}

// A random expression with exactly `ops` binary operators; each node carries its printed text, its value and
// its precedence, so the parent knows where parentheses are required.
function build(rng, k, ops) {
  if (ops === 0) {
    const v = rng.int(1, k.maxLit);
    return rng.float() < k.negShare ? { text: `(-${v})`, value: -v, prec: ATOM } : { text: String(v), value: v, prec: ATOM };
  }
  const leftOps = rng.int(0, ops - 1);
  const left = build(rng, k, leftOps);
  const right = build(rng, k, ops - 1 - leftOps);
  const wanted = rng.pick(k.divMod ? ['+', '-', '*', '*', '/', '%'] : ['+', '-', '*']);
  // |a + b| or |a - b| is at most max(|a|, |b|) for one of the two, so the fallback always keeps the cap.
  const op = usable(wanted, left.value, right.value, k) ? wanted
    : usable('*', left.value, right.value, k) && rng.float() < 0.5 ? '*'
    : Math.abs(left.value + right.value) <= Math.abs(left.value - right.value) ? '+' : '-';
  const p = PREC[op];
  // Left associativity: the left operand needs parentheses only when it binds looser, the right one also when equal.
  // Some redundant parentheses around compound operands, so that grouping is not a reliable precedence cue.
  const extra = (node) => node.prec !== ATOM && rng.float() < k.extraParens;
  const l = left.prec < p || extra(left) ? wrap(left) : left;
  const r = right.prec <= p || extra(right) ? wrap(right) : right;
  return { text: `${l.text} ${op} ${r.text}`, value: apply(op, left.value, right.value), prec: p };
}

export function generate(rng, level) {
  const k = knobs(level);
  const expr = build(rng, k, k.ops);
  const rules = ['Operators: + (addition), - (subtraction), * (multiplication).'];
  if (k.divMod) {
    rules[0] = 'Operators: + (addition), - (subtraction), * (multiplication), / (integer division), % (remainder).';
    rules.push('a / b is integer division rounded DOWN toward negative infinity, and a % b = a - b * (a / b), so the ' +
      'remainder has the sign of b. Examples: 17 / 5 = 3, 17 % 5 = 2, -17 / 5 = -4, -17 % 5 = 3, 17 / -5 = -4, 17 % -5 = -3.');
  }
  rules.push(`Usual precedence: ${k.divMod ? '*, / and % bind' : '* binds'} tighter than + and -; operators of equal ` +
    'precedence are applied left to right; parentheses group first. All numbers are integers.');
  const prompt = [
    'Evaluate the following integer expression exactly.',
    '',
    expr.text,
    '',
    ...rules,
    'Give the final answer as a single integer in base 10, as <answer>N</answer>.',
  ].join('\n');
  return { prompt, answer: expr.value };
}

export function solve(instance) {
  return `<answer>${instance.answer}</answer>`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  const value = kit.int(text);
  if (value === null) return { score: 0, feedback: 'the answer is not an integer' };
  if (value !== instance.answer) return { score: 0, feedback: 'wrong value' };
  return { score: 1, feedback: 'correct' };
}

// Asks for a satisfying assignment of a random 3-CNF formula with a hidden planted solution; trains logical constraint satisfaction.
// Difficulty: the number of variables grows and the clause-to-variable ratio rises towards the hard 3-SAT threshold (~4.26).

export const meta = {
  name: 'planted-sat',
  title: 'Find a satisfying assignment of a 3-CNF formula',
  description: 'Given a 3-CNF formula that is guaranteed satisfiable, give a true/false value for every variable so that every clause holds. Any satisfying assignment counts; all clauses must hold, no partial credit.',
  skills: ['logic', 'constraint-satisfaction', 'search'],
  levels: 10,
};

// Difficulty knobs for each level (1 = easy, 10 = hard for a strong model).
function knobs(level) {
  const i = level - 1;
  return {
    vars: [7, 9, 11, 13, 16, 19, 23, 28, 34, 40][i],
    ratio: [3.8, 3.9, 4.0, 4.1, 4.15, 4.2, 4.26, 4.26, 4.26, 4.26][i],
  };
}

// Relative odds of keeping a clause by how many of its literals the planted assignment makes true (1, 2, 3).
// With 1 = 0.8 + 0.2 the expected count of true literals stays 1.5, as in unplanted formulas, so literal
// frequencies do not reveal the planted values.
const KEEP = [0, 1.0, 0.8, 0.2];

// A literal is a signed variable number: +3 is x3, -3 is NOT x3. Returns the index of the first false clause, or -1.
function firstViolated(clauses, values) {
  for (let i = 0; i < clauses.length; i++) {
    if (!clauses[i].some((lit) => (lit > 0 ? values[lit] === 1 : values[-lit] === 0))) return i;
  }
  return -1;
}

function clauseKey(clause) {
  return clause.join(' ');
}

// Three distinct variables in increasing order, the first forced to `must` when given.
function drawVars(rng, n, must) {
  const picked = must ? [must] : [];
  while (picked.length < 3) {
    const v = rng.int(1, n);
    if (!picked.includes(v)) picked.push(v);
  }
  return picked.sort((a, b) => a - b);
}

function literalText(lit) {
  return lit > 0 ? `x${lit}` : `¬x${-lit}`;
}

export function generate(rng, level) {
  const k = knobs(level);
  const n = k.vars;
  const m = Math.round(n * k.ratio);
  // values[v] is 0 or 1 for v in 1..n; index 0 is unused. Both values appear so the trivial assignments can be ruled out.
  const values = [0];
  for (let v = 1; v <= n; v++) values.push(rng.int(0, 1));
  if (!values.includes(1, 1)) values[rng.int(1, n)] = 1;
  if (!values.includes(0, 1)) values[rng.int(1, n)] = 0;
  const ones = [];
  const zeros = [];
  for (let v = 1; v <= n; v++) (values[v] === 1 ? ones : zeros).push(v);

  const clauses = [];
  const seen = new Set();
  const add = (clause) => {
    const key = clauseKey(clause);
    if (seen.has(key)) return false;
    seen.add(key);
    clauses.push(clause);
    return true;
  };
  // One all-positive clause rules out "all false", one all-negative clause rules out "all true";
  // each contains a variable the planted assignment satisfies.
  add(drawVars(rng, n, rng.pick(ones)));
  add(drawVars(rng, n, rng.pick(zeros)).map((v) => -v));
  while (clauses.length < m) {
    const clause = drawVars(rng, n, 0).map((v) => (rng.int(0, 1) === 1 ? v : -v));
    const trueCount = clause.filter((lit) => (lit > 0 ? values[lit] === 1 : values[-lit] === 0)).length;
    if (rng.float() < KEEP[trueCount]) add(clause);
  }
  const order = rng.shuffle(clauses);
  const lines = order.map((c, i) => `C${i + 1}: (${c.map(literalText).join(' ∨ ')})`);
  const prompt = [
    `Consider the Boolean variables x1, x2, …, x${n}. The formula below is the AND of ${m} clauses; each clause is`,
    "an OR (∨) of three literals, where a literal is a variable or its negation (¬ means NOT). The formula is satisfiable.",
    '',
    ...lines,
    '',
    'Find an assignment of true/false values to all variables that makes every clause true.',
    `Answer with every variable x1 … x${n} exactly once as name=value, writing 1 for true and 0 for false,`,
    'separated by commas, in any order, in the form <answer>NAME=VALUE, NAME=VALUE, …</answer>.',
    'Any satisfying assignment is accepted; the answer scores only if all clauses are satisfied.',
  ].join('\n');
  return { prompt, n, clauses: order, planted: values.slice(1) };
}

export function solve(instance) {
  return `<answer>${instance.planted.map((b, i) => `x${i + 1}=${b}`).join(', ')}</answer>`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  const n = instance.n;
  // Every entry is at most "x" + 6 digits + "=false" plus spacing: anything longer is not an assignment.
  if (text.length > n * 20 + 20) return { score: 0, feedback: 'answer too long' };
  const items = kit.list(text, ',');
  if (items.length !== n) return { score: 0, feedback: `expected ${n} assignments, got ${items.length}` };
  const values = new Array(n + 1).fill(-1);
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq < 0) return { score: 0, feedback: `"${item.slice(0, 20)}" is not name=value` };
    const name = item.slice(0, eq).trim().toLowerCase();
    const raw = item.slice(eq + 1).trim().toLowerCase();
    const v = name[0] === 'x' ? kit.int(name.slice(1)) : null;
    if (v === null || v < 1 || v > n || name.slice(1) !== String(v)) return { score: 0, feedback: `unknown variable "${name.slice(0, 20)}"` };
    if (values[v] !== -1) return { score: 0, feedback: `x${v} is assigned more than once` };
    if (raw === '1' || raw === 'true') values[v] = 1;
    else if (raw === '0' || raw === 'false') values[v] = 0;
    else return { score: 0, feedback: `x${v} has value "${raw.slice(0, 20)}", expected 1 or 0` };
  }
  const bad = firstViolated(instance.clauses, values);
  if (bad >= 0) return { score: 0, feedback: `clause C${bad + 1} is not satisfied` };
  return { score: 1, feedback: 'correct' };
}

// Gives a set of tasks with "X before Y" dependency constraints (a DAG) and asks for an order of all tasks that
// respects every constraint, training graph reasoning: topological sorting.
// Difficulty: more tasks and more constraints, so the dependency chains get longer and more entangled.

export const meta = {
  name: 'topological-order',
  title: 'Order tasks under precedence constraints',
  description: 'List every task exactly once in an order that satisfies all "X before Y" constraints; any valid ' +
    'topological order scores 1, anything else 0.',
  skills: ['graphs', 'topological-sort'],
  levels: 10,
};

// Difficulty knobs for each level (1 = easy, 10 = hard for a strong model).
// reach: how far apart (in the hidden order) the two ends of an extra constraint may be; short reach makes
// constraints that are not implied by others, so fewer orders remain valid.
const LEVELS = [
  { tasks: 6, constraints: 7, reach: 3 },
  { tasks: 8, constraints: 11, reach: 3 },
  { tasks: 10, constraints: 15, reach: 4 },
  { tasks: 13, constraints: 21, reach: 4 },
  { tasks: 16, constraints: 28, reach: 5 },
  { tasks: 20, constraints: 37, reach: 5 },
  { tasks: 24, constraints: 46, reach: 6 },
  { tasks: 29, constraints: 58, reach: 6 },
  { tasks: 35, constraints: 72, reach: 7 },
  { tasks: 42, constraints: 88, reach: 8 },
];
function knobs(level) {
  return LEVELS[Math.min(Math.max(level, 1), LEVELS.length) - 1];
}

// Pronounceable labels from a pool of about 34,000 names, drawn afresh for every instance, so the order
// answered for one instance never names exactly the tasks of another.
const CONSONANTS = 'bdfgklmnprstvz'.split('');
const VOWELS = 'aeiou'.split('');
const ENDINGS = ['', '', '', 'n', 'r', 'l', 's', 'k', 'x'];
const MAX_NAME = 5;

function randomName(rng) {
  return rng.pick(CONSONANTS) + rng.pick(VOWELS) + rng.pick(CONSONANTS) + rng.pick(VOWELS) + rng.pick(ENDINGS);
}

const PHRASES = [
  (a, b) => `${a} must come before ${b}`,
  (a, b) => `${b} can only start after ${a}`,
  (a, b) => `${b} depends on ${a}`,
  (a, b) => `${a} is a prerequisite of ${b}`,
];

// Kahn's algorithm; returns the task indices in a valid order (the instance is acyclic by construction).
function topoSort(count, edges) {
  const indegree = new Array(count).fill(0);
  const next = Array.from({ length: count }, () => []);
  for (const [u, v] of edges) {
    next[u].push(v);
    indegree[v]++;
  }
  const ready = [];
  for (let i = count - 1; i >= 0; i--) if (indegree[i] === 0) ready.push(i);
  const order = [];
  while (ready.length > 0) {
    const u = ready.pop();
    order.push(u);
    for (const v of next[u]) if (--indegree[v] === 0) ready.push(v);
  }
  return order;
}

export function generate(rng, level) {
  const k = knobs(level);
  const names = [];
  while (names.length < k.tasks) {
    const name = randomName(rng);
    if (!names.includes(name)) names.push(name);
  }
  // names is in a random (hidden) order; every constraint points forward in it, so it is a planted solution.
  const edges = [];
  const seen = new Set();
  const add = (u, v) => {
    const key = u * k.tasks + v;
    if (seen.has(key)) return false;
    seen.add(key);
    edges.push([u, v]);
    return true;
  };
  // Every task but the first gets an earlier, nearby prerequisite, so the graph is connected and chains are long.
  for (let v = 1; v < k.tasks; v++) add(rng.int(Math.max(0, v - k.reach), v - 1), v);
  // The pool of possible forward pairs within reach is far larger than the constraint count at every level.
  while (edges.length < k.constraints) {
    const u = rng.int(0, k.tasks - 2);
    add(u, rng.int(u + 1, Math.min(k.tasks - 1, u + k.reach)));
  }
  const listed = rng.shuffle(names);
  const lines = rng.shuffle(edges).map(([u, v]) => `- ${rng.pick(PHRASES)(names[u], names[v])}`);
  const prompt = [
    `There are ${k.tasks} tasks: ${listed.join(', ')}.`,
    'They must be done one at a time, subject to these constraints:',
    ...lines,
    '',
    'Give an order in which all tasks can be done: every task exactly once, each task after all of its prerequisites.',
    `If several orders are valid, any of them is accepted. Write the task names separated by commas, first task first, like <answer>first, second, third, ...</answer>.`,
  ].join('\n');
  return { prompt, answer: names.join(', '), tasks: names, edges };
}

export function solve(instance) {
  const order = topoSort(instance.tasks.length, instance.edges);
  return `<answer>${order.map((i) => instance.tasks[i]).join(', ')}</answer>`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  const n = instance.tasks.length;
  // A valid answer is at most n names plus separators; anything much longer is rejected before splitting.
  if (text.length > n * (MAX_NAME + 4) + 16) return { score: 0, feedback: 'answer too long' };
  const index = new Map(instance.tasks.map((name, i) => [name, i]));
  const position = new Array(n).fill(-1);
  const items = kit.list(text, ',');
  for (let p = 0; p < items.length; p++) {
    // Task names are lowercase labels; letter case carries no meaning here.
    const i = index.get(items[p].toLowerCase());
    if (i === undefined) return { score: 0, feedback: `unknown task "${items[p].slice(0, 20)}"` };
    if (position[i] !== -1) return { score: 0, feedback: `task ${instance.tasks[i]} listed twice` };
    position[i] = p;
  }
  if (items.length !== n) return { score: 0, feedback: `listed ${items.length} of ${n} tasks` };
  for (const [u, v] of instance.edges) {
    if (position[u] > position[v]) {
      return { score: 0, feedback: `${instance.tasks[u]} must come before ${instance.tasks[v]}` };
    }
  }
  return { score: 1, feedback: 'correct' };
}

// Asks for a maximum-weight set of pairwise non-overlapping jobs on one resource (weighted interval
// scheduling), training scheduling and dynamic programming.
// Difficulty: the number of jobs, the time horizon and the weight range grow with the level, and greedy
// shortcuts are made to fail.

export const meta = {
  name: 'job-scheduling',
  title: 'Weighted interval scheduling',
  description: 'Choose a set of pairwise non-overlapping time intervals with the largest total weight; any optimal ' +
    'set, listed in any order, is accepted.',
  skills: ['scheduling', 'dynamic-programming', 'intervals', 'optimization'],
  levels: 10,
};

// Each theme names the resource, the items and their weight; the id prefix varies with it.
const THEMES = [
  { prefix: 'J', intro: 'A single machine can process at most one job at a time. Each job must run over its whole time window or not at all', item: 'job', weight: 'profit' },
  { prefix: 'T', intro: 'A lecture hall can host at most one talk at a time. Each talk occupies its whole time slot if accepted', item: 'talk', weight: 'score' },
  { prefix: 'R', intro: 'A rental car can serve at most one booking at a time. Each booking needs the car for its whole period if accepted', item: 'booking', weight: 'revenue' },
  { prefix: 'B', intro: 'A telescope can run at most one observation block at a time. Each block needs its whole window if scheduled', item: 'block', weight: 'value' },
];
const ATTEMPTS = 40;

// Difficulty knobs for each level (1 = easy, 10 = hard for a strong model).
// jobs: count; span: time horizon per job; maxLen: longest interval; maxWeight: weight range; trap: require greedy to fail.
function knobs(level) {
  const jobs = [5, 7, 10, 14, 19, 25, 32, 40, 50, 62][level - 1];
  return { jobs, span: 3, maxLen: Math.min(4 + level * 2, 20), maxWeight: level <= 5 ? 30 : 99, trap: level >= 3 };
}

// Best total weight over jobs sorted by end time (dp over prefixes, with the last compatible prefix found by scan).
function optimum(jobs) {
  const order = jobs.slice().sort((a, b) => a.end - b.end || a.start - b.start || a.id - b.id);
  const best = [0];
  for (let i = 0; i < order.length; i++) {
    let j = i;
    while (j > 0 && order[j - 1].end > order[i].start) j--;
    best.push(Math.max(best[i], best[j] + order[i].weight));
  }
  return best[order.length];
}

// Takes jobs in the given priority order whenever they fit; used only to reject instances a greedy rule solves.
function greedyTotal(jobs, compare) {
  const chosen = [];
  let total = 0;
  for (const job of jobs.slice().sort(compare)) {
    if (chosen.every((c) => c.end <= job.start || job.end <= c.start)) {
      chosen.push(job);
      total += job.weight;
    }
  }
  return total;
}

function greedyFails(jobs, best) {
  const heavy = greedyTotal(jobs, (a, b) => b.weight - a.weight || a.start - b.start);
  const early = greedyTotal(jobs, (a, b) => a.end - b.end || a.start - b.start);
  return heavy < best && early < best;
}

function drawJobs(rng, k) {
  const horizon = k.jobs * k.span;
  const jobs = [];
  for (let id = 1; id <= k.jobs; id++) {
    const len = rng.int(1, k.maxLen);
    const start = rng.int(0, horizon - len);
    jobs.push({ id, start, end: start + len, weight: rng.int(1, k.maxWeight) });
  }
  return jobs;
}

export function generate(rng, level) {
  const k = knobs(level);
  // Redraw while a greedy rule (heaviest first, or earliest finish) already reaches the optimum; the last draw is kept if
  // every attempt fails, which only makes that instance easier.
  let jobs = null;
  let best = 0;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    jobs = drawJobs(rng, k);
    best = optimum(jobs);
    // Easy levels only need some conflict to matter, so "take everything" is never optimal.
    if (k.trap ? greedyFails(jobs, best) : best < jobs.reduce((sum, j) => sum + j.weight, 0)) break;
  }
  const theme = rng.pick(THEMES);
  const tabular = rng.int(0, 1) === 1;
  const lines = jobs.map((j) => tabular
    ? `${theme.prefix}${j.id} | ${j.start} | ${j.end} | ${j.weight}`
    : `${theme.prefix}${j.id}: from ${j.start} to ${j.end}, ${theme.weight} ${j.weight}`);
  const prompt = [
    `${theme.intro}. Every ${theme.item} below occupies the half-open interval [start, end): two ${theme.item}s conflict if their intervals overlap, but one that ends at time t and one that starts at time t do not conflict.`,
    '',
    tabular ? `${theme.item} | start | end | ${theme.weight}` : `The ${k.jobs} ${theme.item}s:`,
    ...lines,
    '',
    `Choose a set of pairwise non-conflicting ${theme.item}s whose total ${theme.weight} is as large as possible.`,
    `Give the ids of the chosen ${theme.item}s, separated by commas, in any order, in the form <answer>ID, ID, …</answer>, writing each id exactly as the list does. If several sets are optimal, any one of them is accepted.`,
  ].join('\n');
  return { prompt, prefix: theme.prefix, jobs, best };
}

// Recovers one optimal set by walking the dp table backwards.
export function solve(instance) {
  const order = instance.jobs.slice().sort((a, b) => a.end - b.end || a.start - b.start || a.id - b.id);
  const best = [0];
  const prev = [0];
  for (let i = 0; i < order.length; i++) {
    let j = i;
    while (j > 0 && order[j - 1].end > order[i].start) j--;
    prev.push(j);
    best.push(Math.max(best[i], best[j] + order[i].weight));
  }
  const chosen = [];
  for (let i = order.length; i > 0;) {
    if (best[i] === best[i - 1]) i--;
    else {
      chosen.push(order[i - 1].id);
      i = prev[i];
    }
  }
  return `<answer>${chosen.reverse().map((id) => `${instance.prefix}${id}`).join(', ')}</answer>`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  if (text.length > 8 * instance.jobs.length + 20) return { score: 0, feedback: 'answer is longer than any valid id list' };
  const items = kit.list(text, ',');
  if (items.length === 0) return { score: 0, feedback: 'no ids given' };
  const prefix = instance.prefix.toLowerCase();
  const picked = [];
  const seen = new Set();
  for (const item of items) {
    const lower = item.toLowerCase();
    const id = lower.startsWith(prefix) ? kit.int(lower.slice(prefix.length)) : null;
    if (id === null || id < 1 || id > instance.jobs.length) {
      return { score: 0, feedback: `"${item.slice(0, 20)}" is not an id from the list` };
    }
    if (seen.has(id)) return { score: 0, feedback: `${instance.prefix}${id} is listed twice` };
    seen.add(id);
    picked.push(instance.jobs[id - 1]);
  }
  picked.sort((a, b) => a.start - b.start);
  let total = 0;
  for (let i = 0; i < picked.length; i++) {
    if (i > 0 && picked[i - 1].end > picked[i].start) {
      return { score: 0, feedback: `${instance.prefix}${picked[i - 1].id} and ${instance.prefix}${picked[i].id} overlap` };
    }
    total += picked[i].weight;
  }
  if (total !== instance.best) return { score: 0, feedback: `feasible but total ${total} is not the maximum` };
  return { score: 1, feedback: 'correct' };
}

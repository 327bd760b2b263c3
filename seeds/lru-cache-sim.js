// Asks for the miss count and final contents of an LRU cache after a sequence of accesses or get/put/delete
// operations, training step-by-step data-structure simulation.
// Difficulty: the capacity, the number of operations and distinct keys grow with the level, and later levels
// add non-inserting gets and deletes.

export const meta = {
  name: 'lru-cache-sim',
  title: 'Simulate an LRU cache',
  description: 'Simulate a least-recently-used cache over a sequence of operations and report the number of misses ' +
    'and the final keys from most to least recently used; partial credit: 0.5 for the miss count and 0.5 for the ' +
    'exact final key order.',
  skills: ['data-structure-simulation', 'caching', 'state-tracking'],
  levels: 10,
};

const WORDS = ['apple', 'brick', 'cloud', 'delta', 'ember', 'flint', 'grape', 'heron', 'igloo', 'jade', 'kite', 'lemon', 'maple',
  'north', 'olive', 'pearl', 'quartz', 'raven', 'stone', 'tiger', 'umber', 'violet', 'willow', 'yarrow', 'zinc'];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz'.split('');
const SETTINGS = [
  'A web server keeps recently requested pages in an LRU (least-recently-used) cache',
  'A database buffer pool is managed as an LRU (least-recently-used) cache',
  'A CPU keeps recently used blocks in a small fully associative LRU (least-recently-used) cache',
  'A key-value store fronts its disk with an LRU (least-recently-used) cache',
];

// Difficulty knobs for each level (1 = easy, 10 = hard for a strong model).
// ops: operation count; keys: distinct keys available; mode: plain accesses or get/put(/delete) operations.
function knobs(level) {
  return [
    { capacity: 2, ops: 10, keys: 5, mode: 'access', deletes: false },
    { capacity: 3, ops: 14, keys: 6, mode: 'access', deletes: false },
    { capacity: 3, ops: 20, keys: 7, mode: 'access', deletes: false },
    { capacity: 4, ops: 26, keys: 7, mode: 'access', deletes: false },
    { capacity: 4, ops: 32, keys: 7, mode: 'ops', deletes: false },
    { capacity: 5, ops: 42, keys: 8, mode: 'ops', deletes: false },
    { capacity: 5, ops: 55, keys: 9, mode: 'ops', deletes: true },
    { capacity: 6, ops: 70, keys: 10, mode: 'ops', deletes: true },
    { capacity: 7, ops: 90, keys: 12, mode: 'ops', deletes: true },
    { capacity: 8, ops: 120, keys: 14, mode: 'ops', deletes: true },
  ][level - 1];
}

// Cache as an array, most recently used first; capacity is tiny, so linear operations are the clearest.
function simulate(capacity, ops) {
  let cache = [];
  let misses = 0;
  for (const { op, key } of ops) {
    const present = cache.includes(key);
    if (op === 'delete') {
      cache = cache.filter((k) => k !== key);
    } else if (present) {
      cache = [key, ...cache.filter((k) => k !== key)];
    } else if (op === 'get') {
      misses++;
    } else {
      if (op === 'access') misses++;
      cache = [key, ...cache].slice(0, capacity);
    }
  }
  return { misses, cache };
}

function drawKeys(rng, count) {
  const style = rng.int(0, 2);
  if (style === 0) return rng.shuffle(LETTERS).slice(0, count);
  if (style === 1) return rng.shuffle(WORDS).slice(0, count);
  const ids = [];
  while (ids.length < count) {
    const id = `p${rng.int(10, 99)}`;
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

// Half of the keys come from the few most recent ones, so hits and misses are both common.
function drawKey(rng, keys, recent) {
  if (recent.length > 0 && rng.int(0, 1) === 0) return rng.pick(recent.slice(-4));
  return rng.pick(keys);
}

export function generate(rng, level) {
  const k = knobs(level);
  const keys = drawKeys(rng, k.keys);
  const ops = [];
  const recent = [];
  for (let i = 0; i < k.ops; i++) {
    const key = drawKey(rng, keys, recent);
    let op = 'access';
    if (k.mode === 'ops') {
      const roll = rng.int(0, 99);
      op = i === 0 || roll < 45 ? 'put' : roll < (k.deletes ? 88 : 100) ? 'get' : 'delete';
    }
    ops.push({ op, key });
    recent.push(key);
  }
  let result = simulate(k.capacity, ops);
  // An empty final cache would make the key list trivial, so end with one more put in that rare case.
  if (result.cache.length === 0) {
    ops.push({ op: 'put', key: rng.pick(keys) });
    result = simulate(k.capacity, ops);
  }

  const listing = k.mode === 'access'
    ? `Accesses, in order: ${ops.map((o) => o.key).join(', ')}.`
    : `Operations, in order: ${ops.map((o) => `${o.op} ${o.key}`).join(', ')}.`;
  const rules = k.mode === 'access'
    ? [
      `Each access to a key already in the cache is a hit and makes that key the most recently used.`,
      `An access to a key not in the cache is a miss: the key is inserted as the most recently used, and if the cache already held ${k.capacity} keys, the least recently used key is evicted first.`,
    ]
    : [
      `- get k: if k is in the cache it is a hit and k becomes the most recently used; otherwise it is a miss and the cache does not change (a get never inserts).`,
      `- put k: if k is in the cache, k just becomes the most recently used; otherwise k is inserted as the most recently used, evicting the least recently used key first if the cache already holds ${k.capacity} keys. A put is never a hit or a miss.`,
      ...(k.deletes ? ['- delete k: removes k from the cache if it is there (otherwise nothing happens). A delete is never a hit or a miss.'] : []),
    ];
  const prompt = [
    `${rng.pick(SETTINGS)} that holds at most ${k.capacity} keys and starts empty.`,
    ...rules,
    '',
    listing,
    '',
    'Report the total number of misses and the final cache contents ordered from most recently used to least recently used,',
    'in the form <answer>misses=M; keys=k1,k2,k3</answer> (keys separated by commas).',
    'Scoring: 0.5 for the correct number of misses plus 0.5 for the exact final key order.',
  ].join('\n');
  return { prompt, misses: result.misses, keys: result.cache };
}

export function solve(instance) {
  return `<answer>misses=${instance.misses}; keys=${instance.keys.join(',')}</answer>`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  if (text.length > 1000) return { score: 0, feedback: 'answer is far longer than "misses=M; keys=…"' };
  const parts = kit.list(text, ';');
  if (parts.length !== 2) return { score: 0, feedback: 'expected exactly two fields: misses=M; keys=…' };
  let missesText = null;
  let keysText = null;
  for (const part of parts) {
    const eq = part.indexOf('=');
    const name = eq < 0 ? '' : part.slice(0, eq).trim().toLowerCase();
    if (name === 'misses') missesText = part.slice(eq + 1);
    else if (name === 'keys') keysText = part.slice(eq + 1);
  }
  if (missesText === null || keysText === null) return { score: 0, feedback: 'expected the fields misses=M and keys=…' };
  const missesOk = kit.int(missesText) === instance.misses;
  const given = kit.list(keysText, ',').map((key) => key.toLowerCase());
  const keysOk = given.length === instance.keys.length && given.every((key, i) => key === instance.keys[i]);
  const score = (missesOk ? 0.5 : 0) + (keysOk ? 0.5 : 0);
  if (score === 1) return { score, feedback: 'correct' };
  return { score, feedback: `misses ${missesOk ? 'correct' : 'wrong'}, final key order ${keysOk ? 'correct' : 'wrong'}` };
}

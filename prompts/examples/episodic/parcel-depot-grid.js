// Collects one route's parcels in a dark warehouse seen one cell at a time, and brings them back to the
// depot, training exploration and mapping through tools with a rule (leave other routes' parcels alone).
// Difficulty: a bigger floor with more walls, more parcels of the route and more decoys of other routes.

export const meta = {
  name: 'parcel-depot-grid',
  title: 'Collect a route\'s parcels in a dark warehouse',
  description: 'Explore a walled grid one cell at a time, pick up every parcel of the asked route and no other, return to the depot and finish. All or nothing.',
  skills: ['exploration', 'spatial-reasoning', 'tool-use', 'policy-following'],
  levels: 5,
  kind: 'episodic',
  maxTurns: 100,
  tools: [
    { name: 'look', description: 'Describe your cell: its coordinates, which neighbours are open, and the parcels lying here with their route.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
    { name: 'move', description: 'Step to the neighbouring cell in a direction, unless a wall is there.',
      parameters: { type: 'object', properties: { direction: { type: 'string', enum: ['north', 'south', 'east', 'west'] } }, required: ['direction'], additionalProperties: false } },
    { name: 'pick_up', description: 'Pick up a parcel lying in your cell, by its id.',
      parameters: { type: 'object', properties: { parcel: { type: 'string', minLength: 1, maxLength: 12 } }, required: ['parcel'], additionalProperties: false } },
    { name: 'finish', description: 'End the shift. Call it once, at the depot, with the route\'s parcels in hand.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
  ],
};

const ROUTES = ['north loop', 'harbour', 'airport', 'old town', 'ring road'];
const STEPS = { north: [0, -1], south: [0, 1], east: [1, 0], west: [-1, 0] };

function knobs(level) {
  return { size: [5, 5, 6, 6, 7][level - 1], targets: [2, 2, 3, 3, 4][level - 1], decoys: [1, 2, 2, 3, 3][level - 1] };
}

const key = (x, y) => `${x},${y}`;
const open = (s, x, y) => x >= 0 && y >= 0 && x < s.size && y < s.size && !s.walls.includes(key(x, y));

/** Cells reachable from a cell, nearest first (breadth-first search), each with the first step towards it. */
function paths(s, from) {
  const seen = new Map([[key(from.x, from.y), null]]);
  const queue = [from];
  while (queue.length > 0) {
    const c = queue.shift();
    for (const [dir, [dx, dy]] of Object.entries(STEPS)) {
      const n = { x: c.x + dx, y: c.y + dy };
      if (!open(s, n.x, n.y) || seen.has(key(n.x, n.y))) continue;
      seen.set(key(n.x, n.y), seen.get(key(c.x, c.y)) ?? dir);
      queue.push(n);
    }
  }
  return seen;
}

export function reset(rng, level) {
  const k = knobs(level);
  const s = { size: k.size, walls: [], depot: { x: rng.int(0, k.size - 1), y: rng.int(0, k.size - 1) } };
  // A wall stays only if every open cell can still be reached from the depot.
  for (let i = 0; i < Math.floor(k.size * k.size * 0.2); i++) {
    const w = key(rng.int(0, k.size - 1), rng.int(0, k.size - 1));
    if (w === key(s.depot.x, s.depot.y) || s.walls.includes(w)) continue;
    s.walls.push(w);
    if (paths(s, s.depot).size !== k.size * k.size - s.walls.length) s.walls.pop();
  }
  const reachable = [...paths(s, s.depot).keys()].filter((c) => c !== key(s.depot.x, s.depot.y));
  const route = rng.pick(ROUTES);
  const cells = rng.shuffle(reachable).slice(0, k.targets + k.decoys);
  const parcels = cells.map((c, i) => ({
    id: `P-${rng.int(1000, 9999)}${String.fromCharCode(65 + i)}`,
    route: i < k.targets ? route : rng.pick(ROUTES.filter((r) => r !== route)),
    at: c,
  }));
  const prompt = [
    `You work the night shift in a dark ${k.size} by ${k.size} warehouse; the depot is at (${s.depot.x},${s.depot.y}), where you start.`,
    `Collect every parcel of the ${route} route that lies on the floor and bring them to the depot. Leave the parcels of other routes where they are: picking one up spoils the shift.`,
    'You see only your own cell: look describes it, move steps to a neighbour, pick_up takes a parcel from your cell.',
    `Call finish at the depot when you hold them all; the shift is checked then, all or nothing. It also ends after ${meta.maxTurns} tool calls.`,
  ].join('\n');
  return { state: { ...s, route, parcels, at: { ...s.depot }, held: [], finished: false }, prompt };
}

const TOOLS = {
  look(s) {
    const dirs = Object.entries(STEPS).filter(([, [dx, dy]]) => open(s, s.at.x + dx, s.at.y + dy)).map(([d]) => d);
    const here = s.parcels.filter((p) => p.at === key(s.at.x, s.at.y)).map((p) => `${p.id} (${p.route})`);
    return `You are at (${s.at.x},${s.at.y}). Open: ${dirs.join(', ') || 'nothing'}. Parcels here: ${here.join(', ') || 'none'}.`;
  },
  move(s, { direction }) {
    const [dx, dy] = STEPS[direction];
    if (!open(s, s.at.x + dx, s.at.y + dy)) return `A wall blocks the way ${direction}.`;
    s.at = { x: s.at.x + dx, y: s.at.y + dy };
    return `You step ${direction}.`;
  },
  pick_up(s, { parcel }) {
    const p = s.parcels.find((x) => x.id.toLowerCase() === parcel.trim().toLowerCase() && x.at === key(s.at.x, s.at.y));
    if (!p) return `No parcel ${parcel} lies here.`;
    p.at = 'held';
    s.held.push(p.id);
    return `You pick up ${p.id}.`;
  },
  finish(s) {
    s.finished = true;
    return 'Shift over.';
  },
};

export function step(state, action) {
  const s = JSON.parse(JSON.stringify(state));
  const observation = TOOLS[action.tool](s, action.args);
  return { state: s, observation, done: s.finished };
}

export function score(state) {
  if (!state.finished) return { score: 0, feedback: 'the shift was never finished' };
  if (key(state.at.x, state.at.y) !== key(state.depot.x, state.depot.y)) return { score: 0, feedback: 'finished away from the depot' };
  const wanted = state.parcels.filter((p) => p.route === state.route).map((p) => p.id).sort();
  const held = [...state.held].sort();
  if (held.some((id) => !wanted.includes(id))) return { score: 0, feedback: 'a parcel of another route was picked up' };
  if (held.length !== wanted.length) return { score: 0, feedback: `${wanted.length - held.length} parcel(s) of the route left behind` };
  return { score: 1, feedback: 'every parcel of the route is at the depot' };
}

export function act(state) {
  const here = state.parcels.find((p) => p.route === state.route && p.at === key(state.at.x, state.at.y));
  if (here) return { tool: 'pick_up', args: { parcel: here.id } };
  // The search meets cells nearest first: head for the nearest parcel of the route, then for the depot.
  const firstSteps = paths(state, state.at);
  const left = new Set(state.parcels.filter((p) => p.route === state.route && p.at !== 'held').map((p) => p.at));
  const goal = [...firstSteps.keys()].find((c) => left.has(c)) ?? key(state.depot.x, state.depot.y);
  if (goal === key(state.at.x, state.at.y)) return { tool: 'finish', args: {} };
  return { tool: 'move', args: { direction: firstSteps.get(goal) } };
}

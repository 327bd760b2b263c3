// A parcel dispatcher's shift: discover a hub network lane by lane and forward each package hop by hop along
// the fastest route its service allows (closed lanes, weight limits, air lanes for express only, customs
// holds), training graph exploration and shortest paths through tools. Difficulty: more hubs, lanes and
// packages, so routes get longer; from level 2 closed lanes, from level 3 weight limits, from level 4 air
// lanes, from level 5 packages on customs hold that must not move.

export const meta = {
  name: 'package-routing',
  title: 'Route parcels through a hub network',
  description: 'Explore the lanes between hubs through tools and forward every package, one hop at a time, along the ' +
    'fastest route its weight and service class allow (skipping packages on customs hold), then close the manifest. ' +
    'All or nothing on the routes taken.',
  skills: ['tool-use', 'shortest-paths', 'graph-exploration', 'logistics'],
  levels: 8,
  kind: 'episodic',
  maxTurns: 70,
  tools: [
    { name: 'list_packages', description: 'List the package ids on today\'s manifest.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
    { name: 'get_package', description: 'Show a package: current hub, destination, weight, service class and hold status.',
      parameters: { type: 'object', properties: { package_id: { type: 'string', minLength: 1, maxLength: 12 } }, required: ['package_id'], additionalProperties: false } },
    { name: 'get_lanes', description: 'List the lanes leaving a hub: other hub, hours, weight limit, lane type and status.',
      parameters: { type: 'object', properties: { hub: { type: 'string', minLength: 3, maxLength: 3 } }, required: ['hub'], additionalProperties: false } },
    { name: 'forward', description: 'Move a package from its current hub to a neighbouring hub over an open lane.',
      parameters: { type: 'object', properties: { package_id: { type: 'string', minLength: 1, maxLength: 12 }, to_hub: { type: 'string', minLength: 3, maxLength: 3 } },
        required: ['package_id', 'to_hub'], additionalProperties: false } },
    { name: 'close_manifest', description: 'Close today\'s manifest and end the shift. Call it once, when every package that may move has arrived.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
  ],
};

const HUBS = ['AMS', 'BCN', 'BER', 'BRU', 'CPH', 'DUB', 'GVA', 'HAM', 'LIS', 'LYS', 'MAD', 'MIL', 'MUC', 'OSL', 'PRG', 'VIE', 'WAW', 'ZAG'];
const CARRIERS = ['Swiftline Parcel', 'Orbis Freight', 'Kestrel Express', 'Nordlink Cargo', 'Meridian Post'];

// Difficulty knobs per level: network size, extra lanes beyond a spanning tree, packages, and rules in play.
function knobs(level) {
  return {
    hubs: [4, 5, 6, 7, 8, 9, 10, 12][level - 1],
    extraLanes: [1, 2, 3, 3, 4, 5, 6, 7][level - 1],
    packages: [1, 2, 2, 3, 4, 4, 5, 6][level - 1],
    closed: level >= 2 ? 1 + Math.floor(level / 4) : 0,
    weights: level >= 3,
    air: level >= 4 ? 2 : 0,
    holds: level >= 5 ? 1 : 0,
  };
}

// ---------------------------------------------------------------- world generation
function makeWorld(rng, level) {
  const k = knobs(level);
  const hubs = rng.shuffle(HUBS).slice(0, k.hubs).sort();
  const lanes = [];
  const has = (a, b) => lanes.some((l) => (l.a === a && l.b === b) || (l.a === b && l.b === a));
  const addLane = (a, b, type) => lanes.push({ a, b, type, hours: type === 'air' ? rng.int(1, 3) : rng.int(2, 12), maxKg: type === 'air' ? 50 : k.weights && rng.int(0, 2) === 0 ? rng.pick([20, 30]) : 1000, open: true });
  const order = rng.shuffle(hubs);
  for (let i = 1; i < order.length; i++) addLane(order[i], order[rng.int(0, i - 1)], 'road');
  for (let e = 0, tries = 0; e < k.extraLanes + k.air && tries < 200; tries++) {
    const [a, b] = rng.shuffle(hubs);
    if (has(a, b)) continue;
    addLane(a, b, e < k.air ? 'air' : 'road');
    e++;
  }
  rng.shuffle(lanes.filter((l) => l.type === 'road')).slice(0, k.closed).forEach((l) => { l.open = false; });
  const packages = [];
  let serial = rng.int(10000, 90000);
  for (let tries = 0; packages.length < k.packages && tries < 200; tries++) {
    const p = { id: `PX${(serial += rng.int(1, 500))}`, weight: rng.int(1, 45), service: k.air && rng.int(0, 1) === 0 ? 'express' : 'standard', hold: false, path: [rng.pick(hubs)] };
    // Prefer destinations more than one hop away, so every package needs a real route.
    const reachable = hubs.filter((h) => h !== p.path[0] && distances(lanes, p, h)[p.path[0]] !== undefined);
    const far = reachable.filter((h) => route({ lanes }, { ...p, destination: h }).length > 2);
    if (reachable.length === 0) continue;
    p.destination = rng.pick(far.length ? far : reachable);
    packages.push(p);
  }
  rng.shuffle(packages).slice(0, k.holds).forEach((p) => { p.hold = true; });
  return { carrier: rng.pick(CARRIERS), hubs, lanes, packages };
}

// ---------------------------------------------------------------- the policy, as code
const usable = (l, p) => l.open && p.weight <= l.maxKg && (l.type === 'road' || p.service === 'express');
// Fastest hours from every hub to `to` over the lanes this package may use (Dijkstra by repeated scan: the graph is tiny).
function distances(lanes, p, to) {
  const dist = { [to]: 0 };
  const done = new Set();
  for (;;) {
    const next = Object.keys(dist).filter((h) => !done.has(h)).sort((a, b) => dist[a] - dist[b] || (a < b ? -1 : 1))[0];
    if (next === undefined) return dist;
    done.add(next);
    for (const l of lanes) {
      if (!usable(l, p) || (l.a !== next && l.b !== next)) continue;
      const other = l.a === next ? l.b : l.a;
      if (dist[other] === undefined || dist[next] + l.hours < dist[other]) dist[other] = dist[next] + l.hours;
    }
  }
}
// The route the policy asks for: at each hub, the alphabetically first neighbour that stays on a fastest route.
function route(world, p) {
  const dist = distances(world.lanes, p, p.destination);
  const path = [p.path[0]];
  while (path[path.length - 1] !== p.destination) {
    const here = path[path.length - 1];
    const next = world.lanes.filter((l) => usable(l, p) && (l.a === here || l.b === here)).map((l) => ({ hub: l.a === here ? l.b : l.a, hours: l.hours }))
      .filter((n) => dist[n.hub] !== undefined && n.hours + dist[n.hub] === dist[here]).map((n) => n.hub).sort()[0];
    path.push(next);
  }
  return path;
}

export function reset(rng, level) {
  const world = makeWorld(rng, level);
  const prompt = [
    `You dispatch parcels for ${world.carrier}. The network has ${world.hubs.length} hubs (${world.hubs.join(', ')}); today's manifest has ${world.packages.length} package(s).`,
    '',
    'Routing policy:',
    '1. Move every package, one hop at a time with forward, from its hub to its destination along the fastest route (least total hours)',
    '   over lanes it may use. If several routes are equally fast, at each hub go to the alphabetically first hub still on a fastest route.',
    '2. A package may only use open lanes whose weight limit is at least its weight. Air lanes carry express packages only.',
    '3. A package on customs hold must not be moved at all.',
    '',
    `When every package that may move has reached its destination, call close_manifest: the routes are checked then, all or nothing.`,
    `The shift also ends after ${meta.maxTurns} tool calls.`,
  ].join('\n');
  return { state: { level, world, seen: { list: false, packages: [], hubs: [] }, closed: false }, prompt };
}

// ---------------------------------------------------------------- tools
const up = (x) => String(x).trim().toUpperCase();
const here = (p) => p.path[p.path.length - 1];

const TOOLS = {
  list_packages(s) {
    s.seen.list = true;
    return `Manifest: ${s.world.packages.map((p) => p.id).join(', ')}.`;
  },
  get_package(s, { package_id }) {
    const p = s.world.packages.find((x) => x.id === up(package_id));
    if (!p) return `No package "${package_id}" on the manifest.`;
    if (!s.seen.packages.includes(p.id)) s.seen.packages.push(p.id);
    return `${p.id}: at ${here(p)}, destination ${p.destination}, ${p.weight} kg, ${p.service}${p.hold ? ', ON CUSTOMS HOLD' : ''}.`;
  },
  get_lanes(s, { hub }) {
    const h = up(hub);
    if (!s.world.hubs.includes(h)) return `No hub "${hub}" in this network.`;
    if (!s.seen.hubs.includes(h)) s.seen.hubs.push(h);
    const rows = s.world.lanes.filter((l) => l.a === h || l.b === h).map((l) => ({ ...l, to: l.a === h ? l.b : l.a })).sort((x, y) => (x.to < y.to ? -1 : 1));
    return [`Lanes from ${h}:`, ...rows.map((l) => `to ${l.to}: ${l.hours} h, ${l.type}, ${l.maxKg >= 1000 ? 'no weight limit' : `max ${l.maxKg} kg`}, ${l.open ? 'open' : 'CLOSED'}`)].join('\n');
  },
  forward(s, { package_id, to_hub }) {
    const p = s.world.packages.find((x) => x.id === up(package_id));
    if (!p) return `No package "${package_id}" on the manifest.`;
    const from = here(p);
    const lane = s.world.lanes.find((l) => (l.a === from && l.b === up(to_hub)) || (l.b === from && l.a === up(to_hub)));
    if (!lane) return `Refused: no lane from ${from} to ${up(to_hub)}.`;
    if (!lane.open) return `Refused: the lane ${from}-${up(to_hub)} is closed.`;
    p.path.push(up(to_hub));
    return `${p.id} moved ${from} -> ${up(to_hub)}${up(to_hub) === p.destination ? ' (arrived at its destination)' : ''}.`;
  },
  close_manifest(s) {
    s.closed = true;
    return 'Manifest closed.';
  },
};

export function step(state, action) {
  const s = JSON.parse(JSON.stringify(state));
  const observation = TOOLS[action.tool](s, action.args);
  return { state: s, observation, done: s.closed };
}

// ---------------------------------------------------------------- score
export function score(state) {
  if (!state.closed) return { score: 0, feedback: 'the manifest was never closed' };
  for (const p of state.world.packages) {
    const want = p.hold ? [p.path[0]] : route(state.world, p);
    if (p.path.join('>') !== want.join('>')) return { score: 0, feedback: `package ${p.id} did not take the route the policy requires` };
  }
  return { score: 1, feedback: 'every package took the route the policy requires' };
}

// ---------------------------------------------------------------- reference policy
// Lists and reads every package, reads the lanes of every hub, then forwards each package hop by hop and closes.
export function act(state) {
  const { world, seen } = state;
  if (!seen.list) return { tool: 'list_packages', args: {} };
  for (const p of world.packages) if (!seen.packages.includes(p.id)) return { tool: 'get_package', args: { package_id: p.id } };
  for (const h of world.hubs) if (!seen.hubs.includes(h)) return { tool: 'get_lanes', args: { hub: h } };
  for (const p of world.packages) {
    if (p.hold) continue;
    const want = route(world, p);
    if (p.path.length < want.length) return { tool: 'forward', args: { package_id: p.id, to_hub: want[p.path.length] } };
  }
  return { tool: 'close_manifest', args: {} };
}

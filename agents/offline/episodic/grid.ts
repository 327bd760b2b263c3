// The partially observed world family: a grid of cells with walls, or a graph of named rooms, explored
// through move and look tools. The goal is to collect the named items and return to the start, or to
// carry them to a named place; hazards (optional) end the episode when entered. Levels grow the world and
// the number of items; the score checks where the items are and where the agent ended, never its claims.
import { tool, type FamilyCode, type ToolBlock } from './skeleton.js';
import { THEMES, COLOURS, type GridDesign } from './grid-design.js';

export { drawGrid, gridSkills, type GridDesign } from './grid-design.js';

const js = JSON.stringify;

/** The world's layout code: `cells(w)` lists places, `next(w, at, move)` is where a move leads (or null). */
function topologyCode(x: GridDesign): string {
  if (x.topology === 'grid') {
    return (
      `const DIRS = ${js(x.directions)};
const STEP = [[0, -1], [1, 0], [0, 1], [-1, 0]];
const key = (c, r) => c + ',' + r;
function layout(rng, k) {
  const places = [];
  const walls = [];
  for (let r = 0; r < k.size; r++) for (let c = 0; c < k.size; c++) (rng.float() < 0.2 ? walls : ` +
      `places).push(key(c, r));
  return { size: k.size, walls, places };
}
function next(w, at, dir) {
  const [c, r] = at.split(',').map(Number);
  const d = STEP[DIRS.indexOf(dir)];
  const to = key(c + d[0], r + d[1]);
  return c + d[0] < 0 || r + d[1] < 0 || c + d[0] >= w.size || r + d[1] >= w.size || w.walls.includes(to) ? null : to;
}
const moves = (w, at) => DIRS.filter((d) => next(w, at, d) !== null).map((d) => [d, next(w, at, d)]);
const placeText = (p) => '(' + p + ')';`
    );
  }
  return (
    `const ROOMS = ${js(THEMES[x.theme]?.rooms)};
function layout(rng, k) {
  const places = rng.shuffle(ROOMS).slice(0, k.size);
  const links = [];
  // A random tree keeps every room reachable; a few extra corridors make loops.
  for (let i = 1; i < places.length; i++) links.push([places[i], places[rng.int(0, i - 1)]]);
  for (let e = 0; e < Math.floor(k.size / 3); e++) { const a = rng.pick(places); const b = rng.pick(places); if (a ` +
    `!== b && !links.some((l) => l.includes(a) && l.includes(b))) links.push([a, b]); }
  return { walls: [], places, links };
}
const exits = (w, at) => w.links.filter((l) => l.includes(at)).map((l) => (l[0] === at ? l[1] : l[0])).sort();
const next = (w, at, room) => (exits(w, at).includes(String(room).trim().toLowerCase()) ? ` +
    `String(room).trim().toLowerCase() : null);
const moves = (w, at) => exits(w, at).map((r) => [r, r]);
const placeText = (p) => 'the ' + p;`
  );
}

/** The extra sensing tool's code (the look tool is always there). */
const SENSE_CODE: Record<GridDesign['sense'], string> = {
  look: '',
  scan:
    `// A line of sight: the places one way leads to, one after another, until it is blocked.
function scan(s, move) {
  const seen = [];
  for (let at = next(s.world, s.at, move); at !== null && !seen.includes(at) && seen.length < 12; at = next(s.world, ` +
    `at, move)) seen.push(at);
  if (!seen.length) return 'Nothing that way.';
  return seen.map((p) => placeText(p) + ': ' + (s.world.items.filter((i) => i.at === p).map((i) => i.name).join(', ` +
    `') || 'empty')).join('; ') + '.';
}`,
  detector:
    `// The detector counts the moves of a safe shortest route to the nearest item still lying ` +
    `about that the task needs.
function detect(s) {
  const left = s.world.items.filter((i) => i.wanted && i.at !== 'carried' && i.at !== s.world.goalAt).map((i) => ` +
    `route(s.world, s.at, i.at).length);
  return left.length ? 'The nearest item you need is ' + Math.min(...left) + ' moves away.' : 'The detector finds ` +
    `nothing more you need.';
}`,
};

export function gridCode(x: GridDesign): FamilyCode {
  const t = THEMES[x.theme] as (typeof THEMES)[string];
  const N = x.names as Record<string, string>;
  const grid = x.topology === 'grid';
  const oneAtATime = x.goal === 'deliver' && x.capacity === 1;
  // Generated fragments that depend on the design, named before the code that holds them.
  const handsFull = oneAtATime
    ? " if (s.world.items.some((i) => i.at === 'carried')) " +
      "return 'Your hands are full: you can carry one item at a time.';"
    : '';
  const square = grid
    ? ', a square of ${w.size} by ${w.size} ${THEME.cell}s numbered (column,row) from (0,0) at the top left'
    : '';
  const opening =
    `\`You explore \${THEME.place}${square}. You start at \${placeText(w.start)} ` +
    `and see only what ${N.look} shows you.\``;
  const task =
    x.goal === 'deliver'
      ? `\`Task: find \${wanted.join(', ')} and put each of them down at \${placeText(w.goalAt)} with ${N.drop}. ` +
        `Pick up nothing else.\``
      : `\`Task: collect \${wanted.join(', ')} with ${N.take}, then come back to \${placeText(w.start)}. ` +
        `Pick up nothing else.\``;
  const danger = x.hazards
    ? `\`Danger: some \${THEME.cell}s are unsafe; entering one ends the run at once, and it counts as a failure. ` +
      `${N.look} warns of unsafe places next to you.\`,`
    : '';
  const finishAt = x.goal === 'collect' ? ` at \${placeText(w.start)}` : '';
  const blocked = grid
    ? "'A wall blocks the way.'"
    : '`There is no way from the ${s.at} to "${String(move).slice(0, 30)}".`';
  const endAtStart =
    x.goal === 'collect'
      ? "  if (state.at !== w.start) return { score: 0, feedback: 'the run did not end at the start' };\n"
      : '';
  /** What act returns to move one step along a safe shortest route towards `to` (a JavaScript expression). */
  const goTowards = (to: string) =>
    `{ tool: ${js(grid ? N.move : N.go)}, args: { ${grid ? 'direction' : 'room'}: route(w, state.at, ${to})[0] } }`;
  const blocks: ToolBlock[] = [];
  if (grid)
    blocks.push(
      tool(
        N.move as string,
        `Move one ${t.cell} ${x.directions.join(', ')}; a wall stops you.`,
        { direction: { type: 'string', enum: x.directions } },
        `(s, a) => walk(s, a.direction)`,
      ),
    );
  else
    blocks.push(
      tool(
        N.go as string,
        `Walk to a room next to the one you are in.`,
        { room: { type: 'string', minLength: 1, maxLength: 30 } },
        `(s, a) => walk(s, a.room)`,
      ),
    );
  blocks.push(
    tool(
      N.look as string,
      `Describe the ${grid ? t.cell : 'room'} you are in: what lies here and where you can go` +
        `${x.hazards ? ' (and any danger next door)' : ''}.`,
      {},
      `(s) => describe(s)`,
    ),
  );
  if (x.sense === 'scan')
    blocks.push(
      tool(
        N.scan as string,
        `Look along one way from where you are, as far as it goes, and list what lies there.`,
        grid
          ? { direction: { type: 'string', enum: x.directions } }
          : { room: { type: 'string', minLength: 1, maxLength: 30 } },
        `(s, a) => scan(s, ${grid ? 'a.direction' : 'a.room'})`,
      ),
    );
  if (x.sense === 'detector')
    blocks.push(
      tool(
        N.detect as string,
        `Ask the detector how many moves away the nearest item you still need is.`,
        {},
        `(s) => detect(s)`,
      ),
    );
  blocks.push(
    tool(
      N.take as string,
      `Pick up an item lying where you are.`,
      { item: { type: 'string', minLength: 1, maxLength: 40 } },
      `(s, a) => { const it = s.world.items.find((i) => i.name === a.item.trim().toLowerCase() && i.at === s.at); ` +
        `if (!it) return \`There is no "\${a.item}" here.\`;${handsFull} it.at = 'carried'; s.taken.push(it.name); ` +
        `return \`You pick up the \${it.name}.\`; }`,
    ),
  );
  if (x.goal === 'deliver')
    blocks.push(
      tool(
        N.drop as string,
        `Put down an item you carry where you are.`,
        { item: { type: 'string', minLength: 1, maxLength: 40 } },
        `(s, a) => { const it = s.world.items.find((i) => i.name === a.item.trim().toLowerCase() && i.at === ` +
          `'carried'); if (!it) return \`You do not carry "\${a.item}".\`; it.at = s.at; return \`You put ` +
          `down the \${it.name}.\`; }`,
      ),
    );
  blocks.push(
    tool(
      N.finish as string,
      `End the run here; the world is then checked.`,
      {},
      `(s) => { s.done = true; return 'The run is over.'; }`,
    ),
  );
  const world =
    `
const THEME = ${js({ place: t.place, cell: grid ? t.cell : 'room', things: t.things })};
const COLOURS = ${js(COLOURS)};
${topologyCode(x)}

// Shortest routes over the places the agent may enter (hazards avoided), for the world's checks and act.
function route(w, from, to) {
  const prev = { [from]: null };
  const queue = [from];
  while (queue.length) {
    const at = queue.shift();
    if (at === to) break;
    for (const [move, p] of moves(w, at)) if (!(p in prev) && !w.hazards.includes(p)) { prev[p] = ` +
    `[at, move]; queue.push(p); }
  }
  if (!(to in prev)) return null;
  const path = [];
  for (let p = to; prev[p]; p = prev[p][0]) path.unshift(prev[p][1]);
  return path;
}

function makeWorld(rng, k) {
  // Redrawn until every item and the goal can be reached safely (a few tries; the author checked it).
  for (let tries = 0; tries < 500; tries++) {
    const w = layout(rng, k);
    const open = rng.shuffle(w.places);
    w.start = open[0];
    w.hazards = open.slice(1, 1 + k.hazards);
    const spots = open.slice(1 + k.hazards);
    if (spots.length < k.items + 3) continue;
    const names = rng.shuffle(COLOURS).slice(0, k.items + 1).map((c, i) => c + '-' + rng.shuffle(THEME.things)[i]);
    // The last item is a decoy: it lies about but is not asked for.
    w.items = names.map((name, i) => ({ name, at: spots[i], wanted: i < k.items }));
    w.goalAt = ${x.goal === 'deliver' ? 'spots[k.items + 1]' : 'w.start'};
    if (w.items.every((i) => route(w, w.start, i.at)) && route(w, w.start, w.goalAt)) return w;
  }
  throw new Error('no world with reachable items');
}

function promptOf(w) {
  const wanted = w.items.filter((i) => i.wanted).map((i) => i.name);
  return [
    ${opening},
    '',
    ${task},
    ${oneAtATime ? "'You can carry only one item at a time.'," : ''}
    ${danger}
    \`When you are done, call ${N.finish}${finishAt}: that ends the ` +
    `run, and only then is the task checked, all or nothing. The run also ends after ` +
    `\${meta.maxTurns} tool calls.\`,
  ].join('\\n');
}

function walk(s, move) {
  const to = next(s.world, s.at, move);
  if (to === null) return ${blocked};
  s.at = to;
  s.visited.push(to);
  if (s.world.hazards.includes(to)) { s.lost = true; s.done = true; return 'You step into danger: the run is over.'; }
  return \`You are now at \${placeText(to)}.\`;
}

${SENSE_CODE[x.sense]}
function describe(s) {
  const here = s.world.items.filter((i) => i.at === s.at).map((i) => i.name);
  const ways = moves(s.world, s.at).map(([move, p]) => move` +
    `${x.hazards ? " + (s.world.hazards.includes(p) ? ' (unsafe)' : '')" : ''});
  return \`You are at \${placeText(s.at)}. \${here.length ? 'Lying here: ' + here.join(', ') + '.' : 'Nothing lies ` +
    `here.'} Ways on: \${ways.join(', ') || 'none'}.\`;
}`;
  const score =
    `
  const w = state.world;
  if (!state.done) return { score: 0, feedback: 'the run was never ended' };
  if (state.lost) return { score: 0, feedback: 'the run ended in danger' };
  if (state.taken.some((n) => !w.items.find((i) => i.name === n).wanted)) return { score: 0, feedback: 'an item that ` +
    `was not asked for was picked up' };
  for (const it of w.items.filter((i) => i.wanted)) {
    if (it.at !== ${x.goal === 'deliver' ? 'w.goalAt' : "'carried'"}) return { score: 0, feedback: \`the \${it.name} ` +
    `is not where the task wants it\` };
  }
${endAtStart}  return { score: 1, feedback: 'every item is where the task wants it' };`;
  const act = `
  const w = state.world;
  for (const it of w.items.filter((i) => i.wanted)) {
${
  x.goal === 'deliver'
    ? `    if (it.at === w.goalAt) continue;
    if (it.at === 'carried') {
      if (state.at === w.goalAt) return { tool: ${js(N.drop)}, args: { item: it.name } };
      ${x.capacity === 1 ? `return ${goTowards('w.goalAt')};` : 'continue;'}
    }`
    : "    if (it.at === 'carried') continue;"
}
    if (state.at === it.at) return { tool: ${js(N.take)}, args: { item: it.name } };
    return ${goTowards('it.at')};
  }
  if (state.at !== w.goalAt) return ${goTowards('w.goalAt')};
  return { tool: ${js(N.finish)}, args: {} };`;
  return {
    maxTurns: 100,
    levels: x.levels.length,
    tools: blocks,
    world,
    state: `at: world.start, visited: [], taken: [], lost: false`,
    score,
    act,
    knobs: x.levels,
  };
}

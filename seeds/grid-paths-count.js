// Asks how many monotone lattice paths cross a grid with blocked cells; trains combinatorial counting by dynamic programming.
// Difficulty: the grid grows and gets more obstacles, so the count runs to many digits and must be built cell by cell.

export const meta = {
  name: 'grid-paths-count',
  title: 'Count monotone paths through a grid with obstacles',
  description: 'A grid with blocked cells is drawn with S and E marked; count the paths from S to E that only move in the two allowed directions. Exact integer answer, no partial credit.',
  skills: ['combinatorics', 'dynamic-programming', 'grids'],
  levels: 10,
};

// The four corner-to-corner orientations: the count is the same, but the model must read which moves apply.
const ORIENTATIONS = [
  { flipRows: false, flipCols: false, start: 'top-left', end: 'bottom-right', moves: 'right or down' },
  { flipRows: false, flipCols: true, start: 'top-right', end: 'bottom-left', moves: 'left or down' },
  { flipRows: true, flipCols: false, start: 'bottom-left', end: 'top-right', moves: 'right or up' },
  { flipRows: true, flipCols: true, start: 'bottom-right', end: 'top-left', moves: 'left or up' },
];

// Difficulty knobs for each level (1 = easy, 10 = hard for a strong model).
function knobs(level) {
  const i = level - 1;
  return {
    rows: [5, 6, 6, 7, 7, 8, 9, 10, 12, 14][i],
    cols: [6, 6, 7, 7, 8, 9, 11, 12, 14, 17][i],
    // Share of cells off the guaranteed path that are blocked.
    density: [0.15, 0.16, 0.17, 0.18, 0.19, 0.2, 0.21, 0.22, 0.23, 0.24][i],
  };
}

// Paths into a cell come from its upper and left neighbours (in canonical orientation: start top-left, moves right/down).
function countPaths(blocked, rows, cols) {
  const ways = new Array(cols).fill(0);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (blocked[r][c]) ways[c] = 0;
      else if (r === 0 && c === 0) ways[c] = 1;
      else if (c > 0) ways[c] += ways[c - 1];
    }
  }
  return ways[cols - 1];
}

export function generate(rng, level) {
  const k = knobs(level);
  const { rows, cols } = k;
  // A random monotone path is kept open so at least one path always exists.
  const keep = Array.from({ length: rows }, () => new Array(cols).fill(false));
  const steps = rng.shuffle([...new Array(rows - 1).fill('D'), ...new Array(cols - 1).fill('R')]);
  let r = 0;
  let c = 0;
  keep[0][0] = true;
  for (const s of steps) {
    if (s === 'D') r++;
    else c++;
    keep[r][c] = true;
  }
  const free = [];
  for (let y = 0; y < rows; y++) for (let x = 0; x < cols; x++) if (!keep[y][x]) free.push([y, x]);
  const blocked = Array.from({ length: rows }, () => new Array(cols).fill(false));
  const nBlocked = Math.round(free.length * k.density);
  for (const [y, x] of rng.shuffle(free).slice(0, nBlocked)) blocked[y][x] = true;
  const answer = countPaths(blocked, rows, cols);

  const o = rng.pick(ORIENTATIONS);
  const lines = [];
  for (let y = 0; y < rows; y++) {
    const cy = o.flipRows ? rows - 1 - y : y;
    let line = '';
    for (let x = 0; x < cols; x++) {
      const cx = o.flipCols ? cols - 1 - x : x;
      if (cy === 0 && cx === 0) line += 'S';
      else if (cy === rows - 1 && cx === cols - 1) line += 'E';
      else line += blocked[cy][cx] ? '#' : '.';
    }
    lines.push(line);
  }
  const prompt = [
    `Here is a grid with ${rows} rows and ${cols} columns. '.' is an open cell, '#' is a blocked cell,`,
    `S (the ${o.start} corner) is the start and E (the ${o.end} corner) is the end; both are open.`,
    '',
    ...lines,
    '',
    `A path starts at S and moves one cell at a time, each move going either ${o.moves}, never onto a blocked cell and never off the grid, until it reaches E.`,
    'How many different such paths are there? Give the exact count as <answer>N</answer>, where N is a plain integer without separators.',
  ].join('\n');
  return { prompt, answer, rows, cols };
}

export function solve(instance) {
  return `<answer>${instance.answer}</answer>`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  // kit.number also accepts equivalent spellings such as 120.0 of the same count.
  const n = kit.number(text);
  if (n === null) return { score: 0, feedback: 'answer is not a number' };
  if (n !== instance.answer) return { score: 0, feedback: 'wrong number of paths' };
  return { score: 1, feedback: 'correct' };
}

// Asks for the number of islands and the largest island perimeter in a land/water map; trains grid connectivity and boundary counting.
// Difficulty: the map grows, islands multiply and take winding, lake-filled shapes with diagonal-only contacts that do not connect.

export const meta = {
  name: 'island-perimeter',
  title: 'Count islands and find the longest coastline',
  description: 'Given a map of land (#) and water (.) cells, report how many 4-connected islands there are and the largest perimeter of any one island. Both numbers must be right, no partial credit.',
  skills: ['grids', 'geometry', 'graph-traversal'],
  levels: 10,
};

const DIRS = [[1, 0], [-1, 0], [0, 1], [0, -1]];

// Difficulty knobs for each level (1 = easy, 10 = hard for a strong model).
function knobs(level) {
  const i = level - 1;
  return {
    rows: [7, 8, 9, 10, 12, 14, 16, 18, 21, 24][i],
    cols: [10, 11, 12, 14, 16, 19, 22, 26, 30, 34][i],
    // Land pieces dropped on the map: between half of this and this many; some merge.
    pieces: [6, 7, 8, 10, 12, 14, 17, 21, 26, 30][i],
    maxSize: [10, 11, 12, 14, 18, 22, 26, 30, 34, 38][i],
    // Snakes are thin random walks whose connectivity is hard to follow by eye.
    snakeShare: [0, 0, 0.1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.4, 0.45][i],
    // Scattered water cells punched into the land make lakes, bays and near-splits.
    holes: [0, 0, 0.02, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1][i],
  };
}

// Flood fill with an explicit stack; a cell adds one unit of perimeter per side that faces water or the border.
function measure(land, rows, cols) {
  const seen = land.map((row) => row.map(() => false));
  let count = 0;
  let longest = 0;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (!land[r][c] || seen[r][c]) continue;
      count++;
      let perimeter = 0;
      const stack = [[r, c]];
      seen[r][c] = true;
      while (stack.length > 0) {
        const [y, x] = stack.pop();
        for (const [dy, dx] of DIRS) {
          const ny = y + dy;
          const nx = x + dx;
          if (ny < 0 || ny >= rows || nx < 0 || nx >= cols || !land[ny][nx]) perimeter++;
          else if (!seen[ny][nx]) {
            seen[ny][nx] = true;
            stack.push([ny, nx]);
          }
        }
      }
      if (perimeter > longest) longest = perimeter;
    }
  }
  return { count, longest };
}

export function generate(rng, level) {
  const k = knobs(level);
  const { rows, cols } = k;
  const land = Array.from({ length: rows }, () => new Array(cols).fill(false));
  const inside = (y, x) => y >= 0 && y < rows && x >= 0 && x < cols;
  const pieces = rng.int(Math.ceil(k.pieces / 2), k.pieces);
  for (let i = 0; i < pieces; i++) {
    const size = rng.int(1, k.maxSize);
    let y = rng.int(0, rows - 1);
    let x = rng.int(0, cols - 1);
    land[y][x] = true;
    if (rng.float() < k.snakeShare) {
      // A random walk: each step extends the tip.
      for (let s = 1; s < size; s++) {
        const [dy, dx] = rng.pick(DIRS);
        if (inside(y + dy, x + dx)) { y += dy; x += dx; land[y][x] = true; }
      }
    } else {
      // A blob: each step grows from a random cell already in it.
      const cells = [[y, x]];
      for (let s = 1; s < size; s++) {
        const [cy, cx] = rng.pick(cells);
        const [dy, dx] = rng.pick(DIRS);
        if (inside(cy + dy, cx + dx)) { land[cy + dy][cx + dx] = true; cells.push([cy + dy, cx + dx]); }
      }
    }
  }
  for (let y = 0; y < rows; y++) for (let x = 0; x < cols; x++) if (land[y][x] && rng.float() < k.holes) land[y][x] = false;
  // A map with no land would make "0,0" a free answer; plant one cell deterministically instead.
  if (!land.some((row) => row.includes(true))) land[rng.int(0, rows - 1)][rng.int(0, cols - 1)] = true;
  const { count, longest } = measure(land, rows, cols);
  const map = land.map((row) => row.map((b) => (b ? '#' : '.')).join(''));
  const prompt = [
    `Here is a map with ${rows} rows and ${cols} columns; '#' is land and '.' is water:`,
    '',
    ...map,
    '',
    'An island is a maximal group of land cells connected through shared edges (up, down, left, right).',
    'Cells that touch only at a corner (diagonally) are NOT connected.',
    'The perimeter of an island is the number of unit edges of its cells that face water or the edge of the map;',
    'this includes the shores of any lakes (water) enclosed by the island. Each cell is 1 by 1.',
    'How many islands are there, and what is the largest perimeter of any single island?',
    'Answer with the two integers separated by a comma, count first, as <answer>I,P</answer>.',
  ].join('\n');
  return { prompt, islands: count, perimeter: longest };
}

export function solve(instance) {
  return `<answer>${instance.islands},${instance.perimeter}</answer>`;
}

export function verify(instance, response) {
  const text = kit.answer(response);
  if (text === null) return { score: 0, feedback: 'no single <answer>…</answer> tag' };
  if (text.length > 40) return { score: 0, feedback: 'answer too long' };
  const parts = kit.list(text, ',');
  if (parts.length !== 2) return { score: 0, feedback: 'expected two integers separated by a comma' };
  const islands = kit.int(parts[0]);
  const perimeter = kit.int(parts[1]);
  if (islands === null || perimeter === null) return { score: 0, feedback: 'both values must be integers' };
  if (islands !== instance.islands && perimeter !== instance.perimeter) return { score: 0, feedback: 'both numbers are wrong' };
  if (islands !== instance.islands) return { score: 0, feedback: 'wrong island count' };
  if (perimeter !== instance.perimeter) return { score: 0, feedback: 'wrong largest perimeter' };
  return { score: 1, feedback: 'correct' };
}

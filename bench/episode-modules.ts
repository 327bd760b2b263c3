// The two environment modules of `sandbox.episodesRatio` (issue 16), as source text: a cheap one (GCD of
// 2–5 integers, 4 levels) and a heavier one (shortest path in a small grid), run in the sandbox and in Node.

/** GCD of 2–5 integers: level L asks for the gcd of L + 1 integers sharing a random factor. */
export const GCD_SOURCE =
  `export const meta = {
  name: 'bench-gcd',
  title: 'Greatest common divisor',
  description: 'Compute the greatest common divisor of 2 to 5 positive integers; one exact integer.',
  skills: ['number-theory'],
  levels: 4,
};
function gcd(a, b) {
  while (b !== 0) { const t = a % b; a = b; b = t; }
  return a;
}
export function generate(rng, level) {
  const factor = rng.int(1, 30 * level);
  const numbers = [];
  for (let i = 0; i <= level; i++) numbers.push(factor * rng.int(1, 10 ** (level + 1)));
  let answer = numbers[0];
  for (const n of numbers) answer = gcd(answer, n);
  return { prompt: 'What is the greatest common divisor of ' + numbers.join(', ') + '? Answer as ` +
  `<answer>N</answer>.', numbers, answer };
}
export function solve(instance) {
  let g = instance.numbers[0];
  for (const n of instance.numbers) g = gcd(g, n);
  return '<answer>' + g + '</answer>';
}
export function verify(instance, response) {
  const text = kit.answer(response);
  return text !== null && kit.int(text) === instance.answer ? 1 : 0;
}
`;

/** Shortest path from S to T in a small grid with walls (breadth-first search); level 1 is 6×6. */
export const GRID_SOURCE =
  `export const meta = {
  name: 'bench-grid-path',
  title: 'Shortest path in a grid',
  description: 'Find the length of the shortest 4-connected path from S to T in a grid with walls ` +
  `(#); one exact integer.',
  skills: ['graphs', 'search'],
  levels: 4,
};
function shortest(rows) {
  const h = rows.length, w = rows[0].length;
  let start = -1, target = -1;
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    if (rows[y][x] === 'S') start = y * w + x;
    if (rows[y][x] === 'T') target = y * w + x;
  }
  const dist = new Array(h * w).fill(-1);
  const queue = [start];
  dist[start] = 0;
  for (let q = 0; q < queue.length; q++) {
    const at = queue[q], y = Math.floor(at / w), x = at % w;
    if (at === target) return dist[at];
    for (const [dy, dx] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      const ny = y + dy, nx = x + dx;
      if (ny < 0 || nx < 0 || ny >= h || nx >= w || rows[ny][nx] === '#') continue;
      const next = ny * w + nx;
      if (dist[next] !== -1) continue;
      dist[next] = dist[at] + 1;
      queue.push(next);
    }
  }
  return -1;
}
export function generate(rng, level) {
  const size = 4 + 2 * level;
  for (;;) {
    const cells = [];
    for (let y = 0; y < size; y++) { const row = []; for (let x = 0; x < size; x++) row.push(rng.float() < 0.28 ? ` +
  `'#' : '.'); cells.push(row); }
    cells[0][0] = 'S';
    cells[size - 1][size - 1] = 'T';
    const rows = cells.map((r) => r.join(''));
    const answer = shortest(rows);
    if (answer > 0) return { prompt: 'Shortest path length from S to T (moves up, down, left, right; # is a ` +
  `wall):\\n' + rows.join('\\n') + '\\nAnswer as <answer>N</answer>.', rows, answer };
  }
}
export function solve(instance) {
  return '<answer>' + shortest(instance.rows) + '</answer>';
}
export function verify(instance, response) {
  const text = kit.answer(response);
  return text !== null && kit.int(text) === instance.answer ? 1 : 0;
}
`;

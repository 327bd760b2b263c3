// Fitting a signed composition: given instances that each sum some values under keys, the coefficient in -1, 0, 1
// of each key that makes the most instances' weighted sums equal their targets. Least squares (columns scaled, a
// trace of ridge) proposes, rounded; coordinate descent (most exact matches, then least total distance) polishes
// it and, from all zeros, offers a second start. Bounded: at most MAX_SOLVED keys enter the linear solve.

/** One instance: the summed values of each key in it, and the value its composition must reach. */
export interface KeyedSums {
  sums: ReadonlyMap<string, number>;
  target: number;
}

export interface SignFit {
  coefficients: Map<string, number>;
  /** The share of the instances the coefficients reproduce exactly. */
  fit: number;
}

/** Keys beyond this many (the most frequent kept) are left at zero by the linear proposal. */
const MAX_SOLVED = 120;
const SWEEPS = 8;

export const exactly = (residual: number, target: number) => Math.abs(residual) <= 1e-9 * Math.max(1, Math.abs(target));

/** Each key's column: the instances it appears in and its sum there. */
function columnsOf(instances: readonly KeyedSums[]): Map<string, Map<number, number>> {
  const columns = new Map<string, Map<number, number>>();
  instances.forEach(({ sums }, j) => {
    for (const [key, v] of sums) {
      const column = columns.get(key) ?? columns.set(key, new Map()).get(key);
      column?.set(j, v);
    }
  });
  return columns;
}

/** Solves `m x = v` (m symmetric positive definite, modified in place) by Gaussian elimination with pivoting. */
function solve(m: number[][], v: number[]): number[] {
  const n = v.length;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]?.[c] as number) > Math.abs(m[p]?.[c] as number)) p = r;
    [m[c], m[p]] = [m[p] as number[], m[c] as number[]];
    [v[c], v[p]] = [v[p] as number, v[c] as number];
    const pivot = (m[c] as number[])[c] as number;
    if (Math.abs(pivot) < 1e-300) continue;
    for (let r = c + 1; r < n; r++) {
      const f = ((m[r] as number[])[c] as number) / pivot;
      if (f === 0) continue;
      for (let k = c; k < n; k++)
        (m[r] as number[])[k] = ((m[r] as number[])[k] as number) - f * ((m[c] as number[])[k] as number);
      v[r] = (v[r] as number) - f * (v[c] as number);
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = v[r] as number;
    for (let k = r + 1; k < n; k++) s -= ((m[r] as number[])[k] as number) * (x[k] as number);
    const d = (m[r] as number[])[r] as number;
    x[r] = Math.abs(d) < 1e-300 ? 0 : s / d;
  }
  return x;
}

/** The least-squares coefficients of the most frequent keys (columns scaled to unit norm, a little ridge), rounded. */
function proposal(instances: readonly KeyedSums[], columns: Map<string, Map<number, number>>): Map<string, number> {
  const keys = [...columns.keys()]
    .filter((k) => (columns.get(k) as Map<number, number>).size >= 2)
    .sort((a, b) => (columns.get(b) as Map<number, number>).size - (columns.get(a) as Map<number, number>).size)
    .slice(0, MAX_SOLVED);
  const scale = keys.map((k) => Math.hypot(...(columns.get(k) as Map<number, number>).values()) || 1);
  // Row by row: each instance adds the products of its own keys' scaled sums (its few keys, not every pair of keys).
  const index = new Map(keys.map((k, i) => [k, i]));
  const gram = keys.map((_, a) => new Array<number>(keys.length).fill(0).map((v, b) => (a === b ? 1e-9 : v)));
  const rhs = new Array<number>(keys.length).fill(0);
  for (const { sums, target } of instances) {
    const row = [...sums].flatMap(([k, v]) => {
      const i = index.get(k);
      return i === undefined ? [] : [[i, v / (scale[i] as number)] as const];
    });
    for (const [a, va] of row) {
      rhs[a] = (rhs[a] as number) + va * target;
      for (const [b, vb] of row) (gram[a] as number[])[b] = ((gram[a] as number[])[b] as number) + va * vb;
    }
  }
  const x = solve(gram, rhs);
  return new Map(
    keys.map((k, i) => [k, Math.max(-1, Math.min(1, Math.round((x[i] as number) / (scale[i] as number))))]),
  );
}

/** Coordinate descent from `start`: each key's coefficient moved to the value that matches most, then is nearest. */
function descend(
  instances: readonly KeyedSums[],
  columns: Map<string, Map<number, number>>,
  start: Map<string, number>,
): SignFit {
  const coefficients = new Map(start);
  const residual = instances.map((x) => x.target);
  for (const [key, c] of coefficients)
    for (const [j, s] of columns.get(key) ?? []) residual[j] = (residual[j] as number) - c * s;
  const weight = (column: Map<number, number>) => [...column.values()].reduce((s, v) => s + Math.abs(v), 0);
  const order = [...columns].sort((a, b) => weight(b[1]) - weight(a[1]));
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    let moved = false;
    for (const [key, column] of order) {
      const current = coefficients.get(key) ?? 0;
      let best = { c: current, gained: 0, distance: 0 };
      for (const c of [0, 1, -1]) {
        if (c === current) continue;
        let gained = 0;
        let distance = 0;
        for (const [j, s] of column) {
          const r = residual[j] as number;
          const next = r - (c - current) * s;
          const target = (instances[j] as KeyedSums).target;
          gained += Number(exactly(next, target)) - Number(exactly(r, target));
          distance += Math.abs(next) - Math.abs(r);
        }
        if (gained > best.gained || (gained === best.gained && distance < best.distance - 1e-9))
          best = { c, gained, distance };
      }
      if (best.c === current) continue;
      for (const [j, s] of column) residual[j] = (residual[j] as number) - (best.c - current) * s;
      coefficients.set(key, best.c);
      moved = true;
    }
    if (!moved) break;
  }
  const matched = residual.filter((r, j) => exactly(r, (instances[j] as KeyedSums).target)).length;
  return { coefficients, fit: instances.length ? matched / instances.length : 0 };
}

/** The better of the polished least-squares proposal and descent from all zeros. */
export function fitSigns(instances: readonly KeyedSums[]): SignFit {
  const columns = columnsOf(instances);
  const proposed = descend(instances, columns, proposal(instances, columns));
  const plain = descend(instances, columns, new Map());
  return plain.fit > proposed.fit ? plain : proposed;
}

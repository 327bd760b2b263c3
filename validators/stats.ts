// Small statistics the validator's judgements share: confidence bounds on a rate, rank correlation, and a
// seeded generator for the extra samples a stage draws (so a verdict reproduces from the candidate alone).

/** Lower Wilson bound of a rate with `n` trials at `z` standard errors (outcomes in [0, 1], mean `rate`). */
export function lowerBound(rate: number, n: number, z: number): number {
  if (n <= 0) return 0;
  const z2 = z * z;
  const centre = rate + z2 / (2 * n);
  const spread = z * Math.sqrt((rate * (1 - rate)) / n + z2 / (4 * n * n));
  return Math.max(0, (centre - spread) / (1 + z2 / n));
}

/** Ranks with ties averaged (1-based). */
function ranks(values: number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(values.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (
      j + 1 < order.length &&
      (order[j + 1] as readonly [number, number])[0] === (order[i] as readonly [number, number])[0]
    )
      j++;
    for (let k = i; k <= j; k++) out[(order[k] as readonly [number, number])[1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return out;
}

/** Spearman rank correlation of two equally long series; 0 when either is constant. */
export function spearman(x: number[], y: number[]): number {
  if (x.length !== y.length || x.length < 2) return 0;
  const rx = ranks(x);
  const ry = ranks(y);
  const mx = rx.reduce((a, b) => a + b, 0) / rx.length;
  const my = ry.reduce((a, b) => a + b, 0) / ry.length;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < rx.length; i++) {
    const dx = (rx[i] as number) - mx;
    const dy = (ry[i] as number) - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? 0 : sxy / Math.sqrt(sxx * syy);
}

/**
 * Whether the values in `b` are reliably larger (or smaller) than those in `a` (Mann–Whitney U): +1 when
 * larger at p < 0.01 (z ≥ 2.33) or every b exceeds every a, -1 when smaller in the same sense, 0 when the
 * two samples are indistinguishable. A growth of the means that noise explains is not a trend.
 */
export function rankShift(a: number[], b: number[]): -1 | 0 | 1 {
  const n1 = a.length;
  const n2 = b.length;
  if (n1 === 0 || n2 === 0) return 0;
  const r = ranks([...a, ...b]);
  let rankSumB = 0;
  for (let i = n1; i < n1 + n2; i++) rankSumB += r[i] as number;
  const u = rankSumB - (n2 * (n2 + 1)) / 2;
  const sd = Math.sqrt((n1 * n2 * (n1 + n2 + 1)) / 12);
  const z = (u - (n1 * n2) / 2) / sd;
  if (z >= 2.33 || u === n1 * n2) return 1;
  if (z <= -2.33 || u === 0) return -1;
  return 0;
}

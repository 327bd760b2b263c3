// Which of a deciding tool's calls a reached state keeps is a dimension to search, not a list (redteam-trust7 I1):
// seeded draws keep each call with p = 1/2, the periodic family keeps every k-th for each period and phase, and a
// descent drops a random half of what a paying state keeps, so a time path opening on a pattern of decisions is met.
import { createHash } from 'node:crypto';

/** A seeded stream of fair bits: sha256 of the key and a block counter, bit by bit. */
function coin(key: string): () => boolean {
  let block = 0;
  let at = 256;
  let digest = Buffer.alloc(32);
  return () => {
    if (at >= 256) (digest = createHash('sha256').update(`${key}\u0000${block++}`).digest()), (at = 0);
    const bit = ((digest[at >> 3] as number) >> (at & 7)) & 1;
    at += 1;
    return bit === 1;
  };
}

/** Up to `count` distinct subsets of `from`, each member kept with p = 1/2, none empty, none whole, none in `seen`. */
export function drawnSubsets(
  from: readonly number[],
  key: string,
  count: number,
  seen = new Set<string>(),
): number[][] {
  const flip = coin(key);
  const out = new Map<string, number[]>();
  for (let tries = 0; out.size < count && tries < 16 * Math.max(1, count); tries++) {
    const kept = from.filter(() => flip());
    const k = kept.join();
    if (kept.length > 0 && kept.length < from.length && !seen.has(k) && !out.has(k)) out.set(k, kept);
  }
  return [...out.values()];
}

const range = (m: number) => Array.from({ length: m }, (_, i) => i);

/** Every `k`-th of `m` calls kept from phase `r` (0-based): the decided ones flank runs of `k - 1` waiting calls. */
const everyKth = (m: number, k: number, r: number) => range(m).filter((i) => i % k === r);

/**
 * The periodic subsets of `m` calls: every other one kept (the 2nd, 4th…; then the 1st, 3rd…) and every third (from
 * the 3rd, the 1st, the 2nd): the decided ones flank one waiting call, or a pair.
 */
export function periodicSubsets(m: number): number[][] {
  return [
    [2, 1],
    [2, 0],
    [3, 2],
    [3, 0],
    [3, 1],
  ].map(([k, r]) => everyKth(m, k as number, r as number));
}

/**
 * The periodic family (redteam-trust9 R5: periods are a family, as the windows were): for each period `k` from 2 to
 * `m / 2` (3 at least) and each phase, the `k`-th first, every `k`-th call kept, then the same with its ragged ends
 * decided too (a first or last run shorter than `k - 1` kept), so every waiting run holds exactly `k - 1` calls:
 * O(m²) proper subsets, none empty, at most `count`, the short periods first.
 */
export function periodicFamily(m: number, count = Infinity): number[][] {
  const out = new Map<string, number[]>();
  for (let k = 2; k <= Math.max(3, Math.floor(m / 2)); k++)
    for (const r of [k - 1, ...range(k - 1)]) {
      const kept = everyKth(m, k, r);
      const last = kept.at(-1) ?? m;
      const ragged = (i: number) => (i < r && r < k - 1) || (i > last && m - 1 - last < k - 1);
      for (const s of [kept, range(m).filter((i) => kept.includes(i) || ragged(i))])
        if (s.length > 0 && s.length < m && !out.has(s.join())) out.set(s.join(), s);
    }
  return [...out.values()].slice(0, Math.max(0, count));
}

/**
 * One step of the descent from a paid kept set: a random half of it dropped (each member with p = 1/2, at least one
 * dropped, at least one kept); null where it keeps fewer than two or no draw of 16 differs from `seen`.
 */
export function descended(kept: readonly number[], key: string, seen = new Set<string>()): number[] | null {
  return kept.length < 2 ? null : (drawnSubsets(kept, key, 1, seen)[0] ?? null);
}

// Which of a deciding tool's calls a reached state keeps is a dimension to search, not a list (redteam-trust7 I1):
// seeded draws keep each call with p = 1/2, the periodic subsets keep every k-th, and a descent drops a random half
// of what a paid state keeps, so a time path that opens on a pattern of decisions no named family holds is met.
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

/**
 * The periodic subsets of `m` calls: every other one kept (the 2nd, 4th…; then the 1st, 3rd…) and every third (from
 * the 3rd, the 1st, the 2nd): the decided ones flank one waiting call, or a pair.
 */
export function periodicSubsets(m: number): number[][] {
  const all = Array.from({ length: m }, (_, i) => i);
  return [
    [2, 1],
    [2, 0],
    [3, 2],
    [3, 0],
    [3, 1],
  ].map(([k, r]) => all.filter((i) => i % (k as number) === r));
}

/**
 * One step of the descent from a paid kept set: a random half of it dropped (each member with p = 1/2, at least one
 * dropped, at least one kept); null where it keeps fewer than two or no draw of 16 differs from `seen`.
 */
export function descended(kept: readonly number[], key: string, seen = new Set<string>()): number[] | null {
  return kept.length < 2 ? null : (drawnSubsets(kept, key, 1, seen)[0] ?? null);
}

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
 * `m / 2` (3 at least) and each phase, every `k`-th call kept, as it is and with its ragged ends decided too (a first
 * or last run shorter than `k - 1` kept, so every waiting run holds exactly `k - 1` calls): O(m²) proper subsets, none
 * empty, at most `count`. Breadth first over the periods (redteam-trust11 H5: a cap on a family ordered short periods
 * first is a threshold an author sits past): every period from its `k`-th call with the ragged ends decided, then the
 * same as they are, then each other phase in turn, every period again.
 */
export function periodicFamily(m: number, count = Infinity): number[][] {
  const periods = range(periodsOf(m)).map((i) => i + 2);
  const member = (k: number, r: number, ragged: boolean) => {
    const kept = everyKth(m, k, r);
    const last = kept.at(-1) ?? m;
    const short = (i: number) => (i < r && r < k - 1) || (i > last && m - 1 - last < k - 1);
    return ragged ? range(m).filter((i) => kept.includes(i) || short(i)) : kept;
  };
  const phases = range(Math.max(0, ...periods) - 1).flatMap((r) =>
    periods.filter((k) => r < k - 1).flatMap((k) => [member(k, r, false), member(k, r, true)]),
  );
  const made = [
    ...periods.map((k) => member(k, k - 1, true)),
    ...periods.map((k) => member(k, k - 1, false)),
    ...phases,
  ];
  const out = new Map<string, number[]>();
  for (const s of made) if (s.length > 0 && s.length < m && !out.has(s.join())) out.set(s.join(), s);
  return [...out.values()].slice(0, Math.max(0, count));
}

/** How many periods the periodic family of `m` calls holds (2 to `m / 2`, 3 at least): its first round's members. */
export const periodsOf = (m: number) => Math.max(3, Math.floor(m / 2)) - 1;

/**
 * The members of the periodic family of `m` calls one of `turns` episodes (its `turn`) replays, none in `seen`: every
 * `turns`-th from its turn, at least `count`, and as many as its share of the first round holds, so every period is
 * tried at every number of calls whatever the cap (the episodes that call the tool as often share the family out);
 * none where `count` is 0.
 */
export function periodicShare(m: number, count: number, turn = 0, turns = 1, seen = new Set<string>()): number[][] {
  const mine = periodicFamily(m).filter((kept, j) => j % turns === turn && !seen.has(kept.join()));
  return count > 0 ? mine.slice(0, Math.max(count, Math.ceil(periodsOf(m) / turns))) : [];
}

/**
 * One step of the descent from a paid kept set: a random half of it dropped (each member with p = 1/2, at least one
 * dropped, at least one kept); null where it keeps fewer than two or no draw of 16 differs from `seen`.
 */
export function descended(kept: readonly number[], key: string, seen = new Set<string>()): number[] | null {
  return kept.length < 2 ? null : (drawnSubsets(kept, key, 1, seen)[0] ?? null);
}

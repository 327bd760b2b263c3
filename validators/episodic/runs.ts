// A quantity that lives in no argument but in a count of turns (redteam-trust9 R4: a stay's nights are the
// night_audit {} calls between check_in and check_out): where a run of calls of one tool sits between an opening and a
// closing call on one entity, a closing and a re-opening inserted inside the run cut it into back-to-back pieces.
import type { Action } from './adversaries.js';

/** Each call of a log's replacements, each tagged with the index of the call it came from. */
export type Placed = Array<Array<[number, Action]>>;

interface Around {
  i: number;
  j: number;
  from: number;
  length: number;
}

/** The longest run (two calls or more) of calls of one tool strictly between calls `i` and `j`, of neither's tool. */
function runBetween(body: readonly Action[], i: number, j: number): { from: number; length: number } | null {
  let best: { from: number; length: number } | null = null;
  for (let s = i + 1; s < j; ) {
    const a = body[s] as Action;
    let e = s + 1;
    while (e < j && (body[e] as Action).tool === a.tool) e++;
    const foreign = a.tool !== body[i]?.tool && a.tool !== body[j]?.tool;
    if (foreign && e - s >= 2 && e - s > (best?.length ?? 0)) best = { from: s, length: e - s };
    s = e;
  }
  return best;
}

/**
 * For each kind of pair (an opening call, the nearest later call of another tool on its entity, the tool of the run
 * between; at most `kinds`, the most frequent first), every such run cut into as many pieces as `room` spare calls
 * allow (at most `most`, at most the run's length): a closing and an opening call inserted at each cut.
 */
export function runCuts(
  body: readonly Action[],
  entity: (i: number, j: number) => boolean,
  room: number,
  most: number,
  kinds: number,
): Array<{ how: string; placed: Placed }> {
  const found = new Map<string, Around[]>();
  for (const [i, a] of body.entries()) {
    for (let j = i + 1; j < body.length; j++) {
      const b = body[j] as Action;
      if (!entity(i, j)) continue;
      if (b.tool === a.tool) break;
      const run = runBetween(body, i, j);
      if (run) {
        const key = `${(body[run.from] as Action).tool} between ${a.tool} and ${b.tool}`;
        const pairs = found.get(key) ?? found.set(key, []).get(key);
        if (!pairs?.some((p) => p.i === i || p.j === j)) pairs?.push({ i, j, ...run });
      }
      break;
    }
  }
  const chosen = [...found].sort(([, p], [, q]) => q.length - p.length).slice(0, kinds);
  return chosen.flatMap(([key, pairs]) => {
    const k = Math.min(most, 1 + Math.floor(room / (2 * pairs.length)));
    if (k < 2) return [];
    const placed: Placed = body.map((a, i) => [[i, a]]);
    for (const { i, j, from, length } of pairs) {
      const n = Math.min(k, length);
      for (let r = 1; r < n; r++) {
        const c = from + Math.floor((r * length) / n);
        placed[c] = [[j, body[j] as Action], [i, body[i] as Action], ...(placed[c] ?? [])];
      }
    }
    return [{ how: `each run of ${key} cut into ${k} pieces by a closing and an opening call`, placed }];
  });
}

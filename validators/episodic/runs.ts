// A quantity that lives in no argument but in a count of turns (redteam-trust9 R4: a stay's nights are the
// night_audit {} calls between check_in and check_out; redteam-trust11 H1: each audit followed by open_day {}): where
// a block of calls repeats between an opening and a closing call on one entity (the plan's period: one tool, or an
// audit and an open_day, a read inside, arguments that differ per repetition), a closing and a re-opening inserted at
// block boundaries cut it into back-to-back pieces.
import type { Action } from './adversaries.js';

/** Each call of a log's replacements, each tagged with the index of the call it came from. */
export type Placed = Array<Array<[number, Action]>>;

/** A block of `period` calls repeated `count` times from call `from`. */
export interface Block {
  from: number;
  period: number;
  count: number;
}

interface Around extends Block {
  i: number;
  j: number;
}

/**
 * The block repeated most between calls `i` and `j` of `tools` (the calls' tool names; arguments may differ per
 * repetition): the shortest repeating segment strictly between them that repeats twice or more in a row and holds
 * neither call's tool, the one covering the most calls (then the shorter period, then the earlier), aligned on its
 * first repetition; where `changed` says which calls changed the reference's state, one holding such a call (a decoy
 * of repeated reads grows nothing). Null where none repeats.
 */
export function blockBetween(
  tools: readonly string[],
  i: number,
  j: number,
  changed?: readonly boolean[],
): Block | null {
  const own = new Set([tools[i], tools[j]]);
  let best: Block | null = null;
  for (let p = 1; i + 1 + 2 * p <= j; p++) {
    // A stretch where each call's tool is the one `p` calls later's repeats the block of its first `p` calls.
    for (let s = i + 1; s + 2 * p <= j; ) {
      let e = s;
      while (e + p < j && tools[e] === tools[e + p]) e++;
      const count = Math.floor((e - s + p) / p);
      const foreign = tools.slice(s, s + p).every((t) => !own.has(t));
      const grows = !changed || changed.slice(s, s + count * p).some(Boolean);
      if (count >= 2 && foreign && grows && count * p > (best ? best.count * best.period : 0))
        best = { from: s, period: p, count };
      s = Math.max(s + 1, e);
    }
  }
  return best;
}

/**
 * For each kind of pair (an opening call, the nearest later call of another tool on its entity with a repeated block
 * between, the block's tools; at most `kinds`, the most frequent first), every such block cut at its boundaries into
 * as many pieces as `room` spare calls allow (at most `most`, at most its repetitions): a closing and an opening call
 * inserted at each cut (`changed`: whether each call changed the reference's state, where known).
 */
export function runCuts(
  body: readonly Action[],
  entity: (i: number, j: number) => boolean,
  room: number,
  most: number,
  kinds: number,
  changed?: readonly boolean[],
): Array<{ how: string; placed: Placed }> {
  const tools = body.map((a) => a.tool);
  const found = new Map<string, Around[]>();
  for (const [i, a] of body.entries()) {
    for (let j = i + 1; j < body.length; j++) {
      if (!entity(i, j)) continue;
      if (tools[j] === a.tool) break;
      // A call on the entity with no block before it (a read of the guest inside a night) is not the closing one.
      const block = blockBetween(tools, i, j, changed);
      if (!block) continue;
      const unit = tools.slice(block.from, block.from + block.period).join(' + ');
      const key = `${block.period > 1 ? `(${unit})` : unit} between ${a.tool} and ${tools[j]}`;
      const pairs = found.get(key) ?? found.set(key, []).get(key);
      if (!pairs?.some((p) => p.i === i || p.j === j)) pairs?.push({ i, j, ...block });
      break;
    }
  }
  const chosen = [...found].sort(([, p], [, q]) => q.length - p.length).slice(0, kinds);
  return chosen.flatMap(([key, pairs]) => {
    const k = Math.min(most, 1 + Math.floor(room / (2 * pairs.length)));
    if (k < 2) return [];
    const placed: Placed = body.map((a, i) => [[i, a]]);
    for (const { i, j, from, period, count } of pairs) {
      const n = Math.min(k, count);
      for (let r = 1; r < n; r++) {
        const c = from + period * Math.floor((r * count) / n);
        placed[c] = [[j, body[j] as Action], [i, body[i] as Action], ...(placed[c] ?? [])];
      }
    }
    return [{ how: `each run of ${key} cut into ${k} pieces by a closing and an opening call`, placed }];
  });
}

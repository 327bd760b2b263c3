// Which entities and tools episodic-withheld tries within its caps (redteam-trust16 Q7, Q8): the caps bound the cost
// and never decide by position; entities are screened by the world's answer to the call itself (the refused ones go
// last) and ties, like the tools a cap cuts, are chosen by the validation seed and the episode.
import { createHash } from 'node:crypto';
import type { Action } from './adversaries.js';

/** Calls of one screening replay at most (the candidates beyond it are chosen by the seed). */
export const SCREENED_ENTITIES = 16;

/** A number from `key`, the same on every run (sha256's first 32 bits). */
const draw = (key: string): number => createHash('sha256').update(key).digest().readUInt32BE(0);

/** `list` in an order drawn from `salt` (the validation seed and the episode): no place in it is foreseeable. */
export const seededOrder = <T>(list: readonly T[], name: (t: T) => string, salt: string): T[] =>
  list
    .map((t) => ({ t, d: draw(`${salt}\u0000${name(t)}`) }))
    .sort((a, b) => a.d - b.d)
    .map((x) => x.t);

/**
 * At most `n` of an episode's tools, the list rotated by the seed and the episode (`salt`, `episode`): consecutive
 * episodes start one apart, so no tool is cut in every episode where the tools recur.
 */
export function rotatedTools<T>(list: readonly T[], n: number, salt: string, episode: number): T[] {
  if (list.length <= n) return [...list];
  const start = (draw(salt) + episode) % list.length;
  return [...list.slice(start), ...list.slice(0, start)].slice(0, n);
}

/** Groups interleaved (each group's first, then each group's second, ...), each group in its drawn order. */
const interleaved = (groups: readonly string[][], salt: string): string[] => {
  const drawn = groups.map((g) => seededOrder(g, (t) => t, salt));
  const out: string[] = [];
  for (let k = 0; drawn.some((g) => k < g.length); k++)
    for (const g of drawn) if (k < g.length) out.push(g[k] as string);
  return out;
};

/** The entities one screening replay names (all where they fit in `room`, else a drawn share over the shapes). */
export const screenedEntities = (groups: readonly string[][], room: number, salt: string): string[] =>
  interleaved(groups, salt).slice(0, Math.max(0, Math.min(room, SCREENED_ENTITIES)));

/** The screening calls: `template` with its entity argument `arg` set to each entity, one after another. */
export const screeningCalls = (
  template: Action,
  arg: string,
  entities: readonly string[],
  call: (e: string) => Action = (e) => ({ tool: template.tool, args: { ...template.args, [arg]: e } }),
): Action[] => entities.map(call);

/** What a screening replay says of its turns (from the plan's end). */
export interface ScreenRun {
  ok: boolean;
  turns?: number;
  rejected?: readonly number[];
  changes?: readonly (readonly string[])[];
}

/**
 * Each screened entity's rank by the world's answer to its call at turn index `from + k`: 0 taken (accepted and
 * changing a path beyond bookkeeping `book`), 1 not played, 2 refused (by the host, or changing nothing beyond
 * bookkeeping), which cannot count as a finding.
 */
export function screenRanks(
  entities: readonly string[],
  run: ScreenRun | undefined,
  from: number,
  book: ReadonlySet<string>,
): Map<string, number> {
  return new Map(
    entities.map((e, k) => {
      const j = from + k;
      if (!run?.ok || j >= (run.turns ?? 0) || !run.changes) return [e, 1];
      if (run.rejected?.includes(j + 1)) return [e, 2];
      return [e, (run.changes[j] ?? []).some((p) => !book.has(p)) ? 0 : 2];
    }),
  );
}

/**
 * At most `n` entities from `groups` (one shape each): the ranked best first (taken, then not screened, then refused),
 * shapes interleaved at each rank, each shape's entities in an order drawn from `salt`.
 */
export function chooseEntities(
  groups: readonly string[][],
  n: number,
  rank: ReadonlyMap<string, number>,
  salt: string,
): string[] {
  const of = (e: string) => rank.get(e) ?? 1;
  return [0, 1, 2]
    .flatMap((r) =>
      interleaved(
        groups.map((g) => g.filter((e) => of(e) === r)),
        salt,
      ),
    )
    .slice(0, Math.max(0, n));
}

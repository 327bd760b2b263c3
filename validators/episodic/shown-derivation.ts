// Whether a value a reply shows is the agent's work done for it: a chain (shown-chains.ts) over the numbers the world
// showed of the entity, told every entity and the texts state reproduces the shown value, or a few chains do, each
// for the entities showing a word (a fee per department), fitted on half the episodes and judged on the other half.
// A value no such chain reproduces is a lookup (an amount due, an issued ticket number), whatever words the texts use
// and wherever the world keeps it.
import { near } from './derived.js';
import { tokensOf } from './probes.js';
import { crossFitsCases } from './shown-cases.js';
import { chainsOf, holds, MAX_STATED, namesOf, twoFolds, variantsOf } from './shown-chains.js';
import type { Chain, Given, ShownSample } from './shown-chains.js';

export { MAX_SHOWN, MAX_STATED, MAX_TOLD, type Given, type ShownSample } from './shown-chains.js';

/**
 * The numbers the texts state, each named by the two words before it ('allowance of', 'keeps a'): the same rule's
 * number across episodes whatever its value there (a drawn rate), up to `MAX_STATED` distinct values.
 */
export function statedOf(texts: readonly string[]): Given[] {
  const out: Given[] = [];
  for (const text of texts) {
    const words: string[] = [];
    for (const token of tokensOf(text)) {
      const value = Number(token);
      if (!Number.isFinite(value)) {
        words.push(token.toLowerCase());
        continue;
      }
      const name = words.slice(-2).join(' ');
      const taken = out.filter((g) => g.id === name || g.id.startsWith(`${name}#`)).length;
      if (out.length < 4 * MAX_STATED) out.push({ id: taken ? `${name}#${taken + 1}` : name, value });
    }
  }
  return out;
}

/** Whether the sample tells anything: its value is not also a number the world showed (a restated figure). */
const informative = (s: ShownSample) => !s.shown.some((g) => near(g.value, s.value));

/**
 * The samples without the value's own copies: a shown number whose name (place or label) equals the sample's value in
 * every sample showing it (two or more) prints the value again ('Refundable: $72; refund $72'), not an input that
 * some samples restate (an unopened item's price): the same value at several places is one number (redteam-s23e V10).
 */
function withoutCopies(samples: readonly ShownSample[]): ShownSample[] {
  const counts = new Map<string, { n: number; equal: number }>();
  for (const s of samples)
    for (const g of s.shown)
      for (const name of namesOf(g)) {
        const c = counts.get(name) ?? { n: 0, equal: 0 };
        counts.set(name, { n: c.n + 1, equal: c.equal + (near(g.value, s.value) ? 1 : 0) });
      }
  const copies = new Set([...counts].filter(([, c]) => c.n >= 2 && c.equal === c.n).map(([name]) => name));
  if (copies.size === 0) return [...samples];
  return samples.map((s) => ({ ...s, shown: s.shown.filter((g) => !namesOf(g).some((name) => copies.has(name))) }));
}

/** The episodes of `fold` whose samples `chain` reproduces (each episode's reproduced samples counted). */
function reproduced(chain: Chain, fold: readonly ShownSample[]): { n: number; episodes: number } {
  const hits = fold.filter((s) => holds(chain, s));
  return { n: hits.length, episodes: new Set(hits.map((s) => s.episode)).size };
}

/**
 * The chain that reproduces the most samples of `fold`, among those of a few samples of distinct episodes; null where
 * none reproduces half of the fold's samples, in two episodes or more.
 */
function fit(fold: readonly ShownSample[]): Chain | null {
  const episodes = [...new Set(fold.map((s) => s.episode))];
  const every = Math.max(1, Math.ceil(episodes.length / 4));
  const seeds = episodes.filter((_, k) => k % every === 0).map((e) => fold.find((s) => s.episode === e) as ShownSample);
  const candidates = new Map<string, Chain>();
  for (const s of seeds)
    for (const chain of chainsOf(s)) for (const v of variantsOf(chain, s)) candidates.set(JSON.stringify(v), v);
  let best: { chain: Chain; n: number; episodes: number } | null = null;
  // A chain that misses over half of the fold is never kept: its count stops there.
  const allowed = fold.length - Math.ceil(fold.length / 2);
  for (const chain of candidates.values()) {
    let misses = 0;
    if (!fold.every((s) => holds(chain, s) || ++misses <= allowed)) continue;
    const r = reproduced(chain, fold);
    if (!best || r.n > best.n || (r.n === best.n && chain.steps.length < best.chain.steps.length))
      best = { chain, ...r };
  }
  return best && best.episodes >= 2 && best.n * 2 >= fold.length ? best.chain : null;
}

/**
 * Whether the chain fitted on the even episodes of `group` reproduces half the odd ones' samples and vice versa (each
 * fold of two episodes or more).
 */
function crossFits(group: readonly ShownSample[]): boolean {
  return twoFolds(group, (fitted, held) => {
    const chain = fit(fitted);
    return chain !== null && reproduced(chain, held).n * 2 >= held.length;
  });
}

/**
 * Whether the samples' values are derived from what their entities showed: a chain cross-fits all the informative
 * samples, or those of one level (a level's texts may state a rule the others extend: brackets, credits), or a few
 * chains do by cases (shown-cases.ts: a rule by a table, rt30e W2).
 */
export function derivedFromShown(samples: readonly ShownSample[]): boolean {
  const useful = withoutCopies(samples).filter(informative);
  const levels = [...new Set(useful.map((s) => s.level))];
  const groups = [useful, ...(levels.length > 1 ? levels.map((l) => useful.filter((s) => s.level === l)) : [])];
  return groups.some(crossFits) || crossFitsCases(useful);
}

// A derivation by cases: a rule written as a table (a fee per department, a rate per tier) is a few chains, each for
// the entities that show a word, none holding for half the samples. Fitted greedily on one fold (a chain per case,
// the case the word that selects the samples it reproduces), then each case judged on the held fold for its own
// samples, the cases together covering half of it: the held fold tests a fixed hypothesis per case, so the search's
// many chains and words are counted once, where they were fitted.
import { near, rounded } from './derived.js';
import { chainsOf, evaluate, holds, twoFolds, variantsOf, type Chain, type ShownSample } from './shown-chains.js';

/** One case: the chain that holds where the entity shows `word` (or of the level `word` names). */
interface Case {
  word: string;
  chain: Chain;
}

/** At most this many cases, fitted on at most this many samples of a fold; the search gives up after misses. */
const MAX_CASES = 8;
const FIT_SAMPLES = 48;
const MAX_MISSES = 2;
const MAX_NAMES = 4;

/** The words the sample's entity showed, and its level as a word (a rule by level is a rule by cases too). */
const wordsMemo = new WeakMap<ShownSample, Set<string>>();
function wordsOf(s: ShownSample): Set<string> {
  let m = wordsMemo.get(s);
  if (!m) wordsMemo.set(s, (m = new Set([...(s.words ?? []), `level ${s.level}`])));
  return m;
}

/** Up to `n` samples of `fold`, spread evenly over it. */
const spread = (fold: readonly ShownSample[], n: number): ShownSample[] =>
  fold.length <= n
    ? [...fold]
    : Array.from({ length: n }, (_, k) => fold[Math.floor((k * fold.length) / n)] as ShownSample);

const episodesOf = (samples: readonly ShownSample[]) => new Set(samples.map((s) => s.episode)).size;

/**
 * The best case found from `seed`: among the seed's chains and its words that select some samples but not all (in
 * two episodes or more), the pair whose chain reproduces the most samples of the word's class, half of them or more,
 * in two episodes or more (fewer steps first among equals).
 */
function caseOf(seed: ShownSample, sample: readonly ShownSample[], selective: (w: string) => boolean) {
  const words = [...wordsOf(seed)].filter(selective);
  const classes = words.map((w) => sample.filter((s) => wordsOf(s).has(w)));
  const pool = [...new Set(classes.flat())];
  let best: { word: string; chain: Chain; hits: ShownSample[] } | null = null;
  // Each chain's values once per sample (its roundings judged on them), the first variants of its names only.
  const values = new Map<string, (number | undefined)[]>();
  const tried = new Set<string>();
  for (const found of chainsOf(seed))
    for (const chain of variantsOf(found, seed).slice(0, MAX_NAMES)) {
      const key = JSON.stringify(chain);
      if (tried.has(key)) continue;
      tried.add(key);
      const bare = JSON.stringify([chain.start, chain.steps]);
      const xs = values.get(bare) ?? pool.map((s) => evaluate(chain, s));
      values.set(bare, xs);
      const hit = new Set(pool.filter((s, k) => xs[k] !== undefined && near(rounded(xs[k], chain.round), s.value)));
      words.forEach((word, i) => {
        const cls = classes[i] as ShownSample[];
        const hits = cls.filter((s) => hit.has(s));
        if (hits.length * 2 < cls.length || episodesOf(hits) < 2) return;
        if (!best || hits.length > best.hits.length) best = { word, chain, hits };
        else if (hits.length === best.hits.length && chain.steps.length < best.chain.steps.length)
          best = { word, chain, hits };
      });
    }
  return best as { word: string; chain: Chain; hits: ShownSample[] } | null;
}

/**
 * The cases of `fold`, each found from a sample no earlier case reproduces (`caseOf`); null where they reproduce
 * under half of the samples fitted on, or the search missed `MAX_MISSES` seeds and more than it found cases.
 */
function fitCases(fold: readonly ShownSample[]): Case[] | null {
  const sample = spread(fold, FIT_SAMPLES);
  const episodes = new Map<string, Set<number>>();
  const counts = new Map<string, number>();
  for (const s of sample)
    for (const w of wordsOf(s)) {
      episodes.set(w, (episodes.get(w) ?? new Set()).add(s.episode));
      counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  const selective = (w: string) => (episodes.get(w)?.size ?? 0) >= 2 && (counts.get(w) ?? 0) < sample.length;
  const cases: Case[] = [];
  const open = new Set(sample);
  let misses = 0;
  for (const seed of sample) {
    if (cases.length >= MAX_CASES || (misses >= MAX_MISSES && misses > cases.length)) break;
    if (!open.has(seed)) continue;
    open.delete(seed);
    const found = caseOf(seed, sample, selective);
    if (!found) {
      misses++;
      continue;
    }
    cases.push({ word: found.word, chain: found.chain });
    for (const s of found.hits) open.delete(s);
  }
  return cases.length > 0 && covered(cases, sample).length * 2 >= sample.length ? cases : null;
}

/** The samples some case reproduces among those its word selects. */
const covered = (cases: readonly Case[], samples: readonly ShownSample[]) =>
  samples.filter((s) => cases.some((c) => wordsOf(s).has(c.word) && holds(c.chain, s)));

/**
 * Whether the cases fitted on `fitted` hold on `held`: each case reproduces half of the held samples its word selects
 * (where any), and together they reproduce half of the held samples, in two episodes or more.
 */
function confirmed(cases: readonly Case[] | null, held: readonly ShownSample[]): boolean {
  if (!cases) return false;
  for (const c of cases) {
    const cls = held.filter((s) => wordsOf(s).has(c.word));
    if (cls.filter((s) => holds(c.chain, s)).length * 2 < cls.length) return false;
  }
  const hits = covered(cases, held);
  return hits.length * 2 >= held.length && episodesOf(hits) >= 2;
}

/** Whether a derivation by cases cross-fits `group`: fitted on each fold, confirmed on the other. */
export function crossFitsCases(group: readonly ShownSample[]): boolean {
  return twoFolds(group, (fitted, held) => confirmed(fitCases(fitted), held));
}

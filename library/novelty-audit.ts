// Audits a set of admitted environments for near-duplicate pairs with the validator's own fingerprints
// and rule: what "no two admitted environments are near-duplicates" means, checked after the fact.
import { NoveltyIndex } from '../validators/novelty/lsh.js';
import { noveltyId, noveltyVerdict } from '../validators/stages/novelty.js';
import type { EnvRecord } from './contract.js';

export interface NearDuplicatePair {
  /** The earlier admission of the two (by list order) and the later one. */
  a: string;
  b: string;
  kind: 'code' | 'behaviour';
  codeSimilarity: number;
  behaviourSimilarity: number;
}

/** Every pair of environments (distinct names) the novelty stage would call near-duplicates, in input order. */
export function nearDuplicatePairs(
  envs: ReadonlyArray<Pick<EnvRecord, 'name' | 'hash' | 'fingerprint'>>,
): NearDuplicatePair[] {
  const index = new NoveltyIndex();
  const pairs: NearDuplicatePair[] = [];
  for (const env of envs) {
    if (!env.fingerprint) continue;
    const { matches } = noveltyVerdict(index, env.fingerprint, env.name, env.hash, Infinity);
    for (const m of matches) {
      if (m.name === env.name || m.hash === env.hash) continue;
      pairs.push({
        a: m.name,
        b: env.name,
        kind: m.kind,
        codeSimilarity: m.codeSimilarity,
        behaviourSimilarity: m.behaviourSimilarity,
      });
    }
    index.add(noveltyId(env.name, env.hash), env.fingerprint);
  }
  return pairs;
}

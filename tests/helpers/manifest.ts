// A fixture corpus's manifest (each candidate file with the verdict the validator must reach and, for a
// rejection, the codes any one of which it must report) and the setup its corpus test shares.
import { readFileSync } from 'node:fs';
import { seedNoveltyIndex } from '../../library/novelty-index.js';
import { SandboxPool } from '../../sandbox/pool.js';
import type { NoveltyIndex } from '../../validators/novelty/lsh.js';

export interface Expectation {
  file: string;
  verdict: 'admit' | 'reject';
  codes: string[];
  why: string;
}

export function readManifest(corpus: URL): Expectation[] {
  return JSON.parse(readFileSync(new URL('manifest.json', corpus), 'utf8')) as Expectation[];
}

/** A corpus test's shared setup: one pool for the file and the seeds' novelty index, built before the tests. */
export function corpusSetup(
  corpus: URL,
  hooks: { beforeAll: (fn: () => Promise<void>) => void; afterAll: (fn: () => Promise<void>) => void },
): { manifest: Expectation[]; pool: SandboxPool; novelty: () => NoveltyIndex } {
  const pool = new SandboxPool();
  let index: NoveltyIndex | undefined;
  hooks.beforeAll(async () => {
    index = await seedNoveltyIndex(pool);
  });
  hooks.afterAll(() => pool.close());
  return {
    manifest: readManifest(corpus),
    pool,
    novelty: () => {
      if (!index) throw new Error('the novelty index is built in beforeAll');
      return index;
    },
  };
}

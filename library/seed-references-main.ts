// `npm run seeds:references`: rewrites seeds/fingerprints.json from the shipped seeds as they are now.
import { SandboxPool } from '../sandbox/pool.js';
import { SEED_REFERENCES_FILE, writeSeedReferences } from './seed-references.js';

const pool = new SandboxPool();
try {
  const seeds = await writeSeedReferences(pool);
  console.log(`wrote ${seeds.length} seed references to ${SEED_REFERENCES_FILE}`);
} finally {
  await pool.close();
}

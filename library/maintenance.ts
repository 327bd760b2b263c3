// Library jobs that need the validator: seeding a new library (init) and re-validating admitted
// environments after a validator upgrade, retiring what no longer passes.
import { relative } from 'node:path';
import { PACKAGE_ROOT } from '../contract/paths.js';
import { hashSource } from '../contract/hash.js';
import type { SandboxPool } from '../sandbox/pool.js';
import { LiveNoveltyIndex, markDuplicate } from './novelty-guard.js';
import { noveltyIndexOf } from './novelty-index.js';
import type { ValidationReport } from '../validators/report.js';
import { validateCandidate, VALIDATOR_VERSION } from '../validators/validate.js';
import type { EnvRecord, Library } from './contract.js';
import { LibraryError } from './contract.js';
import { listShippedSeeds, type SeedKind } from './seeds.js';

export interface SeedOutcome {
  name: string;
  status: 'admitted' | 'exists' | 'rejected';
  version?: number;
  problems?: string[];
}

/**
 * Validates every shipped seed of the given kinds against the library and admits it (lineage author
 * 'seed'); idempotent: a seed whose exact code the library holds is not validated again.
 */
export async function seedLibrary(
  library: Library,
  pool: SandboxPool,
  onProgress?: (outcome: SeedOutcome) => void,
  kinds: readonly SeedKind[] = ['single'],
): Promise<SeedOutcome[]> {
  const outcomes: SeedOutcome[] = [];
  const novelty = await LiveNoveltyIndex.of(library);
  const held = new Map((await library.list({ status: 'all', allVersions: true })).map((e) => [e.hash, e]));
  for (const seed of listShippedSeeds(kinds)) {
    const same = held.get(hashSource(seed.source));
    if (same) {
      outcomes.push({ name: seed.name, status: 'exists', version: same.version });
      onProgress?.(outcomes.at(-1) as SeedOutcome);
      continue;
    }
    await novelty.refresh(library);
    const report = await validateCandidate(seed.source, { pool, novelty: novelty.index });
    const result =
      report.verdict === 'admit'
        ? await library.admit({
            source: seed.source,
            report,
            lineage: { author: 'seed', notes: { file: relative(PACKAGE_ROOT, seed.file) } },
            noveltyCursor: novelty.cursor,
          })
        : null;
    if (result?.status === 'duplicate') markDuplicate(report, result.problems);
    let outcome: SeedOutcome;
    if (result && result.status !== 'duplicate') {
      novelty.add(result.env);
      outcome = { name: seed.name, status: result.status, version: result.env.version };
    } else {
      outcome = {
        name: seed.name,
        status: 'rejected',
        problems: report.problems.map((p) => `${p.code}: ${p.message}`),
      };
    }
    outcomes.push(outcome);
    onProgress?.(outcome);
  }
  return outcomes;
}

export interface RevalidationOutcome {
  name: string;
  version: number;
  verdict: 'admit' | 'reject';
  retired: boolean;
  codes: string[];
  /** Open production incidents replayed in this validation (their seed, level and response) and then resolved. */
  incidents: number;
  ms: number;
}

/**
 * Re-runs the validator on active environments (all, or the named ones) and retires those it rejects.
 * Every open incident of an environment (quarantined or not) is replayed among the validator's samples,
 * then resolved: by the retirement, or by the new admitting report.
 */
export async function revalidate(
  library: Library,
  pool: SandboxPool,
  names: string[] = [],
  onProgress?: (outcome: RevalidationOutcome) => void,
): Promise<RevalidationOutcome[]> {
  const active = await library.list();
  for (const name of names)
    if (!active.some((e) => e.name === name)) throw new LibraryError(`unknown or retired environment "${name}"`);
  const targets: EnvRecord[] = names.length ? active.filter((e) => names.includes(e.name)) : active;
  const novelty = await noveltyIndexOf(library);
  const outcomes: RevalidationOutcome[] = [];
  for (const env of targets) {
    const open = await library.incidents({ hash: env.hash, open: true });
    const include = open.map((i) => ({
      seed: i.seed,
      level: i.level,
      // A cut response (its client's later failures of one shape: V22-5) is no input to replay; its instance still is.
      ...(i.response === undefined || i.responseCut ? {} : { responses: [i.response] }),
    }));
    const report: ValidationReport = await validateCandidate(await library.source(env), { pool, novelty, include });
    const codes = [...new Set(report.problems.map((p) => p.code))];
    let retired = false;
    if (report.verdict === 'reject') {
      const first = report.problems[0];
      await library.retire(
        env.name,
        `revalidation with validator ${VALIDATOR_VERSION} rejected it: ${codes.join(', ')}` +
          `${first ? ` (${first.message})` : ''}`,
        env.version,
      );
      retired = true;
    }
    if (open.length > 0) {
      const how = retired
        ? `retired by revalidation (${codes.join(', ')})`
        : `revalidated with validator ${VALIDATOR_VERSION} (validation seed ${report.validationSeed}): ` +
          `admitted, the incidents did not recur`;
      await library.resolveIncidents(env.hash, how);
    }
    const outcome = {
      name: env.name,
      version: env.version,
      verdict: report.verdict,
      retired,
      codes,
      incidents: open.length,
      ms: report.ms,
    };
    outcomes.push(outcome);
    onProgress?.(outcome);
  }
  return outcomes;
}

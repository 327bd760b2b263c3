// Novelty across concurrent writers: a writer's live index (its snapshot plus every admission since, by
// admission cursor) and the re-check a store runs inside its admitting transaction against what was
// admitted after the candidate's snapshot, with the novelty stage's own rule.
import type { ValidationReport } from '../validators/report.js';
import { NoveltyIndex } from '../validators/novelty/lsh.js';
import { noveltyId, noveltyVerdict } from '../validators/stages/novelty.js';
import type { EnvRecord, Library } from './contract.js';
import { addSeedReferences } from './seed-references.js';

type Indexed = Pick<EnvRecord, 'name' | 'hash' | 'fingerprint'>;

/**
 * The problems that make an admitting report a near-duplicate of one of `since` (environments admitted after
 * its novelty snapshot); empty when it is novel, or when the report carries no fingerprint to compare.
 */
export function recheckNovelty(report: ValidationReport, since: readonly Indexed[]): ValidationReport['problems'] {
  if (!report.fingerprint || !report.meta || since.length === 0) return [];
  const index = new NoveltyIndex();
  for (const env of since) if (env.fingerprint) index.add(noveltyId(env.name, env.hash), env.fingerprint);
  return noveltyVerdict(index, report.fingerprint, report.meta.name, report.hash).problems.map((p) => ({
    ...p,
    stage: 'novelty' as const,
  }));
}

/**
 * A novelty index that follows a library: built from its active environments, then brought up to date with
 * every admission after its cursor (by anyone) before each use. Pass `cursor` with an admission so the
 * store re-checks what arrived between the snapshot and the commit.
 */
export class LiveNoveltyIndex {
  private constructor(
    readonly index: NoveltyIndex,
    private position: number,
  ) {}

  /**
   * Starts from the shipped seeds' references. The cursor is read first: an admission between the two reads is then
   * seen twice, never missed.
   */
  static async of(library: Library): Promise<LiveNoveltyIndex> {
    const cursor = await library.admissionCursor();
    const live = new LiveNoveltyIndex(new NoveltyIndex(), cursor);
    addSeedReferences(live.index);
    for (const env of await library.list()) live.add(env);
    return live;
  }

  get cursor(): number {
    return this.position;
  }

  /** Adds everything admitted since the cursor (active versions only, as a fresh index would hold them). */
  async refresh(library: Library): Promise<this> {
    const { envs, cursor } = await library.admittedSince(this.position);
    for (const env of envs) this.add(env);
    this.position = Math.max(this.position, cursor);
    return this;
  }

  /** An admission this writer made itself: indexed now, without waiting for the next refresh. */
  add(env: Pick<EnvRecord, 'name' | 'hash' | 'fingerprint' | 'status'>): void {
    if (env.status === 'active' && env.fingerprint) this.index.add(noveltyId(env.name, env.hash), env.fingerprint);
  }
}

/** Makes an admitting report the rejection that the admission-time re-check found, stage and verdict alike. */
export function markDuplicate(report: ValidationReport, problems: ValidationReport['problems']): void {
  report.verdict = 'reject';
  report.problems.push(...problems);
  const stage = report.stages.find((s) => s.stage === 'novelty');
  if (stage) {
    stage.ok = false;
    stage.problems.push(...problems.map(({ stage: _stage, ...problem }) => problem));
    stage.metrics = { ...stage.metrics, recheckedAtAdmission: true };
  }
}

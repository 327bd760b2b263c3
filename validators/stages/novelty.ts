// Stage 8, novelty: fingerprints of the code and of the behaviour (masked prompts, answer type), looked
// up in the library's LSH index; a near-duplicate of another environment is rejected. A match with the
// same name is a new version of that environment, not a duplicate (the library versions it).
import type { Stage, StageContext } from '../context.js';
import type { Fingerprint } from '../novelty/fingerprint.js';
import type { Problem } from '../report.js';
import { codeFingerprint } from '../novelty/code.js';
import { behaviourFingerprint } from '../novelty/behaviour.js';
import type { NoveltyIndex } from '../novelty/lsh.js';

/** The problem code of a near-duplicate by each fingerprint. */
const DUPLICATE_CODES = { code: 'E_DUPLICATE_CODE', behaviour: 'E_DUPLICATE_BEHAVIOUR' } as const;

/** Index ids are "name@hash": the stage needs both to tell a duplicate from a new version or the same code. */
export function noveltyId(name: string, hash: string): string {
  return `${name}@${hash}`;
}

export function fingerprintOf(ctx: Pick<StageContext, 'source' | 'episodes' | 'kind'>): Fingerprint {
  // Two prompts per level keep the behaviour fingerprint comparable across environments with many levels.
  const byLevel = new Map<number, number>();
  const sample = ctx.episodes.filter((e) => {
    const n = byLevel.get(e.level) ?? 0;
    byLevel.set(e.level, n + 1);
    return n < 4;
  });
  const seen = sample.map((e) => ctx.kind.behaviour(e));
  const { behaviour, answerType } = behaviourFingerprint(
    seen.map((b) => b.text),
    seen.map((b) => b.reference),
  );
  return { code: codeFingerprint(ctx.source), behaviour, answerType };
}

/**
 * The stage's rule: the matches of a fingerprint in an index that make a candidate named `name` with code
 * `hash` a near-duplicate (another name; the same name is a new version, the same hash the same code).
 * The library applies it again at admission (library/novelty-guard.ts), so both judge alike.
 */
export function noveltyVerdict(index: NoveltyIndex, fingerprint: Fingerprint, name: string, hash: string, limit = 10) {
  const matches = index
    .query(fingerprint, limit)
    .map((m) => ({ ...m, name: m.id.slice(0, m.id.lastIndexOf('@')), hash: m.id.slice(m.id.lastIndexOf('@') + 1) }));
  const duplicates = matches.filter((m) => m.name !== name && m.hash !== hash);
  const problems: Problem[] = [];
  for (const kind of ['code', 'behaviour'] as const) {
    const hit = duplicates.find((m) => m.kind === kind);
    if (!hit) continue;
    problems.push({
      code: DUPLICATE_CODES[kind],
      message:
        `near-duplicate of the admitted environment "${hit.name}" by ${kind} (code similarity ` +
        `${hit.codeSimilarity.toFixed(2)}, behaviour similarity ${hit.behaviourSimilarity.toFixed(2)})`,
      evidence: duplicates
        .filter((m) => m.kind === kind)
        .slice(0, 3)
        .map((m) => ({ env: m.name, codeSimilarity: m.codeSimilarity, behaviourSimilarity: m.behaviourSimilarity })),
    });
  }
  return { matches, problems };
}

export const noveltyStage: Stage = async (ctx) => {
  const fingerprint = fingerprintOf(ctx);
  ctx.fingerprint = fingerprint;
  if (!ctx.novelty) return { ok: true, metrics: { librarySize: 0, answerType: fingerprint.answerType }, problems: [] };
  const name = ctx.meta?.name ?? '';
  const { matches, problems } = noveltyVerdict(ctx.novelty, fingerprint, name, ctx.hash);
  const sameCode = matches.find((m) => m.hash === ctx.hash);
  const versions = matches.filter((m) => m.name === name && m.hash !== ctx.hash);
  return {
    ok: problems.length === 0,
    metrics: {
      librarySize: ctx.novelty.size,
      answerType: fingerprint.answerType,
      nearest: matches.slice(0, 3).map((m) => ({
        env: m.name,
        kind: m.kind,
        codeSimilarity: m.codeSimilarity,
        behaviourSimilarity: m.behaviourSimilarity,
      })),
      sameCodeAs: sameCode?.name ?? null,
      versionOf: versions[0]?.name ?? null,
    },
    problems,
  };
};

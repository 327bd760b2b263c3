// Stage 9, review: an LLM reviewer answers a structured checklist (prompt unambiguous, format stated,
// verifier consistent, every valid answer accepted). Runs only when a reviewer is configured; a failure of
// the LLM service itself propagates (it is not the candidate's fault) for the batch to retry or record.
import type { Stage } from '../context.js';

export const reviewStage: Stage = async (ctx) => {
  if (!ctx.reviewer || !ctx.meta) return { ok: true, skipped: 'no LLM reviewer configured', metrics: {}, problems: [] };
  const samples = ctx.episodes.filter((_, i) => i % Math.max(1, Math.floor(ctx.episodes.length / 6)) === 0).slice(0, 6);
  return ctx.reviewer.review({ source: ctx.source, meta: ctx.meta, samples: samples.map((e) => ({ seed: e.seed, level: e.level, prompt: e.instance.prompt, reference: e.reference })) });
};

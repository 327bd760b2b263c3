// Stage 9, review: an LLM reviewer answers a structured checklist (prompt unambiguous, format stated,
// verifier consistent, every valid answer accepted; an episodic candidate's with the observations of its
// reference episodes). Runs only when a reviewer is configured; a failure of the LLM service itself
// propagates (it is not the candidate's fault) for the batch to retry or record.
import type { Episode } from '../../sandbox/episodes.js';
import type { Stage } from '../context.js';

/** Samples the reviewer reads. */
const REVIEW_SAMPLES = 6;

/**
 * Samples spread over the levels, level 1 and the top level always among them (the hardest instances are
 * where prompts grow ambiguous); with fewer levels than samples, further seeds of the same levels.
 */
function reviewSamples(episodes: readonly Episode[], count = REVIEW_SAMPLES): Episode[] {
  const byLevel = new Map<number, Episode[]>();
  for (const e of episodes) byLevel.set(e.level, [...(byLevel.get(e.level) ?? []), e]);
  const levels = [...byLevel.keys()].sort((a, b) => a - b);
  if (levels.length === 0) return [];
  const wanted = Math.min(count, levels.length);
  const chosen = [
    ...new Set(
      Array.from(
        { length: wanted },
        (_, i) =>
          levels[wanted === 1 ? levels.length - 1 : Math.round((i * (levels.length - 1)) / (wanted - 1))] as number,
      ),
    ),
  ];
  const out: Episode[] = [];
  for (let round = 0; out.length < count; round++) {
    const before = out.length;
    for (const level of chosen) {
      const e = byLevel.get(level)?.[round];
      if (e && out.length < count) out.push(e);
    }
    if (out.length === before) break;
  }
  return out.sort((a, b) => a.level - b.level || a.seed - b.seed);
}

export const reviewStage: Stage = async (ctx) => {
  if (!ctx.reviewer || !ctx.meta) return { ok: true, skipped: 'no LLM reviewer configured', metrics: {}, problems: [] };
  const samples = reviewSamples(ctx.episodes);
  // An episodic sample carries what the agent saw after each reference action: the reviewer judges leaks from it.
  const observed = new Map((ctx.rollouts ?? []).map((r) => [`${r.seed}/${r.level}`, r.observations]));
  return ctx.reviewer.review({
    source: ctx.source,
    meta: ctx.meta,
    samples: samples.map((e) => {
      const observations = observed.get(`${e.seed}/${e.level}`);
      return {
        seed: e.seed,
        level: e.level,
        prompt: e.instance.prompt,
        reference: e.reference,
        ...(observations ? { observations } : {}),
      };
    }),
  });
};

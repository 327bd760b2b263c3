// Completeness, the other side of the verifier: every correct answer must pay. The reference rewritten in the
// prompt's own notation and in ordinary equivalent forms (equivalents.ts) must score as the reference does;
// and where two instances show the same prompt, each one's reference is a valid answer to the other (the
// prompt is all a policy sees, and solve wrote both), found by searching more draws at the levels where the
// sample shows prompts repeat. Either form losing at least the ceiling against the reference is rejected.
import type { Episode } from '../../sandbox/episodes.js';
import { scoreOf } from '../../sandbox/episodes.js';
import { answerContent, withContent } from '../../sandbox/answer.js';
import { normalizeAnswer } from '../answers.js';
import { equivalentForms } from '../equivalents.js';
import type { JudgedOutcome } from '../hack-checks.js';
import type { Probe } from '../probe-types.js';
import { evidenceOf } from './probe-findings.js';
import type { ZeroFinding } from './rules.js';
import type { ProbeRequest, SingleTurnCheck, SingleTurnContext } from './single-turn.js';

const OTHER = "another instance's reference with the same prompt";
const SAME_PROMPT =
  ' (two instances show the same prompt: either the verifier rejects a valid answer, or the answer is not ' +
  'determined by what the policy sees)';

/** Pairs of instances with the same prompt and different answers: each reference is sent to the other. */
function crossings(episodes: Episode[]): ProbeRequest[] {
  const byPrompt = new Map<string, Episode[]>();
  for (const e of episodes) {
    const key = `${e.level}\u0000${e.instance.prompt}`;
    const same = byPrompt.get(key);
    if (same) same.push(e);
    else byPrompt.set(key, [e]);
  }
  const requests: ProbeRequest[] = [];
  for (const same of byPrompt.values()) {
    const answers = new Map(same.map((e) => [normalizeAnswer(answerContent(e.reference)), e]));
    if (answers.size < 2) continue;
    const distinct = [...answers.values()].slice(0, 4);
    for (const e of distinct) {
      const probes = distinct
        .filter((o) => o !== e)
        .map((o): Probe => ({ family: 'equivalent', form: OTHER, response: o.reference, coincident: false }));
      requests.push({ seed: e.seed, level: e.level, probes });
    }
  }
  return requests;
}

/** Levels where two sampled seeds gave the same prompt: a small prompt space, where a search finds more such pairs. */
function repeatingLevels(ctx: SingleTurnContext): number[] {
  return [...ctx.byLevel]
    .filter(([, episodes]) => new Set(episodes.map((e) => e.instance.prompt)).size < episodes.length)
    .map(([level]) => level);
}

/**
 * The search for same-prompt pairs, in rounds over the levels that repeat: a level stops once it holds a pair
 * whose references differ (the evidence), once enough of its prompts repeated with one answer each (the prompt
 * decides the answer: no pair is owed), or at the draw limit. A fixed draw can miss: at one validation seed a
 * level's 100 instances repeated 19 prompts, each with one planted pair, where two pairs were often valid.
 */
export async function searchPairs(
  ctx: Pick<SingleTurnContext, 'stage' | 'byLevel' | 'moreInstances'>,
  levels: number[],
): Promise<Episode[][]> {
  const o = ctx.stage.options;
  const found = new Map<number, Episode[]>();
  let open = levels;
  for (
    let count = o.equivalentSearchPerLevel;
    open.length > 0 && count <= o.equivalentSearchMaxPerLevel;
    count += o.equivalentSearchPerLevel
  ) {
    const more = await Promise.all(open.map((level) => ctx.moreInstances(level, count)));
    open = open.filter((level, i) => {
      const all = [...(ctx.byLevel.get(level) ?? []), ...(more[i] ?? [])];
      found.set(level, all);
      const repeats = all.length - new Set(all.map((e) => e.instance.prompt)).size;
      return crossings(all).length === 0 && repeats < o.equivalentSearchRepeats;
    });
  }
  return [...found.values()];
}

function findings(ctx: SingleTurnContext, outcomes: JudgedOutcome[]): ZeroFinding[] {
  return outcomes
    .filter((o) => !o.failure)
    .map((o) => {
      const loss = scoreOf(o.episode.referenceVerdict) - o.score;
      return {
        rule: 'zero' as const,
        code: 'E_REJECTS_EQUIVALENT' as const,
        check: 'completeness',
        judged: loss,
        ceiling: ctx.stage.options.equivalentLossCeiling,
        form: o.probe.form,
        what: 'rewritten correct answer',
        reads:
          `scores ${o.score} where the reference scores ${scoreOf(o.episode.referenceVerdict)}` +
          `${o.probe.form === OTHER ? SAME_PROMPT : ''}`,
        evidence: () => ({
          ...evidenceOf(o),
          ...(o.probe.form === OTHER ? { prompt: o.episode.instance.prompt.slice(0, 200) } : {}),
        }),
      };
    })
    .filter((f) => f.judged > 1e-9);
}

export const completenessCheck: SingleTurnCheck = {
  name: 'completeness',
  codes: ['E_REJECTS_EQUIVALENT'],
  kinds: ['single'],
  plan(ctx) {
    // The prompt's notation on every instance (it may matter on a few only: negative answers, large ones); whitespace
    // in the tag on the probed ones.
    const probed = new Set(ctx.targets().map((t) => t.episode));
    const forms = ctx.stage.episodes.flatMap((e) => {
      const probes = equivalentForms(e.instance.prompt, answerContent(e.reference), probed.has(e)).map(
        ([form, v]): Probe => ({
          family: 'equivalent',
          form,
          response: withContent(e.reference, v),
          coincident: true,
          variant: true,
        }),
      );
      return probes.length ? [{ seed: e.seed, level: e.level, probes }] : [];
    });
    const crossed = crossings(ctx.stage.episodes);
    const requests = [...forms, ...crossed];
    return {
      requests,
      async judge(results, tools) {
        const outcomes = results.flatMap((r) => r.outcomes);
        // The search: more draws where prompts repeat, for pairs the sample did not hold.
        const searchedAt = await searchPairs(ctx, repeatingLevels(ctx));
        let searched = 0;
        if (searchedAt.length) {
          const all = searchedAt.flat();
          // Only the pairs not sent yet: a sampled instance may meet a new partner among the draws.
          const sent = new Set(crossed.flatMap((r) => r.probes.map((p) => `${r.level}:${r.seed}:${p.response}`)));
          const fresh = crossings(all)
            .map((r) => ({ ...r, probes: r.probes.filter((p) => !sent.has(`${r.level}:${r.seed}:${p.response}`)) }))
            .filter((r) => r.probes.length > 0);
          searched = all.length;
          if (fresh.length) outcomes.push(...(await tools.run(fresh)).flatMap((r) => r.outcomes));
        }
        const judged = findings(ctx, outcomes);
        const byForm: Record<string, { sent: number; lost: number }> = {};
        for (const o of outcomes)
          byForm[o.probe.form] = { sent: (byForm[o.probe.form]?.sent ?? 0) + 1, lost: byForm[o.probe.form]?.lost ?? 0 };
        for (const f of judged) if (byForm[f.form]) (byForm[f.form] as { lost: number }).lost++;
        return { findings: judged, metrics: { forms: byForm, searchedInstances: searched } };
      },
    };
  },
};

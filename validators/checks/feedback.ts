// Feedback is text trainers keep and may show the policy: on wrong answers it must not name the right one
// far more often than it names another instance's (chance), and it must be well-formed Unicode. It reads
// the whole batch's feedback; it sends nothing of its own.
import type { Episode } from '../../sandbox/episodes.js';
import { answerContent } from '../../sandbox/answer.js';
import { loneSurrogate, normalizeAnswer, occurrences, tokenize } from '../answers.js';
import type { JudgedOutcome } from '../hack-checks.js';
import { outcomesOf } from './probe-findings.js';
import type { Finding, Trial } from './rules.js';
import type { SingleTurnCheck } from './single-turn.js';

/**
 * Whether `said` (feedback's tokens, lowercased) holds `answer` as a run of tokens that `response` does not (read only
 * then: most feedback names nothing).
 */
function names(said: string[], answer: string[], response: () => string[]): boolean {
  return (
    answer.length > 0 && occurrences(said, answer, 1).length > 0 && occurrences(response(), answer, 1).length === 0
  );
}

/**
 * Per wrong answer with feedback: whether the feedback names the right answer (win) and another instance's (chance).
 */
function namingTrials(
  outcomes: JudgedOutcome[],
  byLevel: Map<number, Episode[]>,
): { trials: Trial[]; example?: JudgedOutcome } {
  const trials: Trial[] = [];
  let example: JudgedOutcome | undefined;
  // Per episode, once: thousands of outcomes share a few hundred references.
  const contents = new Map<Episode, string>();
  const contentOf = (e: Episode) =>
    contents.get(e) ?? (contents.set(e, normalizeAnswer(answerContent(e.reference))).get(e) as string);
  const tokens = new Map<Episode, string[]>();
  const tokensOf = (e: Episode) =>
    tokens.get(e) ?? (tokens.set(e, tokenize(contentOf(e).toLowerCase(), 200)).get(e) as string[]);
  const others = new Map<Episode, Episode[]>();
  const peersOf = (e: Episode) =>
    others.get(e) ??
    (others
      .set(
        e,
        (byLevel.get(e.level) ?? []).filter((p) => contentOf(p) !== contentOf(e)),
      )
      .get(e) as Episode[]);
  // Feedback repeats ("wrong", "expected an integer"): each distinct text is tokenized once per call.
  const saidOf = new Map<string, string[]>();
  for (const o of outcomes) {
    if (!o.feedback || o.failure || o.probe.coincident || o.score >= 1) continue;
    let read: string[] | undefined;
    const response = () => (read ??= tokenize(o.probe.response.slice(0, 20_000).toLowerCase(), 2_000));
    const peers = peersOf(o.episode);
    const peer = peers[(peers.indexOf(o.episode) + 1 + trials.length) % Math.max(1, peers.length)];
    const said =
      saidOf.get(o.feedback) ??
      (saidOf.set(o.feedback, tokenize(o.feedback.toLowerCase(), 400)).get(o.feedback) as string[]);
    const win = names(said, tokensOf(o.episode), response) ? 1 : 0;
    if (win) example ??= o;
    trials.push({ level: o.episode.level, win, chance: peer && names(said, tokensOf(peer), response) ? 1 : 0 });
  }
  return { trials, ...(example ? { example } : {}) };
}

export const feedbackCheck: SingleTurnCheck = {
  name: 'feedback',
  codes: ['E_FEEDBACK_LEAK', 'E_MALFORMED_TEXT'],
  kinds: ['single'],
  plan(ctx) {
    return {
      requests: [],
      judge(_results, tools) {
        const outcomes = outcomesOf(tools.all());
        const { trials, example } = namingTrials(outcomes, ctx.byLevel);
        const findings: Finding[] = [
          {
            rule: 'rate',
            code: 'E_FEEDBACK_LEAK',
            check: 'feedback',
            policy:
              'asking for the answer: the feedback on a wrong answer names the right one (feedback reaches ' +
              'trainers, and a policy shown it learns to ask rather than to solve; chance: it names ' +
              "another instance's answer)",
            trials,
            tolerance: { pooled: ctx.stage.options.feedbackLeakExcess },
            z: ctx.stage.options.rateZ,
            minTrials: 10,
            evidence: () =>
              example
                ? {
                    seed: example.episode.seed,
                    level: example.episode.level,
                    response: example.probe.response.slice(0, 120),
                    feedback: (example.feedback as string).slice(0, 160),
                    reference: answerContent(example.episode.reference).slice(0, 80),
                  }
                : {},
          },
        ];
        const bad = outcomes.find((o) => o.feedback !== undefined && loneSurrogate(o.feedback) >= 0);
        if (bad)
          findings.push({
            rule: 'zero',
            code: 'E_MALFORMED_TEXT',
            check: 'feedback',
            judged: 1,
            ceiling: 1,
            form: bad.probe.form,
            what: 'feedback text with a lone surrogate (not well-formed Unicode) on a probe',
            reads: `(${bad.probe.family} probe at level ${bad.episode.level})`,
            evidence: () => ({ seed: bad.episode.seed, level: bad.episode.level, form: bad.probe.form }),
          });
        return { findings, metrics: { judged: trials.length, named: trials.filter((t) => t.win).length } };
      },
    };
  },
};

// Judgements of the hack stage that read the whole sample: what the sample says about the answer space
// (does a sign or a letter's case ever carry information), the floor of credit every wrong answer earns,
// feedback that names the answer, and guess lists in partial-credit environments judged by what they add
// over the best of their wrong guesses alone.
import type { ProblemCode } from '../contract/codes.js';
import type { Episode, EpisodeRequest, EpisodeRun } from '../sandbox/episodes.js';
import { loneSurrogate, normalizeAnswer, occurrences, tokenize } from './answers.js';
import type { Probe } from './probe-types.js';
import type { Problem } from './report.js';
import { answerContent, withContent } from '../sandbox/answer.js';

export interface JudgedOutcome {
  probe: Probe;
  episode: Episode;
  score: number;
  feedback?: string;
  failure?: { code: ProblemCode; message: string };
  excess?: number;
  /** A partial-credit list's score minus the best score of its wrong guesses alone. */
  lift?: number;
}

/** What the sample's references say about the answer space: a sign, a letter's case, the answers in use. */
export function sampleTraits(episodes: Episode[]): { signMatters: boolean; caseMatters: boolean; taken: Set<string> } {
  const cases = new Map<string, number>();
  let signMatters = false;
  const taken = new Set<string>();
  for (const e of episodes) {
    const content = answerContent(e.reference);
    taken.add(normalizeAnswer(content).toLowerCase());
    if (!signMatters && /(^|[^\w.])-\d/.test(content.slice(0, 2_000))) signMatters = true;
    for (const c of content.slice(0, 2_000)) {
      const lower = c.toLowerCase();
      if (lower === c.toUpperCase()) continue;
      cases.set(lower, (cases.get(lower) ?? 0) | (c === lower ? 1 : 2));
    }
  }
  return { signMatters, caseMatters: [...cases.values()].some((m) => m === 3), taken };
}

/**
 * A floor of credit: when, on most probed instances, even the worst wrong answer (another instance's, a
 * perturbed one, a bare wrong answer) earns at least the ceiling, the verifier pays for the format, not the task.
 */
export function creditFloorProblem(outcomes: JudgedOutcome[], ceiling: number): Problem | null {
  const worst = new Map<Episode, { score: number; o: JudgedOutcome }>();
  for (const o of outcomes) {
    const wrong = !o.failure && !o.probe.coincident && (o.probe.family === 'other-answer' || o.probe.family === 'perturbed' || o.probe.base === true || o.probe.family === 'prompt-token');
    if (!wrong) continue;
    const w = worst.get(o.episode);
    if (!w || o.score < w.score) worst.set(o.episode, { score: o.score, o });
  }
  const floors = [...worst.values()];
  if (floors.length < 10) return null;
  const paid = floors.filter((f) => f.score >= ceiling);
  if (paid.length < 0.9 * floors.length) return null;
  const example = paid.reduce((a, b) => (b.score < a.score ? b : a)).o;
  const least = Math.min(...paid.map((f) => f.score));
  return {
    code: 'E_ACCEPTS_NON_ANSWER',
    message: `every wrong answer earns credit: on ${paid.length} of ${floors.length} probed instances even the worst-scoring wrong answer scores ${least.toFixed(2)} or more (ceiling ${ceiling}); credit that does not track correctness pays a policy for the format alone`,
    evidence: { seed: example.episode.seed, level: example.episode.level, form: example.probe.form, score: example.score, reference: answerContent(example.episode.reference).slice(0, 80), response: example.probe.response.slice(0, 160) },
  };
}

/** Whether `said` (feedback's tokens, lowercased) holds `answer` as a run of tokens that `response` does not (read only then: most feedback names nothing). */
function names(said: string[], answer: string[], response: () => string[]): boolean {
  return answer.length > 0 && occurrences(said, answer, 1).length > 0 && occurrences(response(), answer, 1).length === 0;
}

/** Feedback on wrong answers that names the right one, far more often than it names another instance's. */
export function feedbackLeakProblem(outcomes: JudgedOutcome[], byLevel: Map<number, Episode[]>): Problem | null {
  let n = 0;
  let hits = 0;
  let chance = 0;
  let example: JudgedOutcome | undefined;
  // Per episode, once: thousands of outcomes share a few hundred references.
  const contents = new Map<Episode, string>();
  const contentOf = (e: Episode) => contents.get(e) ?? (contents.set(e, normalizeAnswer(answerContent(e.reference))).get(e) as string);
  const tokens = new Map<Episode, string[]>();
  const tokensOf = (e: Episode) => tokens.get(e) ?? (tokens.set(e, tokenize(contentOf(e).toLowerCase(), 200)).get(e) as string[]);
  const others = new Map<Episode, Episode[]>();
  const peersOf = (e: Episode) => others.get(e) ?? (others.set(e, (byLevel.get(e.level) ?? []).filter((p) => contentOf(p) !== contentOf(e))).get(e) as Episode[]);
  // Feedback repeats ("wrong", "expected an integer"): each distinct text is tokenized once per call.
  const saidOf = new Map<string, string[]>();
  for (const o of outcomes) {
    if (!o.feedback || o.failure || o.probe.coincident || o.score >= 1) continue;
    let read: string[] | undefined;
    const response = () => (read ??= tokenize(o.probe.response.slice(0, 20_000).toLowerCase(), 2_000));
    const peers = peersOf(o.episode);
    const peer = peers[(peers.indexOf(o.episode) + 1 + n) % Math.max(1, peers.length)];
    n++;
    const said = saidOf.get(o.feedback) ?? (saidOf.set(o.feedback, tokenize(o.feedback.toLowerCase(), 400)).get(o.feedback) as string[]);
    if (names(said, tokensOf(o.episode), response)) {
      hits++;
      example ??= o;
    }
    if (peer && names(said, tokensOf(peer), response)) chance++;
  }
  if (n < 10 || !example || hits / n - chance / n < 0.5) return null;
  return {
    code: 'E_FEEDBACK_LEAK',
    message: `the feedback on ${hits} of ${n} wrong answers names the right answer (another instance's answer: ${chance}); feedback reaches trainers, and a policy shown it learns to ask rather than to solve`,
    evidence: { seed: example.episode.seed, level: example.episode.level, response: example.probe.response.slice(0, 120), feedback: (example.feedback as string).slice(0, 160), reference: answerContent(example.episode.reference).slice(0, 80) },
  };
}

/** Feedback is text trainers keep and show: like prompts, it must be well-formed Unicode. */
export function malformedFeedbackProblem(outcomes: JudgedOutcome[]): Problem | null {
  const bad = outcomes.find((o) => o.feedback !== undefined && loneSurrogate(o.feedback) >= 0);
  if (!bad) return null;
  return { code: 'E_MALFORMED_TEXT', message: `verify's feedback is not well-formed Unicode (a lone surrogate) on the ${bad.probe.family} probe "${bad.probe.form}" at level ${bad.episode.level}`, evidence: { seed: bad.episode.seed, level: bad.episode.level, form: bad.probe.form } };
}

type RunEpisodes = (requests: EpisodeRequest[]) => Promise<EpisodeRun>;

/**
 * Guess lists that earn part of the score: each wrong guess is scored alone, and the list is judged by what
 * it adds over the best of them (a documented per-position credit pays a list what its best guess earns).
 * Only lists at or above the ceiling and below full marks (and hedges) are re-run: honest environments cost nothing.
 */
export async function judgeListLift(outcomes: JudgedOutcome[], ceiling: number, run: RunEpisodes): Promise<void> {
  // A hedge (one wrong value with an interval) is judged against its value alone whatever it scores: a stated tolerance pays both.
  const partial = outcomes.filter((o) => o.probe.family === 'enumeration' && o.probe.alone?.length && !o.failure && o.score >= ceiling && (o.score < 1 || o.probe.alone.length === 1));
  if (partial.length === 0) return;
  const byEpisode = new Map<Episode, string[]>();
  for (const o of partial) byEpisode.set(o.episode, [...new Set([...(byEpisode.get(o.episode) ?? []), ...(o.probe.alone as string[]).slice(0, 40)])]);
  const episodes = [...byEpisode.keys()];
  const ran = await run(episodes.map((e) => ({ seed: e.seed, level: e.level, responses: (byEpisode.get(e) as string[]).map((g) => withContent(e.reference, g)) })));
  const alone = new Map<Episode, Map<string, number>>();
  episodes.forEach((e, i) => {
    const r = ran.episodes[i];
    const guesses = byEpisode.get(e) as string[];
    alone.set(e, new Map(guesses.map((g, j) => [g, r?.ok && r.verdicts[j]?.ok ? (r.verdicts[j] as { score: number }).score : 0])));
  });
  for (const o of partial) {
    const scores = alone.get(o.episode) as Map<string, number>;
    const best = Math.max(0, ...(o.probe.alone as string[]).slice(0, 40).map((g) => scores.get(g) ?? 0));
    o.lift = o.score - best;
  }
}

// Every threshold of the validator in one typed options object, with its default and why.
import type { SandboxLimits } from '../sandbox/protocol.js';
import { DEFAULT_EPISODIC_OPTIONS, type EpisodicOptions } from './options-episodic.js';

export type { EpisodicOptions };

export interface ValidatorOptions {
  /** Instances sampled per level; at least `minSamples` overall so rare failures (1 in 50) show. */
  seedsPerLevel: number;
  minSamples: number;
  /**
   * Sandbox limits while validating. Empty by default: the validator runs modules under the same limits
   * as the reward service and exports (the pool's), so a module cannot tell validation from use by them.
   */
  limits: Partial<SandboxLimits>;
  /** Instances per level that get the full adversarial battery (every instance gets the guessing probes). */
  probedPerLevel: number;
  /** Instances re-run for determinism (in fresh isolates, in another order, and over a whole isolate lifetime). */
  determinismSamples: number;
  /**
   * Responses that hold no answer, or several (empty, echo, format-only, keyword stuffing, lists of guesses,
   * junk of any length) fail at this score or above: the threshold is inclusive.
   */
  zeroToleranceCeiling: number;
  /** Rate families (another instance's answer, perturbed answers): mean score beyond chance allowed… */
  rateFamilyMeanExcess: number;
  /** …and share of full passes beyond chance allowed. */
  rateFamilyPassExcess: number;
  /** A perturbed scalar answer may keep partial credit (close is partly right): a looser mean limit. */
  perturbedMeanExcess: number;
  /**
   * …and at one level (with 10 probes or more), perturbed answers may pass this much more often than chance (a
   * tolerance that opens at one level only).
   */
  perturbedLevelPassExcess: number;
  /**
   * Rate families (another instance's answer, perturbed answers, prompt tokens, feedback naming the answer) are judged
   * at the lower bound of their rate, at this many standard errors.
   */
  rateZ: number;
  /**
   * A credit floor: the share of probed instances whose worst wrong answer still reaches the zero-tolerance ceiling may
   * not reach this.
   */
  creditFloorShare: number;
  /** Feedback on wrong answers may name the right answer this much more often than it names another instance's. */
  feedbackLeakExcess: number;
  /**
   * A learned reader (a rule "prompt features → answer" fitted on half the instances) may find the answer this much
   * more often than chance on the other half, over all instances…
   */
  leakMaxRate: number;
  /** …and at any one level with at least `leakMinLevelSamples` instances… */
  leakLevelMaxRate: number;
  leakMinLevelSamples: number;
  /**
   * …and on the instances whose prompts share a feature (a word, a line's layout, a line count: a gate, fitted with
   * the rule) holding at least this share of the sample, judged like a level.
   */
  leakGateMinShare: number;
  /** …judged at the lower bound of its rate at this many standard errors (multiple-choice readers use `guessZ`). */
  readerZ: number;
  /**
   * A coarse rendering of the answer (fewer decimals, significant figures, scientific, 0, 1e6) may earn this much
   * beyond its controls (the same value at the reference's precision, a value as close) over all levels…
   */
  coarseTolerance: number;
  /** …and at one level. */
  coarseLevelTolerance: number;
  /**
   * The question restated in the verifier's answer language (the prompt's expression transcribed, its numbers and
   * operator words in order) may pass this much more often than chance (it is the answer) over all levels…
   */
  restatedTolerance: number;
  /** …and at one level. */
  restatedLevelTolerance: number;
  /**
   * A correct answer in another form (the prompt's notation, an ordinary equivalent, another instance's reference under
   * the same prompt) may score at most this much below the reference.
   */
  equivalentLossCeiling: number;
  /**
   * At a level whose sample repeats a prompt, more instances are drawn, this many a round, to find pairs with the same
   * prompt and different references…
   */
  equivalentSearchPerLevel: number;
  /**
   * …until one such pair is found, or this many repeated prompts all agree on their answer (the prompt decides it), or
   * this many instances have been drawn.
   */
  equivalentSearchRepeats: number;
  equivalentSearchMaxPerLevel: number;
  /**
   * Candidates of the constant policy per level (references of the fitting half, their accepted variants, small
   * constants).
   */
  constantCandidates: number;
  /**
   * Fitting instances every constant candidate is scored on before only those that won there (and the two most
   * common) go on: a candidate that wins at rate p is dropped with chance (1 − p)^n — at 3, a constant winning 45% of
   * a level was dropped one validation in six (broken-constant-level-one.js admitted at seed 8020); at 8, 0.8%.
   */
  constantScreen: number;
  /**
   * Guessing without solving (a constant, every option, the input copied) may win this much above nominal chance at a
   * level…
   */
  guessTolerance: number;
  /** …a fixed answer among K ≤ 10 answer classes this much above 1/K (a majority class is a free reward)… */
  classGuessTolerance: number;
  /** …and a multiple-choice guess (a constant letter, an informed rule) this much above 1/K. */
  choiceGuessTolerance: number;
  /**
   * A guessing strategy fails when the lower confidence bound of its win rate, at this many standard errors, reaches
   * nominal + tolerance.
   */
  guessZ: number;
  /** Levels with fewer instances than this are not judged for guessing. */
  guessMinSamples: number;
  /** A level where a guess looks strong is sampled up to this many instances before the verdict. */
  guessSamplesPerLevel: number;
  /** Multiple-choice levels are sampled up to this many instances (informed rules need them to show a small edge). */
  choiceSamplesPerLevel: number;
  /**
   * Sandbox worker time for one candidate's validation, summed over its jobs (time queued behind other
   * candidates does not count): the execution stage rejects a candidate whose episodes are too slow to
   * validate within it, a job running when it runs out is killed, and no sandbox stage starts once it is
   * spent (all E_TOO_SLOW).
   */
  candidateBudgetMs: number;
  /** Two seeds of a level may give the same prompt at most this often (an instance space of about 1/this or more). */
  maxPromptCollision: number;
  /**
   * No single answer may cover more than this share of a level's instances (judged at the lower confidence bound,
   * `guessZ`).
   */
  maxTopAnswerShare: number;
  /**
   * A policy that memorises answers by the prompt parts that decide them (memorised-pool.ts) may beat chance on
   * held-out instances by at most this much (at the lower bound, `guessZ`): the effective instance count.
   */
  maxMemorisedGain: number;
  /** The top level must exceed level 1 by this factor on at least one size, magnitude or work signal… */
  minTopLevelGrowth: number;
  /** …and that signal must rise with the level: Spearman rank correlation of level against it, at least this. */
  minTrend: number;
  /** Episodic (contract v2) sampling and thresholds (validators/episodic/). */
  episodic: EpisodicOptions;
  /** Code (contract v3) sampling and thresholds (validators/code/, validators/checks/code-*.ts). */
  code: CodeOptions;
}

export interface CodeOptions {
  /** Instances per level every hostile program is run on. */
  probedPerLevel: number;
  /** Instances per level the reference's mutants are run on. */
  mutantInstancesPerLevel: number;
  /** Mutants of the reference tried at most (spread over the program). */
  maxMutants: number;
  /**
   * A mutant that some sampled instance's tests kill must be killed on more than this share of the sampled
   * instances (it fails when it survives on 1 - this or more: a wrong program those instances would pay).
   * Mutants no instance kills may be equivalent programs and are not counted here…
   */
  minMutationScore: number;
  /**
   * …but at least this share of all the mutants must be killed somewhere: tests that tell almost nothing apart are
   * weak.
   */
  minMutantsKilled: number;
  /**
   * A constant or input-echo program's mean score may exceed 0 by this much at a level (judged at the lower bound,
   * guessZ)…
   */
  guessLevelTolerance: number;
  /** …and over all levels pooled. */
  guessPooledTolerance: number;
  /** Instances per level whose every hidden test probes the comparator's acceptance region (host only). */
  acceptancePerLevel: number;
  /**
   * The share of a level's hidden tests on which the comparator may pay a probe of the reference's own output
   * (zeroed, nudged by one…) or a cheap multiset of the arguments (judged at the lower bound, guessZ)…
   */
  acceptanceLevelTolerance: number;
  /** …and over all levels pooled. */
  acceptancePooledTolerance: number;
  /** The learned reader (checks/code-reader.ts, host work only): feature rules tried at most… */
  readerMaxRules: number;
  /** …and the fewest instances a level (or the pool) is judged on. */
  readerMinTrials: number;
}

export const DEFAULT_VALIDATOR_OPTIONS = {
  seedsPerLevel: 20,
  minSamples: 200,
  limits: {},
  probedPerLevel: 6,
  determinismSamples: 30,
  zeroToleranceCeiling: 0.1,
  rateFamilyMeanExcess: 0.25,
  rateFamilyPassExcess: 0.1,
  perturbedMeanExcess: 0.6,
  perturbedLevelPassExcess: 0.3,
  rateZ: 1.64,
  creditFloorShare: 0.9,
  feedbackLeakExcess: 0.5,
  leakMaxRate: 0.4,
  leakLevelMaxRate: 0.6,
  leakMinLevelSamples: 20,
  leakGateMinShare: 0.1,
  readerZ: 2,
  coarseTolerance: 0.1,
  coarseLevelTolerance: 0.4,
  restatedTolerance: 0.1,
  restatedLevelTolerance: 0.4,
  equivalentLossCeiling: 0.5,
  equivalentSearchPerLevel: 60,
  equivalentSearchRepeats: 60,
  equivalentSearchMaxPerLevel: 240,
  constantCandidates: 16,
  constantScreen: 8,
  guessTolerance: 0.2,
  classGuessTolerance: 0.05,
  choiceGuessTolerance: 0.03,
  guessZ: 3,
  guessMinSamples: 20,
  guessSamplesPerLevel: 200,
  choiceSamplesPerLevel: 300,
  candidateBudgetMs: 180_000,
  maxPromptCollision: 0.1,
  maxTopAnswerShare: 0.5,
  maxMemorisedGain: 0.25,
  minTopLevelGrowth: 1.25,
  minTrend: 0.6,
  episodic: DEFAULT_EPISODIC_OPTIONS,
  code: {
    probedPerLevel: 12,
    mutantInstancesPerLevel: 4,
    maxMutants: 40,
    minMutationScore: 0.5,
    minMutantsKilled: 0.5,
    guessLevelTolerance: 0.05,
    guessPooledTolerance: 0.02,
    acceptancePerLevel: 40,
    acceptanceLevelTolerance: 0.2,
    acceptancePooledTolerance: 0.05,
    readerMaxRules: 6000,
    readerMinTrials: 10,
  },
} satisfies ValidatorOptions;

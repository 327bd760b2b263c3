// The episodic (contract v2) validator's sampling and thresholds, with their defaults and why (part of
// validators/options.ts).

export interface EpisodicOptions {
  /**
   * The hack stage's checks by name (validators/checks/registry.ts), or null for every registered one. A test that
   * a hack is rejected with a code may run only the checks that can give it (tests/helpers/validation-seeds.ts).
   */
  checks: readonly string[] | null;
  /** Reference rollouts (act) per level; every one is replayed for determinism and probed. */
  seedsPerLevel: number;
  /** Reference episodes per level whose every tool is tried repeated (the costliest probe: maxTurns steps each). */
  repeatedPerLevel: number;
  /** Reference episodes per level the adversary library (validators/episodic/adversaries.ts) plays against. */
  adversaryPerLevel: number;
  /** Seeded random-policy rollouts per level. */
  randomPerLevel: number;
  /** Seeds on which the reference's finishing call alone is tried, over all levels. */
  finishAloneSamples: number;
  /** No action, invalid actions only, the reference minus its last action: fail at this score or above. */
  zeroToleranceCeiling: number;
  /** Another episode's actions and one repeated action: the worst level's mean may not exceed this… */
  rateMeanCeiling: number;
  /** …nor their share of full passes, over all levels. */
  ratePassCeiling: number;
  /**
   * A level's mean is judged by its lower confidence bound at this many standard errors: with ~12 probes
   * a level, one coincidental pass (a legit environment where another episode's plan also works) is not
   * evidence of a hack, two are; the share of full passes over all levels is judged as measured.
   */
  rateMeanZ: number;
  /** The finishing call alone may fully pass at most this share of episodes. */
  finishAlonePassCeiling: number;
  /** The random policy may fully pass at most this share of episodes. */
  randomPassCeiling: number;
  /**
   * Replaying only the reference actions the prompt spells out may solve at most this share more than on another
   * instance.
   */
  promptLeakMaxRate: number;
  /** An observation may show a computed value before the reference submits it in at most this share of episodes. */
  observationLeakMaxRate: number;
  /**
   * Distinct prompts and reference action logs per level, as a share of the seeds (0.75: a few chance collisions among
   * 12 draws are tolerated).
   */
  minDistinctShare: number;
  /** The top level's mean reference turns or state size over level 1's. */
  minTopLevelGrowth: number;
  /**
   * The reference typed as a model types it may lose its score in less than this share of episodes (a quarter unpayable
   * is a broken environment).
   */
  typedMaxLost: number;
  /**
   * A state path that at least this share of all accepted turns change is bookkeeping (a turn counter, an action log):
   * a stated step that changes only such paths is not judged.
   */
  bookkeepingShare: number;
  /**
   * Quantities of one kind a stated rule's reshaping tries (validators/episodic/reshape.ts: each interval, amount, list
   * or count the guarded calls hold, in their order), each cut and merged.
   */
  reshapeCandidates: number;
  /**
   * Kinds of call pairs sharing a quantity a stated rule's reshaping cuts (validators/episodic/sequences.ts: check_in …
   * check_out, a hold then its capture; the most frequent first), one reshaped log each.
   */
  reshapeSequences: number;
  /**
   * Units a closing integer that names none is read in as a length from the opening's point (redteam-trust9 R2: a day
   * for a date; a minute, then an hour for a time; a plain count from a whole number), each a kind of pair of its own.
   */
  reshapeReadings: number;
  /** Whether a pair of points is also cut with each part's end counted in it (R3: check_out {last_night}). */
  reshapeBothEnds: boolean;
  /**
   * Kinds of runs of calls of one tool between an opening and a closing call (R4: night_audit between check_in and
   * check_out) cut by a closing and a re-opening inside, one reshaped log each.
   */
  reshapeRuns: number;
  /**
   * A split is a plan over the whole tool menu (redteam-trust11 H4, validators/episodic/menu.ts): partner tools (tools
   * the reference never calls that name the guarded call's entity, with an integer argument) an amount's parts are sent
   * through, and the most such plans one ablated log gets.
   */
  reshapeMenuTools: number;
  reshapeMenuLogs: number;
  /**
   * Calls of the opening a field reader plays on every reference episode (each listing, each read of an entity decided
   * about, those reads with near-miss ids).
   */
  readerOpeningCalls: number;
  /**
   * Of those, at most this many at the end read each tool's error paths (an unknown id, an empty string, a wrong type,
   * a missing argument).
   */
  readerErrorCalls: number;
  /** Reference episodes per level on which the oracle policy asks every question a read tool allows. */
  readerEpisodesPerLevel: number;
  /**
   * Reference episodes per level whose first id call is screened with every near-miss kind of the family
   * (near-miss.ts).
   */
  readerScreenPerLevel: number;
  /**
   * Id calls of such an episode whose near misses the screen also sends before each is named (every kind, in turn
   * over them; redteam-trust6 H3).
   */
  readerFreshScreenEntities: number;
  /**
   * Each screen is played again with every call sent this many times in a row (a near miss answered only when asked
   * again, redteam-trust7 I2; 1: no repeated screen): one more replay per screen.
   */
  readerScreenTouches: number;
  /**
   * The most times a repeated probe (a screen's near miss, a composed unused call) is sent in a row: one whose reply or
   * state still moves at its last send is played again with its sends doubled, up to this (fixed-point.ts).
   */
  touchBound: number;
  /** Whether episodic-orders plays a stated order among one tool's entities in another order. */
  orderProbes: boolean;
  /**
   * At most this many entities of a rule every order pays are each moved first and re-decided (two replays and more
   * an entity), to ask whether they contest something the world holds (good-course-enrollment's scarce seats).
   */
  orderContests: number;
  /** At most this many near-miss kinds the screen finds answered are then sent for every id (one replay an episode). */
  readerFuzzyKinds: number;
  /**
   * Learned observation readers of a categorical decision (a field, the oracle policy): decisions an axis needs
   * before it is judged, the standard errors of the bound, and how far the bound may pass chance (the pick
   * against other decisions' values) at a level and pooled: a binary decision's chance is about half, so the
   * single-turn leak tolerance (50 points) could never be passed there.
   */
  readerMinSamples: number;
  readerZ: number;
  readerLevelTolerance: number;
  readerPooledTolerance: number;
  /**
   * The unused call surface (validators/episodic/surface.ts): entities a policy applies a tool to, and its logs per
   * adversary episode.
   */
  surfaceEntities: number;
  surfaceLogsPerEpisode: number;
  /**
   * Unused tools and unused optional arguments of used tools composed with the reference's plan on the entities they
   * leave (surface-compose.ts), per adversary episode.
   */
  surfaceComposedPerEpisode: number;
  /**
   * Besides those, logs with each call of the unused pair sent twice in a row (redteam-trust7 I3: a flag, then the
   * act), per adversary episode.
   */
  surfaceComposedTwicePerEpisode: number;
  /**
   * Words the prompt and the tools' text name for a free-string decision argument, each tried as a blanket
   * (validators/episodic/suggested.ts).
   */
  suggestedWords: number;
  /**
   * Words screened per argument (one blanket each, on one episode) before the blankets on every episode; calls of the
   * survey whose replies they come from.
   */
  suggestedScreen: number;
  suggestedSurveyCalls: number;
  /**
   * Cuts an adversary episode replays padded to the turn limit beside its padded empty plan
   * (validators/checks/episodic-padding.ts).
   */
  paddedPerEpisode: number;
  /**
   * States the reference reaches with decisions left undone (ablation ∘ cut; a subset of them kept) an adversary
   * episode replays padded: all the reads with no decision, then the rest of the family in turn across the episodes
   * (validators/episodic/padding.ts reachedStates; 3: none and 2 of the family). Each is a replay to the turn limit.
   */
  composedPerEpisode: number;
  /**
   * Besides those, subsets of the last-called deciding tool's calls drawn (each kept with p = 1/2, seeded by the
   * validation and the episode: redteam-trust7 I1) an adversary episode replays padded.
   */
  composedDrawnPerEpisode: number;
  /**
   * Before the draws, members of the last-called deciding tool's periodic family (every k-th call kept for each period
   * up to half the calls and each phase, the ragged ends decided or not: redteam-trust9 R5) an adversary episode
   * replays padded, every period first (more than this where the periods need more: redteam-trust11 H5); the family is
   * shared out among the episodes whose references call the tool as often (validators/episodic/subsets.ts).
   */
  composedPeriodicPerEpisode: number;
  /**
   * Rounds of the descent from the best-paying kept subset (padded and unpadded logs both earning the reference's
   * score, else the highest padded score of at least `zeroToleranceCeiling`): a random half of it dropped, one replay
   * an episode a round (none where no proper subset pays).
   */
  paddingDescentRounds: number;
}

export const DEFAULT_EPISODIC_OPTIONS = {
  checks: null,
  seedsPerLevel: 12,
  repeatedPerLevel: 3,
  adversaryPerLevel: 2,
  randomPerLevel: 40,
  finishAloneSamples: 200,
  zeroToleranceCeiling: 0.1,
  rateMeanCeiling: 0.05,
  ratePassCeiling: 0.05,
  rateMeanZ: 1.64,
  finishAlonePassCeiling: 0.005,
  randomPassCeiling: 0.01,
  promptLeakMaxRate: 0.5,
  observationLeakMaxRate: 0.3,
  minDistinctShare: 0.75,
  minTopLevelGrowth: 1.3,
  typedMaxLost: 0.25,
  bookkeepingShare: 0.9,
  reshapeCandidates: 6,
  reshapeSequences: 2,
  reshapeReadings: 2,
  reshapeBothEnds: true,
  reshapeRuns: 1,
  reshapeMenuTools: 2,
  reshapeMenuLogs: 8,
  readerOpeningCalls: 48,
  readerErrorCalls: 6,
  readerEpisodesPerLevel: 4,
  readerScreenPerLevel: 1,
  readerFreshScreenEntities: 4,
  readerScreenTouches: 2,
  readerFuzzyKinds: 4,
  touchBound: 8,
  orderProbes: true,
  orderContests: 12,
  readerMinSamples: 12,
  readerZ: 3,
  readerLevelTolerance: 0.3,
  readerPooledTolerance: 0.2,
  surfaceEntities: 12,
  surfaceLogsPerEpisode: 8,
  surfaceComposedPerEpisode: 6,
  surfaceComposedTwicePerEpisode: 4,
  suggestedWords: 5,
  suggestedScreen: 48,
  suggestedSurveyCalls: 32,
  paddedPerEpisode: 3,
  composedPerEpisode: 3,
  composedDrawnPerEpisode: 2,
  composedPeriodicPerEpisode: 12,
  paddingDescentRounds: 3,
} satisfies EpisodicOptions;

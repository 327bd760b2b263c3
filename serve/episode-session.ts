// An episode session as the reward service holds it in memory (serve/episodes.ts): its identity, its turns,
// the state the sandbox last wrote, and where it stands; and what a step answers.
import type { EpisodicMeta } from '../contract/episodic.js';
import type { EnvRecord } from '../library/contract.js';
import type { Rollout } from '../sandbox/rollouts.js';
import type { EpisodeIdentity } from './episode-journal.js';

/** The end of an episode as the client sees it. */
export interface Outcome {
  end: string;
  score: number;
  feedback?: string;
  error?: { code: string; message: string };
}

export type Turn = { action: unknown; observation: string };

export interface Session {
  id: string;
  record: EnvRecord;
  meta: EpisodicMeta;
  identity: EpisodeIdentity;
  prompt: string;
  turns: Turn[];
  /** The state as the sandbox wrote it (JSON text, key order kept), what the next step resumes from. */
  state: string;
  errors: number;
  /** The score of the current state (score() runs with every step), and the end once the episode is over. */
  now: Outcome;
  over: boolean;
  lastUsed: number;
  queue: Promise<unknown>;
  /** Requests queued or running on this session: it is never evicted while any is (a rebuild would fork it). */
  busy: number;
}

export interface StepResult {
  episode: string;
  turn: number;
  observation: string;
  done: boolean;
  replayed?: true;
  score?: number;
  feedback?: string;
  end?: string;
  error?: { code: string; message: string };
}

export function outcomeOf(r: Rollout): Outcome {
  return { end: r.end, score: r.score, ...(r.feedback !== undefined ? { feedback: r.feedback } : {}) };
}

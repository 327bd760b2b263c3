// An episode session as the reward service holds it in memory (serve/episodes.ts): its identity, its turns,
// the state the sandbox last wrote, and where it stands; what a step answers, and where the next resumes.
import type { EpisodicMeta } from '../contract/episodic.js';
import type { EnvRecord } from '../library/contract.js';
import type { Rollout } from '../sandbox/rollouts.js';
import type { Client } from './clients.js';
import type { EpisodeIdentity } from './episode-journal.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import { ServeError } from './options.js';

const canonical = loadPlainRuntime().episodic.canonical;

/** The end of an episode as the client sees it. */
export interface Outcome {
  end: string;
  score: number;
  feedback?: string;
  error?: { code: string; message: string };
  /** An episode still going is not scored (rewards are terminal): ending it early scores it then. */
  unscored?: true;
}

/**
 * A turn as a session holds it: its action, in its one form (action-limits.ts canonicalAction, V27-2), kept as its JSON
 * text and parsed again where it is read (V26-2: the memory budget charges two bytes a character, the cost of text; a
 * parsed value costs per node, up to ten times its text).
 */
export class Turn {
  private readonly json: string | undefined;

  constructor(
    action: unknown,
    public observation: string,
  ) {
    this.json = JSON.stringify(action);
  }

  /** The action, parsed again from its text (a fresh value at each read). */
  get action(): unknown {
    return this.json === undefined ? undefined : JSON.parse(this.json);
  }

  /** Characters of the action's JSON text: what it holds. */
  get actionChars(): number {
    return this.json?.length ?? 0;
  }
}

export interface Session {
  id: string;
  /** Who holds its slot: the client that created it, or last restored it from its journal. */
  client: Client;
  record: EnvRecord;
  meta: EpisodicMeta;
  identity: EpisodeIdentity;
  prompt: string;
  turns: Turn[];
  /** The state as the sandbox wrote it (JSON text, key order kept), what the next step resumes from. */
  state: string;
  errors: number;
  /** Where the episode stands: unscored while it goes on, its end and score once it is over. */
  now: Outcome;
  over: boolean;
  lastUsed: number;
  queue: Promise<unknown>;
  /**
   * Requests queued or running on this session. Evicted while busy (session-slots.ts), it leaves the table at once, its
   * running request finishes and stands, and the requests after it are refused (evictedError) until none runs: a
   * rebuild from the journal then resumes it, never beside the live one (a fork).
   */
  busy: number;
  evicted?: true;
  /** The turn its snapshot was saved at (episode-snapshots.ts): not saved again until it moves on. */
  saved?: number;
  /** Rebuilt from a snapshot: the first `unread` turns' observations are not held (a replay reads them if asked). */
  unread?: number;
  /** A one-step episode (no slot is held between requests, nothing resumes it): never journaled. */
  ephemeral?: true;
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
  return {
    end: r.end,
    score: r.score,
    ...(r.feedback !== undefined ? { feedback: r.feedback } : {}),
    ...(r.unscored ? { unscored: true as const } : {}),
  };
}

/**
 * Where a rollout resumes (the state the sandbox last wrote), and whether the episode goes on after it (then unscored
 * unless it ended).
 */
export interface Resume {
  from?: { state: string; turn: number; errors: number };
  goesOn?: boolean;
  /** The score of a session its client ends: by the scoring lane (scoring-lane.ts), never the module's slot. */
  ending?: boolean;
}

/**
 * The budget of a rollout replayed alone (a resume, /score, a failure's re-run): callTimeoutMs for each turn it plays
 * and one more, as each step had its own live; never one call's budget for a whole episode.
 */
export function replayBudgetMs(callTimeoutMs: number, turns: number, maxTurns: number): number {
  return callTimeoutMs * (Math.min(turns, maxTurns) + 1);
}

/** Where a session's next rollout starts: the state the sandbox last wrote. */
export function resumeFrom(s: Session): NonNullable<Resume['from']> {
  return { state: s.state, turn: s.turns.length, errors: s.errors };
}

/**
 * Whether `action` (in its one form, as every stored turn is) as turn `turn` (optional) repeats a stored turn
 * ('stored': its stored result answers it) or makes the next one ('next'); a 409 when it conflicts with a stored turn,
 * follows no turn, or the episode is over.
 */
export function turnOf(s: Session, action: unknown, turn: number | undefined): 'stored' | 'next' {
  const current = s.turns.length;
  if (turn !== undefined && turn <= current) {
    const stored = canonical((s.turns[turn - 1] as Turn).action);
    if (stored !== canonical(action))
      throw new ServeError(
        409,
        'E_TURN_CONFLICT',
        `turn ${turn} of episode ${s.id} was ${stored.slice(0, 200)}, not this action; ` +
          `the episode is at turn ${current}`,
      );
    return 'stored';
  }
  if (s.over)
    throw new ServeError(
      409,
      'E_EPISODE_OVER',
      `episode ${s.id} ended (${s.now.end}) after ${current} turns; start a new one`,
    );
  if (turn !== undefined && turn !== current + 1)
    throw new ServeError(
      409,
      'E_TURN_CONFLICT',
      `episode ${s.id} is at turn ${current}: the next step is turn ${current + 1}, not ${turn}`,
    );
  return 'next';
}

/** What a step answers for turn `turn` of a session: its observation, and the outcome when it ended the episode. */
export function stepResult(s: Session, turn: number): StepResult {
  const [done, t] = [s.over && turn === s.turns.length, s.turns[turn - 1] as Turn];
  return { episode: s.id, turn, observation: t.observation, done, ...(done ? outcomeView(s) : {}) };
}

/** The episode so far, as a read answers it: identity, prompt, every turn, and the outcome once it is over. */
export function episodeView(s: Session) {
  return {
    episode: s.id,
    ...s.identity,
    prompt: s.prompt,
    tools: s.meta.tools,
    maxTurns: s.meta.maxTurns,
    turn: s.turns.length,
    done: s.over,
    turns: s.turns.map((t, i) => ({ turn: i + 1, action: t.action, observation: t.observation })),
    ...(s.over ? outcomeView(s) : {}),
  };
}

/** The outcome of a session that is over, as the client reads it. */
export function outcomeView(s: Session): Omit<Outcome, 'end'> & { end: string } {
  return {
    score: s.now.score,
    ...(s.now.feedback !== undefined ? { feedback: s.now.feedback } : {}),
    end: s.now.end,
    ...(s.now.error ? { error: s.now.error } : {}),
  };
}

/** What a request to a session evicted while busy gets, until its running request ends (then it resumes). */
export function evictedError(id: string): ServeError {
  return new ServeError(
    503,
    'E_EPISODE_EVICTED',
    `episode ${id.slice(0, 120)} was evicted for a client below its fair share of the open sessions while a request ` +
      'of it ran (that request stands; its journal keeps every turn): send this request again to resume the ' +
      'episode from its journal, in a slot of your fair share',
  );
}

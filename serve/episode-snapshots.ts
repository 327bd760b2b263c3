// Snapshots of episode sessions sent back to their journals (V25-3): the state the sandbox last wrote, with its
// turn, errors, prompt, outcome and last observation, in one file beside the journal (replaced at each eviction), so
// resuming an evicted session is one read, not a replay of every turn; bound to the journal's actions by a digest.
import { createHash, randomBytes } from 'node:crypto';
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import type { EpisodeJournal } from './episode-journal.js';
import type { Outcome, Session } from './episode-session.js';

const canonical = loadPlainRuntime().episodic.canonical;

/** What a snapshot keeps: where the next step resumes, and the answer to a retry of its last turn. */
export interface Snapshot {
  turn: number;
  /** Digest of the actions up to `turn` (canonical JSON): a snapshot of another history is never used. */
  actions: string;
  state: string;
  errors: number;
  prompt: string;
  now: Outcome;
  last: string;
}

const digestOf = (actions: unknown[]): string => createHash('sha256').update(canonical(actions)).digest('hex');

export class EpisodeSnapshots {
  /** Writes not yet landed, by id: a load waits for its episode's. */
  private readonly pending = new Map<string, Promise<void>>();
  /** Bytes of each snapshot file written, charged to its journal once (only growth is charged again). */
  private readonly sizes = new Map<string, number>();

  constructor(private readonly journal: EpisodeJournal) {}

  /** Writes `s`'s snapshot (an open session with turns, not saved at this turn already); failures leave a replay. */
  save(s: Session): void {
    const turn = s.turns.length;
    if (s.over || s.ephemeral || turn === 0 || s.saved === turn) return;
    s.saved = turn;
    const snapshot: Snapshot = {
      turn,
      actions: digestOf(s.turns.map((t) => t.action)),
      state: s.state,
      errors: s.errors,
      prompt: s.prompt,
      now: s.now,
      last: (s.turns[turn - 1] as Session['turns'][number]).observation,
    };
    const text = JSON.stringify(snapshot);
    const grown = Buffer.byteLength(text) - (this.sizes.get(s.id) ?? 0);
    if (grown > 0) {
      this.sizes.set(s.id, Buffer.byteLength(text));
      this.journal.written(s.id, grown);
    }
    const file = this.journal.snapshotFile(s.id);
    const tmp = `${file}.${randomBytes(6).toString('hex')}`;
    const write = (this.pending.get(s.id) ?? Promise.resolve())
      .then(() => writeFile(tmp, text, { mode: 0o600 }))
      .then(() => rename(tmp, file))
      .catch(() => unlink(tmp).catch(() => {}))
      .finally(() => {
        if (this.pending.get(s.id) === write) this.pending.delete(s.id);
      });
    this.pending.set(s.id, write);
  }

  /** The snapshot of `id` at the end of `actions` (the journal's), or null: none, torn, or of another history. */
  async load(id: string, actions: unknown[]): Promise<Snapshot | null> {
    await this.pending.get(id);
    try {
      const s = JSON.parse(await readFile(this.journal.snapshotFile(id), 'utf8')) as Snapshot;
      const fits = s.turn === actions.length && typeof s.state === 'string' && typeof s.prompt === 'string';
      return fits && typeof s.last === 'string' && s.actions === digestOf(actions) ? s : null;
    } catch {
      return null;
    }
  }

  /** Forgets what was charged for `id` (its journal is gone). */
  forget(id: string): void {
    this.sizes.delete(id);
  }
}

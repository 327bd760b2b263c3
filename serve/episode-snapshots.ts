// Snapshots of episode sessions sent back to their journals (V25-3): the state the sandbox last wrote, with its
// turn, errors, prompt, outcome and last observation, in one file beside the journal (replaced at each eviction), so
// resuming an evicted session is one read, not a replay of every turn; bound to the journal's actions by a digest.
import { createHash } from 'node:crypto';
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
  constructor(private readonly journal: EpisodeJournal) {}

  /**
   * Writes `s`'s snapshot (an open session with turns, not saved at this turn already), its growth charged to its
   * journal before it is written (a charge that would remove that journal refuses it: V26-1); failures and refusals
   * leave a replay.
   */
  save(s: Session): void {
    const turn = s.turns.length;
    if (s.over || s.ephemeral || turn === 0 || s.saved === turn) return;
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
    if (!this.journal.maySnapshot(s.id, Buffer.byteLength(text))) return;
    s.saved = turn;
    const file = this.journal.snapshotFile(s.id);
    const tmp = this.journal.snapshotTemp(s.id);
    this.after(s.id, () =>
      writeFile(tmp, text, { mode: 0o600 })
        .then(() => rename(tmp, file))
        .catch(() => unlink(tmp).catch(() => {})),
    );
  }

  /** Runs `next` after `id`'s writes in flight, as its pending one (a load waits for it). */
  private after(id: string, next: () => Promise<void>): void {
    const write = (this.pending.get(id) ?? Promise.resolve()).then(next).finally(() => {
      if (this.pending.get(id) === write) this.pending.delete(id);
    });
    this.pending.set(id, write);
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

  /**
   * Told that `id`'s journal is being removed: a write of its snapshot still in flight lands first and is deleted then,
   * so no snapshot outlives its journal uncharged (V26-1). What was charged lived on the journal's quota record.
   */
  forget(id: string): void {
    if (this.pending.has(id)) this.after(id, () => unlink(this.journal.snapshotFile(id)).catch(() => {}));
  }
}

// The SQLite store of trainer scores: windowed per-(name, version, level) counts that the reward service
// adds to and the dashboard, `level: "auto"` and the nightly run read. They live in their own file
// (scores.sqlite beside the index), so the reward service's frequent flushes do not move the library's
// change stamp and make every reader reload the whole library. A tally is the operator's (trusted, it steers)
// or any client's; a file from before that split is moved to it once, its rows untrusted.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LibraryError, type ScoreInput, type ScoreTally } from '../contract.js';
import { addCounts, checkScore } from '../store-kit.js';

export const SCORES_FILE = 'scores.sqlite';

interface ScoreRow {
  name: string;
  version: number;
  level: number;
  n: number;
  passed: number;
  score_sum: number;
  /** Absent in a file a reader opens before any writer moved it to the trusted split. */
  trusted?: number;
  updated_at: string;
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS trainer_scores (
  name TEXT NOT NULL, version INTEGER NOT NULL, level INTEGER NOT NULL,
  n REAL NOT NULL, passed REAL NOT NULL, score_sum REAL NOT NULL, updated_at TEXT NOT NULL,
  trusted INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (name, version, level, trusted)
)`;

/** A file written before trusted scores: its table is rebuilt with the column (old rows untrusted), once. */
function splitTrusted(db: Database.Database): void {
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(trainer_scores)').all();
  if (columns.length === 0 || columns.some((c) => c.name === 'trusted')) return;
  db.transaction(() => {
    db.exec('ALTER TABLE trainer_scores RENAME TO trainer_scores_untrusted');
    db.exec(SCHEMA);
    db.exec(
      'INSERT INTO trainer_scores (name, version, level, n, passed, score_sum, updated_at, trusted) SELECT ' +
        'name, version, level, n, passed, score_sum, updated_at, 0 FROM trainer_scores_untrusted',
    );
    db.exec('DROP TABLE trainer_scores_untrusted');
  }).immediate();
}

export class SqliteScores {
  private db: Database.Database | null = null;

  constructor(
    private readonly dir: string,
    private readonly readonly: boolean,
  ) {}

  /** The scores file, opened on first use (created when writing; a reader of a library without one sees none). */
  private open(write: boolean): Database.Database | null {
    if (this.db) return this.db;
    const path = join(this.dir, SCORES_FILE);
    if (!write && !existsSync(path)) return null;
    try {
      const db = new Database(path, { readonly: this.readonly });
      db.pragma('busy_timeout = 10000');
      if (!this.readonly) {
        db.pragma('journal_mode = WAL');
        splitTrusted(db);
        db.exec(SCHEMA);
      }
      this.db = db;
      return db;
    } catch (error) {
      throw new LibraryError(`cannot open the trainer scores at ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  /** Adds the counts in one transaction; older counts shrink so each tally keeps to SCORE_WINDOW (addCounts). */
  record(tallies: ScoreInput[], at: string): void {
    if (this.readonly) throw new LibraryError(`the library at ${this.dir} was opened read-only`);
    for (const t of tallies) checkScore(t);
    if (tallies.length === 0) return;
    const db = this.open(true) as Database.Database;
    const get = db.prepare<[string, number, number, number], ScoreRow>(
      'SELECT * FROM trainer_scores WHERE name = ? AND version = ? AND level = ? AND trusted = ?',
    );
    const put = db.prepare(
      'INSERT OR REPLACE INTO trainer_scores (name, version, level, n, passed, score_sum, updated_at, ' +
        'trusted) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    db.transaction(() => {
      for (const t of tallies) {
        const trusted = t.trusted === true ? 1 : 0;
        const row = get.get(t.name, t.version, t.level, trusted);
        const [n, passed, sum] = addCounts(row ? [row.n, row.passed, row.score_sum] : null, t);
        put.run(t.name, t.version, t.level, n, passed, sum, at, trusted);
      }
    }).immediate();
  }

  list(): ScoreTally[] {
    const db = this.open(false);
    if (!db) return [];
    try {
      return (
        db
          // a file not yet split has no trusted column
          .prepare<[], ScoreRow>('SELECT * FROM trainer_scores ORDER BY name, version, level')
          .all()
          .map((r) => ({
            name: r.name,
            version: r.version,
            level: r.level,
            n: r.n,
            passed: r.passed,
            scoreSum: r.score_sum,
            trusted: r.trusted === 1,
            updatedAt: r.updated_at,
          }))
          .sort((a, b) =>
            a.name < b.name
              ? -1
              : a.name > b.name
                ? 1
                : a.version - b.version || a.level - b.level || Number(a.trusted) - Number(b.trusted),
          )
      );
    } catch (error) {
      if ((error as Error).message.includes('no such table')) return []; // created by a writer that has not written yet
      throw new LibraryError(`reading the trainer scores failed: ${(error as Error).message}`, { cause: error });
    }
  }

  close(): void {
    this.db?.close();
    this.db = null;
  }
}

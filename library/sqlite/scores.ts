// The SQLite store of trainer scores (migration 4): windowed per-(name, version, level) counts that the
// reward service adds to and the dashboard, `level: "auto"` and the nightly run read.
import type Database from 'better-sqlite3';
import { LibraryError, SCORE_WINDOW, type ScoreInput, type ScoreTally } from '../contract.js';

interface ScoreRow {
  name: string;
  version: number;
  level: number;
  n: number;
  passed: number;
  score_sum: number;
  updated_at: string;
}

function check(t: ScoreInput): void {
  const ok =
    typeof t.name === 'string' && t.name !== '' && Number.isSafeInteger(t.version) && t.version >= 1 && Number.isSafeInteger(t.level) && t.level >= 1 &&
    Number.isFinite(t.n) && t.n > 0 && Number.isFinite(t.passed) && t.passed >= 0 && t.passed <= t.n && Number.isFinite(t.scoreSum) && t.scoreSum >= 0 && t.scoreSum <= t.n;
  if (!ok) throw new LibraryError(`a score tally needs a name, version ≥ 1, level ≥ 1 and counts with 0 ≤ passed, scoreSum ≤ n, n > 0; got ${JSON.stringify(t).slice(0, 200)}`);
}

/** Inside the caller's write transaction. */
export function addScores(db: Database.Database, tallies: ScoreInput[], at: string): void {
  for (const t of tallies) check(t);
  const get = db.prepare<[string, number, number], ScoreRow>('SELECT * FROM trainer_scores WHERE name = ? AND version = ? AND level = ?');
  const put = db.prepare('INSERT OR REPLACE INTO trainer_scores (name, version, level, n, passed, score_sum, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  for (const t of tallies) {
    const row = get.get(t.name, t.version, t.level);
    let [n, passed, sum] = row ? [row.n, row.passed, row.score_sum] : [0, 0, 0];
    // Older counts shrink so the new ones fit in the window: a moving estimate of the learner as it is now.
    const keep = Math.max(0, SCORE_WINDOW - Math.min(t.n, SCORE_WINDOW));
    if (n > keep) [n, passed, sum] = keep === 0 ? [0, 0, 0] : [keep, (passed * keep) / n, (sum * keep) / n];
    const scale = t.n > SCORE_WINDOW ? SCORE_WINDOW / t.n : 1;
    put.run(t.name, t.version, t.level, n + t.n * scale, passed + t.passed * scale, sum + t.scoreSum * scale, at);
  }
}

export function listScores(db: Database.Database): ScoreTally[] {
  return db
    .prepare<[], ScoreRow>('SELECT * FROM trainer_scores ORDER BY name, version, level')
    .all()
    .map((r) => ({ name: r.name, version: r.version, level: r.level, n: r.n, passed: r.passed, scoreSum: r.score_sum, updatedAt: r.updated_at }));
}

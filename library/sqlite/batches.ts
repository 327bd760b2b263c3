// The SQLite store's batch journal: batches with their options, report and ledger, and the journal of
// what each has durably done, appended atomically and idempotently per (kind, key).
import {
  LibraryError,
  type BatchJournal,
  type BatchRecord,
  type JournalEntry,
  type JournalInput,
} from '../contract.js';
import { toBatch, toEntry, type BatchRow, type JournalRow } from '../rows.js';
import { journalRows } from '../store-kit.js';
import { nonEmpty, now, toJson, type SqliteDb } from './db.js';

export class SqliteBatches implements BatchJournal {
  constructor(private readonly s: SqliteDb) {}

  private batchRow(id: string): BatchRow | undefined {
    return this.s.db.prepare<[string], BatchRow>('SELECT * FROM batches WHERE id = ?').get(id);
  }

  /** The batch, which must exist (and, for writes, be running). */
  private requireBatch(id: string, running: boolean): BatchRow {
    const row = this.batchRow(id);
    if (!row) throw new LibraryError(`unknown batch "${id}"`);
    if (running && row.status !== 'running')
      throw new LibraryError(`batch "${id}" is ${row.status}; it takes no more writes`);
    return row;
  }

  async startBatch(id: string, options: unknown): Promise<BatchRecord> {
    this.s.writable();
    if (!nonEmpty(id)) throw new LibraryError('a batch needs a non-empty id');
    const optionsJson = toJson(options, `the options of batch "${id}"`);
    return this.s.write(`starting batch "${id}"`, () => {
      const existing = this.batchRow(id);
      if (existing?.status === 'finished')
        throw new LibraryError(
          `batch "${id}" is already finished (at ${existing.finished_at}); start a new batch instead of resuming it`,
        );
      if (existing?.status === 'running') return toBatch(existing);
      const at = now();
      if (existing) {
        this.s.db
          .prepare(
            "UPDATE batches SET status = 'running', finished_at = NULL, report = NULL, updated_at = ? WHERE id = ?",
          )
          .run(at, id);
      } else {
        this.s.db
          .prepare("INSERT INTO batches (id, status, options, created_at, updated_at) VALUES (?, 'running', ?, ?, ?)")
          .run(id, optionsJson, at, at);
      }
      return toBatch(this.batchRow(id) as BatchRow);
    });
  }

  async appendJournal(
    batchId: string,
    entries: JournalInput[],
    options: { ledger?: unknown } = {},
  ): Promise<JournalEntry[]> {
    this.s.writable();
    const { rows, ledger } = journalRows(batchId, entries, options.ledger);
    const find = this.s.db.prepare<[string, string, string], JournalRow>(
      'SELECT * FROM journal WHERE batch_id = ? AND kind = ? AND key = ?',
    );
    const insert = this.s.db.prepare(
      'INSERT INTO journal (batch_id, seq, kind, key, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    return this.s.write(`appending to the journal of batch "${batchId}"`, () => {
      this.requireBatch(batchId, true);
      const at = now();
      let seq =
        this.s.db
          .prepare<[string], { s: number }>('SELECT coalesce(max(seq), 0) AS s FROM journal WHERE batch_id = ?')
          .get(batchId)?.s ?? 0;
      let changed = false;
      const out = rows.map((row): JournalEntry => {
        const existing = find.get(batchId, row.kind, row.key);
        if (existing) return toEntry(existing);
        seq += 1;
        insert.run(batchId, seq, row.kind, row.key, row.payload, at);
        changed = true;
        return toEntry({ batch_id: batchId, seq, kind: row.kind, key: row.key, payload: row.payload, created_at: at });
      });
      if (ledger !== undefined) {
        this.s.db.prepare('UPDATE batches SET ledger = ?, updated_at = ? WHERE id = ?').run(ledger, at, batchId);
      } else if (changed) {
        this.s.db.prepare('UPDATE batches SET updated_at = ? WHERE id = ?').run(at, batchId);
      }
      return out;
    });
  }

  async journal(batchId: string, kind?: string): Promise<JournalEntry[]> {
    this.requireBatch(batchId, false);
    const rows =
      kind === undefined
        ? this.s.db.prepare<[string], JournalRow>('SELECT * FROM journal WHERE batch_id = ? ORDER BY seq').all(batchId)
        : this.s.db
            .prepare<[string, string], JournalRow>('SELECT * FROM journal WHERE batch_id = ? AND kind = ? ORDER BY seq')
            .all(batchId, kind);
    return rows.map(toEntry);
  }

  async saveBatchLedger(batchId: string, ledger: unknown): Promise<void> {
    this.s.writable();
    const json = toJson(ledger, `the ledger of batch "${batchId}"`);
    this.s.write(`saving the ledger of batch "${batchId}"`, () => {
      this.requireBatch(batchId, true);
      this.s.db.prepare('UPDATE batches SET ledger = ?, updated_at = ? WHERE id = ?').run(json, now(), batchId);
    });
  }

  async finishBatch(batchId: string, status: 'finished' | 'failed', report: unknown): Promise<BatchRecord> {
    this.s.writable();
    if (status !== 'finished' && status !== 'failed')
      throw new LibraryError(`a batch ends as finished or failed, not ${String(status)}`);
    const json = toJson(report, `the report of batch "${batchId}"`);
    return this.s.write(`finishing batch "${batchId}"`, () => {
      this.requireBatch(batchId, true);
      const at = now();
      this.s.db
        .prepare('UPDATE batches SET status = ?, report = ?, finished_at = ?, updated_at = ? WHERE id = ?')
        .run(status, json, at, at, batchId);
      return toBatch(this.batchRow(batchId) as BatchRow);
    });
  }

  async getBatch(id: string): Promise<BatchRecord | undefined> {
    const row = this.batchRow(id);
    return row ? toBatch(row) : undefined;
  }

  async listBatches(limit?: number): Promise<BatchRecord[]> {
    if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0))
      throw new LibraryError(`listBatches needs a limit that is a whole number ≥ 0, not ${limit}`);
    return this.s.db
      .prepare<[number], BatchRow>('SELECT * FROM batches ORDER BY n DESC LIMIT ?')
      .all(limit ?? -1)
      .map(toBatch);
  }
}

// The PostgreSQL store's batch journal: batches with their options, report and ledger, and the journal
// of what each has durably done, appended atomically and idempotently per (kind, key). Writes to one
// batch lock its row, so concurrent appenders (the batch and its workers) number entries without gaps.
import {
  LibraryError,
  type BatchJournal,
  type BatchRecord,
  type JournalEntry,
  type JournalInput,
} from '../contract.js';
import { toBatch, toEntry, type BatchRow, type JournalRow } from '../rows.js';
import { journalRows, nonEmpty, now, toJson } from '../store-kit.js';
import type { PgDb, Query } from './db.js';

/** The batch row, locked for this transaction; it must exist (and, for writes, be running). */
async function lockBatch(q: Query, id: string, running: boolean): Promise<BatchRow> {
  const row = (await q('SELECT * FROM envforge.batches WHERE id = $1 FOR UPDATE', [id])).rows[0] as
    | BatchRow
    | undefined;
  if (!row) throw new LibraryError(`unknown batch "${id}"`);
  if (running && row.status !== 'running')
    throw new LibraryError(`batch "${id}" is ${row.status}; it takes no more writes`);
  return row;
}

export class PostgresBatches implements BatchJournal {
  constructor(private readonly s: PgDb) {}

  async startBatch(id: string, options: unknown): Promise<BatchRecord> {
    this.s.writable();
    if (!nonEmpty(id)) throw new LibraryError('a batch needs a non-empty id');
    const optionsJson = toJson(options, `the options of batch "${id}"`);
    return this.s.write(`starting batch "${id}"`, async (q) => {
      const at = now();
      await q(
        "INSERT INTO envforge.batches (id, status, options, created_at, updated_at) VALUES ($1, 'running', " +
          '$2, $3, $3) ON CONFLICT (id) DO NOTHING',
        [id, optionsJson, at],
      );
      const existing = (await q('SELECT * FROM envforge.batches WHERE id = $1 FOR UPDATE', [id])).rows[0] as BatchRow;
      if (existing.status === 'finished')
        throw new LibraryError(
          `batch "${id}" is already finished (at ${existing.finished_at}); start a new batch instead of resuming it`,
        );
      if (existing.status === 'running') return toBatch(existing);
      const { rows } = await q(
        "UPDATE envforge.batches SET status = 'running', finished_at = NULL, report = NULL, updated_at = $2 " +
          'WHERE id = $1 RETURNING *',
        [id, at],
      );
      return toBatch(rows[0] as BatchRow);
    });
  }

  async appendJournal(
    batchId: string,
    entries: JournalInput[],
    options: { ledger?: unknown } = {},
  ): Promise<JournalEntry[]> {
    this.s.writable();
    const { rows, ledger } = journalRows(batchId, entries, options.ledger);
    return this.s.write(`appending to the journal of batch "${batchId}"`, async (q) => {
      await lockBatch(q, batchId, true);
      const at = now();
      let seq = Number(
        (await q('SELECT coalesce(max(seq), 0) AS s FROM envforge.journal WHERE batch_id = $1', [batchId])).rows[0]
          ?.s ?? 0,
      );
      let changed = false;
      const out: JournalEntry[] = [];
      for (const row of rows) {
        const existing = (
          await q('SELECT * FROM envforge.journal WHERE batch_id = $1 AND kind = $2 AND key = $3', [
            batchId,
            row.kind,
            row.key,
          ])
        ).rows[0] as JournalRow | undefined;
        if (existing) {
          out.push(toEntry(existing));
          continue;
        }
        seq += 1;
        await q(
          'INSERT INTO envforge.journal (batch_id, seq, kind, key, payload, created_at) VALUES ' +
            '($1, $2, $3, $4, $5, $6)',
          [batchId, seq, row.kind, row.key, row.payload, at],
        );
        changed = true;
        out.push(
          toEntry({ batch_id: batchId, seq, kind: row.kind, key: row.key, payload: row.payload, created_at: at }),
        );
      }
      if (ledger !== undefined)
        await q('UPDATE envforge.batches SET ledger = $1, updated_at = $2 WHERE id = $3', [ledger, at, batchId]);
      else if (changed) await q('UPDATE envforge.batches SET updated_at = $1 WHERE id = $2', [at, batchId]);
      return out;
    });
  }

  async journal(batchId: string, kind?: string): Promise<JournalEntry[]> {
    if (!(await this.getBatch(batchId))) throw new LibraryError(`unknown batch "${batchId}"`);
    const { rows } = await this.s.query(
      'SELECT * FROM envforge.journal WHERE batch_id = $1 AND ($2::text IS NULL OR kind = $2) ORDER BY seq',
      [batchId, kind ?? null],
    );
    return (rows as JournalRow[]).map(toEntry);
  }

  async saveBatchLedger(batchId: string, ledger: unknown): Promise<void> {
    this.s.writable();
    const json = toJson(ledger, `the ledger of batch "${batchId}"`);
    await this.s.write(`saving the ledger of batch "${batchId}"`, async (q) => {
      await lockBatch(q, batchId, true);
      await q('UPDATE envforge.batches SET ledger = $1, updated_at = $2 WHERE id = $3', [json, now(), batchId]);
    });
  }

  async finishBatch(batchId: string, status: 'finished' | 'failed', report: unknown): Promise<BatchRecord> {
    this.s.writable();
    if (status !== 'finished' && status !== 'failed')
      throw new LibraryError(`a batch ends as finished or failed, not ${String(status)}`);
    const json = toJson(report, `the report of batch "${batchId}"`);
    return this.s.write(`finishing batch "${batchId}"`, async (q) => {
      await lockBatch(q, batchId, true);
      const at = now();
      const { rows } = await q(
        'UPDATE envforge.batches SET status = $1, report = $2, finished_at = $3, updated_at = $3 ' +
          'WHERE id = $4 RETURNING *',
        [status, json, at, batchId],
      );
      return toBatch(rows[0] as BatchRow);
    });
  }

  async getBatch(id: string): Promise<BatchRecord | undefined> {
    const row = (await this.s.query('SELECT * FROM envforge.batches WHERE id = $1', [id])).rows[0] as
      | BatchRow
      | undefined;
    return row ? toBatch(row) : undefined;
  }

  async listBatches(limit?: number): Promise<BatchRecord[]> {
    if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0))
      throw new LibraryError(`listBatches needs a limit that is a whole number ≥ 0, not ${limit}`);
    const { rows } = await this.s.query('SELECT * FROM envforge.batches ORDER BY n DESC LIMIT $1', [limit ?? null]);
    return (rows as BatchRow[]).map(toBatch);
  }
}

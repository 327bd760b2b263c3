// The SQLite store's kept rejections: each rejected candidate's report (depth-bounded) with its codes
// and lineage, newest first, the oldest dropped past the retention bound.
import { hashSource } from '../../contract/hash.js';
import { boundDepth } from '../../validators/bounded.js';
import type { ValidationReport } from '../../validators/report.js';
import type { Lineage, RejectionFilter, RejectionLog, RejectionRecord } from '../contract.js';
import { toRejection, type RejectionRow } from '../rows.js';
import { keptReport } from '../store-kit.js';
import { now, toJson, type SqliteDb } from './db.js';

export class SqliteRejections implements RejectionLog {
  constructor(private readonly s: SqliteDb) {}

  async recordRejection(input: { source: string; report: ValidationReport; lineage: Lineage }): Promise<void> {
    this.s.writable();
    const report = keptReport(input.report);
    this.s.db
      .transaction(() => {
        this.s.db
          .prepare('INSERT INTO rejections (hash, name, codes, report, lineage, created_at) VALUES (?, ?, ?, ?, ?, ?)')
          .run(
            hashSource(input.source),
            report.name,
            JSON.stringify([...new Set(report.problems.map((p) => p.code))]),
            toJson(boundDepth(report), 'the rejection report'),
            toJson(input.lineage, 'the lineage'),
            now(),
          );
        this.s.db
          .prepare('DELETE FROM rejections WHERE id <= (SELECT max(id) FROM rejections) - ?')
          .run(this.s.options.rejectionRetention);
      })
      .immediate();
  }

  async rejections(filter: RejectionFilter = {}): Promise<RejectionRecord[]> {
    const rows = this.s.db
      .prepare<[{ batch: string | null; code: string | null; limit: number }], RejectionRow>(
        `SELECT hash, name, codes, report, lineage, created_at FROM rejections
         WHERE (@batch IS NULL OR json_extract(lineage, '$.batchId') = @batch) AND (@code IS NULL OR EXISTS (SELECT ` +
          `1 FROM json_each(codes) WHERE value = @code))
         ORDER BY id DESC LIMIT @limit`,
      )
      .all({ batch: filter.batchId ?? null, code: filter.code ?? null, limit: filter.limit ?? 100 });
    return rows.map(toRejection);
  }
}

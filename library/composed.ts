// A Library made of its parts: a store supplies an EnvStore and a BatchJournal, and this class forwards
// the contract's environment and journal methods to them, so each store writes only what differs.
import type {
  AdmitInput,
  AdmitResult,
  BatchJournal,
  BatchRecord,
  EnvRecord,
  EnvStore,
  IntegrityReport,
  JournalEntry,
  JournalInput,
  LibraryStats,
  ListFilter,
} from './contract.js';

export abstract class ComposedLibrary {
  protected constructor(
    protected readonly envStore: EnvStore,
    protected readonly batchJournal: BatchJournal,
  ) {}

  admit(input: AdmitInput): Promise<AdmitResult> {
    return this.envStore.admit(input);
  }
  get(name: string, version?: number): Promise<EnvRecord | undefined> {
    return this.envStore.get(name, version);
  }
  list(filter?: ListFilter): Promise<EnvRecord[]> {
    return this.envStore.list(filter);
  }
  admissionCursor(): Promise<number> {
    return this.envStore.admissionCursor();
  }
  admittedSince(cursor: number): Promise<{ envs: EnvRecord[]; cursor: number }> {
    return this.envStore.admittedSince(cursor);
  }
  source(env: Pick<EnvRecord, 'hash'>): Promise<string> {
    return this.envStore.source(env);
  }
  retire(name: string, reason: string, version?: number): Promise<EnvRecord[]> {
    return this.envStore.retire(name, reason, version);
  }
  stats(): Promise<LibraryStats> {
    return this.envStore.stats();
  }
  integrityCheck(): Promise<IntegrityReport> {
    return this.envStore.integrityCheck();
  }
  gc(): Promise<string[]> {
    return this.envStore.gc();
  }

  startBatch(id: string, options: unknown): Promise<BatchRecord> {
    return this.batchJournal.startBatch(id, options);
  }
  appendJournal(batchId: string, entries: JournalInput[], options?: { ledger?: unknown }): Promise<JournalEntry[]> {
    return this.batchJournal.appendJournal(batchId, entries, options);
  }
  journal(batchId: string, kind?: string): Promise<JournalEntry[]> {
    return this.batchJournal.journal(batchId, kind);
  }
  saveBatchLedger(batchId: string, ledger: unknown): Promise<void> {
    return this.batchJournal.saveBatchLedger(batchId, ledger);
  }
  finishBatch(batchId: string, status: 'finished' | 'failed', report: unknown): Promise<BatchRecord> {
    return this.batchJournal.finishBatch(batchId, status, report);
  }
  getBatch(id: string): Promise<BatchRecord | undefined> {
    return this.batchJournal.getBatch(id);
  }
  listBatches(limit?: number): Promise<BatchRecord[]> {
    return this.batchJournal.listBatches(limit);
  }
}

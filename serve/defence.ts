// The reward service's runtime defence: when a served environment times out, crashes or returns an invalid
// value, the failing call is re-run alone in a fresh isolate, the incident is recorded in the library, and
// the quarantine policy (library/quarantine.ts) then answers its items with E_QUARANTINED until
// `envforge library revalidate` re-examines it. Requests also get a deadline of their own.
import type { Code } from '../contract/codes.js';
import type { EnvRecord, IncidentInput, IncidentRecord } from '../library/contract.js';
import { quarantineReason } from '../library/quarantine.js';
import { SqliteLibrary } from '../library/sqlite.js';

/** Failure codes that are the environment's own doing when an admitted module returns them. */
const INCIDENT_CODES: ReadonlySet<string> = new Set<Code>([
  'E_TIMEOUT', 'E_MEMORY', 'E_CRASHED', 'E_PROTOCOL', 'E_THROWN', 'E_NOT_JSON', 'E_TOO_LARGE', 'E_ASYNC', 'E_MISSING_EXPORT', 'E_SCORE', 'E_INSTANCE', 'E_REFERENCE', 'E_UNSOLVED',
]);

/** A call of an admitted environment that failed in production. */
export interface Misbehaviour {
  record: EnvRecord;
  seed: number;
  level: number;
  code: string;
  message: string;
  fn: string;
  response?: string;
}

type Evidence = Pick<IncidentRecord, 'code' | 'fn' | 'seed' | 'level' | 'confirmed' | 'origin'>;

export class Defence {
  /** Open incidents by hash as the library holds them (refreshed at every catalog reload). */
  private stored = new Map<string, Evidence[]>();
  /** Incidents recorded since the last refresh, or that could not be written. */
  private recent = new Map<string, Evidence[]>();
  private writer: SqliteLibrary | null | undefined;

  constructor(
    private readonly libraryDir: string,
    readonly enabled: boolean,
    private readonly warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  isIncident(code: string): boolean {
    return this.enabled && INCIDENT_CODES.has(code);
  }

  /** Replaces the view of the library's open incidents (those written by this process included). */
  refresh(open: IncidentRecord[]): void {
    const stored = new Map<string, Evidence[]>();
    for (const incident of open) stored.set(incident.hash, [...(stored.get(incident.hash) ?? []), incident]);
    this.stored = stored;
    this.recent = new Map([...this.recent].filter(([hash]) => !stored.has(hash)));
  }

  /** The reason items of this environment version are refused, or null while it is served. */
  quarantined(hash: string): string | null {
    if (!this.enabled) return null;
    const evidence = [...(this.stored.get(hash) ?? []), ...(this.recent.get(hash) ?? [])];
    return evidence.length === 0 ? null : quarantineReason(evidence);
  }

  /** Records an incident (in the library when it can be written, in memory regardless). */
  async record(m: Misbehaviour, confirmed: boolean): Promise<void> {
    const input: IncidentInput = { hash: m.record.hash, name: m.record.name, version: m.record.version, seed: m.seed, level: m.level, code: m.code, fn: m.fn, message: m.message, origin: 'serve', confirmed, ...(m.response === undefined ? {} : { response: m.response }) };
    this.recent.set(input.hash, [...(this.recent.get(input.hash) ?? []), input]);
    const writer = this.openWriter();
    if (!writer) return;
    try {
      await writer.recordIncident(input);
    } catch (error) {
      this.warn(`envforge serve: could not record an incident of ${m.record.name}@${m.record.version}: ${(error as Error).message}`);
    }
  }

  private openWriter(): SqliteLibrary | null {
    if (this.writer !== undefined) return this.writer;
    try {
      this.writer = SqliteLibrary.open(this.libraryDir);
    } catch (error) {
      this.writer = null;
      this.warn(`envforge serve: incidents are kept in memory only (the library cannot be written: ${(error as Error).message})`);
    }
    return this.writer;
  }

  async close(): Promise<void> {
    await this.writer?.close();
  }
}

/** Runs `work` with a deadline; resolves true when it finished in time (it keeps running otherwise). */
export async function withinDeadline(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}

// When an admitted environment is quarantined, from its open production incidents: the one policy the
// reward service and exports apply (through IncidentLog), and that `library revalidate` lifts or confirms.
import type { ProblemCode } from '../contract/codes.js';
import type { EnvRecord, IncidentInput, IncidentRecord, Library } from './contract.js';
import { LazyWriter } from './writer.js';

/**
 * Quarantine at the first confirmed incident (the failure came back when the call ran alone in a fresh
 * isolate: a contract violation on a valid input, which validation found zero of in thousands of calls),
 * or at the third incident of any kind (unconfirmed ones may be a loaded host's timeouts, which one or two
 * of do not prove; three on one environment version are no longer chance).
 */
export const QUARANTINE_POLICY = { confirmed: 1, incidents: 3 } as const;

/**
 * The fn of an incident that only one response caused: verify failed on it, alone in a fresh realm, while
 * the same instance's reference scored. It is the response's problem (recorded for revalidation to replay),
 * never a reason to quarantine the environment for everyone.
 */
export const RESPONSE_FN = 'verify(response)';

/** Why the environment version with these open incidents is quarantined, or null when it is not. */
export function quarantineReason(evidence: Pick<IncidentRecord, 'code' | 'fn' | 'seed' | 'level' | 'confirmed' | 'origin'>[]): string | null {
  const open = evidence.filter((i) => i.fn !== RESPONSE_FN);
  const confirmed = open.filter((i) => i.confirmed);
  const first = confirmed[0] ?? open[0];
  if (!first || (confirmed.length < QUARANTINE_POLICY.confirmed && open.length < QUARANTINE_POLICY.incidents)) return null;
  const what = confirmed.length > 0 ? `it failed with ${first.code} in ${first.fn} at seed ${first.seed}, level ${first.level}, and again when re-run alone` : `${open.length} incidents in production (first: ${first.code} in ${first.fn} at seed ${first.seed}, level ${first.level})`;
  return `quarantined: ${what}; run \`envforge library revalidate\` to re-examine it`;
}

/** Failure codes that are the environment's own doing when an admitted module returns them in production. */
const INCIDENT_CODES: ReadonlySet<string> = new Set<ProblemCode>([
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

/**
 * A production process's view of incidents: what the library holds (refreshed by the caller) plus what
 * it recorded since, with the quarantine policy applied. Records go to the library when it can be
 * written (a second, writable handle, opened on the first incident) and are kept in memory regardless.
 */
export class IncidentLog {
  private stored = new Map<string, Evidence[]>();
  private recent = new Map<string, Evidence[]>();
  private readonly writer: LazyWriter;

  constructor(
    libraryDir: string,
    private readonly origin: IncidentInput['origin'],
    readonly enabled = true,
    private readonly warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {
    this.writer = new LazyWriter(libraryDir, (reason) => this.warn(`envforge ${this.origin}: incidents are kept in memory only (the library cannot be written: ${reason})`));
  }

  isIncident(code: string): boolean {
    return this.enabled && INCIDENT_CODES.has(code);
  }

  /** Replaces the view of the library's open incidents (those this process wrote included). */
  refresh(open: IncidentRecord[]): void {
    const stored = new Map<string, Evidence[]>();
    for (const incident of open) stored.set(incident.hash, [...(stored.get(incident.hash) ?? []), incident]);
    this.stored = stored;
    this.recent = new Map([...this.recent].filter(([hash]) => !stored.has(hash)));
  }

  /** Why this environment version is refused, or null while it may be used. */
  quarantined(hash: string): string | null {
    if (!this.enabled) return null;
    const evidence = [...(this.stored.get(hash) ?? []), ...(this.recent.get(hash) ?? [])];
    return evidence.length === 0 ? null : quarantineReason(evidence);
  }

  async record(m: Misbehaviour, confirmed: boolean): Promise<void> {
    const input: IncidentInput = { hash: m.record.hash, name: m.record.name, version: m.record.version, seed: m.seed, level: m.level, code: m.code, fn: m.fn, message: m.message, origin: this.origin, confirmed, ...(m.response === undefined ? {} : { response: m.response }) };
    this.recent.set(input.hash, [...(this.recent.get(input.hash) ?? []), input]);
    const writer = this.writer.get();
    if (!writer) return;
    try {
      await writer.recordIncident(input);
    } catch (error) {
      this.warn(`envforge ${this.origin}: could not record an incident of ${m.record.name}@${m.record.version}: ${(error as Error).message}`);
    }
  }

  async close(): Promise<void> {
    await this.writer.close();
  }
}

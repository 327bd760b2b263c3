// When an admitted environment is quarantined, as the reward service and exports see it (IncidentLog): the library's
// stored quarantines, and the policy (quarantine-policy.ts) tallied over its open incidents and this process's own.
import type { ProblemCode } from '../contract/codes.js';
import { logLine } from '../contract/text.js';
import type { EnvRecord, IncidentInput, IncidentRecord, QuarantineRecord } from './contract.js';
import { EvidenceTally } from './quarantine-policy.js';
import { LazyWriter } from './writer.js';

export {
  ACTION_LOG_FN,
  CLIENT_SEED_FN,
  neverTheClients,
  QUARANTINE_POLICY,
  quarantineReason,
  RESPONSE_FN,
} from './quarantine-policy.js';

/** Failure codes that are the environment's own doing when an admitted module returns them in production. */
const INCIDENT_CODES: ReadonlySet<string> = new Set<ProblemCode>([
  'E_TIMEOUT',
  'E_MEMORY',
  'E_CRASHED',
  'E_PROTOCOL',
  'E_THROWN',
  'E_NOT_JSON',
  'E_TOO_LARGE',
  'E_ASYNC',
  'E_MISSING_EXPORT',
  'E_SCORE',
  'E_INSTANCE',
  'E_REFERENCE',
  'E_UNSOLVED',
  'E_ESCAPE_ATTEMPT',
  'E_CONTROL_CHARS',
  'E_STATE_TOO_LARGE',
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
  /**
   * Whose input reached the failure (a short hash of the client's token name or normalised address), for the
   * independent-clients rule.
   */
  client?: string;
  /** Who what the library keeps of it is charged to: a short hash of the client's principal (V22-5). */
  principal?: string;
}

/** The tally of a hash in a map of them, made when missing. */
function tallyOf(tallies: Map<string, EvidenceTally>, hash: string): EvidenceTally {
  let tally = tallies.get(hash);
  if (!tally) tallies.set(hash, (tally = new EvidenceTally()));
  return tally;
}

/**
 * A production process's view of quarantine: the library's stored quarantines (a state, lifted only by revalidation),
 * the policy over the library's open incidents (refreshed by the caller) and over what this process recorded since,
 * each verdict decided when its evidence changes, so the check every item makes is one lookup. Records go to the
 * library when it can be written (a second, writable handle, opened on the first incident; the store then keeps the
 * verdict) and are kept in memory, as tallies, regardless.
 */
export class IncidentLog {
  /** Why each quarantined environment version is, by hash: what quarantined() reads. */
  private verdicts = new Map<string, string>();
  /** The library's open incidents at the last refresh and this process's since, tallied by hash. */
  private tallies = new Map<string, EvidenceTally>();
  /** This process's incidents the library could not take: added again at each refresh. */
  private unwritten = new Map<string, EvidenceTally>();
  /** Verdicts this process reached that the library has not shown yet: kept until it does. */
  private reached = new Map<string, string>();
  private readonly writer: LazyWriter;

  constructor(
    libraryDir: string,
    private readonly origin: IncidentInput['origin'],
    readonly enabled = true,
    private readonly warn: (line: string) => void = (line) => process.stderr.write(`${logLine(line)}\n`),
  ) {
    this.writer = new LazyWriter(libraryDir, (reason) =>
      this.warn(
        `envforge ${this.origin}: incidents are kept in memory only (the library cannot be written: ${reason})`,
      ),
    );
  }

  isIncident(code: string): boolean {
    return this.enabled && INCIDENT_CODES.has(code);
  }

  /** Replaces the view of the library: its open incidents (those this process wrote included) and its quarantines. */
  refresh(open: IncidentRecord[], quarantines: QuarantineRecord[] = []): void {
    const tallies = new Map<string, EvidenceTally>();
    for (const incident of open) tallyOf(tallies, incident.hash).add(incident);
    for (const [hash, tally] of this.unwritten) tallyOf(tallies, hash).merge(tally);
    const verdicts = new Map(quarantines.map((q) => [q.hash, q.reason]));
    for (const [hash, tally] of tallies) {
      const reason = verdicts.has(hash) ? null : tally.reason();
      if (reason) verdicts.set(hash, reason);
    }
    for (const [hash, reason] of this.reached)
      if (verdicts.has(hash)) this.reached.delete(hash);
      else verdicts.set(hash, reason);
    this.tallies = tallies;
    this.verdicts = verdicts;
  }

  /** Why this environment version is refused, or null while it may be used (O(1): every item asks). */
  quarantined(hash: string): string | null {
    return this.enabled ? (this.verdicts.get(hash) ?? null) : null;
  }

  async record(m: Misbehaviour, confirmed: boolean): Promise<void> {
    const input: IncidentInput = {
      hash: m.record.hash,
      name: m.record.name,
      version: m.record.version,
      seed: m.seed,
      level: m.level,
      code: m.code,
      fn: m.fn,
      message: m.message,
      origin: this.origin,
      confirmed,
      ...(m.response === undefined ? {} : { response: m.response }),
      ...(m.client === undefined ? {} : { client: m.client }),
      ...(m.principal === undefined ? {} : { principal: m.principal }),
    };
    const reason = this.verdicts.has(input.hash) ? null : tallyOf(this.tallies, input.hash).add(input).reason();
    if (reason) {
      this.verdicts.set(input.hash, reason);
      this.reached.set(input.hash, reason);
    }
    const writer = this.writer.get();
    if (!writer) return void tallyOf(this.unwritten, input.hash).add(input);
    try {
      await writer.recordIncident(input);
    } catch (error) {
      tallyOf(this.unwritten, input.hash).add(input);
      this.warn(
        `envforge ${this.origin}: could not record an incident of ${m.record.name}@${m.record.version}: ` +
          `${(error as Error).message}`,
      );
    }
  }

  async close(): Promise<void> {
    await this.writer.close();
  }
}

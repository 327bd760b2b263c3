// When an admitted environment is quarantined, from its open production incidents: the one policy the
// reward service and exports apply (through IncidentLog), and that `library revalidate` lifts or confirms.
import type { ProblemCode } from '../contract/codes.js';
import { terminalSafe } from '../contract/text.js';
import type { EnvRecord, IncidentInput, IncidentRecord } from './contract.js';
import { LazyWriter } from './writer.js';

/**
 * Quarantine at the environment's first confirmed incident (a failure no client input reached: the reference,
 * a reset, generate, failing again alone in a fresh isolate; validation found zero in thousands of calls), or
 * at its third such incident of any kind (unconfirmed ones may be a loaded host's timeouts, which one or two of
 * do not prove; three on one environment version are no longer chance). A failure a client's input reached is
 * that client's, confirmed or not (it never counts toward those); it quarantines only when that many
 * independent clients (client tokens or normalised addresses, serve/clients.ts) reached it, confirmed, with one code.
 */
export const QUARANTINE_POLICY = { confirmed: 1, incidents: 3, clients: 3 } as const;

/**
 * The fn of an incident that only one response caused: verify failed on it, alone in a fresh realm, while
 * the same instance's reference scored. It is the response's problem (recorded for revalidation to replay),
 * never alone a reason to quarantine the environment for everyone.
 */
export const RESPONSE_FN = 'verify(response)';
/** The same for an episode: the client's action log failed, replayed alone, while the reference rollout ran. */
export const ACTION_LOG_FN = 'step(action log)';
const CLIENT_INPUT_FNS: ReadonlySet<string> = new Set([RESPONSE_FN, ACTION_LOG_FN]);

/**
 * Codes no client input can draw from an honest module: it reached for a capability outside the contract
 * (the sandbox's tripwires). One such incident quarantines, whoever's input it was and unconfirmed.
 */
const NEVER_THE_CLIENTS: ReadonlySet<string> = new Set<ProblemCode>(['E_ESCAPE_ATTEMPT']);

type Evidence = Pick<IncidentRecord, 'code' | 'fn' | 'seed' | 'level' | 'confirmed' | 'origin' | 'client'>;

const revalidate = '; run `envforge library revalidate` to re-examine it';

/** Why the environment version with these open incidents is quarantined, or null when it is not. */
export function quarantineReason(evidence: Evidence[]): string | null {
  const tripped = evidence.find((i) => NEVER_THE_CLIENTS.has(i.code));
  if (tripped)
    return (
      `quarantined: it reached for a capability outside the contract (${tripped.code} in ${tripped.fn} at seed ` +
      `${tripped.seed}, level ${tripped.level})${revalidate}`
    );
  const open = evidence.filter((i) => !CLIENT_INPUT_FNS.has(i.fn));
  const confirmed = open.filter((i) => i.confirmed);
  const first = confirmed[0] ?? open[0];
  if (first && (confirmed.length >= QUARANTINE_POLICY.confirmed || open.length >= QUARANTINE_POLICY.incidents)) {
    const what =
      confirmed.length > 0
        ? `it failed with ${first.code} in ${first.fn} at seed ${first.seed}, level ${first.level}, and ` +
          `again when re-run alone`
        : `${open.length} incidents in production (first: ${first.code} in ${first.fn} at seed ${first.seed}` +
          `, level ${first.level})`;
    return `quarantined: ${what}${revalidate}`;
  }
  // Inputs of independent clients (by address) that each failed, confirmed, with the same code.
  const clients = new Map<string, Set<string>>();
  for (const i of evidence)
    if (CLIENT_INPUT_FNS.has(i.fn) && i.confirmed && i.client)
      clients.set(i.code, (clients.get(i.code) ?? new Set()).add(i.client));
  const shared = [...clients].find(([, who]) => who.size >= QUARANTINE_POLICY.clients);
  return shared
    ? `quarantined: the inputs of ${shared[1].size} independent clients made it fail with ${shared[0]}${revalidate}`
    : null;
}

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

/** Whether a failure with this code is the module's own whoever's input reached it (no re-run can clear it). */
export function neverTheClients(code: string): boolean {
  return NEVER_THE_CLIENTS.has(code);
}

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
}

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
    private readonly warn: (line: string) => void = (line) => process.stderr.write(`${terminalSafe(line)}\n`),
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
    };
    this.recent.set(input.hash, [...(this.recent.get(input.hash) ?? []), input]);
    const writer = this.writer.get();
    if (!writer) return;
    try {
      await writer.recordIncident(input);
    } catch (error) {
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

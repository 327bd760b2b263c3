// The quarantine policy as a tally kept per environment version, updated as each incident comes (O(1) per incident
// and per check), and which incidents retention may drop: shared by IncidentLog and every library store.
import type { ProblemCode } from '../contract/codes.js';
import type { IncidentRecord } from './contract.js';

/**
 * Quarantine at the environment's first confirmed incident (a failure no client input reached: the reference,
 * a reset, generate, at the seeds the service drew for its own re-runs, failing again alone in a fresh isolate;
 * validation found zero in thousands of calls), or at its third such incident of any kind (unconfirmed ones may be a
 * loaded host's timeouts, which one or two of do not prove; three on one environment version are no longer chance). A
 * failure a client's input reached is that client's, confirmed or not (it never counts toward those), and so is a
 * failure of the instance itself at a seed and level the client chose or drew (V21-3, V22-1: the seed is input too); it
 * quarantines only when that many independent clients (client tokens, and every client without one as one voter:
 * serve/clients.ts) reached it, confirmed, with one code.
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
/**
 * The fn of an incident of the instance itself (its generate, reset or reference) at a seed and level its client
 * chose, which a re-run at a seed the service drew did not meet: that client's vote, as a response's is (V21-3).
 */
export const CLIENT_SEED_FN = 'instance(client seed)';
/** The fns of incidents only a client's input reached (for the stores' retention queries). */
export const CLIENT_INPUT_FNS: readonly string[] = [RESPONSE_FN, ACTION_LOG_FN, CLIENT_SEED_FN];
const CLIENT_INPUT: ReadonlySet<string> = new Set(CLIENT_INPUT_FNS);

/**
 * Codes no client input can draw from an honest module: it reached for a capability outside the contract
 * (the sandbox's tripwires). One such incident quarantines, whoever's input it was and unconfirmed.
 */
export const NEVER_THE_CLIENTS_CODES: readonly ProblemCode[] = ['E_ESCAPE_ATTEMPT'];
const NEVER_THE_CLIENTS: ReadonlySet<string> = new Set(NEVER_THE_CLIENTS_CODES);

/** Whether a failure with this code is the module's own whoever's input reached it (no re-run can clear it). */
export function neverTheClients(code: string): boolean {
  return NEVER_THE_CLIENTS.has(code);
}

export type Evidence = Pick<IncidentRecord, 'code' | 'fn' | 'seed' | 'level' | 'confirmed' | 'origin' | 'client'>;

const revalidate = '; run `envforge library revalidate` to re-examine it';

/**
 * What the policy needs of one environment version's open incidents, whatever their number: the first tripwire,
 * the environment's own incidents (counted, with the first and the first confirmed), and up to the policy's
 * number of independent clients per code. Adding an incident and reading the verdict are O(1).
 */
export class EvidenceTally {
  private tripped: Evidence | null = null;
  private own = 0;
  private firstOwn: Evidence | null = null;
  private ownConfirmed = 0;
  private firstConfirmed: Evidence | null = null;
  private readonly clients = new Map<string, Set<string>>();

  add(i: Evidence): this {
    if (NEVER_THE_CLIENTS.has(i.code)) this.tripped ??= i;
    if (!CLIENT_INPUT.has(i.fn)) {
      this.own++;
      this.firstOwn ??= i;
      if (i.confirmed) {
        this.ownConfirmed++;
        this.firstConfirmed ??= i;
      }
    } else if (i.confirmed && i.client) {
      const who = this.clients.get(i.code) ?? new Set<string>();
      if (who.size < QUARANTINE_POLICY.clients) this.clients.set(i.code, who.add(i.client));
    }
    return this;
  }

  /** Adds another tally's incidents after this one's (its firsts come second). */
  merge(other: EvidenceTally): this {
    this.tripped ??= other.tripped;
    this.own += other.own;
    this.firstOwn ??= other.firstOwn;
    this.ownConfirmed += other.ownConfirmed;
    this.firstConfirmed ??= other.firstConfirmed;
    for (const [code, who] of other.clients) for (const client of who) this.add({ ...CLIENT_VOTE, code, client });
    return this;
  }

  /** Why the environment version with these open incidents is quarantined, or null when it is not. */
  reason(): string | null {
    const tripped = this.tripped;
    if (tripped)
      return (
        `quarantined: it reached for a capability outside the contract (${tripped.code} in ${tripped.fn} at seed ` +
        `${tripped.seed}, level ${tripped.level})${revalidate}`
      );
    const first = this.firstConfirmed ?? this.firstOwn;
    if (first && (this.ownConfirmed >= QUARANTINE_POLICY.confirmed || this.own >= QUARANTINE_POLICY.incidents)) {
      const what =
        this.ownConfirmed > 0
          ? `it failed with ${first.code} in ${first.fn} at seed ${first.seed}, level ${first.level}, and ` +
            `again when re-run alone`
          : `${this.own} incidents in production (first: ${first.code} in ${first.fn} at seed ${first.seed}` +
            `, level ${first.level})`;
      return `quarantined: ${what}${revalidate}`;
    }
    // Inputs of independent clients (by address) that each failed, confirmed, with the same code.
    const shared = [...this.clients].find(([, who]) => who.size >= QUARANTINE_POLICY.clients);
    return shared
      ? `quarantined: the inputs of ${shared[1].size} independent clients made it fail with ${shared[0]}${revalidate}`
      : null;
  }
}

/** A client's confirmed incident as merge re-adds it (only its code and client matter to the tally). */
const CLIENT_VOTE: Evidence = { code: '', fn: RESPONSE_FN, seed: 0, level: 1, confirmed: true, origin: 'serve' };

/** Why the environment version with these open incidents is quarantined, or null when it is not. */
export function quarantineReason(evidence: Evidence[]): string | null {
  const tally = new EvidenceTally();
  for (const i of evidence) tally.add(i);
  return tally.reason();
}

/**
 * The quarantines a version's open incidents decide, by hash (a library upgraded to stored quarantines backfills them).
 */
export function quarantinesOf(open: Array<Evidence & { hash: string }>): Array<{ hash: string; reason: string }> {
  const tallies = new Map<string, EvidenceTally>();
  for (const i of open) tallies.set(i.hash, (tallies.get(i.hash) ?? new EvidenceTally()).add(i));
  return [...tallies].flatMap(([hash, tally]) => {
    const reason = tally.reason();
    return reason ? [{ hash, reason }] : [];
  });
}

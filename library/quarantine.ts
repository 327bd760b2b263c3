// When an admitted environment is quarantined, from its open production incidents: the one policy the
// reward service, exports and `library list` apply, and that `library revalidate` lifts or confirms.
import type { IncidentRecord } from './contract.js';

/**
 * Quarantine at the first confirmed incident (the failure came back when the call ran alone in a fresh
 * isolate: a contract violation on a valid input, which validation found zero of in thousands of calls),
 * or at the third incident of any kind (unconfirmed ones may be a loaded host's timeouts, which one or two
 * of do not prove; three on one environment version are no longer chance).
 */
export const QUARANTINE_POLICY = { confirmed: 1, incidents: 3 } as const;

/** Why the environment version with these open incidents is quarantined, or null when it is not. */
export function quarantineReason(open: Pick<IncidentRecord, 'code' | 'fn' | 'seed' | 'level' | 'confirmed' | 'origin'>[]): string | null {
  const confirmed = open.filter((i) => i.confirmed);
  const first = confirmed[0] ?? open[0];
  if (!first || (confirmed.length < QUARANTINE_POLICY.confirmed && open.length < QUARANTINE_POLICY.incidents)) return null;
  const what = confirmed.length > 0 ? `it failed with ${first.code} in ${first.fn} at seed ${first.seed}, level ${first.level}, and again when re-run alone` : `${open.length} incidents in production (first: ${first.code} in ${first.fn} at seed ${first.seed}, level ${first.level})`;
  return `quarantined: ${what}; run \`envforge library revalidate\` to re-examine it`;
}

/** Open incidents grouped by module hash, mapped to their quarantine reason (only quarantined hashes). */
export function quarantinedHashes(open: IncidentRecord[]): Map<string, string> {
  const byHash = new Map<string, IncidentRecord[]>();
  for (const incident of open) byHash.set(incident.hash, [...(byHash.get(incident.hash) ?? []), incident]);
  const out = new Map<string, string>();
  for (const [hash, list] of byHash) {
    const reason = quarantineReason(list);
    if (reason) out.set(hash, reason);
  }
  return out;
}

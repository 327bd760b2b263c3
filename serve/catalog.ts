// The service's in-memory view of the library: every version by name, the newest active version of each
// name, lookups that say why an identity does not resolve, and the GET /v1/envs listing.
import { kindOf } from '../kinds/registry.js';
import type { Code } from '../contract/codes.js';
import type { EnvRecord } from '../library/contract.js';
import type { InstanceIdentity } from './schemas.js';

interface Resolved {
  record: EnvRecord;
}
export type Lookup = Resolved | { error: { code: Code; message: string } };

/** An in-memory view of the library: every version by name, and the newest active version of each name. */
export class Catalog {
  readonly active: EnvRecord[];
  /** Every version, active or retired, by name then version. */
  readonly all: EnvRecord[];
  private readonly versions = new Map<string, Map<number, EnvRecord>>();
  private readonly newestActive = new Map<string, EnvRecord>();

  constructor(records: EnvRecord[]) {
    for (const record of records) {
      let byVersion = this.versions.get(record.name);
      if (!byVersion) this.versions.set(record.name, (byVersion = new Map()));
      byVersion.set(record.version, record);
      if (record.status === 'active' && (this.newestActive.get(record.name)?.version ?? 0) < record.version)
        this.newestActive.set(record.name, record);
    }
    this.active = [...this.newestActive.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.all = [...records].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.version - b.version));
  }

  /** The given version (active or retired: pinned data keeps scoring), else the newest active one. */
  lookup(name: string, version?: number): Lookup {
    const byVersion = this.versions.get(name);
    if (!byVersion) return { error: { code: 'E_UNKNOWN_ENV', message: `unknown environment "${name}"` } };
    if (version === undefined) {
      const record = this.newestActive.get(name);
      return record
        ? { record }
        : {
            error: {
              code: 'E_UNKNOWN_ENV',
              message: `environment "${name}" has no active version (all are retired); name a version`,
            },
          };
    }
    const record = byVersion.get(version);
    return record
      ? { record }
      : {
          error: {
            code: 'E_UNKNOWN_ENV',
            message:
              `environment "${name}" has no version ${version} (versions: ` +
              `${[...byVersion.keys()].sort((a, b) => a - b).join(', ')})`,
          },
        };
  }

  /** lookup() plus the level check. */
  resolve(identity: InstanceIdentity): Lookup {
    const found = this.lookup(identity.env, identity.version);
    if ('error' in found) return found;
    const kind = kindOf(found.record.meta);
    if (!kind.exportable)
      return {
        error: {
          code: 'E_UNSUPPORTED_KIND',
          message:
            `${identity.env}@${found.record.version} is ${kind.label}: play it as an episode (POST ` +
            `/v1/episodes) or score its action log (POST /v1/episodes/score)`,
        },
      };
    return this.levelCheck(identity, found);
  }

  /** lookup() plus the level check, for either kind (POST /v1/sample serves both). */
  resolveAnyKind(identity: InstanceIdentity): Lookup {
    const found = this.lookup(identity.env, identity.version);
    return 'error' in found ? found : this.levelCheck(identity, found);
  }

  /** lookup() plus the level check, for an episodic environment (contract v2) only. */
  resolveEpisodic(identity: InstanceIdentity): Lookup {
    const found = this.lookup(identity.env, identity.version);
    if ('error' in found) return found;
    if (!kindOf(found.record.meta).rollouts)
      return {
        error: {
          code: 'E_UNSUPPORTED_KIND',
          message: `${identity.env}@${found.record.version} is single-turn: score its responses with POST /v1/verify`,
        },
      };
    return this.levelCheck(identity, found);
  }

  private levelCheck(identity: InstanceIdentity, found: Resolved): Lookup {
    const levels = found.record.meta.levels;
    if (identity.level > levels)
      return {
        error: {
          code: 'E_LEVEL_RANGE',
          message: `level ${identity.level} is past ${identity.env}@${found.record.version}'s ${levels} levels`,
        },
      };
    return found;
  }
}

/**
 * GET /v1/envs: the newest active version of each name, or with ?versions=all every version that still
 * scores (retired ones too, with their status), each with its code hash, so a client can check that the
 * service serves the environments its data came from.
 */
export function listEnvs(catalog: Catalog, query: unknown): Array<Record<string, unknown>> {
  const all = (query as { versions?: unknown } | null)?.versions === 'all';
  return (all ? catalog.all : catalog.active).map((env) => ({
    name: env.name,
    version: env.version,
    hash: env.hash,
    ...(all ? { status: env.status } : {}),
    skills: env.meta.skills,
    levels: env.meta.levels,
    kind: kindOf(env.meta).label,
    title: env.meta.title,
    description: env.meta.description,
  }));
}

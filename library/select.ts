// Which environments of the library a request means, at which levels: named ones (NAME or NAME@VERSION),
// those with one of some skills, those of one kind, or every active one, each with its level range. The one selection
// both `envforge export` (--env, --skills, --levels) and the reward service's /v1/sample select use; errors
// carry a stable code and name the caller's own field (labels), e.g. `--env` or `select.env`.
import type { Code } from '../contract/codes.js';
import { EnvforgeError } from '../contract/errors.js';
import { ALL_KINDS, KIND_NAMES, type KindName, kindOf } from '../kinds/registry.js';
import type { EnvRecord } from './contract.js';

/** The environment kinds a selection can ask for: every kind's canonical name (single, episodic, code). */
export const SELECTABLE_KINDS = KIND_NAMES;
export type SelectableKind = KindName;
export const recordKind = (record: Pick<EnvRecord, 'meta'>): SelectableKind => kindOf(record.meta).name;
/** `--kind`'s help: every kind by its name, with the contract its plug states. */
const kindsHelp = ALL_KINDS.map((k) => `${k.name} (${k.contract})`).join('; ');
export const KIND_HELP = `only environments of this kind: ${kindsHelp}`;

export interface EnvRef {
  name: string;
  version?: number;
}
export interface LevelRange {
  lo: number;
  hi: number;
}
export interface LevelSpec {
  /** A range for every environment, clipped to each one's levels. */
  all?: LevelRange;
  /** `name:lo-hi`: must fit the named environment's levels. */
  byEnv: Map<string, LevelRange>;
}

export interface Selection {
  envs?: EnvRef[];
  skills?: string[];
  /** Only environments of this kind. */
  kind?: SelectableKind;
  levels?: LevelSpec;
}

export interface SelectedEnv {
  record: EnvRecord;
  levels: LevelRange;
}

export interface SelectOptions {
  /** How the caller names the selection's fields, and what it selects for, in its messages. */
  labels: { env: string; skills: string; levels: string; selected: string; kind?: string };
  /** The library, as messages name it. */
  where: string;
  /**
   * An environment whose levels stop below the range asked for every environment: refused (an export
   * should not silently lose it) or skipped (sampling draws from those that have the levels).
   */
  short: 'refuse' | 'skip';
}

export type SelectionCode = Extract<Code, 'E_UNKNOWN_ENV' | 'E_NO_MATCH' | 'E_LEVEL_RANGE'>;

/** A selection that names nothing the library holds, or levels it does not have. */
export class SelectionError extends EnvforgeError {
  declare readonly code: SelectionCode;
  constructor(code: SelectionCode, message: string) {
    super(code, message);
  }
}

const byNameVersion = (a: EnvRecord, b: EnvRecord) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.version - b.version;

/** The newest active version of each name, sorted by name. */
function newestActive(records: readonly EnvRecord[]): EnvRecord[] {
  const newest = new Map<string, EnvRecord>();
  for (const r of records)
    if (r.status === 'active' && (newest.get(r.name)?.version ?? 0) < r.version) newest.set(r.name, r);
  return [...newest.values()].sort(byNameVersion);
}

function resolveRef(records: readonly EnvRecord[], active: EnvRecord[], ref: EnvRef, label: string): EnvRecord {
  const text = ref.version === undefined ? ref.name : `${ref.name}@${ref.version}`;
  const versions = records.filter((r) => r.name === ref.name);
  const newest = versions.reduce<EnvRecord | undefined>((a, r) => (a && a.version > r.version ? a : r), undefined);
  const record =
    ref.version === undefined
      ? (active.find((e) => e.name === ref.name) ?? newest)
      : versions.find((r) => r.version === ref.version);
  if (record?.status === 'active') return record;
  if (record)
    throw new SelectionError(
      'E_UNKNOWN_ENV',
      `${label}: ${text} is retired (${record.retiredReason ?? 'no reason given'})`,
    );
  if (newest)
    throw new SelectionError(
      'E_UNKNOWN_ENV',
      `${label}: ${text} is not in the library (${ref.name} has versions 1-${newest.version})`,
    );
  const names = active.map((e) => e.name);
  const shown = names.length > 20 ? `${names.slice(0, 20).join(', ')}, …` : names.join(', ');
  throw new SelectionError(
    'E_UNKNOWN_ENV',
    `${label}: unknown environment "${ref.name}" (the library has: ${shown || 'nothing yet'})`,
  );
}

/** The record's range, or null when `short` is skip and the record has too few levels for the shared range. */
function levelsFor(record: EnvRecord, spec: LevelSpec | undefined, options: SelectOptions): LevelRange | null {
  const max = record.meta.levels;
  const label = options.labels.levels;
  const own = spec?.byEnv.get(record.name);
  if (own) {
    if (own.hi > max)
      throw new SelectionError(
        'E_LEVEL_RANGE',
        `${label} ${record.name}:${own.lo}-${own.hi}: ${record.name} has levels 1-${max}`,
      );
    return own;
  }
  if (!spec?.all) return { lo: 1, hi: max };
  const range = { lo: spec.all.lo, hi: Math.min(spec.all.hi, max) };
  if (range.lo <= range.hi) return range;
  if (options.short === 'skip') return null;
  throw new SelectionError(
    'E_LEVEL_RANGE',
    `${label} ${spec.all.lo}-${spec.all.hi}: ${record.name} has only levels 1-${max} (give it its own range ` +
      `with ${record.name}:LO-HI)`,
  );
}

/**
 * Resolves a selection against every record of a library (all versions, any status): active versions
 * only, sorted by name then version, each with its level range.
 */
export function selectEnvironments(
  records: readonly EnvRecord[],
  selection: Selection,
  options: SelectOptions,
): SelectedEnv[] {
  const { labels } = options;
  const { skills, kind } = selection;
  const kindLabel = labels.kind ?? 'kind';
  const active = newestActive(records).filter((r) => !kind || recordKind(r) === kind);
  let chosen: EnvRecord[];
  if (selection.envs?.length) {
    chosen = selection.envs.map((ref) => resolveRef(records, newestActive(records), ref, labels.env));
    const off = skills && chosen.find((r) => !skills.some((s) => r.meta.skills.includes(s)));
    if (skills && off)
      throw new SelectionError(
        'E_NO_MATCH',
        `${labels.env} ${off.name} has none of ${labels.skills} ${skills.join(',')} (its skills: ` +
          `${off.meta.skills.join(', ')})`,
      );
    const other = kind && chosen.find((r) => recordKind(r) !== kind);
    if (other)
      throw new SelectionError(
        'E_NO_MATCH',
        `${labels.env} ${other.name} is ${recordKind(other)}, not ${kindLabel} ${kind}`,
      );
  } else {
    chosen = skills ? active.filter((r) => skills.some((s) => r.meta.skills.includes(s))) : active;
    if (chosen.length === 0) {
      const what = `${kind ? `${kind} ` : ''}environment`;
      throw new SelectionError(
        'E_NO_MATCH',
        skills
          ? `${labels.skills} ${skills.join(',')}: no active ${what} has any of these skills`
          : `the library at ${options.where} has no active ${what}s`,
      );
    }
  }
  chosen.sort(byNameVersion);
  const names = new Set(chosen.map((r) => r.name));
  for (const name of selection.levels?.byEnv.keys() ?? []) {
    if (!names.has(name))
      throw new SelectionError(
        'E_NO_MATCH',
        `${labels.levels} names "${name}", which is not among the ${labels.selected}`,
      );
  }
  const selected = chosen.flatMap((record) => {
    const levels = levelsFor(record, selection.levels, options);
    return levels ? [{ record, levels }] : [];
  });
  const all = selection.levels?.all;
  if (selected.length === 0 && all) {
    const most = Math.max(...chosen.map((r) => r.meta.levels));
    throw new SelectionError(
      'E_NO_MATCH',
      `${labels.levels} ${all.lo}-${all.hi}: no selected environment has level ${all.lo} (the most any has is ${most})`,
    );
  }
  return selected;
}

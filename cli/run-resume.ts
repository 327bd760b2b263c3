// `envforge run --resume`: a batch continues with the options it was started with. They are journaled
// with the batch (its stored options, plus `invocation`: the command line's own settings), restored on
// resume, and a flag given on resume with another value is a usage error that names the stored value.
import type { BatchRecord } from '../library/contract.js';
import { UsageError } from '../contract/errors.js';
import type { WeakSkill } from '../agents/prompts.js';

/** The `envforge run` options a batch keeps for life (the author and its seed are checked on their own). */
export const KEPT_ON_RESUME = [
  'kind',
  'target',
  'maxCandidates',
  'repairRounds',
  'concurrency',
  'weakShare',
  'review',
  'skills',
  'feedback',
  'budgetUsd',
  'maxTokens',
  'solverModel',
  'solverSamples',
  'workers',
  'jobTimeout',
] as const;
export type KeptOption = (typeof KEPT_ON_RESUME)[number];
export type Invocation = Partial<Record<KeptOption, unknown>>;

/** What to store with a new batch: the kept options as given (absent ones stay absent). */
export function invocationOf(options: Invocation): Invocation {
  return Object.fromEntries(KEPT_ON_RESUME.filter((k) => options[k] !== undefined).map((k) => [k, options[k]]));
}

const flag = (key: KeptOption) =>
  key === 'review' ? '--no-review' : `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
const shown = (key: KeptOption, value: unknown) =>
  key === 'review'
    ? value === false
      ? '--no-review'
      : '(review on)'
    : value === undefined
      ? `no ${flag(key)}`
      : `${flag(key)} ${String(value)}`;

/** The stored value of each kept option: from `invocation`, else (batches of older versions) from the batch options. */
function storedValues(record: BatchRecord): Invocation | null {
  const options = (record.options ?? {}) as Record<string, unknown>;
  const invocation = options.invocation as Invocation | undefined;
  if (invocation && typeof invocation === 'object') return invocation;
  const legacy: Invocation = {};
  for (const key of ['kind', 'target', 'maxCandidates', 'repairRounds', 'concurrency', 'weakShare', 'review'] as const)
    if (options[key] !== undefined) legacy[key] = options[key];
  if (Array.isArray(options.skills)) legacy.skills = options.skills.join(',');
  return Object.keys(legacy).length > 0 ? legacy : null;
}

/**
 * The options of a resumed batch: the stored ones replace the defaults; a flag given on the command line
 * (`given(key)`) whose value differs is refused, all of them in one message.
 */
export function restoreOptions<T extends Invocation>(
  options: T,
  record: BatchRecord,
  given: (key: KeptOption) => boolean,
): T {
  const stored = storedValues(record);
  if (!stored) return options;
  const complete = (record.options as { invocation?: unknown } | null)?.invocation !== undefined;
  const restored: Invocation = { ...options };
  const conflicts: string[] = [];
  for (const key of KEPT_ON_RESUME) {
    const known = key in stored;
    if (!known && !complete) continue; // an older batch did not store it: the command line decides
    const value = stored[key];
    if (given(key) && options[key] !== value)
      conflicts.push(`${shown(key, value)} (given: ${shown(key, options[key])})`);
    restored[key] = value;
  }
  if (conflicts.length > 0) {
    throw new UsageError(
      `--resume: batch ${record.id} was started with ${conflicts.join(', ')}; a resumed batch keeps the ` +
        `options it was started with: drop those flags or give the same values`,
    );
  }
  return restored as T;
}

/** The frontier a resumed batch was started with (its stored weak and saturated skills). */
export function storedFeedback(record: BatchRecord): { source: 'none'; weak: WeakSkill[]; saturated: WeakSkill[] } {
  const options = (record.options ?? {}) as { weakSkills?: unknown; saturatedSkills?: unknown };
  const list = (v: unknown) => (Array.isArray(v) ? (v as WeakSkill[]) : []);
  return { source: 'none', weak: list(options.weakSkills), saturated: list(options.saturatedSkills) };
}

// Spec dedupe: the architect's specs less those whose name the library already has and those that duplicate
// each other (the same name, or task ideas whose word tokens overlap by Jaccard similarity 0.8 or more).
import type { DroppedSpec, EnvSpec } from './spec.js';

export interface DedupeResult {
  /** The specs to write code for, in their input order. */
  kept: EnvSpec[];
  dropped: DroppedSpec[];
}

/** Task ideas at or above this token Jaccard similarity are the same idea. */
const IDEA_SIMILARITY = 0.8;

const STOPWORDS = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'for',
  'from',
  'given',
  'in',
  'is',
  'it',
  'its',
  'of',
  'on',
  'or',
  'that',
  'the',
  'their',
  'then',
  'this',
  'to',
  'with',
]);

/** Lowercased, accent-free word tokens of a task idea, without the commonest function words. */
export function ideaTokens(idea: string): Set<string> {
  const words =
    idea
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .match(/[a-z0-9]+/g) ?? [];
  return new Set(words.filter((w) => !STOPWORDS.has(w)));
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const token of a) if (b.has(token)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * Drops specs whose name is already in the library, and specs that duplicate each other (same name, or
 * task ideas with token Jaccard ≥ 0.8). Among duplicates the spec adding the most skills outside
 * `existingSkills` wins, then the earlier one. Deterministic: depends only on the inputs and their order.
 */
export function dedupeSpecs(
  specs: readonly EnvSpec[],
  existingNames: Iterable<string>,
  existingSkills: Iterable<string> = [],
): DedupeResult {
  const names = new Set(existingNames);
  const covered = new Set(existingSkills);
  const tokens = specs.map((s) => ideaTokens(s.taskIdea));
  const newSkills = specs.map((s) => s.skills.filter((k) => !covered.has(k)).length);
  const dropped = new Map<number, string>();
  const order = specs.map((_, i) => i).sort((a, b) => (newSkills[b] as number) - (newSkills[a] as number) || a - b);
  const keptIndices: number[] = [];
  for (const i of order) {
    const spec = specs[i] as EnvSpec;
    if (names.has(spec.name)) {
      dropped.set(i, 'name exists in the library');
      continue;
    }
    const reason = duplicateReason(i, keptIndices, specs, tokens);
    if (reason) dropped.set(i, reason);
    else keptIndices.push(i);
  }
  return {
    kept: specs.filter((_, i) => !dropped.has(i)),
    dropped: [...dropped].sort(([a], [b]) => a - b).map(([i, reason]) => ({ spec: specs[i] as EnvSpec, reason })),
  };
}

function duplicateReason(
  i: number,
  kept: number[],
  specs: readonly EnvSpec[],
  tokens: Set<string>[],
): string | undefined {
  const spec = specs[i] as EnvSpec;
  for (const j of kept) {
    const other = specs[j] as EnvSpec;
    if (other.name === spec.name) return `duplicates spec "${other.name}" (same name)`;
    const similarity = jaccard(tokens[i] as Set<string>, tokens[j] as Set<string>);
    if (similarity >= IDEA_SIMILARITY)
      return `duplicates spec "${other.name}" (task idea similarity ${similarity.toFixed(2)})`;
  }
  return undefined;
}

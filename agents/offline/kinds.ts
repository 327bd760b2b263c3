// Which kind each slot of an offline proposal gets. 'single' and 'episodic' are what they say; 'mixed'
// follows coverage: each of the trainer's weak skills claims one slot first (episodic when an episodic
// family trains it, else single-turn), then every remaining slot goes to the kind with fewer active
// environments (counting the slots already given out), episodic on a tie, so the library drifts toward
// an even split of the two kinds.
import type { ArchitectInput } from '../prompts.js';
import type { EnvKind } from '../spec.js';
import { episodicSkills } from './episodic/author.js';

export function slotKinds(input: Pick<ArchitectInput, 'kind' | 'n' | 'stats' | 'weakSkills'>): EnvKind[] {
  const kind = input.kind ?? 'single';
  if (kind !== 'mixed') return Array.from({ length: input.n }, () => kind);
  const episodic = new Set(episodicSkills());
  const counts: Record<EnvKind, number> = { single: input.stats.byKind?.single ?? input.stats.environments, episodic: input.stats.byKind?.episodic ?? 0 };
  const slots: EnvKind[] = [];
  // Weak skills first, one slot each while slots remain: the kind that can train it.
  for (const weak of input.weakSkills ?? []) if (slots.length < input.n) slots.push(episodic.has(weak.skill) ? 'episodic' : 'single');
  for (const k of slots) counts[k]++;
  while (slots.length < input.n) {
    const next: EnvKind = counts.episodic <= counts.single ? 'episodic' : 'single';
    counts[next]++;
    slots.push(next);
  }
  return slots;
}

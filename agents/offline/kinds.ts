// Which kind each slot of an offline proposal gets. 'single' and 'episodic' are what they say; 'mixed'
// follows coverage: the round's slots for the trainer's weak skills (its focus quota, else one per weak
// skill) go first, each to the kind that can train that skill (single-turn when both can, so the quota is
// met by the families aimed at it); the remaining slots are split evenly between the kinds (the batch keeps
// each kind's share of the target: pipeline/kind-share.ts), the odd one to the kind the library holds fewer of.
import type { ArchitectInput } from '../prompts.js';
import type { EnvKind } from '../spec.js';
import { episodicSkills } from './episodic/author.js';

export function slotKinds(input: Pick<ArchitectInput, 'kind' | 'n' | 'stats' | 'weakSkills' | 'focus'>, trainsSingle: (skill: string) => boolean = () => false): EnvKind[] {
  const kind = input.kind ?? 'single';
  if (kind !== 'mixed') return Array.from({ length: input.n }, () => kind);
  const episodic = new Set(episodicSkills());
  const counts: Record<EnvKind, number> = { single: input.stats.byKind?.single ?? input.stats.environments, episodic: input.stats.byKind?.episodic ?? 0 };
  const weak = input.focus ? Array.from({ length: input.focus.slots }, (_, i) => input.focus?.skills[i % input.focus.skills.length] as string) : (input.weakSkills ?? []).map((w) => w.skill);
  const slots: EnvKind[] = [];
  for (const skill of weak) {
    if (slots.length >= input.n) break;
    if (trainsSingle(skill)) slots.push('single');
    else if (episodic.has(skill)) slots.push('episodic');
  }
  const fewer: EnvKind = counts.episodic < counts.single ? 'episodic' : 'single';
  const inRound: Record<EnvKind, number> = { single: 0, episodic: 0 };
  for (const k of slots) inRound[k]++;
  while (slots.length < input.n) {
    const next: EnvKind = inRound.episodic === inRound.single ? fewer : inRound.episodic < inRound.single ? 'episodic' : 'single';
    inRound[next]++;
    slots.push(next);
  }
  return slots;
}

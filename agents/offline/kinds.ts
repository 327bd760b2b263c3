// Which kind each slot of an offline proposal gets. 'single' and 'episodic' are what they say; 'mixed'
// follows coverage: the round's slots for the trainer's weak skills (its focus quota, else one per weak
// skill) go first, each to the kind that can train that skill (single-turn when both can, so the quota is
// met by the families aimed at it); the remaining slots are split evenly between the kinds (the batch keeps
// each kind's share of the target: pipeline/kind-share.ts), the odd one to the kind the library holds fewer of.
import { ALL_KINDS, countsPerKind, kindNamed, type KindName } from '../../kinds/registry.js';
import type { ArchitectInput } from '../prompts.js';
import { episodicSkills } from './episodic/author.js';

/** The kinds `mixed` deals slots to (a plug's `mixed`), in registry order: single-turn first on a tie. */
const MIXED: readonly KindName[] = ALL_KINDS.filter((k) => k.mixed).map((k) => k.name);

export function slotKinds(
  input: Pick<ArchitectInput, 'kind' | 'n' | 'stats' | 'weakSkills' | 'focus'>,
  trainsSingle: (skill: string) => boolean = () => false,
): KindName[] {
  const kind = input.kind ?? 'single';
  if (kind !== 'mixed') return Array.from({ length: input.n }, () => kind);
  const episodic = new Set(episodicSkills());
  // Stats from before byKind count every environment as the default kind's.
  const counts = countsPerKind(
    (k) => input.stats.byKind?.[k.name] ?? (k === kindNamed(undefined) ? input.stats.environments : 0),
  );
  const weak = input.focus
    ? Array.from({ length: input.focus.slots }, (_, i) => input.focus?.skills[i % input.focus.skills.length] as string)
    : (input.weakSkills ?? []).map((w) => w.skill);
  const slots: KindName[] = [];
  for (const skill of weak) {
    if (slots.length >= input.n) break;
    if (trainsSingle(skill)) slots.push('single');
    else if (episodic.has(skill)) slots.push('episodic');
  }
  const fewer = MIXED.reduce((a, b) => (counts[b] < counts[a] ? b : a));
  const inRound = countsPerKind(() => 0);
  for (const k of slots) inRound[k]++;
  while (slots.length < input.n) {
    // The kind this round holds fewest of; the kind the library holds fewer of when the round is even.
    const least = Math.min(...MIXED.map((k) => inRound[k]));
    const tied = MIXED.filter((k) => inRound[k] === least);
    const next = tied.length === MIXED.length ? fewer : (tied[0] as KindName);
    inRound[next]++;
    slots.push(next);
  }
  return slots;
}

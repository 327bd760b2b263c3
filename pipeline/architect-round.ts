// One architect round of a batch: what the library and the batch already hold goes to the author's
// propose, and the specs it returns that nobody holds yet are kept (journaled by the caller).
import type { Author } from '../agents/author.js';
import { specKind, type EnvSpec, type RunKind } from '../agents/spec.js';
import type { WeakSkill } from '../agents/prompts.js';
import { envKindOf } from './kind-check.js';
import type { Library } from '../library/contract.js';

export interface RoundInput {
  library: Library;
  author: Author;
  /** Specs the batch already holds (their names are taken). */
  specs: readonly EnvSpec[];
  n: number;
  kind?: RunKind;
  weakSkills: WeakSkill[];
  saturatedSkills?: WeakSkill[];
  focus?: { skills: string[]; slots: number };
  skills?: string[];
}

export interface Round {
  fresh: EnvSpec[];
  /** Specs dropped: the author's own duplicates plus those whose names are taken. */
  dropped: number;
  proposed: number;
  promptHash: string;
  /** What was dropped from kept specs (a part of another kind). */
  warnings?: string[];
}

export async function architectRound(input: RoundInput): Promise<Round> {
  const { library, specs } = input;
  const environments = (await library.list()).map((e) => ({ name: e.name, skills: e.meta.skills, kind: envKindOf(e.meta) }));
  const taken = new Set([...environments.map((e) => e.name), ...specs.map((s) => s.name)]);
  const proposal = await input.author.propose({
    stats: await library.stats(),
    n: input.n,
    ...(input.kind ? { kind: input.kind } : {}),
    environments: [...environments, ...specs.map((s) => ({ name: s.name, skills: s.skills, kind: specKind(s) }))],
    weakSkills: input.weakSkills,
    ...(input.saturatedSkills?.length ? { saturatedSkills: input.saturatedSkills } : {}),
    ...(input.focus ? { focus: input.focus } : {}),
    ...(input.skills ? { taxonomy: { requested: input.skills } } : {}),
  });
  const fresh = proposal.specs.filter((s) => !taken.has(s.name));
  return { fresh, dropped: proposal.dropped.length + (proposal.specs.length - fresh.length), proposed: proposal.specs.length + proposal.dropped.length, promptHash: proposal.promptHash, ...(proposal.warnings?.length ? { warnings: proposal.warnings } : {}) };
}

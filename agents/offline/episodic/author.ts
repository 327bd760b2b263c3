// The offline author's episodic half: designs from the episodic families, aimed at the least covered (or
// weakest) skill a family trains, checked at design time and kept away from the author's earlier designs;
// specs carry their design so write (also after a resume) and repair need nothing else.
import { kindNamed } from '../../../kinds/registry.js';
import { createHash } from 'node:crypto';
import type { EnvSpec } from '../../spec.js';
import type { PlainRng } from '../../../sandbox/runtime.js';
import { checkEpisodic, type EpisodicCheck } from './check.js';
import { EPISODIC_FAMILY, type EpisodicDesign } from './families.js';
import { EPISODIC_FAMILIES, emitEpisodic, type EpisodicFamily, type EpisodicIdentity } from './skeleton.js';

export interface OfflineEpisodicSpec extends EnvSpec {
  kind: 'episodic';
  offline: { version: string; family: EpisodicFamily; episodic: EpisodicDesign };
}

export const isOfflineEpisodicSpec = (spec: EnvSpec): spec is OfflineEpisodicSpec =>
  kindNamed(spec.kind).rollouts && typeof (spec as Partial<OfflineEpisodicSpec>).offline?.episodic === 'object';

const familiesAvailable = (): EpisodicFamily[] => EPISODIC_FAMILIES.filter((f) => EPISODIC_FAMILY[f] !== undefined);

export interface EpisodicMade {
  design: EpisodicDesign;
  id: EpisodicIdentity;
  source: string;
  check: EpisodicCheck;
}

/** Skills the episodic families train (the first of each is its own). */
export function episodicSkills(): string[] {
  return [...new Set(familiesAvailable().flatMap((f) => EPISODIC_FAMILY[f].signature))];
}

export function episodicIdentity(
  design: EpisodicDesign,
  seed: number,
  version: string,
  name?: string,
): EpisodicIdentity {
  const family = EPISODIC_FAMILY[design.family];
  const words = family.words(design);
  const hash = createHash('sha256')
    .update(`${seed}\u0000${JSON.stringify(design)}`)
    .digest('hex')
    .slice(0, 6);
  return {
    name: name ?? `${words.tag}-${hash}`.slice(0, 64).replace(/-+$/, ''),
    title: words.title.slice(0, 120),
    description: `${words.idea} ${words.scaling}`.slice(0, 2000),
    skills: family.skills(design).slice(0, 5),
    provenance:
      `Written by the envforge offline author v${version} (seed ${seed}) from its episodic building blocks (` +
      `${design.family} family).`,
  };
}

export const emitDesign = (design: EpisodicDesign, id: EpisodicIdentity): string =>
  emitEpisodic(id, EPISODIC_FAMILY[design.family].code(design));

/**
 * Draws designs of a family until one passes the design-time checks and `accept` (novelty against the
 * author's earlier designs); null after `maxTries`. Yields to the event loop between tries.
 */
export async function synthesiseEpisodic(
  rng: PlainRng,
  family: EpisodicFamily,
  identity: (d: EpisodicDesign) => EpisodicIdentity,
  accept: (made: EpisodicMade) => boolean,
  maxTries = 12,
): Promise<EpisodicMade | null> {
  for (let tries = 1; tries <= maxTries; tries++) {
    await new Promise((resolve) => setImmediate(resolve));
    const design = EPISODIC_FAMILY[family].draw(rng);
    const id = identity(design);
    const source = emitDesign(design, id);
    const check = checkEpisodic(source);
    if (check.ok && accept({ design, id, source, check })) return { design, id, source, check };
  }
  return null;
}

export function episodicSpec(made: EpisodicMade, version: string, why: string): OfflineEpisodicSpec {
  const words = EPISODIC_FAMILY[made.design.family].words(made.design);
  return {
    kind: 'episodic',
    name: made.id.name,
    title: made.id.title,
    skills: made.id.skills,
    taskIdea: words.idea.slice(0, 1500),
    answerFormat:
      'Tool calls (contract v2): the episode ends at the finishing tool, and the score checks the ' +
      'final state, all or nothing.',
    difficultyScaling: words.scaling.slice(0, 800),
    whyNew: why.slice(0, 800),
    offline: { version, family: made.design.family, episodic: made.design },
  };
}

/** Families in the order a proposal should use them: those whose own skills are weakest or least covered first. */
export function familyOrder(
  bySkill: Readonly<Record<string, number>>,
  weak: readonly string[],
  rng: PlainRng,
): EpisodicFamily[] {
  const need = (f: EpisodicFamily) => {
    const own = EPISODIC_FAMILY[f].signature;
    return own.some((s) => weak.includes(s)) ? -1 : Math.min(...own.map((s) => bySkill[s] ?? 0));
  };
  return rng.shuffle(familiesAvailable()).sort((a, b) => need(a) - need(b));
}

// The offline author: plays architect and generator (and repair) without a network. The architect reads
// the library's skill counts and the trainer's weak skills like the LLM architect and aims specs at the
// least covered skills the DSL can train; the generator compiles each spec's synthesised program to a v1
// module; repair draws a new program for the same target. Everything is a function of the seed and the input.
import { kindNamed, type KindName } from '../../kinds/registry.js';
import { createHash } from 'node:crypto';
import { UsageError } from '../../contract/errors.js';
import type { ArchitectInput } from '../prompts.js';
import { taxonomySkills, SKILL_TAXONOMY, type EnvSpec } from '../spec.js';
import { dedupeSpecs } from '../spec-dedupe.js';
import type { Author, ProposedSpecs, WrittenModule } from '../author.js';
import { emitModule } from './emit.js';
import { authorRng, designHash, FAMILY_SKILL, shapeSkills, synthesise, type Shape, type Target } from './synth.js';
import { FAMILIES, type Design, type Family } from './design.js';
import {
  emitDesign,
  episodicIdentity,
  episodicSkills,
  episodicSpec,
  familyOrder,
  isOfflineEpisodicSpec,
  synthesiseEpisodic,
  type OfflineEpisodicSpec,
} from './episodic/author.js';
import { slotKinds } from './kinds.js';
import { emitCodeModule } from './code/emit.js';
import {
  codeIdentity,
  codeShapes,
  codeSpec,
  isOfflineCodeSpec,
  synthesiseCode,
  type OfflineCodeSpec,
} from './code/author.js';
import { Designs } from './designs.js';
import { identityOf, isOfflineSpec, shapesFor, singleSkills, specOf, type OfflineSpec } from './single-turn.js';

export type { OfflineSpec } from './single-turn.js';

export const OFFLINE_AUTHOR_VERSION = '1';
const OFFLINE_MODEL = `offline-v${OFFLINE_AUTHOR_VERSION}`;

export interface OfflineAuthorOptions {
  /** Fixes every choice: the same seed and library give the same specs and modules. */
  seed: number;
}

/** Skills the offline author can train (single-turn or episodic), in taxonomy order. */
export function offlineSkills(): string[] {
  const reachable = new Set([...singleSkills(), ...episodicSkills()]);
  return taxonomySkills().filter((s) => reachable.has(s));
}

export function createOfflineAuthor(options: OfflineAuthorOptions): Author {
  const { seed } = options;
  const designs = new Designs();
  const trainable = new Set(offlineSkills());
  const singleTrainable = new Set(singleSkills());
  const trace = (design: Design | null) => ({
    promptHash: design ? designHash(design).slice(0, 16) : 'none',
    costUsd: 0,
    cached: false,
    model: OFFLINE_MODEL,
  });

  function why(skill: string, input: ArchitectInput): string {
    const weak = input.weakSkills?.find((w) => w.skill === skill);
    if (weak)
      return (
        `Aims at ${skill}, where the trainer is weak (pass rate ${weak.passRate.toFixed(2)} ` +
        `over ${weak.n} samples).`
      );
    const count = input.stats.bySkill[skill] ?? 0;
    return count === 0
      ? `Aims at ${skill}: no environment in the library trains it yet.`
      : `Aims at ${skill}: only ${count} environment${count === 1 ? '' : 's'} in the library train` +
          `${count === 1 ? 's' : ''} it.`;
  }

  /**
   * Skills to aim at, slot by slot: the round's quota for weak skills (round-robin over them), else the
   * trainer's weak skills; then the least covered ones, saturated skills last.
   */
  function plan(input: ArchitectInput, rng: ReturnType<typeof authorRng>): string[] {
    const requested = taxonomySkills(input.taxonomy ?? SKILL_TAXONOMY);
    const wanted = requested.filter((s) => singleTrainable.has(s));
    if (wanted.length === 0) {
      throw new UsageError(
        `the offline author cannot train any of the requested skills (${requested.join(', ')}); it covers: ` +
          `${singleSkills().join(', ')} (single-turn)`,
      );
    }
    const weak = (input.weakSkills ?? []).map((w) => w.skill).filter((s) => wanted.includes(s));
    const saturated = new Set((input.saturatedSkills ?? []).map((w) => w.skill));
    const coverage = (skill: string) => (input.stats.bySkill[skill] ?? 0) + (saturated.has(skill) ? 1e6 : 0);
    const rest = rng.shuffle(wanted.filter((s) => !weak.includes(s))).sort((a, b) => coverage(a) - coverage(b));
    const focus = (input.focus?.skills ?? []).filter((s) => wanted.includes(s));
    const quota =
      focus.length > 0
        ? Array.from({ length: input.focus?.slots ?? 0 }, (_, i) => focus[i % focus.length] as string)
        : [];
    return quota.length > 0 ? [...quota, ...rest] : [...weak, ...rest];
  }

  /**
   * A family and shape that can train the skill: of the families that can, the one this proposal has used least
   * (its own family first among equals), so a proposal mixes the families whatever order its skills come in.
   */
  function targetFor(skill: string, used: Map<Family, number>, rng: ReturnType<typeof authorRng>): Target {
    const own = FAMILIES.find((f) => FAMILY_SKILL[f] === skill);
    const able = FAMILIES.filter((f) => f === own || shapesFor(f).some((shape) => shapeSkills(shape).has(skill)));
    // offlineSkills() only lists trainable skills
    if (able.length === 0) throw new Error(`offline author: no family and shape train ${skill}`);
    const least = Math.min(...able.map((f) => used.get(f) ?? 0));
    const ties = able.filter((f) => (used.get(f) ?? 0) === least);
    const family = own !== undefined && ties.includes(own) ? own : (rng.pick(ties) as Family);
    used.set(family, (used.get(family) ?? 0) + 1);
    if (family === own) return { family, shape: rng.pick(shapesFor(family)) };
    return { family, shape: rng.pick(shapesFor(family).filter((shape) => shapeSkills(shape).has(skill))), skill };
  }

  async function proposeSingle(
    input: ArchitectInput,
    rng: ReturnType<typeof authorRng>,
    n: number,
  ): Promise<OfflineSpec[]> {
    if (n === 0) return [];
    const skills = plan(input, rng);
    const specs: OfflineSpec[] = [];
    const used = new Map<Family, number>();
    for (let i = 0; specs.length < n && i < n * 2; i++) {
      const skill = skills[i % skills.length] as string;
      const target = targetFor(skill, used, rng);
      const made = await synthesise(
        rng,
        target,
        (d) => identityOf(d, seed, OFFLINE_AUTHOR_VERSION, target),
        (m) => designs.claim(m.id.name, m),
      );
      if (made) specs.push(specOf(made.design, made.id, target, OFFLINE_AUTHOR_VERSION, why(skill, input)));
    }
    return specs;
  }

  /** Episodic specs: the families whose own skills are weakest or least covered first, in turn. */
  async function proposeEpisodic(
    input: ArchitectInput,
    rng: ReturnType<typeof authorRng>,
    n: number,
  ): Promise<OfflineEpisodicSpec[]> {
    if (n === 0) return [];
    const order = familyOrder(
      input.stats.bySkill,
      (input.weakSkills ?? []).map((w) => w.skill),
      rng,
    );
    const specs: OfflineEpisodicSpec[] = [];
    for (let i = 0; specs.length < n && i < n * 2; i++) {
      const family = order[i % order.length] as (typeof order)[number];
      const made = await synthesiseEpisodic(
        rng,
        family,
        (d) => episodicIdentity(d, seed, OFFLINE_AUTHOR_VERSION),
        (m) => designs.claim(m.id.name, m),
      );
      if (made) specs.push(episodicSpec(made, OFFLINE_AUTHOR_VERSION, why(made.id.skills[0] as string, input)));
    }
    return specs;
  }

  /** Code specs (contract v3): DSL programs to write as functions, the shapes in turn. */
  async function proposeCode(
    input: ArchitectInput,
    rng: ReturnType<typeof authorRng>,
    n: number,
  ): Promise<OfflineCodeSpec[]> {
    if (n === 0) return [];
    const shapes = codeShapes(rng);
    const specs: OfflineCodeSpec[] = [];
    for (let i = 0; specs.length < n && i < n * 2; i++) {
      const shape = shapes[i % shapes.length] as Shape;
      const made = await synthesiseCode(
        rng,
        shape,
        (d) => codeIdentity(d, seed, OFFLINE_AUTHOR_VERSION),
        (m) => designs.claim(m.id.name, m),
      );
      if (made)
        specs.push(codeSpec(made, shape, OFFLINE_AUTHOR_VERSION, why(made.id.skills[1] ?? 'code-writing', input)));
    }
    return specs;
  }

  return {
    identity: { provider: 'offline', version: OFFLINE_AUTHOR_VERSION, seed },
    lineageAuthor: () => 'offline',
    canTrain: (skill) => trainable.has(skill),

    async propose(input: ArchitectInput): Promise<ProposedSpecs> {
      // Keyed by what the library holds, so the same seed and library give the same proposal on every call.
      const names = (input.environments ?? []).map((e) => e.name).sort();
      const libraryHash = createHash('sha256').update(names.join('\n')).digest('hex');
      const rng = authorRng(seed, 'architect', libraryHash, input.n, input.kind ?? 'single');
      const kinds = slotKinds(input, (skill) => singleTrainable.has(skill));
      const want = (kind: KindName) => kinds.filter((k) => k === kind).length;
      // A kind that runs out of novel designs leaves its slots to the other one (when the run allows both).
      let specs: EnvSpec[] = [
        ...(await proposeSingle(input, rng, want('single'))),
        ...(await proposeEpisodic(input, rng, want('episodic'))),
        ...(await proposeCode(input, rng, want('code'))),
      ];
      if (input.kind === 'mixed' && specs.length < input.n) {
        const episodic = specs.filter((spec) => kindNamed(spec.kind).rollouts).length;
        specs = [
          ...specs,
          ...(episodic < want('episodic')
            ? await proposeSingle(input, rng, input.n - specs.length)
            : await proposeEpisodic(input, rng, input.n - specs.length)),
        ];
      }
      const existing = input.environments ?? [];
      const { kept, dropped } = dedupeSpecs(
        specs,
        existing.map((e) => e.name),
        existing.flatMap((e) => e.skills),
      );
      return { specs: kept, dropped, ...trace(null), promptHash: libraryHash.slice(0, 16) };
    },

    async write(spec: EnvSpec): Promise<WrittenModule> {
      if (isOfflineCodeSpec(spec)) {
        const design = spec.offline.code;
        const made = { design, id: codeIdentity(design, seed, OFFLINE_AUTHOR_VERSION, spec.name) };
        return { source: emitCodeModule(made.design, made.id), ...trace(design) };
      }
      if (isOfflineEpisodicSpec(spec)) {
        const design = spec.offline.episodic;
        return {
          source: emitDesign(design, episodicIdentity(design, seed, OFFLINE_AUTHOR_VERSION, spec.name)),
          ...trace(null),
          promptHash: createHash('sha256').update(JSON.stringify(design)).digest('hex').slice(0, 16),
        };
      }
      if (!isOfflineSpec(spec))
        return {
          source: null,
          problem: `spec "${spec.name}" was not written by the offline author (it has no program design)`,
          ...trace(null),
        };
      const { design, target } = spec.offline;
      return {
        source: emitModule(design, identityOf(design, seed, OFFLINE_AUTHOR_VERSION, target, spec.name)),
        ...trace(design),
      };
    },

    async repair(spec: EnvSpec, _source: string, report, attempt: number): Promise<WrittenModule> {
      if (isOfflineCodeSpec(spec)) {
        // As for the other kinds: a new program for the same shape, away from earlier designs.
        const made = await synthesiseCode(
          authorRng(seed, 'repair', spec.name, attempt),
          spec.offline.shape,
          (d) => codeIdentity(d, seed, OFFLINE_AUTHOR_VERSION, spec.name),
          (m) => designs.claim(spec.name, m),
        );
        if (!made)
          return {
            source: null,
            problem:
              `no new program for ${spec.name} passed the design checks (rejected for ` +
              `${[...new Set(report.problems.map((p) => p.code))].join(', ')})`,
            ...trace(null),
          };
        return { source: made.source, ...trace(made.design) };
      }
      if (isOfflineEpisodicSpec(spec)) {
        // As for single-turn designs: a new design of the same family, away from earlier ones.
        const rng = authorRng(seed, 'repair', spec.name, attempt);
        // Named after its own design (domain and mechanics), not the spec's first one: a name says what the module is.
        const made = await synthesiseEpisodic(
          rng,
          spec.offline.family,
          (d) => episodicIdentity(d, seed, OFFLINE_AUTHOR_VERSION),
          (m) => designs.claim(spec.name, m),
        );
        if (!made)
          return {
            source: null,
            problem:
              `no new ${spec.offline.family} design for ${spec.name} passed the design checks (rejected for ` +
              `${[...new Set(report.problems.map((p) => p.code))].join(', ')})`,
            ...trace(null),
          };
        return {
          source: made.source,
          ...trace(null),
          promptHash: createHash('sha256').update(JSON.stringify(made.design)).digest('hex').slice(0, 16),
        };
      }
      if (!isOfflineSpec(spec))
        return {
          source: null,
          problem: `spec "${spec.name}" was not written by the offline author (it has no program design)`,
          ...trace(null),
        };
      // A rejected program is not patched: a new program is drawn for the same target, away from earlier designs.
      const { target } = spec.offline;
      const rng = authorRng(seed, 'repair', spec.name, attempt);
      const made = await synthesise(
        rng,
        target,
        (d) => identityOf(d, seed, OFFLINE_AUTHOR_VERSION, target),
        (m) => designs.claim(spec.name, m),
      );
      if (!made)
        return {
          source: null,
          problem:
            `no new program for ${spec.name} passed the design checks (rejected for ` +
            `${[...new Set(report.problems.map((p) => p.code))].join(', ')})`,
          ...trace(null),
        };
      return { source: made.source, ...trace(made.design) };
    },
  };
}

// The architect's reply schema for a batch: it carries only the kinds the batch asks for (a single-turn
// batch's has no kind and no episodic part, so guided decoding cannot fill one), and what does not belong
// to the batch is dropped with a reason rather than failing the spec list: a spec of the other kind leaves
// the list, an episodic part on a single-turn spec is cut off with a warning.
import { kindNamed, KIND_NAMES, type KindName } from '../kinds/registry.js';
import { z } from 'zod';
import {
  EnvSpecSchema,
  EpisodicSpecSchema,
  needsEpisodicPart,
  RequiredEpisodicPart,
  specFields,
  type DroppedSpec,
  type EnvSpec,
  type EpisodicSpec,
  type RunKind,
} from './spec.js';

/** A spec as one of the architect schemas parses it; toEnvSpec makes it an EnvSpec of its batch's kind. */
export type ArchitectSpec = { [K in keyof typeof specFields]: z.infer<(typeof specFields)[K]> } & {
  kind?: KindName;
  episodic?: EpisodicSpec | null;
};

type Raw = { name?: unknown; kind?: unknown; episodic?: unknown };
const isObject = (value: unknown): value is Raw => value !== null && typeof value === 'object' && !Array.isArray(value);
const hasPart = (spec: Raw) => spec.episodic !== null && spec.episodic !== undefined;
/** The kind a reply names (single-turn for a name no kind has). */
const named = (name: string) => kindNamed(name as KindName);

/**
 * The kind a reply's spec means: the kind it names; else, in a single-turn batch, single-turn (a part a sloppy
 * model filled in is cut off), and otherwise episodic when it carries an episodic part.
 */
export function kindOfReply(spec: Raw, batch: RunKind): string {
  if (typeof spec.kind === 'string') return spec.kind;
  // A one-kind batch of a kind without rollouts: its kind (a part a sloppy model filled in is cut off).
  if (batch !== 'mixed' && !kindNamed(batch).rollouts) return batch;
  return hasPart(spec) ? 'episodic' : 'single';
}

/** A mixed batch's spec: kind resolved by kindOfReply, and a single-turn spec's episodic part cut off. */
const resolveKind = (value: unknown): unknown => {
  if (!isObject(value)) return value;
  const kind = kindOfReply(value, 'mixed');
  return { ...value, kind, episodic: named(kind).rollouts ? (value.episodic ?? null) : null };
};

/**
 * A spec of a mixed batch: every field required (OpenAI's strict mode), `episodic` null for a single-turn
 * spec. A reply that leaves out kind or episodic still parses.
 */
const MixedSpecSchema = z.preprocess(
  resolveKind,
  z
    .object({
      kind: z
        .enum(KIND_NAMES)
        .describe(
          '"single": one prompt, one answer in <answer> tags (contract v1). "episodic": a multi-turn ' +
            'tool-use episode over a hidden state (contract v2). "code": the answer is a program the host runs ' +
            'on hidden tests (contract v3).',
        ),
      ...specFields,
      episodic: EpisodicSpecSchema.nullable().describe(
        'For kind "episodic": the world, tools, policy, goal and finishing tool. null for kind "single".',
      ),
    })
    .superRefine(needsEpisodicPart),
);

/** A spec of a single-turn or a code batch: no kind and no episodic part in the schema at all. */
const SingleSpecSchema = z.object(specFields);

/** A spec of an episodic batch: the episodic part required. */
const EpisodicOnlySpecSchema = z.object({
  ...specFields,
  episodic: RequiredEpisodicPart.describe('The world, tools, policy, goal and finishing tool.'),
});

/**
 * In a one-kind batch, specs of the other kind leave the list (proposeSpecs reports them as dropped) instead of failing
 * it.
 */
const ofKind = (kind: KindName) => (value: unknown) =>
  Array.isArray(value) ? value.filter((spec) => !isObject(spec) || kindOfReply(spec, kind) === kind) : value;

const specList = (specs: z.ZodType<ArchitectSpec[]>) =>
  z.object({ specs: specs.describe('The proposed specs, one per new environment.') });
const atLeastOne = <T extends z.ZodType>(spec: T) => z.array(spec).min(1, 'propose at least one spec');

/** The architect's output schema for a batch of `kind`. */
export function architectOutputSchema(kind: RunKind = 'mixed'): z.ZodType<{ specs: ArchitectSpec[] }> {
  if (kind !== 'mixed')
    return specList(
      z.preprocess(ofKind(kind), atLeastOne(kindNamed(kind).rollouts ? EpisodicOnlySpecSchema : SingleSpecSchema)),
    );
  return specList(atLeastOne(MixedSpecSchema) as z.ZodType<ArchitectSpec[]>);
}

/** The mixed batch's schema (both kinds). */
export const ArchitectOutputSchema = architectOutputSchema('mixed');

/** An architect's spec as stored and written: kind always set, the episodic part only for episodic specs. */
export function toEnvSpec(spec: ArchitectSpec, batch: RunKind = 'mixed'): EnvSpec {
  const { episodic, kind, ...rest } = spec;
  const resolved: KindName = batch === 'mixed' ? (kind ?? 'single') : batch;
  return { kind: resolved, ...rest, ...(kindNamed(resolved).rollouts && episodic ? { episodic } : {}) };
}

/**
 * What the schema left out of the model's reply: specs of another kind (dropped, with why) and cut-off parts
 * (warnings).
 */
export function architectLeftovers(raw: unknown, batch: RunKind): { dropped: DroppedSpec[]; warnings: string[] } {
  const specs =
    isObject(raw) && Array.isArray((raw as { specs?: unknown }).specs) ? (raw as { specs: unknown[] }).specs : [];
  const dropped: DroppedSpec[] = [];
  const warnings: string[] = [];
  specs.forEach((spec, i) => {
    if (!isObject(spec)) return;
    const name = typeof spec.name === 'string' ? `spec "${spec.name}"` : `spec ${i + 1}`;
    const kind = kindOfReply(spec, batch);
    if (batch !== 'mixed' && kind !== batch) {
      const reason = `kind ${kind}, but the batch asked for ${batch} environments`;
      const parsed = EnvSpecSchema.safeParse({ ...spec, kind, ...(hasPart(spec) ? {} : { episodic: undefined }) });
      if (parsed.success) dropped.push({ spec: parsed.data, reason });
      else warnings.push(`${name}: dropped: ${reason}`);
    } else if (!named(kind).rollouts && hasPart(spec)) {
      warnings.push(
        `${name}: dropped the episodic part of a ` +
          `${(KIND_NAMES as readonly string[]).includes(kind) ? named(kind).label : kind} spec`,
      );
    }
  });
  return { dropped, warnings };
}

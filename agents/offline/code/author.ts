// The offline author's code half (contract v3): a program of the DSL drawn for a shape, written as "write
// a function that runs these instructions"; kept away from the author's earlier designs by the same
// fingerprints as the other kinds, and carried in its spec so write (after a resume too) and repair need nothing else.
import { kindNamed } from '../../../kinds/registry.js';
import { createHash } from 'node:crypto';
import type { PlainRng } from '../../../sandbox/runtime.js';
import type { EnvSpec } from '../../spec.js';
import type { Design } from '../design.js';
import { textOf } from '../dsl.js';
import { designSkills, drawDesign, SHAPES, type Shape } from '../synth.js';
import { emitCodeModule, type CodeIdentity } from './emit.js';

export interface OfflineCodeSpec extends EnvSpec {
  kind: 'code';
  offline: { version: string; shape: Shape; code: Design };
}

export const isOfflineCodeSpec = (spec: EnvSpec): spec is OfflineCodeSpec =>
  kindNamed(spec.kind).hostScored === true && typeof (spec as Partial<OfflineCodeSpec>).offline?.code === 'object';

const VERBS = ['transform', 'process', 'compute', 'evaluate', 'reduce', 'convert', 'digest', 'encode'];
const NOUNS: Record<Shape['domain'], string[]> = {
  list: ['List', 'Numbers', 'Values', 'Series'],
  int: ['Number', 'Integer', 'Value'],
  str: ['Word', 'Text', 'Letters'],
  moves: ['Moves', 'Path', 'Walk'],
};

export function codeIdentity(design: Design, seed: number, version: string, name?: string): CodeIdentity {
  const hash = createHash('sha256')
    .update(`${seed}\u0000code\u0000${JSON.stringify(design)}`)
    .digest();
  const entry =
    `${VERBS[(hash[0] as number) % VERBS.length]}` +
    `${NOUNS[design.domain][(hash[1] as number) % NOUNS[design.domain].length]}`;
  const first = textOf(design.steps[0] ?? design.finish);
  const skills = [...new Set(['code-writing', ...designSkills(design).filter((s) => s !== 'program-tracing')])].slice(
    0,
    5,
  );
  return {
    name: name ?? `write-${design.domain}-program-${hash.toString('hex').slice(0, 6)}`,
    title: `Write a ${design.domain === 'int' ? 'number' : design.domain} function: ${first}`.slice(0, 120),
    description: (
      `Write a JavaScript function that ${[...design.steps, design.finish].map(textOf).join('; then ')}. ` +
      `Hidden tests decide the reward (all must pass); higher levels add instructions ` +
      `and test longer inputs.`
    ).slice(0, 2000),
    skills,
    entry,
    provenance: `Written by the envforge offline author v${version} (seed ${seed}) from its program DSL (code family).`,
  };
}

export interface CodeMade {
  design: Design;
  id: CodeIdentity;
  source: string;
  /** What the author's novelty memory reads: the statements and reference programs of every level. */
  check: { ok: true; reasons: string[]; prompts: string[]; references: string[] };
}

/** What a design's tasks say at each level, and its reference programs, without running it. */
function describe(design: Design): CodeMade['check'] {
  const prompts = design.levels.map((k) => [...design.steps.slice(0, k.steps), design.finish].map(textOf).join('\n'));
  return { ok: true, reasons: [], prompts, references: prompts };
}

/**
 * Draws designs for a shape until one is accepted (novel against the author's earlier designs); null after `maxTries`.
 */
export async function synthesiseCode(
  rng: PlainRng,
  shape: Shape,
  identity: (d: Design) => CodeIdentity,
  accept: (made: CodeMade) => boolean,
  maxTries = 12,
): Promise<CodeMade | null> {
  for (let tries = 1; tries <= maxTries; tries++) {
    await new Promise((resolve) => setImmediate(resolve));
    const design = drawDesign(rng, { family: 'trace', shape });
    const id = identity(design);
    const made = { design, id, source: emitCodeModule(design, id), check: describe(design) };
    if (accept(made)) return made;
  }
  return null;
}

export function codeSpec(made: CodeMade, shape: Shape, version: string, why: string): OfflineCodeSpec {
  const first = made.design.levels[0];
  const last = made.design.levels[made.design.levels.length - 1];
  return {
    kind: 'code',
    name: made.id.name,
    title: made.id.title,
    skills: made.id.skills,
    taskIdea: made.id.description.slice(0, 1500),
    answerFormat:
      `A JavaScript function ${made.id.entry}(…) in one fenced code block (contract v3); ` +
      `hidden tests, all must pass.`,
    difficultyScaling:
      `Levels 1–${made.design.levels.length}: ${(first?.steps ?? 0) + 1} to ${(last?.steps ?? 0) + 1} ` +
      `instructions; hidden inputs of size ${first?.size} to ${last?.size}.`,
    whyNew: why.slice(0, 800),
    offline: { version, shape, code: made.design },
  };
}

/** The shapes in the order a proposal uses them: shuffled by the author's rng, so a batch mixes domains. */
export const codeShapes = (rng: PlainRng): Shape[] => rng.shuffle(SHAPES);

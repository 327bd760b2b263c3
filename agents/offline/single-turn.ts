// The offline author's single-turn half (contract v1): what a design from the program families is called
// (name, title, description, skills, provenance), the spec that carries it (task idea, answer format,
// difficulty scaling and the design itself, so write and repair need nothing else), and the skills the
// single-turn families can train.
import { createHash } from 'node:crypto';
import { kindNamed } from '../../kinds/registry.js';
import { taxonomySkills, type EnvSpec } from '../spec.js';
import { textOf, type Ty } from './dsl.js';
import { designHash, designSkills, FAMILY_SKILL, SHAPES, shapeSkills, type Shape, type Target } from './synth.js';
import { FAMILIES, type Design, type EmitIdentity, type Family } from './design.js';

/**
 * A spec from the offline architect carries its target and program, so the generator (also after a resume) needs
 * nothing else.
 */
export interface OfflineSpec extends EnvSpec {
  offline: { version: string; target: Target; design: Design };
}

export const isOfflineSpec = (spec: EnvSpec): spec is OfflineSpec =>
  typeof (spec as Partial<OfflineSpec>).offline?.design === 'object' && !kindNamed(spec.kind).rollouts;

const FAMILY_TAG: Record<Family, string> = {
  trace: 'trace',
  'pick-input': 'which-input',
  'missing-step': 'missing-step',
  planted: 'find-input',
};
const DOMAIN_NOUN: Record<Ty, string> = { list: 'integer-list', int: 'integer', str: 'word', moves: 'grid-move' };
const FAMILY_TITLE: Record<Family, string> = {
  trace: 'Trace the output of',
  'pick-input': 'Pick the input behind the output of',
  'missing-step': 'Find the missing instruction of',
  planted: 'Find an input that makes',
};
const FAMILY_IDEA: Record<Family, string> = {
  trace:
    'The prompt shows a program as numbered instructions and one input; the model must work out ' +
    'what the program outputs.',
  'pick-input':
    'The prompt shows a program, one output it produced and several candidate inputs; exactly one candidate ' +
    'produces that output and the model must pick it.',
  'missing-step':
    'The prompt shows a program with one instruction hidden, input/output examples of the full program and ' +
    'candidate instructions; exactly one candidate fits every example.',
  planted:
    'The prompt shows a program, a target output and rules for the input; the model must construct any valid ' +
    'input on which the program produces the target (a planted input guarantees one exists; the verifier ' +
    'runs the program on the answer).',
};
const ANSWER_FORMAT: Record<Family, string> = {
  trace:
    'The program output inside <answer>…</answer>: an integer, comma-separated integers, a word or a move ' +
    'string, depending on the program; exact match.',
  'pick-input': 'One option letter, e.g. <answer>C</answer>.',
  'missing-step': 'One option letter, e.g. <answer>B</answer>.',
  planted:
    'The input inside <answer>…</answer> in the stated form; any input on which the program ' +
    'outputs the target scores 1.',
};

const stepTag = (op: string) =>
  op
    .replace(/^(list|int|str|moves)-/, '')
    .split('-')
    .slice(0, 2)
    .join('-');

/** Name, title, description and skills of a design (a repair's new design gets a name of its own). */
export function identityOf(design: Design, seed: number, version: string, target: Target, name?: string): EmitIdentity {
  const endo = design.steps.slice(design.core);
  const hash = createHash('sha256')
    .update(`${seed}\u0000${designHash(design)}`)
    .digest('hex')
    .slice(0, 6);
  const noun = DOMAIN_NOUN[design.domain];
  const top = design.steps.length + 1;
  const title =
    `${FAMILY_TITLE[design.family]} ` +
    `${design.family === 'planted' ? `a ${noun} program produce a target` : `a ${noun} program`} (` +
    `${design.steps[design.core] ? stepTag(design.steps[design.core]!.op).replace('-', ' ') : 'steps'}, up ` +
    `to ${top} instructions)`;
  return {
    name:
      name ??
      `${FAMILY_TAG[design.family]}-${design.domain}-${endo
        .slice(0, 2)
        .map((s) => stepTag(s.op))
        .join('-')}-${hash}`
        .slice(0, 64)
        .replace(/-+$/, ''),
    title: title.slice(0, 120),
    description:
      `${FAMILY_IDEA[design.family]} Program: ${[...design.steps, design.finish].map(textOf).join('; ')}.`.slice(
        0,
        2000,
      ),
    skills: designSkills(design, target.skill),
    provenance: `Written by the envforge offline author v${version} (seed ${seed}) from its typed program DSL.`,
  };
}

export function specOf(design: Design, id: EmitIdentity, target: Target, version: string, why: string): OfflineSpec {
  const first = design.levels[0]!;
  const last = design.levels[design.levels.length - 1]!;
  const multipleChoice = design.family === 'pick-input' || design.family === 'missing-step';
  const options = multipleChoice ? `; options grow from ${first.options} to ${last.options}` : '';
  return {
    name: id.name,
    title: id.title,
    skills: id.skills,
    taskIdea: id.description.slice(0, 1500),
    answerFormat: ANSWER_FORMAT[design.family],
    difficultyScaling:
      `Levels 1–${design.levels.length}: the program grows from ${first.steps + 1} to ${last.steps + 1} ` +
      `instructions and the input from size ${first.size} to ${last.size}${options}.`,
    whyNew: why,
    offline: { version, target, design },
  };
}

/** An integer target has too few values to plant: different inputs would share one prompt. */
export const shapesFor = (family: Family): Shape[] =>
  SHAPES.filter((shape) => !(family === 'planted' && shape.domain === 'int'));

/** Skills the single-turn families can train, in taxonomy order. */
export function singleSkills(): string[] {
  const reachable = new Set<string>(Object.values(FAMILY_SKILL));
  for (const family of FAMILIES)
    for (const shape of shapesFor(family)) for (const skill of shapeSkills(shape)) reachable.add(skill);
  return taxonomySkills().filter((s) => reachable.has(s));
}

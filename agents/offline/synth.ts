// Program synthesis for the offline author: draws a well-typed program over the DSL for a family, an input
// domain and a target skill, with level knobs, then checks the emitted module at design time (run in this
// process on the author's own templates, never on LLM text) for what an author can know before submitting:
// references score 1, outputs are varied and fair, levels grow. The validator still judges everything.
import { createHash } from 'node:crypto';
import { deriveRngState } from '../../sandbox/rng.js';
import type { PlainRng } from '../../sandbox/runtime.js';
import { finalsFrom, instantiate, opById, stepsFrom, textOf, typeOf, type OpDef, type Step, type Ty } from './dsl.js';
import { emitModule } from './emit.js';
import { JUDGE_CHOICE_SEEDS, JUDGE_SEEDS } from './judge.js';
import type { Design, EmitIdentity, Family, LevelKnobs } from './design.js';
import { plain, precheck, PRECHECK_SEEDS, type Precheck } from './precheck.js';

export type { HostModule, Precheck } from './precheck.js';

const LEVEL_COUNT = 6;

/** Where a program starts and the type it works on: a domain, optionally through a type-changing first step. */
export interface Shape {
  domain: Ty;
  /** The type-changing first step (int -> digit list, word -> letter positions), when there is one. */
  convert?: string;
}

export const SHAPES: readonly Shape[] = [
  { domain: 'list' },
  { domain: 'int' },
  { domain: 'int', convert: 'int-digits' },
  { domain: 'str' },
  { domain: 'str', convert: 'str-positions' },
  { domain: 'moves' },
];

export const workType = (shape: Shape): Ty => (shape.convert ? opById(shape.convert).out : shape.domain);

/** The family's own skill (every environment of the family trains it). */
export const FAMILY_SKILL: Record<Family, string> = {
  trace: 'program-tracing',
  'pick-input': 'search',
  'missing-step': 'deduction',
  planted: 'constraint-satisfaction',
};

const DOMAIN_SKILL: Partial<Record<Ty, string>> = { moves: 'grids', str: 'strings' };

/** Skills a shape can train through its operations. */
export function shapeSkills(shape: Shape): Set<string> {
  const work = workType(shape);
  const ops = [
    ...stepsFrom(work, { endo: true }),
    ...finalsFrom(work),
    ...(shape.convert ? [opById(shape.convert)] : []),
  ];
  const skills = new Set(ops.flatMap((op) => op.skills));
  const own = DOMAIN_SKILL[shape.domain];
  if (own) skills.add(own);
  return skills;
}

/** A seeded rng for one decision stream of the author: the same labels and seed give the same draws. */
export function authorRng(seed: number, ...labels: Array<string | number>): PlainRng {
  return plain().makeRng(...deriveRngState(`envforge-offline-author\u0000${labels.join('\u0000')}`, seed, 0));
}

export interface Target {
  family: Family;
  shape: Shape;
  /** A skill one operation present at every level must train. */
  skill?: string;
}

function levelKnobs(domain: Ty, core: number, endo: number): LevelKnobs[] {
  return Array.from({ length: LEVEL_COUNT }, (_, i) => {
    const t = i / (LEVEL_COUNT - 1);
    const size = { list: 4 + i, int: [99, 499, 999, 4999, 9999, 99999][i] as number, str: 5 + i, moves: 6 + 2 * i }[
      domain
    ];
    return {
      steps: core + 1 + Math.round(t * (endo - 1)),
      size,
      hi: [9, 12, 15, 20, 25, 30][i] as number,
      options: 4 + (i >> 1),
      examples: 3 + (i >> 1),
    };
  });
}

/** Draws a program for the target: always well typed (checked), with the target skill at every level. */
export function drawDesign(rng: PlainRng, target: Target): Design {
  const { shape, family } = target;
  const work = workType(shape);
  const endoOps = stepsFrom(work, { endo: true });
  const finals = finalsFrom(work);
  const withSkill = (ops: OpDef[]) =>
    target.skill ? ops.filter((op) => op.skills.includes(target.skill as string)) : [];
  const endoCount = rng.int(4, 6);
  const chosen: OpDef[] = [];
  const skilled = withSkill(endoOps);
  const convertHasSkill =
    shape.convert !== undefined && target.skill !== undefined && opById(shape.convert).skills.includes(target.skill);
  const finalSkilled = withSkill(finals);
  // The target skill sits in the first endo step (present at every level) unless the conversion or the finish carries
  // it.
  if (skilled.length > 0 && !convertHasSkill && (finalSkilled.length === 0 || rng.float() < 0.7))
    chosen.push(rng.pick(skilled));
  const rest = rng.shuffle(endoOps.filter((op) => !chosen.includes(op)));
  chosen.push(...rest.slice(0, endoCount - chosen.length));
  // Families that show outputs as evidence or targets need informative ones: mostly whole results, not reductions.
  const whole = finals.filter((op) => op.out === work || op.out === 'list');
  const preferWhole = (family === 'planted' || family === 'missing-step') && rng.float() < 0.8;
  const finishOp =
    !convertHasSkill &&
    chosen.every((op) => !target.skill || !op.skills.includes(target.skill)) &&
    finalSkilled.length > 0
      ? rng.pick(finalSkilled)
      : rng.pick(preferWhole && whole.length > 0 ? whole : finals);
  const steps: Step[] = [
    ...(shape.convert ? [instantiate(opById(shape.convert), rng)] : []),
    ...chosen.map((op) => instantiate(op, rng)),
  ];
  const texts = new Set(steps.map(textOf));
  const alternatives: Step[] = [];
  for (const op of rng.shuffle(endoOps)) {
    const alt = instantiate(op, rng);
    if (alternatives.length >= 6 || texts.has(textOf(alt))) continue;
    texts.add(textOf(alt));
    alternatives.push(alt);
  }
  const letters = rng.shuffle('bcdfghklmnprstvwz'.split('')).slice(0, rng.int(4, 6));
  const vowels = rng.shuffle('aeiou'.split('')).slice(0, rng.int(2, 3));
  const design: Design = {
    family,
    domain: shape.domain,
    steps,
    core: shape.convert ? 1 : 0,
    finish: instantiate(finishOp, rng),
    alternatives,
    levels: levelKnobs(shape.domain, shape.convert ? 1 : 0, endoCount),
    alphabet: [...letters, ...vowels].sort().join(''),
  };
  typeOf(design.domain, [...design.steps, design.finish]);
  return design;
}

/**
 * The skills an environment of this design trains: the family's, the target's (when an operation trains it), the
 * domain's, then its operations' by use.
 */
export function designSkills(design: Design, target?: string): string[] {
  const counts = new Map<string, number>();
  for (const step of [...design.steps, design.finish])
    for (const skill of opById(step.op).skills) counts.set(skill, (counts.get(skill) ?? 0) + 1);
  const domainSkill = DOMAIN_SKILL[design.domain];
  if (domainSkill) counts.set(domainSkill, (counts.get(domainSkill) ?? 0) + 1);
  const byUse = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([s]) => s);
  return [
    ...new Set([
      FAMILY_SKILL[design.family],
      ...(target && counts.has(target) ? [target] : []),
      ...(domainSkill ? [domainSkill] : []),
      ...byUse,
    ]),
  ].slice(0, 5);
}

export function designHash(design: Design): string {
  return createHash('sha256').update(JSON.stringify(design)).digest('hex');
}

export interface Synthesised {
  design: Design;
  id: EmitIdentity;
  source: string;
  check: Precheck;
  tries: number;
}

/**
 * Draws designs for the target until one passes the design-time checks and then `accept` (novelty against
 * the author's earlier designs); null after `maxTries`. Yields to the event loop between tries.
 * `identity` names and describes a design.
 */
export async function synthesise(
  rng: PlainRng,
  target: Target,
  identity: (design: Design) => EmitIdentity,
  accept: (made: Omit<Synthesised, 'tries'>) => boolean,
  maxTries = 40,
): Promise<Synthesised | null> {
  for (let tries = 1; tries <= maxTries; tries++) {
    // Each try is milliseconds of CPU: yield between them, so the sandbox pool's deadlines and IPC on this
    // thread are not starved while validations are in flight.
    await new Promise((resolve) => setImmediate(resolve));
    const design = drawDesign(rng, target);
    const id = identity(design);
    const source = emitModule(design, id);
    const multipleChoice = design.family === 'pick-input' || design.family === 'missing-step';
    const check = precheck(
      source,
      id.name,
      design.levels.length,
      PRECHECK_SEEDS,
      multipleChoice ? JUDGE_CHOICE_SEEDS : JUDGE_SEEDS,
    );
    if (check.ok && accept({ design, id, source, check })) return { design, id, source, check, tries };
  }
  return null;
}

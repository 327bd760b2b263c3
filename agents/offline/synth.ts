// Program synthesis for the offline author: draws a well-typed program over the DSL for a family, an input
// domain and a target skill, with level knobs, then checks the emitted module at design time (run in this
// process on the author's own templates, never on LLM text) for what an author can know before submitting:
// references score 1, outputs are varied and fair, levels grow. The validator still judges everything.
import { createHash } from 'node:crypto';
import { toVerdict } from '../../contract/schema.js';
import { mostCommon, normalizeAnswer, perturbNumbers } from '../../validators/screen.js';
import { deriveRngState } from '../../sandbox/rng.js';
import { loadPlainRuntime, type PlainRng } from '../../sandbox/runtime.js';
import { finalsFrom, instantiate, opById, stepsFrom, textOf, typeOf, type OpDef, type Step, type Ty } from './dsl.js';
import { emitModule } from './emit.js';
import { JUDGE_CHOICE_SEEDS, JUDGE_SCREEN_SEEDS, JUDGE_SEEDS, judgeSamples, type JudgedSample } from './judge.js';
import type { Design, EmitIdentity, Family, LevelKnobs } from './design.js';
import { answerContent, withContent } from '../../sandbox/answer.js';

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
  const ops = [...stepsFrom(work, { endo: true }), ...finalsFrom(work), ...(shape.convert ? [opById(shape.convert)] : [])];
  const skills = new Set(ops.flatMap((op) => op.skills));
  const own = DOMAIN_SKILL[shape.domain];
  if (own) skills.add(own);
  return skills;
}

/** A seeded rng for one decision stream of the author: the same labels and seed give the same draws. */
export function authorRng(seed: number, ...labels: Array<string | number>): PlainRng {
  return plain().makeRng(...deriveRngState(`envforge-offline-author\u0000${labels.join('\u0000')}`, seed, 0));
}

let runtime: ReturnType<typeof loadPlainRuntime> | undefined;
const plain = () => (runtime ??= loadPlainRuntime());

export interface Target {
  family: Family;
  shape: Shape;
  /** A skill one operation present at every level must train. */
  skill?: string;
}

function levelKnobs(domain: Ty, core: number, endo: number): LevelKnobs[] {
  return Array.from({ length: LEVEL_COUNT }, (_, i) => {
    const t = i / (LEVEL_COUNT - 1);
    const size = { list: 4 + i, int: [99, 499, 999, 4999, 9999, 99999][i] as number, str: 5 + i, moves: 6 + 2 * i }[domain];
    return { steps: core + 1 + Math.round(t * (endo - 1)), size, hi: [9, 12, 15, 20, 25, 30][i] as number, options: 4 + (i >> 1), examples: 3 + (i >> 1) };
  });
}

/** Draws a program for the target: always well typed (checked), with the target skill at every level. */
export function drawDesign(rng: PlainRng, target: Target): Design {
  const { shape, family } = target;
  const work = workType(shape);
  const endoOps = stepsFrom(work, { endo: true });
  const finals = finalsFrom(work);
  const withSkill = (ops: OpDef[]) => (target.skill ? ops.filter((op) => op.skills.includes(target.skill as string)) : []);
  const endoCount = rng.int(4, 6);
  const chosen: OpDef[] = [];
  const skilled = withSkill(endoOps);
  const convertHasSkill = shape.convert !== undefined && target.skill !== undefined && opById(shape.convert).skills.includes(target.skill);
  const finalSkilled = withSkill(finals);
  // The target skill sits in the first endo step (present at every level) unless the conversion or the finish carries it.
  if (skilled.length > 0 && !convertHasSkill && (finalSkilled.length === 0 || rng.float() < 0.7)) chosen.push(rng.pick(skilled));
  const rest = rng.shuffle(endoOps.filter((op) => !chosen.includes(op)));
  chosen.push(...rest.slice(0, endoCount - chosen.length));
  // Families that show outputs as evidence or targets need informative ones: mostly whole results, not reductions.
  const whole = finals.filter((op) => op.out === work || op.out === 'list');
  const preferWhole = (family === 'planted' || family === 'missing-step') && rng.float() < 0.8;
  const finishOp =
    !convertHasSkill && chosen.every((op) => !target.skill || !op.skills.includes(target.skill)) && finalSkilled.length > 0
      ? rng.pick(finalSkilled)
      : rng.pick(preferWhole && whole.length > 0 ? whole : finals);
  const steps: Step[] = [...(shape.convert ? [instantiate(opById(shape.convert), rng)] : []), ...chosen.map((op) => instantiate(op, rng))];
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

/** The skills an environment of this design trains: the family's, the target's (when an operation trains it), the domain's, then its operations' by use. */
export function designSkills(design: Design, target?: string): string[] {
  const counts = new Map<string, number>();
  for (const step of [...design.steps, design.finish]) for (const skill of opById(step.op).skills) counts.set(skill, (counts.get(skill) ?? 0) + 1);
  const domainSkill = DOMAIN_SKILL[design.domain];
  if (domainSkill) counts.set(domainSkill, (counts.get(domainSkill) ?? 0) + 1);
  const byUse = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([s]) => s);
  return [...new Set([FAMILY_SKILL[design.family], ...(target && counts.has(target) ? [target] : []), ...(domainSkill ? [domainSkill] : []), ...byUse])].slice(0, 5);
}

export function designHash(design: Design): string {
  return createHash('sha256').update(JSON.stringify(design)).digest('hex');
}

export interface HostModule {
  generate(rng: PlainRng, level: number): Record<string, unknown> & { prompt: string };
  solve(instance: unknown): string;
  verify(instance: unknown, response: string): number | { score: number };
}

/** Loads an emitted module in this process (the author's own template output only). */
function loadHostModule(source: string): HostModule {
  const body = source.replace(/^export (const|function) /gm, '$1 ');
  return new Function('kit', `"use strict";\n${body}\nreturn { meta, generate, solve, verify };`)(plain().kit) as HostModule;
}

export interface Precheck {
  ok: boolean;
  /** Why the design was not good enough, one line each. */
  reasons: string[];
  /** The sampled prompts and reference responses (for the author's novelty check). */
  prompts: string[];
  references: string[];
}

/**
 * Seeds per level the author samples at design time: enough to catch a program whose outputs collapse,
 * few enough that judging borderline programs is left to the validator (which samples more).
 */
const PRECHECK_SEEDS = 10;

/** Design-time checks on the emitted module, over `perLevel` seeds per level with the real rng scheme. */
function precheck(source: string, name: string, levels: number, perLevel = PRECHECK_SEEDS, judgeSeeds = JUDGE_SEEDS): Precheck {
  const reasons: string[] = [];
  let mod: HostModule;
  try {
    mod = loadHostModule(source);
  } catch (error) {
    return { ok: false, reasons: [`the module does not load: ${(error as Error).message}`], prompts: [], references: [] };
  }
  // The contract's own normalisation: a verify result that breaks it throws, and counts as a failed check.
  const score = (instance: unknown, response: string) => toVerdict(mod.verify(instance, response)).score;
  const promptChars: number[] = [];
  const prompts: string[] = [];
  const references: string[] = [];
  let otherPasses = 0;
  let otherTries = 0;
  let perturbedPasses = 0;
  let perturbedTries = 0;
  for (let level = 1; level <= levels; level++) {
    const cases: Array<{ instance: unknown; reference: string; content: string; prompt: string }> = [];
    for (let seed = 0; seed < perLevel; seed++) {
      try {
        const raw = mod.generate(plain().makeRng(...deriveRngState(name, seed, level)), level);
        const instance = JSON.parse(JSON.stringify(raw)) as { prompt: string };
        const reference = mod.solve(instance);
        if (score(instance, reference) !== 1) reasons.push(`level ${level} seed ${seed}: the reference does not score 1`);
        if (score(instance, '<answer></answer>') !== 0) reasons.push(`level ${level}: an empty answer scores`);
        cases.push({ instance, reference, content: answerContent(reference), prompt: instance.prompt });
      } catch (error) {
        reasons.push(`level ${level} seed ${seed}: ${(error as Error).message}`);
      }
    }
    if (reasons.length > 0) break;
    // Judged as the validator's diversity stage judges it: on normalised answer contents.
    const top = mostCommon(cases.map((c) => normalizeAnswer(c.content))).share;
    // Option letters are spread by a shuffle, so their share is noisier than a computed answer's.
    const letters = cases.every((c) => /^[A-H]$/.test(c.content));
    if (top > (letters ? 0.45 : 0.35)) reasons.push(`level ${level}: ${(100 * top).toFixed(0)}% of answers are the same`);
    if (new Set(cases.map((c) => c.prompt)).size < 0.85 * cases.length) reasons.push(`level ${level}: prompts repeat`);
    if (cases.some((c) => c.content.length === 0 || c.content.length > 400)) reasons.push(`level ${level}: an answer is empty or too long`);
    if (cases.some((c) => c.prompt.length > 6000)) reasons.push(`level ${level}: a prompt is over 6000 characters`);
    promptChars.push(cases.reduce((a, c) => a + c.prompt.length, 0) / cases.length);
    for (const c of cases) {
      prompts.push(c.prompt);
      references.push(c.reference);
    }
    try {
      cases.forEach((c, i) => {
        const other = cases[(i + 1) % cases.length] as (typeof cases)[number];
        if (other.content !== c.content) {
          otherTries++;
          if (score(c.instance, other.reference) >= 1) otherPasses++;
        }
        for (const variant of perturbNumbers(c.content).slice(0, 4)) {
          perturbedTries++;
          if (score(c.instance, withContent(c.reference, variant)) >= 1) perturbedPasses++;
        }
      });
    } catch (error) {
      reasons.push(`level ${level}: verify fails on a wrong answer: ${(error as Error).message}`);
    }
  }
  if (reasons.length === 0) {
    if (otherTries > 0 && otherPasses / otherTries > 0.05) reasons.push(`another instance's answer passes ${(100 * otherPasses / otherTries).toFixed(0)}% of the time`);
    if (perturbedTries > 0 && perturbedPasses / perturbedTries > 0.05) reasons.push(`perturbed answers pass ${(100 * perturbedPasses / perturbedTries).toFixed(0)}% of the time`);
    const first = promptChars[0] as number;
    const last = promptChars[promptChars.length - 1] as number;
    if (last < 1.3 * first) reasons.push(`the top level's prompts are only ${(last / first).toFixed(2)}× as long as level 1's`);
    if (promptChars.some((c, i) => i > 0 && c < 0.9 * (promptChars[i - 1] as number))) reasons.push('prompt size shrinks from one level to the next');
  }
  // Last, as the validator judges guessing and leaks: on more samples, from seeds the checks above did not use.
  if (reasons.length === 0) {
    try {
      const screen = sampleModule(mod, name, levels, JUDGE_SCREEN_SEEDS, perLevel);
      reasons.push(...judgeSamples(screen, 'screen'));
      if (reasons.length === 0) reasons.push(...judgeSamples([...screen, ...sampleModule(mod, name, levels, judgeSeeds - JUDGE_SCREEN_SEEDS, perLevel + JUDGE_SCREEN_SEEDS)], 'full'));
    } catch (error) {
      reasons.push(`a later seed fails: ${(error as Error).message}`);
    }
  }
  return { ok: reasons.length === 0, reasons: [...new Set(reasons)].slice(0, 5), prompts, references };
}

/** `perLevel` instances per level from seeds `from`, `from + 1`, …, with their references and a scorer. */
function sampleModule(mod: HostModule, name: string, levels: number, perLevel: number, from: number): JudgedSample[] {
  const out: JudgedSample[] = [];
  for (let level = 1; level <= levels; level++) {
    for (let seed = from; seed < from + perLevel; seed++) {
      const instance = JSON.parse(JSON.stringify(mod.generate(plain().makeRng(...deriveRngState(name, seed, level)), level))) as { prompt: string };
      const score = (response: string) => toVerdict(mod.verify(instance, response)).score;
      out.push({ seed, level, prompt: instance.prompt, reference: mod.solve(instance), score });
    }
  }
  return out;
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
    const check = precheck(source, id.name, design.levels.length, PRECHECK_SEEDS, multipleChoice ? JUDGE_CHOICE_SEEDS : JUDGE_SEEDS);
    if (check.ok && accept({ design, id, source, check })) return { design, id, source, check, tries };
  }
  return null;
}

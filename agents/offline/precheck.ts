// The offline author's design-time checks (synth.ts): an emitted module loaded in this process (the author's
// own template output, never LLM text) and sampled per level: references score 1, outputs are varied and fair,
// levels grow. The validator still judges everything.
import { toVerdict } from '../../contract/schema.js';
import { mostCommon, normalizeAnswer, perturbNumbers } from '../../validators/screen.js';
import { deriveRngState } from '../../sandbox/rng.js';
import { loadPlainRuntime, type PlainRng } from '../../sandbox/runtime.js';
import { JUDGE_SCREEN_SEEDS, JUDGE_SEEDS, judgeSamples, type JudgedSample } from './judge.js';
import { answerContent, withContent } from '../../sandbox/answer.js';

let runtime: ReturnType<typeof loadPlainRuntime> | undefined;
/** The plain runtime (its kit and rng), loaded once for the author. */
export const plain = () => (runtime ??= loadPlainRuntime());

export interface HostModule {
  generate(rng: PlainRng, level: number): Record<string, unknown> & { prompt: string };
  solve(instance: unknown): string;
  verify(instance: unknown, response: string): number | { score: number };
}

/** Loads an emitted module in this process (the author's own template output only). */
function loadHostModule(source: string): HostModule {
  const body = source.replace(/^export (const|function) /gm, '$1 ');
  return new Function('kit', `"use strict";\n${body}\nreturn { meta, generate, solve, verify };`)(
    plain().kit,
  ) as HostModule;
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
export const PRECHECK_SEEDS = 10;

/** Design-time checks on the emitted module, over `perLevel` seeds per level with the real rng scheme. */
export function precheck(
  source: string,
  name: string,
  levels: number,
  perLevel = PRECHECK_SEEDS,
  judgeSeeds = JUDGE_SEEDS,
): Precheck {
  const reasons: string[] = [];
  let mod: HostModule;
  try {
    mod = loadHostModule(source);
  } catch (error) {
    return {
      ok: false,
      reasons: [`the module does not load: ${(error as Error).message}`],
      prompts: [],
      references: [],
    };
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
        if (score(instance, reference) !== 1)
          reasons.push(`level ${level} seed ${seed}: the reference does not score 1`);
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
    if (top > (letters ? 0.45 : 0.35))
      reasons.push(`level ${level}: ${(100 * top).toFixed(0)}% of answers are the same`);
    if (new Set(cases.map((c) => c.prompt)).size < 0.85 * cases.length) reasons.push(`level ${level}: prompts repeat`);
    if (cases.some((c) => c.content.length === 0 || c.content.length > 400))
      reasons.push(`level ${level}: an answer is empty or too long`);
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
    if (otherTries > 0 && otherPasses / otherTries > 0.05)
      reasons.push(`another instance's answer passes ${((100 * otherPasses) / otherTries).toFixed(0)}% of the time`);
    if (perturbedTries > 0 && perturbedPasses / perturbedTries > 0.05)
      reasons.push(`perturbed answers pass ${((100 * perturbedPasses) / perturbedTries).toFixed(0)}% of the time`);
    const first = promptChars[0] as number;
    const last = promptChars[promptChars.length - 1] as number;
    if (last < 1.3 * first)
      reasons.push(`the top level's prompts are only ${(last / first).toFixed(2)}× as long as level 1's`);
    if (promptChars.some((c, i) => i > 0 && c < 0.9 * (promptChars[i - 1] as number)))
      reasons.push('prompt size shrinks from one level to the next');
  }
  // Last, as the validator judges guessing and leaks: on more samples, from seeds the checks above did not use.
  if (reasons.length === 0) {
    try {
      const screen = sampleModule(mod, name, levels, JUDGE_SCREEN_SEEDS, perLevel);
      reasons.push(...judgeSamples(screen, 'screen'));
      if (reasons.length === 0)
        reasons.push(
          ...judgeSamples(
            [
              ...screen,
              ...sampleModule(mod, name, levels, judgeSeeds - JUDGE_SCREEN_SEEDS, perLevel + JUDGE_SCREEN_SEEDS),
            ],
            'full',
          ),
        );
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
      const instance = JSON.parse(
        JSON.stringify(mod.generate(plain().makeRng(...deriveRngState(name, seed, level)), level)),
      ) as { prompt: string };
      const score = (response: string) => toVerdict(mod.verify(instance, response)).score;
      out.push({ seed, level, prompt: instance.prompt, reference: mod.solve(instance), score });
    }
  }
  return out;
}

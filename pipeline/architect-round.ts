// The batch's plan step: one architect round, where what the library and the batch already hold goes to the
// author's propose and the specs it returns that nobody holds yet are kept, journaled (`planSpecs`).
import type { Author } from '../agents/author.js';
import { specKind, type EnvSpec, type RunKind } from '../agents/spec.js';
import type { WeakSkill } from '../agents/prompts.js';
import { envKindOf } from './kind-check.js';
import type { Library } from '../library/contract.js';
import { isLlmError } from '../agents/llm/errors.js';
import type { BatchRun } from './batch-context.js';
import type { Scheduler } from './scheduling.js';

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
  const environments = (await library.list()).map((e) => ({
    name: e.name,
    skills: e.meta.skills,
    kind: envKindOf(e.meta),
  }));
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
  return {
    fresh,
    dropped: proposal.dropped.length + (proposal.specs.length - fresh.length),
    proposed: proposal.specs.length + proposal.dropped.length,
    promptHash: proposal.promptHash,
    ...(proposal.warnings?.length ? { warnings: proposal.warnings } : {}),
  };
}

/**
 * The batch's plan step: one architect round asked for the kinds and skills still wanted, journaled; the
 * specs to launch (those set aside for a kind that handed its share over, then the new ones). An LLM failure is
 * kept as data about the round (a budget one stops the batch), never the end of it.
 */
export async function planSpecs(run: BatchRun, scheduler: Pick<Scheduler, 'takeBack'>): Promise<EnvSpec[]> {
  const { deps, options, author, state, steering, share } = run;
  try {
    // While weak skills still want admissions, the round may hold both kinds (the weak share comes first).
    const focus = steering.focus(options.specsPerRound);
    const asked = focus && options.kind ? options.kind : share.ask();
    const { fresh, dropped, proposed, promptHash, warnings } = await architectRound({
      ...{
        library: deps.library,
        author,
        specs: state.specs,
        n: options.specsPerRound,
        weakSkills: options.weakSkills,
      },
      ...(options.kind ? { kind: asked } : {}),
      ...(options.saturatedSkills ? { saturatedSkills: options.saturatedSkills } : {}),
      ...(focus ? { focus } : {}),
      ...(options.skills ? { skills: options.skills } : {}),
    });
    // A kind out of designs hands its share over: the other kind's specs set aside for it get their turn.
    const moved = share.roundBrought(asked, fresh.length) ? scheduler.takeBack(state.specs) : [];
    state.architectRounds++;
    state.specs.push(...fresh);
    state.dropped += dropped;
    await run.journal('specs', `architect-${state.architectRounds}`, { specs: fresh, dropped, promptHash });
    run.emit({ type: 'specs', proposed, kept: fresh.length, ...(warnings?.length ? { warnings } : {}) });
    return [...moved, ...fresh];
  } catch (error) {
    if (isLlmError(error, 'E_LLM_BUDGET')) run.stop('budget');
    else if (isLlmError(error)) {
      run.failures.push({ spec: `architect-${state.architectRounds + 1}`, code: error.code, message: error.message });
      state.architectRounds++;
    } else throw error;
    return [];
  }
}

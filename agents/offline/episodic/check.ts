// Design-time checks of an emitted episodic module, run in this process on the author's own templates
// (never on LLM text): the reference policy solves every sampled episode with valid actions, the easy
// exploits the validator probes for score nothing (no action, the finishing call alone, another episode's
// actions, a seeded random policy), prompts and plans vary with the seed and episodes grow with the level.
// The validator, in the sandbox and on other seeds, remains the judge.
import { toVerdict } from '../../../contract/schema.js';
import { deriveRngState } from '../../../sandbox/rng.js';
import { loadPlainRuntime, type PlainRng } from '../../../sandbox/runtime.js';

interface Module {
  meta: {
    name: string;
    levels: number;
    maxTurns: number;
    tools: Array<{ name: string; description: string; parameters: Record<string, unknown> }>;
  };
  reset(rng: PlainRng, level: number): { state: unknown; prompt: string };
  step(state: unknown, action: unknown, rng: PlainRng): { state: unknown; observation: string; done: boolean };
  score(state: unknown): number | { score: number };
  act(state: unknown): unknown;
}

export interface EpisodicCheck {
  ok: boolean;
  reasons: string[];
  /** Prompts with their tool lines and reference action logs, for the author's novelty check. */
  prompts: string[];
  references: string[];
}

let runtime: ReturnType<typeof loadPlainRuntime> | undefined;
const plain = () => (runtime ??= loadPlainRuntime());

function load(source: string): Module {
  const body = source.replace(/^export (const|function) /gm, '$1 ');
  return new Function(`"use strict";\n${body}\nreturn { meta, reset, step, score, act };`)() as Module;
}

interface Played {
  prompt: string;
  actions: unknown[];
  score: number;
  turns: number;
  rejected: number;
  done: boolean;
}

type Policy = (state: unknown, turn: number, observation: string) => unknown;

/** One episode as the host plays it: actions checked against the schemas, the state round-tripped as JSON. */
function play(mod: Module, seed: number, level: number, policy: Policy): Played {
  const rt = plain();
  const start = mod.reset(rt.makeRng(...deriveRngState(mod.meta.name, seed, level)), level);
  let state = JSON.parse(JSON.stringify(start.state)) as unknown;
  const actions: unknown[] = [];
  let rejected = 0;
  let done = false;
  let observation = '';
  for (let turn = 1; turn <= mod.meta.maxTurns && rejected < 3 && !done; turn++) {
    const action = policy(state, turn, observation);
    if (action === null || action === undefined) break;
    const checked = rt.episodic.normaliseAction(mod.meta.tools, JSON.parse(JSON.stringify(action)) as unknown);
    actions.push(checked.action);
    if (checked.problem !== null) {
      rejected++;
      continue;
    }
    const out = mod.step(state, checked.action, rt.makeRng(seed, level, turn, 7));
    state = JSON.parse(JSON.stringify(out.state)) as unknown;
    observation = out.observation;
    done = out.done;
  }
  return {
    prompt: start.prompt,
    actions,
    score: toVerdict(mod.score(state)).score,
    turns: actions.length,
    rejected,
    done,
  };
}

/** A crude random policy of schema-valid calls drawing strings from what the agent last saw. */
function randomPolicy(mod: Module, rng: PlainRng, finish: string): Policy {
  const gen = (s: Record<string, unknown>, seen: string[]): unknown => {
    if (Array.isArray(s.enum)) return rng.pick(s.enum);
    if (s.type === 'integer') return rng.int((s.minimum as number) ?? 0, (s.maximum as number) ?? 100);
    if (s.type === 'string') return seen.length > 0 ? rng.pick(seen).slice(0, (s.maxLength as number) ?? 40) : 'x';
    if (s.type === 'array') return [gen(s.items as Record<string, unknown>, seen)];
    if (s.type === 'boolean') return rng.float() < 0.5;
    return {};
  };
  return (_state, turn, observation) => {
    const seen = observation.match(/[A-Za-z0-9][A-Za-z0-9_-]*/g) ?? [];
    let t = rng.pick(mod.meta.tools);
    while (t.name === finish && turn < 0.8 * mod.meta.maxTurns && rng.float() < 0.9) t = rng.pick(mod.meta.tools);
    const props = (t.parameters.properties ?? {}) as Record<string, Record<string, unknown>>;
    return { tool: t.name, args: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, gen(v, seen)])) };
  };
}

const SEEDS = 5;
const RANDOM = 6;

/** The checks, over `SEEDS` seeds per level with the real rng scheme. */
export function checkEpisodic(source: string): EpisodicCheck {
  const reasons: string[] = [];
  const prompts: string[] = [];
  const references: string[] = [];
  let mod: Module;
  try {
    mod = load(source);
  } catch (error) {
    return { ok: false, reasons: [`the module does not load: ${(error as Error).message}`], prompts, references };
  }
  const toolText = mod.meta.tools.map((t) => `${t.name}: ${t.description}`).join('\n');
  const turnsByLevel: number[] = [];
  try {
    for (let level = 1; level <= mod.meta.levels && reasons.length === 0; level++) {
      const refs = Array.from({ length: SEEDS }, (_, seed) =>
        play(mod, seed + 1000 * level, level, (state) => mod.act(state)),
      );
      for (const r of refs) {
        if (r.score !== 1 || !r.done || r.rejected > 0)
          reasons.push(
            `level ${level}: the reference policy scores ${r.score} in ${r.turns} turns (` +
              `${r.rejected} rejected actions)`,
          );
        prompts.push(`${r.prompt}\n\nTools:\n${toolText}`);
        references.push(JSON.stringify(r.actions));
      }
      if (
        new Set(refs.map((r) => r.prompt)).size < SEEDS - 1 ||
        new Set(refs.map((r) => JSON.stringify(r.actions))).size < SEEDS - 1
      )
        reasons.push(`level ${level}: prompts or plans repeat across seeds`);
      turnsByLevel.push(refs.reduce((a, r) => a + r.turns, 0) / SEEDS);
      const finish = (refs[0]?.actions.at(-1) as { tool: string } | undefined)?.tool ?? '';
      refs.forEach((r, i) => {
        const other = refs[(i + 1) % refs.length] as Played;
        const seed = i + 1000 * level;
        const replay =
          (actions: unknown[]): Policy =>
          (_s, turn) =>
            actions[turn - 1] ?? null;
        if (play(mod, seed, level, replay(other.actions)).score > 0)
          reasons.push(`level ${level}: another episode's actions score`);
        if (play(mod, seed, level, replay(r.actions.slice(-1))).score > 0)
          reasons.push(`level ${level}: the finishing call alone scores`);
        if (play(mod, seed, level, replay(r.actions.slice(0, -1))).score > 0)
          reasons.push(`level ${level}: the reference minus its last action scores`);
        if (play(mod, seed, level, () => null).score > 0) reasons.push(`level ${level}: no action scores`);
      });
      for (let k = 0; k < RANDOM; k++) {
        if (play(mod, 7000 + k, level, randomPolicy(mod, plain().makeRng(k, level, 99, 1), finish)).score > 0)
          reasons.push(`level ${level}: a random policy scores`);
      }
      if (Math.max(...refs.map((r) => r.turns)) > 0.85 * mod.meta.maxTurns)
        reasons.push(
          `level ${level}: the reference needs ${Math.max(...refs.map((r) => r.turns))} of ${mod.meta.maxTurns} turns`,
        );
    }
  } catch (error) {
    reasons.push(`an episode fails: ${(error as Error).message}`);
  }
  if (reasons.length === 0) {
    const first = turnsByLevel[0] as number;
    const top = turnsByLevel[turnsByLevel.length - 1] as number;
    if (top < 1.4 * first)
      reasons.push(`the top level takes ${top.toFixed(1)} turns against level 1's ${first.toFixed(1)}`);
  }
  return { ok: reasons.length === 0, reasons: [...new Set(reasons)].slice(0, 5), prompts, references };
}

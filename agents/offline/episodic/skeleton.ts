// What every offline episodic module shares: the design's common fields, the tool declarations, and the
// emitted skeleton (meta, reset around the family's world, a step that dispatches to the family's tool
// blocks, score and act). The families (records.ts, grid.ts, webapp.ts) fill it with their own code.
import type { PlainRng } from '../../../sandbox/runtime.js';

export const EPISODIC_FAMILIES = ['records', 'grid', 'webapp'] as const;
export type EpisodicFamily = (typeof EPISODIC_FAMILIES)[number];

/** A JSON Schema property of a tool parameter (the contract's documented subset). */
export type Param = Record<string, unknown>;

/** One tool block: its declaration and its handler, `(s, args) => observation`, as JavaScript. */
export interface ToolBlock {
  name: string;
  description: string;
  params: Record<string, Param>;
  required?: string[];
  /** The handler's body text: a function expression `(s, a) => …` or `function (s, a) { … }`. */
  code: string;
}

/** Who the module is: what its meta and header comment say. */
export interface EpisodicIdentity {
  name: string;
  title: string;
  description: string;
  skills: string[];
  provenance: string;
}

/** What a family emits for the skeleton to wrap. */
export interface FamilyCode {
  maxTurns: number;
  levels: number;
  tools: ToolBlock[];
  /** Constants, world generation (`makeWorld(rng, k)`), prompt (`promptOf(world, k)`) and helpers. */
  world: string;
  /** Fields of the initial state besides `world`, `progress` and `done`, as an object literal body. */
  state: string;
  /** The body of `score(state)`. */
  score: string;
  /** The body of `act(state)`. */
  act: string;
  /** Per-level knobs, indexed by level − 1. */
  knobs: unknown[];
}

export const tool = (
  name: string,
  description: string,
  params: Record<string, Param>,
  code: string,
  required = Object.keys(params),
): ToolBlock => ({ name, description, params, required, code });

export function declaration(t: ToolBlock): Record<string, unknown> {
  return {
    name: t.name,
    description: t.description,
    parameters: {
      type: 'object',
      properties: t.params,
      ...(t.required && t.required.length > 0 ? { required: t.required } : {}),
      additionalProperties: false,
    },
  };
}

/** The module source: the family's code inside the shared skeleton. */
export function emitEpisodic(id: EpisodicIdentity, code: FamilyCode): string {
  const meta = {
    name: id.name,
    title: id.title,
    description: id.description,
    skills: id.skills,
    levels: code.levels,
    kind: 'episodic',
    maxTurns: code.maxTurns,
    tools: code.tools.map(declaration),
  };
  return `// ${id.title}. ${id.description}
// ${id.provenance}

export const meta = ${JSON.stringify(meta, null, 1)};

// Difficulty knobs for each level (1 = easy).
const LEVELS = ${JSON.stringify(code.knobs)};

${code.world.trim()}

export function reset(rng, level) {
  const k = LEVELS[Math.min(Math.max(level, 1), LEVELS.length) - 1];
  const world = makeWorld(rng, k);
  return { state: { world, progress: [], done: false, ${code.state} }, prompt: promptOf(world, k) };
}

// The tools: each takes a copy of the state and the checked arguments, and returns what the agent sees.
const TOOLS = {
${code.tools.map((t) => `  ${t.name}: ${t.code.trim()},`).join('\n')}
};

export function step(state, action) {
  const s = JSON.parse(JSON.stringify(state));
  const observation = TOOLS[action.tool](s, action.args);
  return { state: s, observation, done: s.done };
}

// The reward, from the final state alone: all or nothing.
export function score(state) {
${code.score.trim()}
}

// The reference policy: sees the whole state and follows the stated policy to the goal.
export function act(state) {
${code.act.trim()}
}
`;
}

/** A name that differs across modules of a family: one synonym from each list. */
export const pickName = (rng: PlainRng, ...lists: ReadonlyArray<readonly string[]>): string =>
  lists
    .map((l) => rng.pick(l))
    .filter((w) => w.length > 0)
    .join('_');

/** k distinct items of a list, in a random order. */
export const sample = <T>(rng: PlainRng, list: readonly T[], k: number): T[] => rng.shuffle(list).slice(0, k);

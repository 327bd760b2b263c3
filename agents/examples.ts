// The generator's few-shot examples: environment modules that pass every check (the seeds, and the prompt
// examples in prompts/examples/ for families no seed covers), chosen for a spec by kind, then by family (a
// web flow for a web spec, a world for an exploration spec, a taxonomy area for a single-turn spec), then by
// shared skills; ties are broken by a hash of spec and example names, so the choice is reproducible.
import { kindNamed, type KindName } from '../kinds/registry.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PROMPTS_DIR } from '../contract/paths.js';
import { listSeeds, type SeedFile } from '../library/seeds.js';
import { sha256, type PromptProfile } from './prompt-files.js';
import { SKILL_TAXONOMY, specKind, type EnvSpec } from './spec.js';

/** The three families of episodic environments: policy over hidden records, a world to explore, a web site's pages. */
export const EPISODIC_FAMILIES = ['records', 'world', 'web'] as const;

const WEB_SKILLS = new Set(['web-navigation', 'form-filling', 'browsing']);
const WORLD_SKILLS = new Set([
  'exploration',
  'spatial-reasoning',
  'grids',
  'graph-exploration',
  'graph-traversal',
  'navigation',
  'shortest-paths',
  'mapping',
]);
const WEB_TOOL = new RegExp(
  '^(click|press|view_page|show_page|open_page|go_to|goto|navigate|browse|type_text|enter_text|' +
    'fill_field|scroll|go_back)$',
);
const WORLD_TOOL = /^(move|go|walk|step|turn|look|scan|look_around|travel|explore|pick_up|drop)(_|$)/;

/** Example modules per kind beyond the seeds: prompts/examples/<kind>/. */
export const EXAMPLES_DIR = join(PROMPTS_DIR, 'examples');

/**
 * How many examples a generator prompt shows, of any kind: two of the spec's family (episodic seeds are 11–15 kB), one
 * short one in the compact profile.
 */
const EXAMPLE_COUNT: Record<PromptProfile, number> = { standard: 2, compact: 1 };
/** The compact profile's examples stay short enough that the whole prompt stays under 20k characters. */
export const COMPACT_EXAMPLE_CHARS = 8_500;

/**
 * The family of an episodic spec or module, from its skills and then its tool names; records when neither says
 * otherwise.
 */
export function episodicFamily(
  skills: readonly string[],
  tools: readonly string[] = [],
): (typeof EPISODIC_FAMILIES)[number] {
  if (skills.some((s) => WEB_SKILLS.has(s)) || tools.some((t) => WEB_TOOL.test(t))) return 'web';
  if (skills.some((s) => WORLD_SKILLS.has(s)) || tools.some((t) => WORLD_TOOL.test(t))) return 'world';
  return 'records';
}

const AREA_OF = new Map<string, string>(
  Object.entries(SKILL_TAXONOMY).flatMap(([area, skills]) => skills.map((s): [string, string] => [s, area])),
);

/** The families of a spec or module: its episodic family, or the taxonomy areas of its skills. */
export function familiesOf(kind: KindName, skills: readonly string[], tools: readonly string[] = []): string[] {
  if (kindNamed(kind).rollouts) return [episodicFamily(skills, tools)];
  return [...new Set(skills.flatMap((s) => (AREA_OF.has(s) ? [AREA_OF.get(s) as string] : [])))];
}

/** meta.skills read from a module's source text (examples are trusted and written in one shape; nothing is run). */
export function seedSkills(source: string): string[] {
  const list = /\bskills\s*:\s*\[([^\]]*)\]/.exec(source)?.[1] ?? '';
  return [...list.matchAll(/['"]([a-z0-9-]+)['"]/g)].map((m) => m[1] as string);
}

/** The tool names a module's meta declares, read from its source text (`{ name: 'x', description: … }`). */
export function seedTools(source: string): string[] {
  return [...source.matchAll(/\{\s*name:\s*['"]([a-z][a-z0-9_]*)['"]\s*,\s*description:/g)].map((m) => m[1] as string);
}

/** Every example module of a kind: its seeds (the plug's seeds.dir), then prompts/examples/<kind>/. */
export function examplePool(kind: KindName): SeedFile[] {
  const extra = join(EXAMPLES_DIR, kind);
  return [...listSeeds(kindNamed(kind).seeds.dir), ...(existsSync(extra) ? listSeeds(extra) : [])];
}

export interface PickOptions {
  count?: number;
  /** Only examples at most this long (the compact profile's). */
  maxChars?: number;
}

/**
 * Examples for a spec, best first by family, then by shared skills, then by a hash of spec and example names
 * (so different specs see different examples while each choice is reproducible). The chosen ones are returned
 * in name order, so two specs that get the same examples get the same bytes (a cacheable prefix).
 */
export function pickExamples(
  spec: Pick<EnvSpec, 'name' | 'skills'> & Partial<Pick<EnvSpec, 'kind' | 'episodic'>>,
  pool: readonly SeedFile[] = examplePool(specKind(spec)),
  options: PickOptions = {},
): SeedFile[] {
  const kind = specKind(spec);
  const wanted = new Set(spec.skills);
  const families = new Set(familiesOf(kind, spec.skills, spec.episodic?.tools.map((t) => t.name) ?? []));
  const ranked = pool
    .filter((seed) => options.maxChars === undefined || seed.source.length <= options.maxChars)
    .map((seed) => {
      const skills = seedSkills(seed.source);
      return {
        seed,
        family: familiesOf(kind, skills, seedTools(seed.source)).some((f) => families.has(f)) ? 1 : 0,
        shared: skills.filter((s) => wanted.has(s)).length,
        tie: sha256(`${spec.name}\n${seed.name}`),
      };
    });
  ranked.sort((a, b) => b.family - a.family || b.shared - a.shared || (a.tie < b.tie ? -1 : a.tie > b.tie ? 1 : 0));
  const chosen = ranked.slice(0, options.count ?? EXAMPLE_COUNT.standard).map((r) => r.seed);
  return chosen.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The examples a spec's generator sees under a profile. */
export function defaultExamples(spec: EnvSpec, profile: PromptProfile = 'standard'): SeedFile[] {
  const kind = specKind(spec);
  return pickExamples(spec, examplePool(kind), {
    count: EXAMPLE_COUNT[profile],
    ...(profile === 'compact' ? { maxChars: COMPACT_EXAMPLE_CHARS } : {}),
  });
}

// Prompt templates are files in prompts/ (the compact profile's in prompts/compact/) with {{placeholders}}:
// this module loads them, fills them strictly (a missing or unknown variable is an error), marks where their
// stable prefixes end (for the providers' prompt caches), hashes each template for lineage, and holds the
// contract text the generator, repair and reviewer prompts quote. agents/prompts.ts renders each prompt.
import { kindNamed } from '../kinds/registry.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EnvforgeError } from '../contract/errors.js';
import { PACKAGE_ROOT, PROMPTS_DIR } from '../contract/paths.js';
import type { KindName } from '../kinds/registry.js';

/**
 * Every template: the v1 agents' four, the episodic (contract v2) generator, repair and reviewer, and the code
 * (contract v3) generator and repair.
 */
export const PROMPT_NAMES = [
  'architect',
  'generator',
  'repair',
  'reviewer',
  'generator-episodic',
  'repair-episodic',
  'reviewer-episodic',
  'generator-code',
  'repair-code',
] as const;
export type PromptName = (typeof PROMPT_NAMES)[number];

/**
 * standard: the contract verbatim and full seed examples, for frontier models. compact: the contract's rules
 * as a digest, one short example and shorter checklists, every prompt under 20k characters besides the
 * module it quotes, for 7–32B open models.
 */
export const PROMPT_PROFILES = ['standard', 'compact'] as const;
export type PromptProfile = (typeof PROMPT_PROFILES)[number];

/** What a user may ask for: a profile, or auto (chosen by the model's size). */
export const PROFILE_CHOICES = ['auto', ...PROMPT_PROFILES] as const;
export type ProfileChoice = (typeof PROFILE_CHOICES)[number];

/** With auto, models whose names say they have at most this many billion parameters get the compact profile. */
export const COMPACT_MAX_BILLIONS = 34;

/**
 * The parameter count an open model's name states, in billions ("qwen2.5-coder:7b", "Qwen/Qwen2.5-32B-Instruct",
 * "Qwen3-30B-A3B", "mixtral-8x7b" per expert), or undefined when it states none (hosted models do not).
 */
export function modelBillions(model: string): number | undefined {
  const name = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  const match = /(?:^|[^a-z0-9.])(?:\d+x)?(\d+(?:\.\d+)?)b(?![a-z0-9])/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** The profile a choice means for a model: auto is compact for a model whose name says 34B or fewer, else standard. */
export function resolveProfile(choice: ProfileChoice, model: string): PromptProfile {
  if (choice !== 'auto') return choice;
  const billions = modelBillions(model);
  return billions !== undefined && billions <= COMPACT_MAX_BILLIONS ? 'compact' : 'standard';
}

const CONTRACT_FILE = join(PACKAGE_ROOT, 'docs', 'environment-contract.md');

/** A prompt template that cannot be read or rendered, or model output without a module in it. */
export class PromptError extends EnvforgeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('E_PROMPT', message, options);
  }
}

export interface PromptOptions {
  /**
   * The folder holding the standard templates (the compact ones are in its compact/); prompts/ of the package by
   * default.
   */
  dir?: string;
  /** Which templates and contract text to use; standard by default. */
  profile?: PromptProfile;
}

export interface RenderedPrompt {
  name: PromptName;
  text: string;
  /** promptHash of the template this text was rendered from. */
  hash: string;
  /** Where the template's stable prefixes end in `text` (its {{cacheBreak}} marks): what providers may cache. */
  cacheBreaks: number[];
}

export type PromptVars = Readonly<Record<string, string | number>>;

/** The folder a profile's templates are read from. */
export const templateDir = (options: PromptOptions = {}): string => {
  const base = options.dir ?? PROMPTS_DIR;
  return options.profile === 'compact' ? join(base, 'compact') : base;
};

export function loadPrompt(name: PromptName, options: PromptOptions = {}): string {
  if (!(PROMPT_NAMES as readonly string[]).includes(name))
    throw new PromptError(`unknown prompt "${String(name)}"; expected one of ${PROMPT_NAMES.join(', ')}`);
  const file = join(templateDir(options), `${name}.md`);
  try {
    return readFileSync(file, 'utf8');
  } catch (cause) {
    throw new PromptError(`cannot read prompt template ${file}: ${(cause as Error).message}`, { cause });
  }
}

/** SHA-256 (hex) of the template file's content: the prompt version recorded in lineage. */
export function promptHash(name: PromptName, options: PromptOptions = {}): string {
  return sha256(loadPrompt(name, options));
}

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const IDENTIFIER = /^[a-zA-Z][a-zA-Z0-9_]*$/;
/** The placeholder that marks the end of a stable prefix; it takes no value and renders as nothing. */
const CACHE_BREAK = 'cacheBreak';

/** Single pass over the template only: text inside values is never scanned for placeholders. */
export function fillTemplate(name: string, template: string, vars: PromptVars): string {
  return fill(name, template, vars).text;
}

function fill(name: string, template: string, vars: PromptVars): { text: string; cacheBreaks: number[] } {
  const used = new Set<string>();
  const cacheBreaks: number[] = [];
  let text = '';
  let from = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const [whole, key = ''] = match;
    text += template.slice(from, match.index);
    from = match.index + whole.length;
    if (key === CACHE_BREAK) {
      cacheBreaks.push(text.length);
      continue;
    }
    if (!IDENTIFIER.test(key))
      throw new PromptError(`prompt "${name}": malformed placeholder ${whole}; placeholders look like {{name}}`);
    if (!Object.hasOwn(vars, key))
      throw new PromptError(`prompt "${name}": missing variable "${key}" for placeholder {{${key}}}`);
    used.add(key);
    text += String(vars[key]);
  }
  text += template.slice(from);
  const unknown = Object.keys(vars).filter((key) => !used.has(key));
  if (unknown.length > 0)
    throw new PromptError(
      `prompt "${name}": the template has no placeholder for ${unknown.map((k) => `"${k}"`).join(', ')}`,
    );
  return { text, cacheBreaks };
}

export function render(name: PromptName, vars: PromptVars, options: PromptOptions): RenderedPrompt {
  const template = loadPrompt(name, options);
  return { name, ...fill(name, template, vars), hash: sha256(template) };
}

const V2_HEADING = '## Contract v2: episodic environments';
const V3_HEADING = '## Contract v3: code environments';
/**
 * Sections of contract v2 the reviewer does without: what the automated checks (already passed) test, the limits they
 * enforce, and how to write a module.
 */
const AUTHOR_ONLY_SECTIONS = ['### What the validator checks', '### Limits', '### A complete example'];

/** Who quotes the contract: an author (generator, repair) or the reviewer. */
export type ContractReader = 'author' | 'reviewer';

/**
 * The environment contract as a prompt quotes it. Standard: verbatim, the opening paragraph and the kind's
 * section (the reviewer of an episodic module without the validator's checks, the limits and the example). Compact:
 * the kind's digest (prompts/compact/contract-<kind>.md), its rules one line each.
 */
export function contractText(
  kind: KindName = 'single',
  reader: ContractReader = 'author',
  options: PromptOptions = {},
): string {
  if (options.profile === 'compact') return readText(join(templateDir(options), `contract-${kind}.md`)).trim();
  const text = readText(CONTRACT_FILE).trim();
  const v2 = text.indexOf(V2_HEADING);
  const v1 = text.indexOf('\n## ');
  if (v2 < 0 || v1 < 0) throw new PromptError(`${CONTRACT_FILE} has no "${V2_HEADING}" section to quote`);
  const opening = text.slice(0, v1).trim();
  const { contractVersion } = kindNamed(kind);
  if (contractVersion === 1) return `${opening}\n\n${text.slice(v1, v2).trim()}`;
  const v3 = text.indexOf(V3_HEADING);
  if (contractVersion === 3) {
    if (v3 < 0) throw new PromptError(`${CONTRACT_FILE} has no "${V3_HEADING}" section to quote`);
    return `${opening}\n\n${text.slice(v3).trim()}`;
  }
  const section = text.slice(v2, v3 < 0 ? undefined : v3).trim();
  return `${opening}\n\n${reader === 'reviewer' ? withoutSections(section, AUTHOR_ONLY_SECTIONS) : section}`;
}

/** A section without the ### subsections whose headings are named (each up to the next ### or ## heading). */
function withoutSections(section: string, headings: readonly string[]): string {
  let out = section;
  for (const heading of headings) {
    const start = out.indexOf(`\n${heading}\n`);
    if (start < 0) throw new PromptError(`${CONTRACT_FILE} has no "${heading}" subsection to leave out`);
    const next = out.slice(start + 1 + heading.length).search(/\n#{2,3} /);
    out = next < 0 ? out.slice(0, start) : out.slice(0, start) + out.slice(start + 1 + heading.length + next);
  }
  return out.trim();
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (cause) {
    throw new PromptError(`cannot read ${file}: ${(cause as Error).message}`, { cause });
  }
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A fenced block whose fence is longer than any backtick run inside, so the content cannot close it. */
export function fence(content: string, lang: string): string {
  let longest = 0;
  for (const run of content.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const ticks = '`'.repeat(Math.max(3, longest + 1));
  return `${ticks}${lang}\n${content}\n${ticks}`;
}

// Prompt templates are files in prompts/ with {{placeholders}}: this module loads them, fills them strictly
// (a missing or unknown variable is an error), hashes each template for lineage, and holds the contract
// text the generator, repair and reviewer prompts quote. agents/prompts.ts renders each agent's prompt.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EnvforgeError } from '../contract/errors.js';
import { PACKAGE_ROOT, PROMPTS_DIR } from '../contract/paths.js';
import type { EnvKind } from './spec.js';

/** Every template: the v1 agents' four, and the episodic (contract v2) generator, repair and reviewer. */
export const PROMPT_NAMES = ['architect', 'generator', 'repair', 'reviewer', 'generator-episodic', 'repair-episodic', 'reviewer-episodic'] as const;
export type PromptName = (typeof PROMPT_NAMES)[number];

const CONTRACT_FILE = join(PACKAGE_ROOT, 'docs', 'environment-contract.md');

/** A prompt template that cannot be read or rendered, or model output without a module in it. */
export class PromptError extends EnvforgeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('E_PROMPT', message, options);
  }
}

export interface PromptOptions {
  /** The folder holding the templates; prompts/ of the package by default. */
  dir?: string;
}

export interface RenderedPrompt {
  name: PromptName;
  text: string;
  /** promptHash of the template this text was rendered from. */
  hash: string;
}

export type PromptVars = Readonly<Record<string, string | number>>;

export function loadPrompt(name: PromptName, options: PromptOptions = {}): string {
  if (!(PROMPT_NAMES as readonly string[]).includes(name)) throw new PromptError(`unknown prompt "${String(name)}"; expected one of ${PROMPT_NAMES.join(', ')}`);
  const file = join(options.dir ?? PROMPTS_DIR, `${name}.md`);
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

/** Single pass over the template only: text inside values is never scanned for placeholders. */
export function fillTemplate(name: string, template: string, vars: PromptVars): string {
  const used = new Set<string>();
  const text = template.replace(PLACEHOLDER, (whole, key: string) => {
    if (!IDENTIFIER.test(key)) throw new PromptError(`prompt "${name}": malformed placeholder ${whole}; placeholders look like {{name}}`);
    if (!Object.hasOwn(vars, key)) throw new PromptError(`prompt "${name}": missing variable "${key}" for placeholder {{${key}}}`);
    used.add(key);
    return String(vars[key]);
  });
  const unknown = Object.keys(vars).filter((key) => !used.has(key));
  if (unknown.length > 0) throw new PromptError(`prompt "${name}": the template has no placeholder for ${unknown.map((k) => `"${k}"`).join(', ')}`);
  return text;
}

export function render(name: PromptName, vars: PromptVars, options: PromptOptions): RenderedPrompt {
  const template = loadPrompt(name, options);
  return { name, text: fillTemplate(name, template, vars), hash: sha256(template) };
}

const V2_HEADING = '## Contract v2: episodic environments';

/**
 * The environment contract as the prompts quote it, verbatim: the whole document for single-turn modules
 * (as always), and for episodic ones its opening paragraph and the contract v2 section.
 */
export function contractText(kind: EnvKind = 'single'): string {
  const text = readFileSync(CONTRACT_FILE, 'utf8').trim();
  if (kind === 'single') return text;
  const v2 = text.indexOf(V2_HEADING);
  const v1 = text.indexOf('\n## ');
  if (v2 < 0 || v1 < 0) throw new PromptError(`${CONTRACT_FILE} has no "${V2_HEADING}" section to quote`);
  return `${text.slice(0, v1).trim()}\n\n${text.slice(v2).trim()}`;
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

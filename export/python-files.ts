// The Python an export hands a trainer: the shims in export/python/ (shipped with the package, copied as they are)
// and envforge.json beside them, the small config they read at import (the service URL, the environments with their
// code hashes and, for episodic ones, tools and turn limits). Module text reaches Python only as that JSON's data.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FormatContext, ShimEnv } from './contract.js';
import { jsonText } from './encode.js';

/** Where the shims live: export/python/ in the source tree, dist/export/python/ once built (the build copies them). */
export const PYTHON_DIR = fileURLToPath(new URL('./python/', import.meta.url));
export const CONFIG_FILE = 'envforge.json';
/** The client every shim imports from beside itself. */
export const CLIENT_FILE = 'envforge_client.py';

export type EpisodicShimEnv = ShimEnv & { episodic: NonNullable<ShimEnv['episodic']> };

export function episodicEnvs(envs: readonly ShimEnv[]): EpisodicShimEnv[] {
  return envs.filter((env): env is EpisodicShimEnv => env.episodic !== undefined);
}

/** `library-loans` as a CamelCase class name: `LibraryLoans`. */
export function camelCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** A Python class name per environment (`<CamelCase>Env`), made distinct where two names fold to one (`x-1`, `x1`). */
export function classNames(envs: readonly ShimEnv[]): Map<string, string> {
  const taken = new Set<string>();
  const out = new Map<string, string>();
  for (const env of envs) {
    const base = `${/^[A-Za-z]/.test(camelCase(env.name)) ? '' : 'E'}${camelCase(env.name)}Env`;
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
    taken.add(name);
    out.set(env.name, name);
  }
  return out;
}

/** envforge.json: what the shims know of the export. */
export function shimConfig(context: FormatContext): string {
  const classes = classNames(episodicEnvs(context.envs));
  const envs = Object.fromEntries(
    context.envs.map((env) => [
      env.name,
      {
        version: env.version,
        hash: env.hash,
        kind: env.kind,
        ...(env.episodic
          ? { max_turns: env.episodic.maxTurns, class_name: classes.get(env.name), tools: env.episodic.tools }
          : {}),
      },
    ]),
  );
  return `${jsonText({ service_url: context.serviceUrl, envs }, 2)}\n`;
}

/** Writes the named shims (copied from PYTHON_DIR), the client and envforge.json into the export. */
export function writePython(context: FormatContext, shims: readonly string[]): void {
  for (const name of [CLIENT_FILE, ...shims]) context.files.text(name, readFileSync(`${PYTHON_DIR}${name}`, 'utf8'));
  context.files.text(CONFIG_FILE, shimConfig(context));
}

/**
 * The README's part on the trainer tokenizer's control tokens in module text (T8-2): which shim encodes what with the
 * trainer's tokenizer, and the one pass the dataset's prompts need where the trainer's own code loads them.
 */
export function controlTokensReadme(files: readonly string[], byShims: string): string {
  const file = files[0] ?? 'train.jsonl';
  const safe = file.replace(/(\.[a-z]+)$/, '.safe$1');
  return `
## The trainer's control tokens

An environment's text may spell the control tokens of your model's tokenizer (\`<|im_end|>\`, \`<|im_start|>system\`,
\`</tool_response>\`), which a fast tokenizer reads as turn boundaries wherever they stand. \`envforge_client.py\`
writes module text in the tokenizer's grammar (\`tokenizer_text\`): it encodes the text with the tokenizer and breaks
every special or added token it reads there with a word joiner (U+2060; a visible separator where the tokenizer's
normalizer removes that), until the tokenizer reads none. ${byShims} The prompts in the data files are read by the
trainer's own dataset code: pass them through once with the trainer's final tokenizer, the one it renders with
(\`.parquet\` needs \`datasets\`). If your training script changes the tokenizer (TRL's \`clone_chat_template\`,
\`add_tokens\`, \`add_special_tokens\`), save it after that (\`tokenizer.save_pretrained(folder)\`) and pass that
folder, not the model's name:

\`\`\`sh
python3 envforge_client.py safe-prompts <folder of the trainer's final tokenizer> ${file} ${safe}
\`\`\`

or where you load the rows: \`dataset = envforge_client.safe_prompts(dataset, tokenizer)\` (a \`datasets.Dataset\` or a
list of rows; the \`prompt\` and \`input\` columns). Enum values the model is shown this way are mapped back to what the
service expects (\`service_args\`).
`;
}

// Where envforge's own files live (seeds, prompts, the default library), whether it runs from source
// or from the compiled dist/ folder.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'envforge')
      return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the envforge package root');
    dir = parent;
  }
}

export const PACKAGE_ROOT = findPackageRoot();
export const SEEDS_DIR = join(PACKAGE_ROOT, 'seeds');
/** The episodic (contract v2) seeds. */
export const EPISODIC_SEEDS_DIR = join(SEEDS_DIR, 'episodic');
export const CODE_SEEDS_DIR = join(SEEDS_DIR, 'code');
export const PROMPTS_DIR = join(PACKAGE_ROOT, 'prompts');
export const DEFAULT_LIBRARY_DIR = join(PACKAGE_ROOT, 'generated');

// Turns a FILE|NAME[@VERSION] argument into environment source: a path on disk, an environment of the
// library (resolved like `library show`), or the name of a seed.
import { lstatSync } from 'node:fs';
import { UsageError } from '../contract/errors.js';
import { MAX_MODULE_BYTES, ModuleFileError, readModuleFileSync } from '../contract/module-file.js';
import type { EnvRecord, Library } from '../library/contract.js';
import { libraryExists, openLibrary, resolveLibraryDir } from '../library/open.js';
import { listShippedSeeds } from '../library/seeds.js';

export interface ResolvedEnv {
  label: string;
  source: string;
}

/**
 * A module file's text (contract/module-file.ts): only a regular file, reached through no symbolic link in any
 * component of the path (a handed folder may be a link to a folder of secrets), never a pipe, device, socket or
 * directory, refused before anything is read. No error quotes the file's text; a usage error (exit 2).
 */
export function readEnvFile(path: string): ResolvedEnv {
  try {
    return { label: path, source: readModuleFileSync(path, { maxBytes: MAX_MODULE_BYTES, noLinkComponents: true }) };
  } catch (error) {
    if (error instanceof ModuleFileError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/** Parses NAME or NAME@VERSION. */
export function parseRef(ref: string): { name: string; version?: number } {
  const at = ref.lastIndexOf('@');
  if (at < 0) return { name: ref };
  const version = Number(ref.slice(at + 1));
  if (!Number.isSafeInteger(version) || version < 1)
    throw new UsageError(`"${ref}": the version after @ must be a positive integer`);
  return { name: ref.slice(0, at), version };
}

/** The named environment (newest version, or NAME@VERSION), or a usage error (exit 2) naming it. */
export async function requireEnv(library: Library, ref: string): Promise<EnvRecord> {
  const { name, version } = parseRef(ref);
  const env = await library.get(name, version);
  if (env) return env;
  const newest = version === undefined ? undefined : await library.get(name);
  throw new UsageError(
    newest
      ? `unknown environment "${ref}": ${name} has versions 1-${newest.version}`
      : `unknown environment "${ref}" (envforge library list shows what the library holds)`,
  );
}

/**
 * A module file when the target is a path; else NAME[@VERSION] in the library (--library, else
 * $ENVFORGE_LIBRARY, else generated/), when there is one; else a seed of that name.
 */
export async function resolveEnv(target: string, libraryFlag?: string, databaseFlag?: string): Promise<ResolvedEnv> {
  // lstat: a symbolic link (even a dangling one) is a path on disk, refused by readEnvFile, never a name.
  if (lstatSync(target, { throwIfNoEntry: false }) || /[/\\]|\.m?js$/.test(target)) return readEnvFile(target);
  const { name, version } = parseRef(target);
  const dir = resolveLibraryDir(libraryFlag, databaseFlag);
  if (await libraryExists(dir)) {
    const library = openLibrary(dir, { readonly: true });
    try {
      const env = await library.get(name, version);
      if (env) return { label: `${env.name}@${env.version}`, source: await library.source(env) };
      // A version names the library only: say which versions it has.
      if (version !== undefined) await requireEnv(library, target);
    } finally {
      await library.close();
    }
  } else if (version !== undefined) {
    throw new UsageError(`"${target}" names a library version, but there is no library at ${dir} (give --library DIR)`);
  }
  const seeds = listShippedSeeds();
  const seed = seeds.find((s) => s.name === name);
  if (seed) return { label: seed.name, source: seed.source };
  const names = seeds.map((s) => s.name).join(', ');
  throw new UsageError(
    `unknown environment "${target}": not a file, not in the library at ${dir}, and not a seed (${names})`,
  );
}

/**
 * The sandbox names every module `environment.js`; a message about a file or a library environment names it instead.
 */
export const blame = (message: string, label: string): string => message.replaceAll('environment.js:', `${label}:`);

// Turns a FILE|NAME[@VERSION] argument into environment source: a path on disk, an environment of the
// library (resolved like `library show`), or the name of a seed.
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { UsageError } from '../contract/errors.js';
import type { EnvRecord, Library } from '../library/contract.js';
import { libraryExists, openLibrary, resolveLibraryDir } from '../library/open.js';
import { listShippedSeeds } from '../library/seeds.js';

export interface ResolvedEnv {
  label: string;
  source: string;
}

/** The largest module file read (the sandbox takes 512 K characters; a UTF-8 character is at most 4 bytes). */
export const MAX_MODULE_BYTES = 4 * 512 * 1024;

/** What a path that is not a regular file is, in words. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * A module file's text. Only a regular file is read: the final path component must not be a symbolic link
 * (opened with O_NOFOLLOW, so nothing can swap one in after a check), and a pipe, device, socket or directory
 * is refused before anything is read (O_NONBLOCK: opening a pipe does not wait for a writer). No error quotes
 * the file's text.
 */
export function readEnvFile(path: string): ResolvedEnv {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`no such file: ${path}`);
    if (code === 'ELOOP') throw new UsageError(`${path} is a symbolic link: envforge reads a module only from a regular file (give the path of the file itself)`);
    throw new UsageError(`cannot read ${path}: ${code ?? (error as Error).message}`, { cause: error });
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new UsageError(`${path} is ${kindOf(stats)}: envforge reads a module only from a regular file`);
    if (stats.size > MAX_MODULE_BYTES) throw new UsageError(`${path} has ${stats.size} bytes, over the ${MAX_MODULE_BYTES} a module may have`);
    return { label: path, source: readFileSync(fd, 'utf8') };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  } finally {
    closeSync(fd);
  }
}

/** Parses NAME or NAME@VERSION. */
export function parseRef(ref: string): { name: string; version?: number } {
  const at = ref.lastIndexOf('@');
  if (at < 0) return { name: ref };
  const version = Number(ref.slice(at + 1));
  if (!Number.isSafeInteger(version) || version < 1) throw new UsageError(`"${ref}": the version after @ must be a positive integer`);
  return { name: ref.slice(0, at), version };
}

/** The named environment (newest version, or NAME@VERSION), or a usage error (exit 2) naming it. */
export async function requireEnv(library: Library, ref: string): Promise<EnvRecord> {
  const { name, version } = parseRef(ref);
  const env = await library.get(name, version);
  if (env) return env;
  const newest = version === undefined ? undefined : await library.get(name);
  throw new UsageError(newest ? `unknown environment "${ref}": ${name} has versions 1-${newest.version}` : `unknown environment "${ref}" (envforge library list shows what the library holds)`);
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
  throw new UsageError(`unknown environment "${target}": not a file, not in the library at ${dir}, and not a seed (${names})`);
}

/** The sandbox names every module `environment.js`; a message about a file or a library environment names it instead. */
export const blame = (message: string, label: string): string => message.replaceAll('environment.js:', `${label}:`);

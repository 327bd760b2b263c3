// Reading a module file without trusting its path or the file: only a regular file (a pipe, device, socket or
// directory is refused before anything is read, and opening a pipe never waits), never through a symbolic link,
// at most a given size however the file changes meanwhile; the errors name the path and why, never the text.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';

/** The largest module file read (the sandbox takes 512 K characters; a UTF-8 character is at most 4 bytes). */
export const MAX_MODULE_BYTES = 4 * 512 * 1024;

/**
 * O_NOFOLLOW: the last component may not be a link (nothing can swap one in after a check); O_NONBLOCK: a pipe opens
 * without a writer.
 */
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export type ModuleFileProblem = 'missing' | 'link' | 'not-a-file' | 'too-large' | 'unreadable';

/** Why a module file was not read; the message names the path, never a byte of the file. */
export class ModuleFileError extends Error {
  constructor(
    readonly problem: ModuleFileProblem,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface ModuleFileOptions {
  /** The most bytes read; a larger file (or one that grows past it while read) is refused. */
  maxBytes: number;
  /**
   * Refuse a symbolic link in any component of the path, not only the last (a path the operator was handed:
   * `candidates/` may be a link to a folder of secrets). A library's own files need only the last.
   */
  noLinkComponents?: boolean;
}

/** What a path that is not a regular file is, in words. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

function openFailure(path: string, error: unknown): ModuleFileError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new ModuleFileError('missing', `no such file: ${path}`, { cause: error });
  if (code === 'ELOOP')
    return new ModuleFileError(
      'link',
      `${path} is a symbolic link: a module is read only from a regular file (give the path of the file itself)`,
      { cause: error },
    );
  return new ModuleFileError('unreadable', `cannot read ${path}: ${code ?? (error as Error).message}`, {
    cause: error,
  });
}

/** The buffer a checked file is read into: its size and one byte more, so a file that grew meanwhile is seen to. */
function checkStats(path: string, stats: Stats, maxBytes: number): Buffer {
  if (!stats.isFile())
    throw new ModuleFileError('not-a-file', `${path} is ${kindOf(stats)}: a module is read only from a regular file`);
  if (stats.size > maxBytes)
    throw new ModuleFileError('too-large', `${path} has ${stats.size} bytes, over the ${maxBytes} a module may have`);
  return Buffer.alloc(stats.size + 1);
}

/** The text read into `buffer` (`length` bytes); a file that filled it changed while it was read. */
function textOf(path: string, buffer: Buffer, length: number): string {
  if (length === buffer.length)
    throw new ModuleFileError(
      'unreadable',
      `${path} changed while it was read (it grew): read it again once it is written`,
    );
  return buffer.toString('utf8', 0, length);
}

/** The first component of the absolute path `abs` that is a symbolic link, or null. */
function firstLink(abs: string): string | null {
  let at = '';
  for (const part of abs.split(sep).filter(Boolean)) {
    at = `${at}${sep}${part}`;
    if (lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) return at;
  }
  return null;
}

/**
 * Refuses the open file `fd` when the kernel reached it by another path than `path` names lexically: a link in
 * some component, or `..` after one. Linux tells the opened file's own path (/proc/self/fd); elsewhere realpath
 * is compared, and the file it names must be the one open.
 */
function refuseLinkedPath(path: string, fd: number, stats: Stats): void {
  const lexical = resolve(path);
  let real: string;
  try {
    real = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    real = realpathSync(path);
    const named = lstatSync(real);
    if (named.ino !== stats.ino || named.dev !== stats.dev) real = `${real} (another file)`;
  }
  if (real === lexical) return;
  const link = firstLink(dirname(lexical));
  throw new ModuleFileError(
    'link',
    `${path} reaches its file through ${link ? `the symbolic link ${link}` : 'a symbolic link'}: a module is ` +
      `read only by its own path, with no link in any component (give the real path, e.g. from realpath, if ` +
      `you trust what it names)`,
  );
}

/** A module file's text, for a command: every check above, synchronously. */
export function readModuleFileSync(path: string, options: ModuleFileOptions): string {
  let fd: number;
  try {
    fd = openSync(path, FLAGS);
  } catch (error) {
    throw openFailure(path, error);
  }
  try {
    const stats = fstatSync(fd);
    const buffer = checkStats(path, stats, options.maxBytes);
    if (options.noLinkComponents) refuseLinkedPath(path, fd, stats);
    let length = 0;
    for (let n = 1; n > 0 && length < buffer.length; length += n)
      n = readSync(fd, buffer, length, buffer.length - length, null);
    return textOf(path, buffer, length);
  } catch (error) {
    if (error instanceof ModuleFileError) throw error;
    throw new ModuleFileError(
      'unreadable',
      `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { cause: error },
    );
  } finally {
    closeSync(fd);
  }
}

/** The same without blocking the event loop (a serving process): the last component is never followed. */
export async function readModuleFile(
  path: string,
  options: Omit<ModuleFileOptions, 'noLinkComponents'>,
): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, FLAGS);
  } catch (error) {
    throw openFailure(path, error);
  }
  try {
    const buffer = checkStats(path, await handle.stat(), options.maxBytes);
    let length = 0;
    for (let n = 1; n > 0 && length < buffer.length; length += n)
      n = (await handle.read(buffer, length, buffer.length - length, null)).bytesRead;
    return textOf(path, buffer, length);
  } catch (error) {
    if (error instanceof ModuleFileError) throw error;
    throw new ModuleFileError(
      'unreadable',
      `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { cause: error },
    );
  } finally {
    await handle.close();
  }
}

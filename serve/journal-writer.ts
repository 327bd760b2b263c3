// The episode journal's writer: appends off the event loop's thread, on descriptors kept open (about one per
// open session), each line going out at once and the lines that queue meanwhile together; each request is
// answered once its line has landed.
import { chmodSync, close, mkdirSync, open, readFileSync, statSync, write } from 'node:fs';
import { ServeError } from './options.js';

/** The most journal files kept open for appending: opening and closing a file per step costs more than the step. */
const MAX_OPEN_FILES = 8_192;

interface Line {
  text: string;
  landed: () => void;
  failed: (error: Error) => void;
}

/** Journal files kept open: about one per open session, within a quarter of the process's descriptor limit. */
function openFilesBudget(): number {
  try {
    const soft = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    if (soft) return Math.max(64, Math.min(MAX_OPEN_FILES, Math.floor(Number(soft) / 4)));
  } catch {
    // not Linux: the conservative default
  }
  return 256;
}

/**
 * Makes `dir` the service's private folder (V25-5: a journal holds episode ids, bearer capabilities): created 0700; one
 * already there that other accounts may enter is narrowed to 0700 when this process owns it, and refused when it does
 * not (as ssh refuses a key file others can read), so no other local account reads an id.
 */
export function privateFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const held = statSync(dir);
  if ((held.mode & 0o077) === 0) return;
  if (typeof process.getuid === 'function' && held.uid !== process.getuid())
    throw new ServeError(
      400,
      'E_USAGE',
      `the episodes folder ${JSON.stringify(dir)} is open to other accounts ` +
        `(mode ${(held.mode & 0o777).toString(8)}) ` +
        'and owned by another: its journals hold episode ids, which are secrets; give the service a folder of its own',
    );
  chmodSync(dir, 0o700);
}

/** A journal file is the service's alone (0600): its lines carry an episode's id. */
const opened = (file: string) =>
  new Promise<number>((resolve, reject) =>
    open(file, 'a', 0o600, (error, fd) => (error ? reject(error) : resolve(fd))),
  );
/**
 * Appends all of `bytes` (O_APPEND: each write lands whole at the end, whoever else appends; a short one is continued).
 */
function appended(fd: number, bytes: Buffer, at = 0): Promise<void> {
  return new Promise((resolve, reject) =>
    write(fd, bytes, at, bytes.length - at, null, (error, n) => {
      if (error) reject(error);
      else if (at + n < bytes.length) appended(fd, bytes, at + n).then(resolve, reject);
      else resolve();
    }),
  );
}
const closeQuietly = (fd: Promise<number>) => void fd.then((n) => close(n, () => {})).catch(() => {});

/**
 * Appends lines to files, each write resolving once its line has landed (in the kernel: it survives a crash
 * of this process, not of the machine; there is no fsync) and rejecting when it could not be written. A line
 * goes out at once, in the thread pool, so the loop's thread never waits on the disk (a synchronous write
 * stalled it whenever another process's fsync held the file system, and writes held to the end of the loop
 * turn answered a step one turn later); lines queued while their file's write is under way go out together
 * in the next one, on a descriptor kept open. Lines for one file land in the order written.
 */
export class JournalWriter {
  /** Appends that failed (a full or read-only disk): those episodes do not survive a restart. */
  writeErrors = 0;
  /** Per file with a write under way: the lines waiting for the next one, and the write's end. */
  private readonly writing = new Map<string, { next: Line[]; done: Promise<void> }>();
  /** Open descriptors, least recently written first. */
  private readonly fds = new Map<string, Promise<number>>();
  private readonly openFiles = openFilesBudget();
  /** Files whose last write failed: it may have left a torn line, so the next write starts a new line. */
  private readonly torn = new Set<string>();

  write(file: string, line: string): Promise<void> {
    return new Promise<void>((landed, failed) => {
      const under = this.writing.get(file);
      if (under) under.next.push({ text: line, landed, failed });
      else this.start(file, [{ text: line, landed, failed }]);
    });
  }

  /** Whether lines for the file are being written. */
  busy(file: string): boolean {
    return this.writing.has(file);
  }

  /** Whether the writer holds the file open (a sweep must not delete it). */
  holds(file: string): boolean {
    return this.fds.has(file);
  }

  /** Waits until every line written so far for the file has landed or failed. */
  async landed(file: string): Promise<void> {
    for (let under = this.writing.get(file); under; under = this.writing.get(file)) await under.done;
  }

  /**
   * Waits until the file's lines so far have landed or failed, then closes its descriptor (before the file is deleted).
   */
  async close(file: string): Promise<void> {
    await this.landed(file);
    const fd = this.fds.get(file);
    this.fds.delete(file);
    if (fd) closeQuietly(fd);
  }

  /** Waits for every line written so far, then closes every file. */
  async settle(): Promise<void> {
    while (this.writing.size > 0) await Promise.all([...this.writing.values()].map((w) => w.done));
    for (const fd of this.fds.values()) closeQuietly(fd);
    this.fds.clear();
  }

  private start(file: string, lines: Line[]): void {
    const under = { next: [] as Line[], done: Promise.resolve() };
    this.writing.set(file, under);
    under.done = this.land(file, lines).then(() => {
      if (under.next.length > 0) return this.start(file, under.next);
      this.writing.delete(file);
      this.trim();
    });
  }

  private async land(file: string, lines: Line[]): Promise<void> {
    try {
      await appended(
        await this.fd(file),
        Buffer.from((this.torn.has(file) ? '\n' : '') + lines.map((l) => l.text).join('')),
      );
      this.torn.delete(file);
      for (const l of lines) l.landed();
    } catch (error) {
      this.writeErrors++;
      this.torn.add(file);
      const fd = this.fds.get(file);
      this.fds.delete(file);
      if (fd) closeQuietly(fd);
      for (const l of lines) l.failed(error as Error);
    }
  }

  private fd(file: string): Promise<number> {
    let fd = this.fds.get(file);
    if (fd) this.fds.delete(file);
    else fd = opened(file);
    this.fds.set(file, fd);
    return fd;
  }

  /** Closes the least recently written descriptors past the budget (never one with a write under way). */
  private trim(): void {
    if (this.fds.size <= this.openFiles) return;
    for (const [file, fd] of this.fds) {
      if (this.fds.size <= this.openFiles) return;
      if (this.busy(file)) continue;
      this.fds.delete(file);
      closeQuietly(fd);
    }
  }
}

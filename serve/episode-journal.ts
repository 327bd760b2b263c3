// The episode journal: one small append-only file per episode session (its identity, then one line per
// action, then how it ended), so a restarted server, or another replica sharing the folder, rebuilds any
// episode by replaying its actions; nothing else about a session is stored (docs/reward-service.md).
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { opendir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { recentMemo } from '../sandbox/recent.js';
import { ServeError } from './options.js';

/** What an episode is: an environment version, a seed and a level (its module hash pins the code). */
export interface EpisodeIdentity {
  env: string;
  version: number;
  seed: number;
  level: number;
}

/** What a client asks to start: an environment (its latest version unless one is named), a seed and a level. */
export interface EpisodeRequest {
  env: string;
  version?: number | undefined;
  seed: number;
  level: number;
}

/** The end of an episode its client stopped before it finished (DELETE, an OpenEnv close): scored as its state stands. */
export const TRUNCATED = 'truncated';

/** How an episode ended, as journaled: by the environment or the limits (done/turns/errors), the client (truncated), or a failure. */
export interface JournalEnd {
  end: string;
  code?: string;
}

export interface JournalEntry {
  identity: EpisodeIdentity & { hash: string };
  actions: unknown[];
  ended: JournalEnd | null;
}

const ID_PREFIX = 'ep1';
/** The most journal files kept open for appending: opening and closing a file per step costs more than the step. */
const MAX_OPEN_FILES = 8_192;
const MAX_ID_CHARS = 600;

/** The journal name of an Idempotency-Key's record: never an episode id (those start with ID_PREFIX). */
const keyName = (key: string): string => `key:${key}`;

/** A new episode id: `ep1.<base64url of [env, version, seed, level]>.<32 random hex>`; the identity is readable from it. */
export function newEpisodeId(identity: EpisodeIdentity): string {
  const body = Buffer.from(JSON.stringify([identity.env, identity.version, identity.seed, identity.level])).toString('base64url');
  return `${ID_PREFIX}.${body}.${randomBytes(16).toString('hex')}`;
}

/** The identity an episode id carries, or null when the text is no episode id of ours. */
export function parseEpisodeId(id: string): EpisodeIdentity | null {
  if (id.length > MAX_ID_CHARS) return null;
  const parts = id.split('.');
  if (parts.length !== 3 || parts[0] !== ID_PREFIX || !/^[0-9a-f]{32}$/.test(parts[2] as string) || !/^[A-Za-z0-9_-]+$/.test(parts[1] as string)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 4) return null;
    const [env, version, seed, level] = value as unknown[];
    if (typeof env !== 'string' || ![version, seed, level].every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) return null;
    return { env, version: version as number, seed: seed as number, level: level as number };
  } catch {
    return null;
  }
}

/** Writes all of `text` at the end of the file (a regular file takes it in one write; a short one is continued). */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed or its disk gone: nothing to keep
  }
}

/** Waits for a journal write; one that fails is a 503 (retryable) and the caller changes nothing. */
export async function journaled(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    throw new ServeError(503, 'E_JOURNAL', `the episode journal could not be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); nothing changed, retry later`);
  }
}

/** A line waiting for its file, with its writer's callbacks. */
interface Line {
  text: string;
  landed: () => void;
  failed: (error: Error) => void;
}

/** Journal files kept open for appending (the most recently written): about one per open session, within a quarter of the process's descriptor limit. */
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
 * Group commit: the lines every request of one turn of the event loop queued are written together at the
 * end of that turn, one write(2) per file on a descriptor kept open, before any of those requests is
 * answered (each write resolves once its line has landed). A line that has landed is in the kernel: it
 * survives a crash of this process, not of the machine (no fsync, as before). Writing in the loop's own
 * thread costs one system call per file; the thread pool's asynchronous writes cost a round trip each and
 * were a seventh of the server's CPU per step (bench/README.md). Reads wait for their file's writes.
 */
export class EpisodeJournal {
  /** Lines queued this turn, by file, and the turn-end flush that writes them. */
  private queued = new Map<string, Line[]>();
  private flushing: Promise<void> | null = null;
  /** Open descriptors, least recently written first. */
  private readonly fds = new Map<string, number>();
  private readonly openFiles = openFilesBudget();
  /** Appends that failed (a full or read-only disk): those episodes do not survive a restart. */
  writeErrors = 0;
  /** Files are named by a digest of the id, so no id can name a path; memoised, as a step names the same few thousand ids again and again. */
  private readonly fileOf = recentMemo((id: string) => join(this.dir, `${createHash('sha256').update(id).digest('hex').slice(0, 40)}.jsonl`), 8_192);

  constructor(
    readonly dir: string,
    /** A journal untouched this long is deleted (its episode is then unknown). */
    readonly ttlMs: number,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  /** Files whose last write failed: it may have left a torn line, so the next write starts a new line. */
  private readonly torn = new Set<string>();

  private write(id: string, line: string): Promise<void> {
    const file = this.fileOf(id);
    let lines = this.queued.get(file);
    if (!lines) this.queued.set(file, (lines = []));
    const written = new Promise<void>((landed, failed) => (lines as Line[]).push({ text: line, landed, failed }));
    // After the current I/O phase, so the lines of every request it handled go out together.
    this.flushing ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        this.flushing = null;
        this.flush();
        resolve();
      }),
    );
    return written;
  }

  private flush(): void {
    const groups = this.queued;
    this.queued = new Map();
    for (const [file, lines] of groups) {
      try {
        writeAll(this.fd(file), (this.torn.has(file) ? '\n' : '') + lines.map((l) => l.text).join(''));
        this.torn.delete(file);
        for (const l of lines) l.landed();
      } catch (error) {
        this.writeErrors++;
        this.torn.add(file);
        this.close(file);
        for (const l of lines) l.failed(error as Error);
      }
    }
    this.trim();
  }

  /** The file's open descriptor (O_APPEND: each write lands whole at the end, whoever else appends). */
  private fd(file: string): number {
    let fd = this.fds.get(file);
    if (fd === undefined) fd = openSync(file, 'a');
    else this.fds.delete(file);
    this.fds.set(file, fd);
    return fd;
  }

  private close(file: string): void {
    const fd = this.fds.get(file);
    this.fds.delete(file);
    if (fd !== undefined) closeQuietly(fd);
  }

  /** Closes the least recently written descriptors past the budget. */
  private trim(): void {
    for (const file of this.fds.keys()) {
      if (this.fds.size <= this.openFiles) return;
      this.close(file);
    }
  }

  /** Resolves once every write so far has landed, and closes the files. */
  async settle(): Promise<void> {
    while (this.flushing) await this.flushing;
    for (const file of [...this.fds.keys()]) this.close(file);
  }

  /** Waits for the lines queued for `file`, if any (a read sees every write made before it). */
  private async landed(file: string): Promise<void> {
    if (this.queued.has(file)) await this.flushing;
  }

  /** Each write resolves once its line has landed and rejects when it could not be written (a full disk, no file handles). */
  create(id: string, identity: EpisodeIdentity & { hash: string }): Promise<void> {
    return this.write(id, `${JSON.stringify({ id, ...identity })}\n`);
  }

  /**
   * Records that the client's Idempotency-Key `key` created episode `id`, in a file of its own (named by a
   * digest of the key, swept with the journals), so a retried create finds the episode even after a restart.
   */
  bindKey(key: string, id: string): Promise<void> {
    return this.write(keyName(key), `${JSON.stringify({ key: keyName(key), id })}\n`);
  }

  /** The episode id an Idempotency-Key created, or null when it created none (or its record expired). */
  async keyed(key: string): Promise<string | null> {
    const file = this.fileOf(keyName(key));
    await this.landed(file);
    try {
      const record = JSON.parse((await readFile(file, 'utf8')).split('\n')[0] as string) as { key?: unknown; id?: unknown };
      return record.key === keyName(key) && typeof record.id === 'string' ? record.id : null;
    } catch {
      return null;
    }
  }

  /** Appends turn `turn`'s action. */
  append(id: string, turn: number, action: unknown): Promise<void> {
    return this.write(id, `${JSON.stringify({ turn, action })}\n`);
  }

  end(id: string, ended: JournalEnd): Promise<void> {
    return this.write(id, `${JSON.stringify(ended)}\n`);
  }

  /** The journaled episode, or null when none is (never created, expired, or not ours). Torn lines are ignored. */
  async read(id: string): Promise<JournalEntry | null> {
    const file = this.fileOf(id);
    await this.landed(file);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      return null;
    }
    const lines = text.split('\n');
    let header: Record<string, unknown>;
    try {
      header = JSON.parse(lines[0] as string) as Record<string, unknown>;
    } catch {
      return null;
    }
    if (header.id !== id || typeof header.hash !== 'string') return null;
    const actions: unknown[] = [];
    let ended: JournalEnd | null = null;
    for (const line of lines.slice(1)) {
      if (line === '') continue;
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue; // a line torn by a failed write: its turn was refused and written again after it
      }
      if (typeof entry.end === 'string') {
        ended = { end: entry.end, ...(typeof entry.code === 'string' ? { code: entry.code } : {}) };
        break;
      }
      if (entry.turn !== actions.length + 1) break; // a line out of order: the journal is trusted up to here
      actions.push(entry.action);
    }
    const identity = { env: String(header.env), version: Number(header.version), seed: Number(header.seed), level: Number(header.level), hash: header.hash };
    return { identity, actions, ended };
  }

  private sweeping: Promise<number> | null = null;

  /**
   * Deletes journals untouched for ttlMs; returns how many. The folder is read as a stream of entries, one
   * stat at a time, so millions of journals cost the event loop nothing at once; one sweep runs at a time.
   */
  sweep(now = Date.now()): Promise<number> {
    this.sweeping ??= this.sweepFolder(now).finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  private async sweepFolder(now: number): Promise<number> {
    let removed = 0;
    for await (const entry of await opendir(this.dir, { bufferSize: 64 })) {
      const name = entry.name;
      if (!name.endsWith('.jsonl')) continue;
      const file = join(this.dir, name);
      try {
        if (now - (await stat(file)).mtimeMs > this.ttlMs && !this.queued.has(file) && !this.fds.has(file)) {
          await unlink(file);
          removed++;
        }
      } catch {
        // removed by another replica meanwhile
      }
    }
    return removed;
  }
}

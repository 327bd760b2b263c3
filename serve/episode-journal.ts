// The episode journal: one small append-only file per episode session (its identity, then one line per
// action, then how it ended), so a restarted server, or another replica sharing the folder, rebuilds any
// episode by replaying its actions; nothing else about a session is stored (docs/reward-service.md).
import { createHash, randomBytes } from 'node:crypto';
import { opendir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { recentMemo } from '../sandbox/recent.js';
import { JournalWriter, privateFolder } from './journal-writer.js';
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

/**
 * The end of an episode its client stopped before it finished (DELETE, an OpenEnv close): scored as its state stands.
 */
export const TRUNCATED = 'truncated';

/**
 * How an episode ended, as journaled: by the environment or the limits (done/turns/errors), the client (truncated), or
 * a failure.
 */
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
const MAX_ID_CHARS = 600;

/** The journal name of an Idempotency-Key's record: never an episode id (those start with ID_PREFIX). */
const keyName = (key: string): string => `key:${key}`;
/** A snapshot's temporary file while it is written (snapshotTemp): swept by age with the journals. */
const SNAPSHOT_TEMP = /\.snap\.[0-9a-f]{12}$/;

/**
 * A new episode id: `ep1.<base64url of [env, version, seed, level]>.<32 random hex>`; the identity is readable from it.
 */
export function newEpisodeId(identity: EpisodeIdentity): string {
  const body = Buffer.from(JSON.stringify([identity.env, identity.version, identity.seed, identity.level])).toString(
    'base64url',
  );
  return `${ID_PREFIX}.${body}.${randomBytes(16).toString('hex')}`;
}

/** The identity an episode id carries, or null when the text is no episode id of ours. */
export function parseEpisodeId(id: string): EpisodeIdentity | null {
  if (id.length > MAX_ID_CHARS) return null;
  const parts = id.split('.');
  if (
    parts.length !== 3 ||
    parts[0] !== ID_PREFIX ||
    !/^[0-9a-f]{32}$/.test(parts[2] as string) ||
    !/^[A-Za-z0-9_-]+$/.test(parts[1] as string)
  )
    return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 4) return null;
    const [env, version, seed, level] = value as unknown[];
    if (typeof env !== 'string' || ![version, seed, level].every((n) => Number.isSafeInteger(n) && (n as number) >= 0))
      return null;
    return { env, version: version as number, seed: seed as number, level: level as number };
  } catch {
    return null;
  }
}

/** Waits for a journal write; one that fails is a 503 (retryable) and the caller changes nothing. */
export async function journaled(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    throw new ServeError(
      503,
      'E_JOURNAL',
      `the episode journal could not be written (` +
        `${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); nothing changed, retry later`,
    );
  }
}

/**
 * The journal's files: appends go through the writer (journal-writer.ts: group commit, one message per
 * loop turn to a writer thread), each resolving once its line has landed, so a step is answered only once
 * it is journaled; reads wait for their file's writes.
 */
export class EpisodeJournal {
  private readonly writer = new JournalWriter();
  /**
   * Files are named by a digest of the id, so no id can name a path; memoised, as a step names the same few thousand
   * ids again and again.
   */
  private readonly fileOf = recentMemo(
    (id: string) => join(this.dir, `${createHash('sha256').update(id).digest('hex').slice(0, 40)}.jsonl`),
    8_192,
  );

  constructor(
    readonly dir: string,
    /** A journal untouched this long is deleted (its episode is then unknown). */
    readonly ttlMs: number,
  ) {
    privateFolder(dir);
  }

  /** Appends that failed (a full or read-only disk): those episodes do not survive a restart. */
  get writeErrors(): number {
    return this.writer.writeErrors;
  }

  /** Told the bytes of each line written to an episode's journal (journal-quota.ts charges them to its client). */
  written: (id: string, bytes: number) => void = () => {};
  /**
   * Asked before an episode's snapshot of `size` bytes is written beside its journal: charged, or false to not write.
   */
  maySnapshot: (id: string, size: number) => boolean = () => true;

  private write(id: string, line: string): Promise<void> {
    this.written(id, Buffer.byteLength(line));
    return this.writer.write(this.fileOf(id), line);
  }

  /** Resolves once every write so far has landed, and closes the files. */
  settle(): Promise<void> {
    return this.writer.settle();
  }

  /**
   * Each write resolves once its line has landed and rejects when it could not be written (a full disk, no file
   * handles).
   */
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
    await this.writer.landed(file);
    try {
      const record = JSON.parse((await readFile(file, 'utf8')).split('\n')[0] as string) as {
        key?: unknown;
        id?: unknown;
      };
      return record.key === keyName(key) && typeof record.id === 'string' ? record.id : null;
    } catch {
      return null;
    }
  }

  /** The file of an episode's snapshot (episode-snapshots.ts), beside its journal and swept with it. */
  snapshotFile(id: string): string {
    return `${this.fileOf(id).slice(0, -'.jsonl'.length)}.snap`;
  }

  /** A new temporary file for `id`'s snapshot, renamed onto snapshotFile once written (a crash leaves it to sweep). */
  snapshotTemp(id: string): string {
    return `${this.snapshotFile(id)}.${randomBytes(6).toString('hex')}`;
  }

  /** Deletes an episode's journal, or with `key`, an Idempotency-Key's record, once its writes have landed. */
  async remove(id: string, key = false): Promise<void> {
    const file = this.fileOf(key ? keyName(id) : id);
    await this.writer.close(file);
    await unlink(file).catch(() => {}); // already swept, or removed by another replica
    if (!key) await unlink(this.snapshotFile(id)).catch(() => {}); // none was written
  }

  /** Appends turn `turn`'s action. */
  append(id: string, turn: number, action: unknown): Promise<void> {
    return this.write(id, `${JSON.stringify({ turn, action })}\n`);
  }

  /** Takes back turn `turn`'s action (its step was never run): read as if it had not been written. */
  retract(id: string, turn: number): Promise<void> {
    return this.write(id, `${JSON.stringify({ retract: turn })}\n`);
  }

  /**
   * Takes back the journal line of a step the sandbox did not run, before its 503 is answered. Where that cannot
   * be written, the session's next step writes its turn again, and a later line for a turn replaces an earlier one.
   */
  async takeBack(id: string, turn: number, line: Promise<void>): Promise<void> {
    // a torn line is never trusted
    if (await line.then(() => true).catch(() => false)) await this.retract(id, turn).catch(() => {});
  }

  end(id: string, ended: JournalEnd): Promise<void> {
    return this.write(id, `${JSON.stringify(ended)}\n`);
  }

  /** The journaled episode, or null when none is (never created, expired, or not ours). Torn lines are ignored. */
  async read(id: string): Promise<JournalEntry | null> {
    const file = this.fileOf(id);
    await this.writer.landed(file);
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
      if (typeof entry.retract === 'number') {
        if (entry.retract === actions.length) actions.pop(); // a step written beside its rollout, which never ran
        continue;
      }
      // A line that skips a turn (two writers raced) ends what is trusted; a later line for a turn already read
      // replaces it and what followed it (a step sent again after its retraction could not be written).
      if (
        typeof entry.turn !== 'number' ||
        !Number.isSafeInteger(entry.turn) ||
        entry.turn < 1 ||
        entry.turn > actions.length + 1
      )
        break;
      actions.length = entry.turn - 1;
      actions.push(entry.action);
    }
    const identity = {
      env: String(header.env),
      version: Number(header.version),
      seed: Number(header.seed),
      level: Number(header.level),
      hash: header.hash,
    };
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
      if (!name.endsWith('.jsonl') && !name.endsWith('.snap') && !SNAPSHOT_TEMP.test(name)) continue;
      const file = join(this.dir, name);
      try {
        if (now - (await stat(file)).mtimeMs > this.ttlMs && !this.writer.busy(file) && !this.writer.holds(file)) {
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

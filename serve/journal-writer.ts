// The episode journal's writer: group commit off the event loop. The lines every request of one loop turn
// queued go to a writer thread in one message, which appends them (one write(2) per file, on descriptors it
// keeps open) and answers once they have landed; only then are those requests answered.
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/** The most journal files kept open for appending: opening and closing a file per step costs more than the step. */
const MAX_OPEN_FILES = 8_192;

/**
 * The writer thread's script (plain CommonJS, evaluated as given, so it runs the same from dist/ and under
 * the tests' loader). Each message: close these files, then append these texts; it answers which failed.
 */
const WRITER_SCRIPT = `
const { parentPort } = require('node:worker_threads');
const { closeSync, openSync, writeSync } = require('node:fs');
const fds = new Map();
const close = (file) => { const fd = fds.get(file); fds.delete(file); if (fd !== undefined) try { closeSync(fd); } catch {} };
parentPort.on('message', ({ seq, close: closing, writes }) => {
  for (const file of closing) close(file);
  const failed = [];
  for (const [file, text] of writes) {
    try {
      let fd = fds.get(file);
      if (fd === undefined) fds.set(file, (fd = openSync(file, 'a')));
      const bytes = Buffer.from(text);
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    } catch (error) {
      failed.push([file, String(error && (error.code || error.message))]);
      close(file);
    }
  }
  parentPort.postMessage({ seq, failed });
});
`;

interface Line {
  text: string;
  landed: () => void;
  failed: (error: Error) => void;
}

interface Reply {
  seq: number;
  failed: Array<[string, string]>;
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
 * Appends lines to files, each write resolving once its line has landed (in the kernel: it survives a crash
 * of this process, not of the machine; there is no fsync) and rejecting when it could not be written. The
 * loop's thread only hands lines over: a disk that stalls (another process's fsync on the same file system)
 * stalls the writer thread, never the service. Lines for one file land in the order they were written.
 */
export class JournalWriter {
  /** Appends that failed (a full or read-only disk): those episodes do not survive a restart. */
  writeErrors = 0;
  private queued = new Map<string, Line[]>();
  private scheduled = false;
  /** Batches handed to the thread and not yet answered, by sequence number. */
  private readonly inFlight = new Map<number, Map<string, Line[]>>();
  private seq = 0;
  /** Files the thread holds open, least recently written first (the thread follows this list). */
  private readonly open = new Map<string, true>();
  private readonly openFiles = openFilesBudget();
  /** Files whose last write failed: it may have left a torn line, so the next write starts a new line. */
  private readonly torn = new Set<string>();
  private thread: Worker | null = null;
  /** Callers waiting for the next answer (landed, settle). */
  private waiting: Array<() => void> = [];

  write(file: string, line: string): Promise<void> {
    let lines = this.queued.get(file);
    if (!lines) this.queued.set(file, (lines = []));
    const written = new Promise<void>((landed, failed) => (lines as Line[]).push({ text: line, landed, failed }));
    if (!this.scheduled) {
      this.scheduled = true;
      // After the current I/O phase, so the lines of every request it handled go out together.
      setImmediate(() => this.flush());
    }
    return written;
  }

  /** Whether lines for the file are queued or being written. */
  busy(file: string): boolean {
    if (this.queued.has(file)) return true;
    for (const batch of this.inFlight.values()) if (batch.has(file)) return true;
    return false;
  }

  /** Whether the writer holds the file open (a sweep must not delete it). */
  holds(file: string): boolean {
    return this.open.has(file);
  }

  /** Waits until every line written so far for the file has landed or failed. */
  async landed(file: string): Promise<void> {
    while (this.busy(file)) await this.answer();
  }

  /** Waits for every line written so far, then closes every file (the thread stays until it is needed again). */
  async settle(): Promise<void> {
    while (this.queued.size > 0 || this.inFlight.size > 0) await this.answer();
    if (this.open.size === 0 || !this.thread) return;
    const closing = [...this.open.keys()];
    this.open.clear();
    this.post(new Map(), closing);
    while (this.inFlight.size > 0) await this.answer();
    const thread = this.thread;
    this.thread = null;
    await thread?.terminate();
  }

  private answer(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queued;
    this.queued = new Map();
    if (batch.size === 0) return;
    for (const file of batch.keys()) {
      this.open.delete(file);
      this.open.set(file, true);
    }
    const closing: string[] = [];
    for (const file of this.open.keys()) {
      if (this.open.size - closing.length <= this.openFiles) break;
      if (!batch.has(file)) closing.push(file);
    }
    for (const file of closing) this.open.delete(file);
    this.post(batch, closing);
  }

  private post(batch: Map<string, Line[]>, closing: string[]): void {
    const seq = ++this.seq;
    this.inFlight.set(seq, batch);
    const writes = [...batch].map(([file, lines]) => [file, (this.torn.has(file) ? '\n' : '') + lines.map((l) => l.text).join('')]);
    this.writer().postMessage({ seq, close: closing, writes });
  }

  private writer(): Worker {
    if (this.thread) return this.thread;
    const thread = new Worker(WRITER_SCRIPT, { eval: true });
    thread.unref();
    thread.on('message', (reply: Reply) => this.landedBatch(reply.seq, new Map(reply.failed)));
    // A thread that dies takes its batches with it: their lines fail (retryable), and the next batch starts a new thread.
    thread.on('error', (error) => this.lost(thread, error));
    thread.on('exit', () => this.lost(thread, new Error('the journal writer thread exited')));
    return (this.thread = thread);
  }

  private lost(thread: Worker, error: Error): void {
    if (this.thread !== thread) return;
    this.thread = null;
    this.open.clear();
    for (const [seq, batch] of [...this.inFlight]) this.landedBatch(seq, new Map([...batch.keys()].map((file) => [file, error.message])));
  }

  private landedBatch(seq: number, failed: Map<string, string>): void {
    const batch = this.inFlight.get(seq);
    this.inFlight.delete(seq);
    for (const [file, lines] of batch ?? []) {
      const code = failed.get(file);
      if (code === undefined) {
        this.torn.delete(file);
        for (const l of lines) l.landed();
        continue;
      }
      this.writeErrors++;
      this.torn.add(file);
      this.open.delete(file);
      const error = Object.assign(new Error(`the journal could not be appended to (${code})`), { code });
      for (const l of lines) l.failed(error);
    }
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}

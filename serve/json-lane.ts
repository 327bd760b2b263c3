// Large JSON bodies gathered and parsed off the service's event loop: a body's chunks go to one parser thread as they
// arrive, and its parses are taken one body per client in turn, so one client's large bodies hold neither the loop
// every request needs (no concatenation, decoding or parsing there) nor another client's parse for more than one of its
// bodies (V20-3: a 32 MB body was concatenated, decoded and parsed on the loop before anyone was charged); a body is
// counted before it is parsed and refused past its route's bound on values (V21-2), and a body whose client went away
// is dropped from its queue with its chunks (V21-1).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { ServeError } from './options.js';

/**
 * Whether a JSON text would parse into more than `max` values: an upper bound, counted from its bytes without parsing
 * (the root, each array or object, each comma; nothing inside a string). Self-contained: the parser thread runs its
 * source. Depth is not bounded here: a step's deep action is the host's to refuse as a turn (a parse too deep for the
 * stack is invalid JSON, 400).
 */
export function overBound(bytes: Uint8Array, max: number): boolean {
  let n = 1;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if ((c === 0x2c || c === 0x5b || c === 0x7b) && ++n > max) return true;
  }
  return false;
}

/**
 * Gathers bodies by id, counts each against its bound (overBound) and parses as fastify's default JSON parser does
 * (secure-json-parse: no __proto__ keys); a body over its bound is never parsed.
 */
const PARSER = `
const { parentPort, workerData } = require('node:worker_threads');
const sjp = require(workerData.sjp);
const overBound = ${overBound.toString()};
const options = { protoAction: 'error', constructorAction: 'error' };
const bodies = new Map();
parentPort.on('message', ({ id, chunk, parse, maxValues }) => {
  if (chunk) {
    const list = bodies.get(id) ?? [];
    list.push(chunk);
    return void bodies.set(id, list);
  }
  const list = bodies.get(id) ?? [];
  bodies.delete(id);
  if (!parse) return;
  const bytes = Buffer.concat(list);
  list.length = 0;
  if (overBound(bytes, maxValues)) return void parentPort.postMessage({ id, over: true });
  let answer;
  try {
    answer = { id, value: sjp.parse(bytes.toString('utf8'), options) };
  } catch {
    answer = { id, invalid: true };
  }
  parentPort.postMessage(answer);
});
`;

/** secure-json-parse as fastify resolves it (the parser fastify's default JSON parser uses). */
const SJP = (() => {
  const here = createRequire(import.meta.url);
  return createRequire(here.resolve('fastify')).resolve('secure-json-parse');
})();

/** A parse's outcome: the value, or invalid (not JSON, or a forbidden key), or over its bound (not parsed). */
export type Parsed = { value?: unknown; invalid?: boolean; over?: boolean };

/** Clients whose last turn is remembered (the least recent are forgotten: they go first again, as new ones do). */
const MAX_REMEMBERED = 10_000;

interface Job {
  id: number;
  maxValues: number;
  resolve(answer: Parsed): void;
  reject(error: Error): void;
}

/** One body on its way to the parser thread. */
export interface LaneBody {
  write(chunk: Uint8Array): void;
  /** The body is complete: parsed in its client's turn, unless it holds more than `maxValues` values. */
  parse(maxValues: number): Promise<Parsed>;
  /**
   * The body is not wanted (its client went away, or it was refused): its chunks are dropped, and its parse, when it
   * waits for its turn, is cancelled (rejected); a parse already running ends as it would.
   */
  drop(): void;
}

export class JsonLane {
  /** Each client's parses waiting. */
  private readonly waiting = new Map<string, Job[]>();
  /** When each client was last served (a turn number), the least recent first. */
  private readonly served = new Map<string, number>();
  private turn = 0;
  private worker: Worker | null = null;
  /** Bumped when a thread dies: a body whose chunks went to a dead thread fails. */
  private generation = 0;
  private running: Job | null = null;
  private lastId = 0;
  private closed = false;

  /** Starts a body of `principal`'s. */
  open(principal: string): LaneBody {
    const id = ++this.lastId;
    const generation = this.generation;
    let done = false;
    return {
      write: (chunk) => {
        if (!done && !this.closed && generation === this.generation) this.thread().postMessage({ id, chunk });
      },
      parse: (maxValues) => {
        done = true;
        if (this.closed) return Promise.reject(closing());
        if (generation !== this.generation) return Promise.reject(restarted());
        return new Promise((resolve, reject) => {
          const queue = this.waiting.get(principal) ?? [];
          queue.push({ id, maxValues, resolve, reject });
          this.waiting.set(principal, queue);
          this.next();
        });
      },
      drop: () => {
        done = true;
        if (generation !== this.generation) return;
        const queue = this.waiting.get(principal) ?? [];
        const at = queue.findIndex((job) => job.id === id);
        if (at >= 0) {
          const [job] = queue.splice(at, 1);
          if (queue.length === 0) this.waiting.delete(principal);
          job?.reject(new ServeError(400, 'E_BAD_REQUEST', 'the client closed its connection before the parse'));
        }
        if (this.running?.id !== id) this.worker?.postMessage({ id });
      },
    };
  }

  close(): void {
    this.closed = true;
    for (const queue of this.waiting.values()) for (const job of queue) job.reject(closing());
    this.waiting.clear();
    this.running?.reject(closing());
    this.running = null;
    void this.worker?.terminate();
    this.worker = null;
  }

  private next(): void {
    if (this.running || this.closed) return;
    // The waiting client served longest ago (or never) goes first.
    let principal: string | null = null;
    for (const p of this.waiting.keys())
      if (principal === null || (this.served.get(p) ?? 0) < (this.served.get(principal) ?? 0)) principal = p;
    if (principal === null) return;
    const queue = this.waiting.get(principal) as Job[];
    const job = queue.shift() as Job;
    if (queue.length === 0) this.waiting.delete(principal);
    this.served.delete(principal);
    this.served.set(principal, ++this.turn);
    if (this.served.size > MAX_REMEMBERED) this.served.delete(this.served.keys().next().value as string);
    this.running = job;
    this.thread().postMessage({ id: job.id, parse: true, maxValues: job.maxValues });
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    // The thread runs a few lines: a small code range, which also fits a process under a data limit (ulimit -d).
    const worker = new Worker(PARSER, {
      eval: true,
      workerData: { sjp: SJP },
      resourceLimits: { codeRangeSizeMb: 16 },
    });
    worker.unref(); // an idle parser keeps nothing alive; the server's close ends it
    worker.on('message', (answer: Parsed & { id: number }) => {
      const job = this.running;
      if (job?.id !== answer.id) return;
      this.running = null;
      job.resolve(answer);
      this.next();
    });
    // A parse that kills its thread (out of memory) fails the bodies it held; a new thread serves on.
    const failed = () => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.generation++;
      this.running?.reject(new ServeError(413, 'E_BODY_TOO_LARGE', 'the body is too large or deep to parse'));
      const lost = [...this.waiting.values()].flat();
      this.running = null;
      this.waiting.clear();
      for (const job of lost) job.reject(restarted());
    };
    worker.on('error', failed);
    worker.on('exit', failed);
    this.worker = worker;
    return worker;
  }
}

const closing = () => new ServeError(503, 'E_CLOSING', 'the service is shutting down');
const restarted = () =>
  new ServeError(
    503,
    'E_OVERLOADED',
    "the body parser failed on another body while this one waited; retry (it's safe)",
  );

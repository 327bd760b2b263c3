// Per-item errors of the scoring endpoints, made visible in the service's log: a trainer pointed at the
// wrong library gets HTTP 200 and scores of 0, so the first error of each code from each client is logged
// at once with its message and the client named, then per interval, while errors keep coming, each code's most
// frequent message and the error rate.
export interface ItemErrorLogOptions {
  log: (line: string) => void;
  /** How often the rate line is written (only for intervals with errors). */
  intervalMs: number;
}

/** (client, code) pairs whose first message was logged (the oldest forgotten first: a client can not fill memory). */
const MAX_SEEN = 4_096;
/** Distinct messages counted per code and interval (later new ones are only counted with the code). */
const MAX_MESSAGES_PER_CODE = 16;
const MESSAGE_CHARS = 200;
/**
 * First-message lines per interval at most (many clients' firsts cannot flood the log; the rest show in the rate line).
 */
const MAX_FIRSTS_PER_INTERVAL = 32;

interface CodeCount {
  n: number;
  messages: Map<string, number>;
}

export class ItemErrorLog {
  private scored = 0;
  private readonly failed = new Map<string, CodeCount>();
  private readonly seen = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private since = performance.now();
  private firsts = 0;

  constructor(private readonly options: ItemErrorLogOptions) {
    this.timer = setInterval(() => this.flush(), options.intervalMs);
    this.timer.unref();
  }

  /** Counts one request's scored items and their errors; `client` names who sent them (serve/clients.ts key). */
  record(
    endpoint: string,
    results: ReadonlyArray<{ score: number; error?: { code: string; message: string } }>,
    client = 'an unnamed client',
  ): void {
    this.scored += results.length;
    for (const result of results) {
      if (!result.error) continue;
      const { code, message } = result.error;
      let count = this.failed.get(code);
      if (!count) this.failed.set(code, (count = { n: 0, messages: new Map() }));
      count.n++;
      const text = message.slice(0, MESSAGE_CHARS);
      if (count.messages.has(text) || count.messages.size < MAX_MESSAGES_PER_CODE)
        count.messages.set(text, (count.messages.get(text) ?? 0) + 1);
      const key = `${client}\u0000${code}`;
      if (this.seen.has(key) || this.firsts >= MAX_FIRSTS_PER_INTERVAL) continue;
      this.seen.add(key);
      this.firsts++;
      if (this.seen.size > MAX_SEEN) this.seen.delete(this.seen.values().next().value as string);
      this.options.log(
        `envforge serve: ${endpoint}: an item scored 0 with ${code}: ${message} (the first ${code} of client ` +
          `${JSON.stringify(client)}; the error rate is logged every ` +
          `${this.options.intervalMs / 1000} s while errors last)`,
      );
    }
  }

  /**
   * Writes the rate line for the interval that ends now, if it had errors: each code with its most frequent message.
   */
  flush(): void {
    const errors = [...this.failed.values()].reduce((a, b) => a + b.n, 0);
    const now = performance.now();
    if (errors > 0) {
      const ranked = [...this.failed].sort((a, b) => b[1].n - a[1].n);
      const messages = ranked.map(([code, { messages }]) => {
        const [top, times] = [...messages].reduce((a, b) => (b[1] > a[1] ? b : a));
        return `${code} ${times}×: ${top}`;
      });
      const seconds = ((now - this.since) / 1000).toFixed(1);
      this.options.log(
        `envforge serve: the most frequent message of each error code in the last ${seconds} s: ${messages.join('; ')}`,
      );
      this.options.log(
        `envforge serve: ${errors} of ${this.scored} scored items (` +
          `${((100 * errors) / Math.max(1, this.scored)).toFixed(1)}%) failed in the last ${seconds} s: ` +
          `${ranked.map(([code, { n }]) => `${code} ${n}`).join(', ')}`,
      );
    }
    this.since = now;
    this.firsts = 0;
    this.scored = 0;
    this.failed.clear();
  }

  close(): void {
    clearInterval(this.timer);
    this.flush();
  }
}

// Per-item errors of the scoring endpoints, made visible in the service's log: a trainer pointed at the
// wrong library gets HTTP 200 and scores of 0, so the first error of each code is logged at once with
// its message, then one line with the error rate per interval while errors keep coming.
export interface ItemErrorLogOptions {
  log: (line: string) => void;
  /** How often the rate line is written (only for intervals with errors). */
  intervalMs: number;
}

export class ItemErrorLog {
  private scored = 0;
  private readonly failed = new Map<string, number>();
  private readonly seen = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private since = performance.now();

  constructor(private readonly options: ItemErrorLogOptions) {
    this.timer = setInterval(() => this.flush(), options.intervalMs);
    this.timer.unref();
  }

  /** Counts one request's scored items and their errors. */
  record(endpoint: string, results: ReadonlyArray<{ score: number; error?: { code: string; message: string } }>): void {
    this.scored += results.length;
    for (const result of results) {
      if (!result.error) continue;
      const { code, message } = result.error;
      this.failed.set(code, (this.failed.get(code) ?? 0) + 1);
      if (this.seen.has(code)) continue;
      this.seen.add(code);
      this.options.log(`envforge serve: ${endpoint}: an item scored 0 with ${code}: ${message} (first ${code}; the error rate is logged every ${this.options.intervalMs / 1000} s while errors last)`);
    }
  }

  /** Writes the rate line for the interval that ends now, if it had errors. */
  flush(): void {
    const errors = [...this.failed.values()].reduce((a, b) => a + b, 0);
    const now = performance.now();
    if (errors > 0) {
      const byCode = [...this.failed].sort((a, b) => b[1] - a[1]).map(([code, n]) => `${code} ${n}`).join(', ');
      this.options.log(`envforge serve: ${errors} of ${this.scored} scored items (${((100 * errors) / Math.max(1, this.scored)).toFixed(1)}%) failed in the last ${((now - this.since) / 1000).toFixed(1)} s: ${byCode}`);
    }
    this.since = now;
    this.scored = 0;
    this.failed.clear();
  }

  close(): void {
    clearInterval(this.timer);
    this.flush();
  }
}

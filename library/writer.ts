// A second, writable handle on a library for a process that reads it read-only (the reward service, an
// export): opened on first need; when the library cannot be written, null and one warning, so the caller
// keeps its records in memory instead of failing.
import type { Library } from './contract.js';
import { openLibrary } from './open.js';

export class LazyWriter {
  private writer: Library | null | undefined;

  constructor(
    private readonly location: string,
    /** Told once, with the reason, when the library cannot be written. */
    private readonly onUnwritable: (reason: string) => void,
  ) {}

  get(): Library | null {
    if (this.writer !== undefined) return this.writer;
    try {
      this.writer = openLibrary(this.location);
    } catch (error) {
      this.writer = null;
      this.onUnwritable((error as Error).message);
    }
    return this.writer;
  }

  async close(): Promise<void> {
    await this.writer?.close();
  }
}

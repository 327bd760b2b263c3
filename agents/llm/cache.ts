// The on-disk response cache: one JSON file per full request hash, so a re-run with the same inputs
// replays the same outputs for free; written atomically so a killed batch never leaves a torn entry.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WireResponse } from './contract.js';

export interface ResponseCache {
  get(key: string): Promise<WireResponse | undefined>;
  set(key: string, response: WireResponse, request?: unknown): Promise<void>;
}

/** JSON with object keys sorted and undefined dropped, so equal requests hash equally. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

export function cacheKey(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

function isWireResponse(value: unknown): value is WireResponse {
  const v = value as WireResponse | null;
  return (
    typeof v?.text === 'string' &&
    typeof v.model === 'string' &&
    typeof v.finishReason === 'string' &&
    Number.isFinite(v.usage?.inputTokens) &&
    Number.isFinite(v.usage?.outputTokens)
  );
}

/** Files at `<dir>/<key[0..2]>/<key>.json`; an unreadable or foreign file is a miss, never an error. */
export class DiskCache implements ResponseCache {
  constructor(readonly dir: string) {}

  private path(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<WireResponse | undefined> {
    try {
      const entry = JSON.parse(await readFile(this.path(key), 'utf8')) as { key?: unknown; response?: unknown };
      return entry.key === key && isWireResponse(entry.response) ? entry.response : undefined;
    } catch {
      return undefined;
    }
  }

  async set(key: string, response: WireResponse, request?: unknown): Promise<void> {
    const file = this.path(key);
    const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    await mkdir(join(this.dir, key.slice(0, 2)), { recursive: true });
    try {
      await writeFile(temp, JSON.stringify({ version: 1, key, request, response }));
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }
}

/** An in-process cache: for tests and for callers that want replay within one run only. */
export class MemoryCache implements ResponseCache {
  private readonly entries = new Map<string, string>();

  async get(key: string): Promise<WireResponse | undefined> {
    const entry = this.entries.get(key);
    return entry === undefined ? undefined : (JSON.parse(entry) as WireResponse);
  }

  async set(key: string, response: WireResponse): Promise<void> {
    this.entries.set(key, JSON.stringify(response));
  }
}

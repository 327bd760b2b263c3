// Splitting a parallel run (sandbox/shards.ts): one share per worker that holds the module or stands idle,
// never a share that makes a busy worker load the module for it.
import { describe, expect, it } from 'vitest';
import { shardCount, type WorkerView } from '../sandbox/shards.js';

const idle = (cached: string[] = []): WorkerView => ({ job: null, cached, exited: false });
const busy = (cached: string[] = []): WorkerView => ({ job: {}, cached, exited: false });

describe('shardCount', () => {
  it('splits across idle workers and workers that hold the module, busy or not', () => {
    expect(shardCount(200, 'm', [idle(), idle()], 2)).toBe(2);
    expect(shardCount(200, 'm', [busy(['m']), busy(['x', 'm'])], 2)).toBe(2);
    expect(shardCount(200, 'm', [busy(['m']), idle()], 2)).toBe(2);
  });

  it('leaves out busy workers that would have to load the module', () => {
    expect(shardCount(200, 'm', [busy(['m']), busy(['x'])], 2)).toBe(1);
    expect(shardCount(200, 'm', [busy(), busy(), idle(['m'])], 3)).toBe(1);
    expect(shardCount(200, 'm', [busy(), busy()], 2)).toBe(1); // one job still runs, wherever a worker frees first
  });

  it('counts workers the pool may still start as idle, and no exited ones', () => {
    expect(shardCount(200, 'm', [], 4)).toBe(4);
    expect(shardCount(200, 'm', [busy()], 3)).toBe(2);
    expect(shardCount(200, 'm', [{ job: null, cached: ['m'], exited: true }, busy()], 2)).toBe(1);
  });

  it('gives each share at least eight calls and never more shares than workers', () => {
    expect(shardCount(7, 'm', [idle(), idle()], 2)).toBe(1);
    expect(shardCount(16, 'm', [idle(), idle(), idle()], 3)).toBe(2);
    expect(shardCount(1_000, 'm', [idle(), idle()], 2)).toBe(2);
  });
});

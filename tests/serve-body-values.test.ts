// V21-1 and V21-2 (tests/fixtures/redteam-v21): a body is bounded by the values it parses into, counted before it is
// parsed (in the parser thread, or inline for a small one), and a body whose client hung up is not parsed; each
// amplifying shape is written more than one way (arrays, objects, numbers) on a service with a small bound.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { JsonLane, overBound } from '../serve/json-lane.js';
import type { RunningServer } from '../serve/options.js';
import { startServer } from '../serve/server.js';
import { send } from './helpers/send-from.js';

const bytes = (text: string) => Buffer.from(text);

describe('overBound: the values a JSON text would parse into, counted from its bytes', () => {
  it('counts arrays, objects and commas, never what is inside a string', () => {
    // An upper bound: 1 (the root) + 4 arrays + 2 commas.
    expect(overBound(bytes('[[],[],[]]'), 6)).toBe(true);
    expect(overBound(bytes('[[],[],[]]'), 7)).toBe(false);
    expect(overBound(bytes('{"a":{},"b":{}}'), 3)).toBe(true);
    expect(overBound(bytes('[0,0,0,0,0]'), 4)).toBe(true);
    // Brackets, commas and escaped quotes inside strings are text, not values.
    expect(overBound(bytes(JSON.stringify({ r: `${'[],'.repeat(1_000)}\\"[,{` })), 4)).toBe(false);
  });
});

describe('JsonLane: a bound on values, and a body whose client went away', () => {
  it('answers a body over its bound unparsed, and cancels a parse waiting for its turn', async () => {
    const lane = new JsonLane();
    try {
      const big = lane.open('a');
      big.write(bytes(`{"pad":[${'{},'.repeat(5_000)}{}]}`));
      expect(await big.parse(1_000)).toEqual({ id: expect.any(Number), over: true });
      // Three bodies of one client: the first runs, the second is dropped while it waits, the third still parses.
      const bodies = [1, 2, 3].map((n) => {
        const body = lane.open('a');
        body.write(bytes(`{"n":${n}}`));
        return body;
      });
      const parses = bodies.map((body) =>
        body.parse(1_000).then(
          (r) => r.value,
          (e: Error) => e.message,
        ),
      );
      bodies[1]?.drop();
      expect(await Promise.all(parses)).toEqual([{ n: 1 }, expect.stringMatching(/closed its connection/), { n: 3 }]);
    } finally {
      lane.close();
    }
  });
});

describe("a body over its route's bound on values is refused 413 E_BODY_TOO_COMPLEX (V21-2)", () => {
  let server: RunningServer;
  beforeAll(async () => {
    const libraryDir = mkdtempSync(join(tmpdir(), 'body-values-'));
    await SqliteLibrary.open(libraryDir, { create: true }).close();
    // 16 items a request: a bound of 16 x 16 + 1,024 = 1,280 values for /v1/verify.
    server = await startServer({ libraryDir, port: 0, maxItemsPerRequest: 16 });
  });
  afterAll(() => server.close());

  const item = { env: 'x', version: 1, seed: 1, level: 1, response: 'r' };
  const verify = (body: unknown) => send(server.url, 'POST', '/v1/verify', body);

  it.each([
    ['arrays, parsed in the thread (past 64 KB)', Array.from({ length: 30_000 }, () => [])],
    ['objects, parsed in the thread', Array.from({ length: 30_000 }, () => ({}))],
    ['numbers, parsed inline (under 64 KB)', Array.from({ length: 2_000 }, () => 0)],
  ])('%s: refused before anything reaches the route', async (_what, pad) => {
    const r = await verify({ items: [item], pad });
    expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status: 413, code: 'E_BODY_TOO_COMPLEX' });
  });

  it('honest bodies pass: 16 items, and a 100 KB response of brackets and commas (one string)', async () => {
    const items = Array.from({ length: 16 }, (_, i) => ({ ...item, response: i === 0 ? '[],'.repeat(33_000) : 'r' }));
    const r = await verify({ items });
    expect(r.status).toBe(200);
    expect(r.body.results).toHaveLength(16);
  });
});

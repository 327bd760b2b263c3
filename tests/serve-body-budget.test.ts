// V20-1 (tests/fixtures/redteam-v20): the bytes of request bodies a client has not finished sending are charged to it
// from the headers, under its share of a process-wide budget, and a body must arrive by a deadline; each attack is
// written here more than one way (held bodies, many small slow ones, chunked without Content-Length, a WebSocket
// message), with small budgets so that nothing large is sent.
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { BodyBudget, MIN_PROGRESS_BYTES } from '../serve/body-budget.js';
import { JsonLane } from '../serve/json-lane.js';
import type { RunningServer, ServeError } from '../serve/options.js';
import { startServer } from '../serve/server.js';

const KB = 1024;
const TOKENS = {
  a: 'client-a-token-0123456789abcdef',
  b: 'client-b-token-0123456789abcdef',
  c: 'client-c-tok-0123456789abcdef',
};

describe('BodyBudget', () => {
  const holder = () => {
    const dropped: ServeError[] = [];
    return { dropped, drop: (e: ServeError) => void dropped.push(e) };
  };

  it("refuses past a client's share, reclaims for another client only bodies still arriving of the richest", () => {
    const budget = new BodyBudget(100, 60, 0); // every hold stalled: the reclaim alone
    const a1 = holder();
    const a2 = holder();
    budget.reserve('a', 30, a1);
    const arrived = budget.reserve('a', 30, a2);
    arrived.arrived();
    expect(() => budget.reserve('a', 1, holder())).toThrow(/share of/); // a at its share
    const b = budget.reserve('b', 0, holder());
    b.grow(40); // total 100: full
    // c asks 20: a holds the most (60 > 20), its body still arriving is dropped; the arrived one stays
    budget.reserve('c', 20, holder());
    expect(a1.dropped).toHaveLength(1);
    expect(a2.dropped).toHaveLength(0);
    expect([budget.heldBy('a'), budget.heldBy('b'), budget.heldBy('c')]).toEqual([30, 40, 20]);
    // nobody holds more than d would: refused, nothing dropped
    expect(() => budget.reserve('d', 45, holder())).toThrow(/for all clients/);
    arrived.release();
    expect(budget.stats.heldBytes).toBe(60);
  });

  it('reclaims only a hold that has not moved within its window: a transfer that moves is never cut (V25-1)', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const budget = new BodyBudget(100, 100, 1_000);
      const reading = holder();
      let reads = 0;
      // an answer being read: its holder sees the kernel take bytes whenever the budget looks
      const answer = budget.reserve('a', 60, { ...reading, look: () => reads++ > 0 && answer.moved() });
      const slow = holder();
      const body = budget.reserve('b', 0, slow);
      body.grow(30);
      vi.advanceTimersByTime(999);
      // nothing has stalled a full second: c is refused, nothing dropped
      expect(() => budget.reserve('c', 20, holder())).toThrow(/for all clients/);
      vi.advanceTimersByTime(1);
      // a's answer moved at that look (reads), b's body last grew a second ago: b's is dropped, though a holds more
      budget.reserve('c', 20, holder()).arrived();
      expect([reading.dropped.length, slow.dropped.length]).toEqual([0, 1]);
      // five seconds on, a is still being read: d, which would need its room, is refused and a keeps it
      vi.advanceTimersByTime(5_000);
      expect(() => budget.reserve('d', 30, holder())).toThrow(/for all clients/);
      expect(reading.dropped).toHaveLength(0);
      // written differently: progress reported by the transfer itself (a chunk of c's body arriving)
      const cBody = budget.reserve('c', 0, holder());
      cBody.grow(10);
      cBody.moved();
      vi.advanceTimersByTime(500);
      expect(() => budget.reserve('e', 15, holder())).toThrow(/for all clients/);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a body that trickles is stalled (V26-3)', () => {
  const holder = () => {
    const dropped: ServeError[] = [];
    return { dropped, drop: (e: ServeError) => void dropped.push(e) };
  };

  it('a byte every half second never counts as moving; a slow steady body in segments does', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const budget = new BodyBudget(100 * KB, 100 * KB, 1_000);
      const [trickle, steady] = [holder(), holder()];
      const t = budget.reserve('t', 0, trickle);
      t.grow(40 * KB);
      t.moved(40 * KB); // the bulk came at once: it moved
      const s = budget.reserve('s', 0, steady);
      s.grow(40 * KB);
      s.moved(40 * KB);
      for (let i = 0; i < 6; i++) {
        vi.advanceTimersByTime(500);
        t.grow(1);
        t.moved(1); // moved often, by a byte
        s.grow(1_460);
        s.moved(1_460); // one TCP segment every half second: ~3 KB a second
      }
      // both moved within the last second; only the trickle brought too little to count
      budget.reserve('c', 30 * KB, holder()).arrived();
      expect([trickle.dropped.length, steady.dropped.length]).toEqual([1, 0]);
      // written differently: chunks of just under the floor's bytes 0.9 s apart count every other one: stalled between
      const other = new BodyBudget(100 * KB, 100 * KB, 1_000);
      const few = holder();
      const f = other.reserve('f', 0, few);
      f.grow(80 * KB);
      f.moved(80 * KB);
      for (let i = 0; i < 3; i++) {
        vi.advanceTimersByTime(900);
        f.grow(MIN_PROGRESS_BYTES - 1);
        f.moved(MIN_PROGRESS_BYTES - 1);
      }
      vi.advanceTimersByTime(200);
      other.reserve('d', 15 * KB, holder()).arrived();
      expect(few.dropped).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('JsonLane', () => {
  it('parses in turn by client: a second client waits for one body of the first, not all of them', async () => {
    const lane = new JsonLane();
    const order: string[] = [];
    const send = (client: string, n: number) => {
      const body = lane.open(client);
      body.write(Buffer.from(`{"n":`));
      body.write(Buffer.from(`${n}}`));
      return body.parse(1_000).then((r) => void order.push(`${client}${(r.value as { n: number }).n}`));
    };
    await Promise.all([send('a', 1), send('a', 2), send('a', 3), send('b', 1)]);
    expect(order).toEqual(['a1', 'b1', 'a2', 'a3']);
    const bad = lane.open('a');
    bad.write(Buffer.from('{"__proto__":{"x":1}}'));
    expect(await bad.parse(1_000)).toEqual({ id: expect.any(Number), invalid: true });
    lane.close();
  });
});

describe('request bodies in flight, charged to their client (V20-1)', () => {
  let server: RunningServer;
  let port: number;
  beforeAll(async () => {
    const libraryDir = mkdtempSync(join(tmpdir(), 'body-budget-'));
    await SqliteLibrary.open(libraryDir, { create: true }).close();
    server = await startServer({
      libraryDir,
      port: 0,
      bodyLimitBytes: 512 * KB,
      clientBodyBytes: 1024 * KB,
      bodyBudgetBytes: 2048 * KB,
      bodyTimeoutMs: 1_500,
      reclaimStallMs: 200,
      clientTokens: TOKENS,
    });
    port = Number(new URL(server.url).port);
  });
  afterAll(() => server.close());

  /** A POST /v1/verify that sends its headers and `sent` bytes of body, then waits; `answer` is what came back. */
  function held(
    declared: number | 'chunked',
    sent: number,
    token?: string,
  ): Promise<{ socket: Socket; answer: Promise<string> }> {
    return new Promise((done) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        const length = declared === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${declared}`;
        const auth = token ? `Authorization: Bearer ${token}\r\n` : '';
        socket.write(
          `POST /v1/verify HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\n${length}\r\n\r\n`,
        );
        const body = Buffer.alloc(sent, ' ');
        socket.write(declared === 'chunked' && sent > 0 ? `${sent.toString(16)}\r\n${body}\r\n` : body);
        done({ socket, answer });
      });
      let text = '';
      socket.on('data', (d) => (text += d));
      socket.on('error', () => {});
      const answer = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
    });
  }

  /** A small verify from `token`'s client: its status. */
  const verify = (token?: string) =>
    new Promise<number>((done, fail) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/v1/verify',
          method: 'POST',
          agent: false,
          headers: {
            'content-type': 'application/json',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => done(res.statusCode ?? 0));
        },
      );
      req.on('error', fail);
      req.end(JSON.stringify({ items: [{ env: 'x', version: 1, seed: 1, level: 1, response: 'r' }] }));
    });
  const status = (text: string) => /^HTTP\/1\.1 (\d+)/.exec(text)?.[1];

  it('past its share a body is refused 503 at its headers, connection closed; others are served', async () => {
    const bodies = [await held(500 * KB, 100), await held(500 * KB, 100)];
    const third = await held(500 * KB, 100);
    const text = await third.answer;
    expect(status(text)).toBe('503');
    expect(text).toMatch(/connection: close/i);
    expect(text).toMatch(/E_OVERLOADED.*this client holds 1\.0 MB/s);
    expect(await verify(TOKENS.a)).toBe(200);
    for (const b of bodies) b.socket.destroy();
  });

  it('variant: many small slow bodies on many connections are refused once they sum past the share', async () => {
    const bodies = [];
    for (let i = 0; i < 30; i++) bodies.push(await held(40 * KB, 10, TOKENS.b));
    const answers = await Promise.race([
      Promise.all(bodies.slice(25).map((b) => b.answer)),
      new Promise<null>((r) => setTimeout(() => r(null), 10_000)),
    ]);
    expect(answers?.map(status)).toEqual(['503', '503', '503', '503', '503']);
    for (const b of bodies) b.socket.destroy();
  });

  it('variant: a chunked body is charged as it arrives, refused when it passes the share', async () => {
    const big = [await held(450 * KB, 10, TOKENS.c), await held(450 * KB, 10, TOKENS.c)];
    const chunked = await held('chunked', 64 * KB, TOKENS.c);
    for (let i = 0; i < 5 && !chunked.socket.destroyed; i++)
      chunked.socket.write(`${(64 * KB).toString(16)}\r\n${' '.repeat(64 * KB)}\r\n`);
    const text = await chunked.answer;
    expect(status(text), text).toBe('503');
    for (const b of big) b.socket.destroy();
  });

  it("a body still arriving at the deadline is dropped 408, its bytes its client's again", async () => {
    const bodies = [await held(512 * KB, 10, TOKENS.a), await held(512 * KB, 10, TOKENS.a)];
    expect(await verify(TOKENS.a)).toBe(503); // a at its share
    const answers = await Promise.all(bodies.map((b) => b.answer));
    expect(answers.map(status)).toEqual(['408', '408']);
    expect(answers[0]).toMatch(/E_BODY_TIMEOUT/);
    expect(await verify(TOKENS.a)).toBe(200);
  });

  it('variant: a WebSocket message is charged as a body is; past the share its connection closes 1013', async () => {
    const bodies = [await held(512 * KB, 10, TOKENS.b), await held(512 * KB, 10, TOKENS.b)];
    const socket = new WebSocket(`ws://127.0.0.1:${port}/openenv/x/ws`, {
      headers: { authorization: `Bearer ${TOKENS.b}` },
    });
    await new Promise((r) => socket.once('open', r));
    const closed = new Promise<number>((r) => socket.once('close', (code) => r(code)));
    socket.send(JSON.stringify({ type: 'state' }));
    expect(await closed).toBe(1013);
    for (const b of bodies) b.socket.destroy();
  });

  it('past the total the client holding the most loses a body still arriving to another', async () => {
    // a and b each hold their share (1 MB) of the 2 MB budget; c's body then needs a's or b's room
    const a = [await held(512 * KB, 10, TOKENS.a), await held(512 * KB, 10, TOKENS.a)];
    const b = [await held(512 * KB, 10, TOKENS.b), await held(512 * KB, 10, TOKENS.b)];
    // their bodies stop coming: once stalled past reclaimStallMs (200 ms) they are another client's to take
    await new Promise((r) => setTimeout(r, 300));
    expect(await verify(TOKENS.c)).toBe(200);
    const dropped = await Promise.race([
      Promise.any([...a, ...b].map((h) => h.answer)),
      new Promise<string>((r) => setTimeout(() => r('none'), 10_000)),
    ]);
    expect(status(dropped)).toBe('503');
    for (const h of [...a, ...b]) h.socket.destroy();
  });
});

// V22-2 (tests/fixtures/redteam-v22): an HTTP answer is its client's until the kernel has it, charged to the client's
// share of the bytes the service holds (serve/answer-budget.ts); here on a bare Fastify app with the clients' and
// the answers' hooks alone, answers larger than the loopback socket buffers, read or left unread, by client tokens;
// and V24-1 (tests/fixtures/redteam-v24): unread answers bounded in time (their deadline) and reclaimable.
import { connect, type Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerAnswerBudget } from '../serve/answer-budget.js';
import { BodyBudget } from '../serve/body-budget.js';
import { registerClients, credentials } from '../serve/clients.js';

const MB = 2 ** 20;
const TOKENS = {
  a: 'client-a-token-0123456789abcdef',
  b: 'client-b-token-0123456789abcdef',
  c: 'client-c-token-0123456789abcdef',
};

/** GET `path` on `port` as `token`'s client; `read` false: the status line is read, then the socket is paused. */
const askOn = (port: number, path: string, token: string, read: boolean) =>
  new Promise<{ socket: Socket; status: string; body: Promise<string> }>((done) => {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    let paused = false;
    const body = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
    socket.on('error', () => {});
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (!read && !paused && text.length >= 12) {
        paused = true;
        socket.pause();
        done({ socket, status: text.slice(9, 12), body });
      }
    });
    socket.on('close', () => done({ socket, status: text.slice(9, 12), body }));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
  });

/** A bare app whose GET /big?mb=N answers N MB, with the clients' and the answers' hooks under `budget`. */
async function bigAnswers(budget: BodyBudget, deadlineMs: (bytes: number) => number) {
  const app = Fastify({ logger: false });
  registerClients(app, credentials(undefined, TOKENS));
  registerAnswerBudget(app, budget, deadlineMs);
  let computed = 0;
  app.get('/big', async (request) => {
    computed++;
    return { n: computed, text: 'x'.repeat(Number((request.query as { mb: string }).mb) * MB) };
  });
  app.get('/computed', async () => ({ computed }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, port: (app.server.address() as { port: number }).port };
}

describe('answers not yet read, charged to their client (V22-2)', () => {
  let app: FastifyInstance;
  let port: number;
  const budget = new BodyBudget(200 * MB, 48 * MB);
  beforeAll(async () => {
    // deadlines far past the test: here only bytes bound what is held
    ({ app, port } = await bigAnswers(budget, () => 600_000));
  });
  afterAll(() => app.close());
  const ask = (path: string, token: string, read: boolean) => askOn(port, path, token, read);
  const settle = () => new Promise((r) => setTimeout(r, 300));

  it("an unread answer holds its client's share: past it 503, another client served, reading frees it", async () => {
    // a's first answer (32 MB, past what loopback's buffers take) is served though a share is 48 MB: one answer may
    // be larger than a share; it stays charged while a does not read it.
    const first = await ask('/big?mb=32', TOKENS.a, false);
    expect(first.status).toBe('200');
    await settle();
    expect(budget.heldBy('token:a')).toBeGreaterThan(16 * MB);
    // A second 32 MB answer does not fit beside it: replaced by a 503 (its connection closed).
    const second = await ask('/big?mb=32', TOKENS.a, true);
    expect(second.status).toBe('503');
    expect(await second.body).toMatch(/E_OVERLOADED.*answers not yet read/);
    // Another client is served, read or not.
    const other = await ask('/big?mb=32', TOKENS.b, true);
    expect(other.status).toBe('200');
    expect((await other.body).length).toBeGreaterThan(32 * MB);
    // a reads its first answer to the end: its share is free again.
    first.socket.resume();
    await first.body;
    await settle();
    expect(budget.heldBy('token:a')).toBe(0);
    expect((await ask('/big?mb=32', TOKENS.a, true)).status).toBe('200');
  }, 60_000);

  it('unread answers past the share are refused, past it before the work; hanging up frees them', async () => {
    // Four unread 11 MB answers fit a's 48 MB share; a fifth does not (written differently: many smaller answers).
    const unread: Socket[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await ask('/big?mb=11', TOKENS.a, false);
      expect(r.status).toBe('200');
      unread.push(r.socket);
    }
    await settle();
    expect((await ask('/big?mb=11', TOKENS.a, true)).status).toBe('503');
    // Hanging up drops what the unread answers held.
    for (const s of unread.splice(0)) s.destroy();
    await settle();
    expect(budget.heldBy('token:a')).toBe(0);
    // One unread answer over the share (60 MB): a's next request is refused before its handler runs.
    const large = await ask('/big?mb=60', TOKENS.a, false);
    expect(large.status).toBe('200');
    await settle();
    const computed = async () =>
      JSON.parse((await (await ask('/computed', TOKENS.b, true)).body).split('\r\n\r\n')[1] as string).computed;
    const before = await computed();
    const refused = await ask('/big?mb=1', TOKENS.a, true);
    expect(refused.status).toBe('503');
    expect(await computed()).toBe(before);
    large.socket.destroy();
    await settle();
    expect(budget.stats.heldBytes).toBe(0);
    expect((await ask('/big?mb=1', TOKENS.a, true)).status).toBe('200');
  }, 60_000);
});

describe('answers not yet read, bounded in time and reclaimable (V24-1)', () => {
  it('an answer unread at its deadline has its connection closed, trickled or paused: its bytes freed', async () => {
    const budget = new BodyBudget(200 * MB, 48 * MB);
    // answers over 8 MB have 200 ms, smaller ones minutes (no race with a reader on a loaded machine)
    const { app, port } = await bigAnswers(budget, (bytes) => (bytes > 8 * MB ? 200 : 600_000));
    try {
      // paused after the status line: the service closes it at its deadline (its bytes freed), far short of 32 MB
      const paused = await askOn(port, '/big?mb=32', TOKENS.a, false);
      expect(paused.status).toBe('200');
      await vi.waitFor(() => expect(budget.heldBy('token:a')).toBe(0), { timeout: 30_000, interval: 50 });
      paused.socket.resume();
      expect((await paused.body).length).toBeLessThan(32 * MB);
      // written differently: a client that keeps reading, a little at a time (a trickle is no exemption)
      const trickle = await askOn(port, '/big?mb=32', TOKENS.b, false);
      const drip = setInterval(() => {
        trickle.socket.resume();
        setImmediate(() => trickle.socket.pause());
      }, 20);
      const got = await trickle.body;
      clearInterval(drip);
      expect(got.length).toBeLessThan(32 * MB);
      expect(budget.stats.heldBytes).toBe(0);
      // the client's next answer, read, is served in full
      const read = await askOn(port, '/big?mb=2', TOKENS.a, true);
      expect(read.status).toBe('200');
      expect((await read.body).length).toBeGreaterThan(2 * MB);
    } finally {
      await app.close();
    }
  }, 60_000);

  it('when the total is full, an unread answer of the client holding the most is dropped, not the asker', async () => {
    const budget = new BodyBudget(80 * MB, 40 * MB, 100); // paused readers are stalled 100 ms on
    const { app, port } = await bigAnswers(budget, () => 600_000);
    try {
      const a = await askOn(port, '/big?mb=32', TOKENS.a, false);
      const b = await askOn(port, '/big?mb=30', TOKENS.b, false);
      expect([a.status, b.status]).toEqual(['200', '200']);
      await new Promise((r) => setTimeout(r, 300));
      // c's 20 MB does not fit beside a's and b's unread 62 MB: a (holding the most) loses its unread answer
      const c = await askOn(port, '/big?mb=20', TOKENS.c, true);
      expect(c.status).toBe('200');
      expect((await c.body).length).toBeGreaterThan(20 * MB);
      expect(budget.heldBy('token:a')).toBe(0);
      a.socket.resume();
      expect((await a.body).length).toBeLessThan(32 * MB);
      expect(budget.heldBy('token:b')).toBeGreaterThan(16 * MB);
      expect(budget.stats.reclaimed).toBe(1);
      // a's share is a's again: its next answer is served
      expect((await askOn(port, '/big?mb=1', TOKENS.a, true)).status).toBe('200');
      b.socket.destroy();
    } finally {
      await app.close();
    }
  }, 60_000);
});

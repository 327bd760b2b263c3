// V22-2 (tests/fixtures/redteam-v22): an HTTP answer is its client's until the kernel has it, charged to the client's
// share of the bytes the service holds (serve/answer-budget.ts); here on a bare Fastify app with the clients' and
// the answers' hooks alone, answers larger than the loopback socket buffers, read or left unread, by two client tokens.
import { connect, type Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAnswerBudget } from '../serve/answer-budget.js';
import { BodyBudget } from '../serve/body-budget.js';
import { registerClients, credentials } from '../serve/clients.js';

const MB = 2 ** 20;
const TOKENS = { a: 'client-a-token-0123456789abcdef', b: 'client-b-token-0123456789abcdef' };

describe('answers not yet read, charged to their client (V22-2)', () => {
  let app: FastifyInstance;
  let port: number;
  const budget = new BodyBudget(200 * MB, 48 * MB);
  beforeAll(async () => {
    app = Fastify({ logger: false });
    registerClients(app, credentials(undefined, TOKENS));
    registerAnswerBudget(app, budget);
    let computed = 0;
    app.get('/big', async (request) => {
      computed++;
      return { n: computed, text: 'x'.repeat(Number((request.query as { mb: string }).mb) * MB) };
    });
    app.get('/computed', async () => ({ computed }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(() => app.close());

  /** GET `path` as `token`'s client; `read` false: the status line is read, then the socket is paused. */
  const ask = (path: string, token: string, read: boolean) =>
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

// T8-1 (tests/fixtures/redteam-trust8): one client's silent TCP connections must not lock other clients out of the
// service. The service holds at most --max-connections sockets; at the bound a new connection replaces the idle one
// of the address holding the most, and a connection with a request in flight is never the one replaced.
import { mkdtempSync } from 'node:fs';
import { createServer, get } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { startServer } from '../serve/server.js';
import { defaultMaxConnections, guardConnections, openFileLimit } from '../serve/tcp-connections.js';

const servers: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function serve(maxConnections: number) {
  const libraryDir = mkdtempSync(join(tmpdir(), 'tcp-conn-'));
  await SqliteLibrary.open(libraryDir, { create: true }).close();
  const server = await startServer({ libraryDir, port: 0, maxConnections });
  servers.push(server);
  return { ...server, port: Number(new URL(server.url).port) };
}

/** A socket that connects and then says nothing (or only the start of a request). */
function silent(port: number, start = ''): Promise<Socket> {
  return new Promise((done, fail) => {
    const s = connect({ host: '127.0.0.1', port }, () => {
      if (start) s.write(start);
      done(s);
    });
    s.on('error', () => {});
    s.once('error', fail);
  });
}

/** GET path on a fresh connection: the status, or the error's code. */
function fresh(port: number, path = '/health'): Promise<number | string> {
  return new Promise((done) => {
    const req = get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    });
    req.setTimeout(5_000, () => req.destroy(new Error('timeout')));
    req.on('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
  });
}

/** A bare HTTP server under the guard: /slow answers after 3 s, /big writes 16 MB, anything else at once. */
async function bare(max: number): Promise<number> {
  const server = createServer((req, res) => {
    req.resume();
    if (req.url === '/slow') setTimeout(() => res.end('slow'), 3_000);
    else if (req.url === '/big') res.end(Buffer.alloc(16 * 2 ** 20, 120));
    else res.end('ok');
  });
  server.keepAliveTimeout = 60_000;
  guardConnections(server, max);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push({
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
  return (server.address() as AddressInfo).port;
}

const closed = (s: Socket) =>
  new Promise<boolean>((done) => (s.destroyed ? done(true) : s.once('close', () => done(true))));

describe('TCP connections are bounded, and idle ones make room (T8-1)', () => {
  it('an honest request is served while one client holds every connection without sending a request', async () => {
    const { port } = await serve(8);
    const attacker = await Promise.all(
      Array.from({ length: 8 }, (_, i) => silent(port, i % 2 ? 'GET /health HTTP/1.1\r\nHost: x\r\n' : '')),
    );
    expect(await fresh(port)).toBe(200);
    // the room was made by closing an attacker's socket: the service never holds more than its bound
    const gone = await Promise.race([Promise.any(attacker.map(closed)), new Promise((r) => setTimeout(r, 2_000))]);
    expect(gone).toBe(true);
    for (const s of attacker) s.destroy();
  });

  it('a connection whose answer the service is computing is never the one replaced', async () => {
    const port = await bare(2);
    const computing = await silent(port, 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));
    const idle = await silent(port);
    expect(await fresh(port)).toBe(200);
    expect(await closed(idle)).toBe(true);
    expect(computing.destroyed).toBe(false);
    computing.destroy();
  });

  // hold-out: "busy" first meant "a request has arrived", which a client keeps true by never finishing its body, or
  // by never reading an answer the service has finished writing
  it("a connection trickling a body, or not reading its answer, is the client's to lose", async () => {
    const trickling = await bare(1);
    const body = await silent(trickling, 'POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{');
    await new Promise((r) => setTimeout(r, 100));
    expect(await fresh(trickling, '/')).toBe(200);
    expect(await closed(body)).toBe(true);

    const reading = await bare(1);
    const unread = await silent(reading, 'GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
    unread.pause();
    await new Promise((r) => setTimeout(r, 100));
    expect(await fresh(reading, '/')).toBe(200);
    unread.resume(); // a keep-alive connection (60 s) the server closed: evicted
    expect(await closed(unread)).toBe(true);
  });

  it('the default bound stays under the file-descriptor limit', () => {
    expect(defaultMaxConnections(1024)).toBe(704);
    expect(defaultMaxConnections(1_048_576)).toBe(4_096);
    expect(defaultMaxConnections(null)).toBe(4_096);
    const limit = openFileLimit();
    if (limit !== null) expect(defaultMaxConnections()).toBeLessThan(limit);
  });
});

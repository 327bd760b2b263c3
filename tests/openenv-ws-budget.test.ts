// V24-4 (tests/fixtures/redteam-v24): an OpenEnv WebSocket answer the kernel has not taken is charged to its client's
// principal in the one budget HTTP answers and bodies share (serve/openenv-ws.ts), released at ws's send callback or
// the socket's close, refused past the share (that connection closed 1013, no other) and reclaimable for another
// client; here on fake sockets whose client reads only when the test says, the budget's accounting asserted.
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { describe, expect, it } from 'vitest';
import { BodyBudget } from '../serve/body-budget.js';
import { serveConnection } from '../serve/openenv-ws.js';
import type { OpenEnvSessions } from '../serve/openenv-session.js';
import type { Service } from '../serve/service.js';

const KB = 1_024;

/** A socket whose client reads nothing until `read()`: sent answers wait with their callbacks, as unread ones do. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  closed: number | null = null;
  terminated = false;
  private waiting: Array<{ bytes: number; done: () => void }> = [];

  send(text: string, done: () => void): void {
    this.bufferedAmount += Buffer.byteLength(text);
    this.waiting.push({ bytes: Buffer.byteLength(text), done });
  }

  /** The client reads every answer sent so far: ws calls their send callbacks. */
  read(): void {
    for (const { bytes, done } of this.waiting.splice(0)) {
      this.bufferedAmount -= bytes;
      done();
    }
  }

  close(code: number): void {
    if (this.closed === null) this.closed = code;
    this.readyState = 2;
  }

  terminate(): void {
    this.terminated = true;
    this.gone();
  }

  /** The TCP socket is gone: ws emits 'close' (its unread answers' callbacks may never come). */
  gone(): void {
    this.readyState = 3;
    this.emit('close', 1006);
  }
}

/** Serves `socket` for `principal`; each `state` message is answered with `answerBytes` of text. */
function serve(socket: FakeSocket, bodies: BodyBudget, principal: string, answerBytes: number): void {
  const service = { bodies, acquire: () => () => {} } as unknown as Service;
  const sessions = {
    who: { principal, id: principal },
    state: async () => ({ text: 'x'.repeat(answerBytes) }),
  } as unknown as OpenEnvSessions;
  serveConnection(socket as unknown as WebSocket, 'env', service, sessions, { busy: 0, lastUsed: 0 }, () => false);
}

/** Sends `n` state messages on `socket` and waits until they are answered (or refused). */
async function ask(socket: FakeSocket, n = 1): Promise<void> {
  for (let i = 0; i < n; i++) socket.emit('message', Buffer.from('{"type":"state"}'), false);
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

describe("an OpenEnv WebSocket's unread answers, charged to its client (V24-4)", () => {
  it('holds each answer until the send callback, and releases it there', async () => {
    const bodies = new BodyBudget(1_000 * KB, 500 * KB);
    const socket = new FakeSocket();
    serve(socket, bodies, 'a', 10 * KB);
    await ask(socket, 3);
    expect(bodies.heldBy('a')).toBeGreaterThan(30 * KB);
    expect(bodies.heldBy('a')).toBeLessThan(31 * KB);
    socket.read();
    expect(bodies.heldBy('a')).toBe(0);
    expect(bodies.stats.heldBytes).toBe(0);
    expect(socket.closed).toBeNull();
  });

  it("sums one principal's connections; past its share the connection asking closes 1013, no other", async () => {
    const bodies = new BodyBudget(1_000 * KB, 100 * KB);
    const sockets = Array.from({ length: 8 }, () => new FakeSocket());
    const honest = new FakeSocket();
    for (const s of sockets) serve(s, bodies, 'hostile', 30 * KB);
    serve(honest, bodies, 'honest', 30 * KB);
    for (const s of sockets) await ask(s);
    // three fit under the 100 KB share; the fourth connection's answer does not, and that connection is closed
    expect(sockets.map((s) => s.closed)).toEqual([null, null, null, 1013, 1013, 1013, 1013, 1013]);
    expect(bodies.heldBy('hostile')).toBeLessThanOrEqual(100 * KB);
    await ask(honest, 3);
    expect(honest.closed).toBeNull();
    expect(bodies.heldBy('honest')).toBeGreaterThan(90 * KB);
    // the hostile connections go away without reading: their answers are released with them
    for (const s of sockets) s.gone();
    expect(bodies.heldBy('hostile')).toBe(0);
    honest.read();
    expect(bodies.stats.heldBytes).toBe(0);
  });

  it('many small unread answers on one connection count as one large one would', async () => {
    const bodies = new BodyBudget(1_000 * KB, 64 * KB);
    const socket = new FakeSocket();
    serve(socket, bodies, 'a', 1 * KB);
    await ask(socket, 60);
    expect(socket.closed).toBeNull();
    await ask(socket, 4);
    expect(socket.closed).toBe(1013);
    socket.gone();
    expect(bodies.stats.heldBytes).toBe(0);
  });

  it('an unread answer is its to lose: a body of another client reclaims it, its connection dropped', async () => {
    const bodies = new BodyBudget(100 * KB, 80 * KB, 0); // every hold stalled: the reclaim alone
    const hostile = new FakeSocket();
    serve(hostile, bodies, 'hostile', 30 * KB);
    await ask(hostile, 2);
    expect(bodies.heldBy('hostile')).toBeGreaterThan(60 * KB);
    const body = bodies.reserve('honest', 50 * KB, { drop: () => {} });
    expect(body.bytes).toBe(50 * KB);
    expect(hostile.terminated).toBe(true);
    expect(bodies.stats.reclaimed).toBeGreaterThan(0);
    body.release();
    expect(bodies.stats.heldBytes).toBe(0);
  });
});

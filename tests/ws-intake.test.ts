// V25-4 (tests/fixtures/redteam-v25): the bytes of an OpenEnv WebSocket frame still arriving are charged to the
// client's principal as they come (serve/ws-intake.ts), given back as they become a message, a ping or a pong, refused
// past the share (1013) and reclaimable once they stop coming; here on a real ws server and client over loopback.
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { BodyBudget } from '../serve/body-budget.js';
import { FRAME_HELD } from '../serve/ws-frames.js';
import { chargeArrivals } from '../serve/ws-intake.js';

const KB = 1_024;
const tick = () => new Promise((r) => setTimeout(r, 20));

/** A server whose every connection is charged to 'a' in `budget`; resolves to a client connected to it. */
async function pair(budget: BodyBudget, deadlineMs?: number) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 256 * KB });
  const server: Server = createServer();
  const received: string[] = [];
  server.on('upgrade', (request, socket, head) =>
    wss.handleUpgrade(request, socket, head, (ws) => {
      chargeArrivals(socket, ws, budget, 'a', deadlineMs);
      ws.on('message', (data) => received.push(String(data).slice(0, 8)));
      ws.on('error', () => {});
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const client = new WebSocket(`ws://127.0.0.1:${port}`);
  client.on('error', () => {});
  await new Promise((r) => client.once('open', r));
  const closed = new Promise<number>((r) => client.once('close', (code) => r(code)));
  opened.push(() => {
    client.terminate();
    wss.close();
    server.close();
  });
  return { client, closed, received };
}
const opened: Array<() => void> = [];
afterEach(() => {
  for (const close of opened.splice(0)) close();
});

/** Waits until `ok()` or about two seconds. */
async function until(ok: () => boolean) {
  for (let i = 0; i < 100 && !ok(); i++) await tick();
}

describe('WebSocket frames still arriving, charged to their client (V25-4)', () => {
  it('charges what arrives and gives it back once it is a message, a ping or a pong, whatever its size', async () => {
    const budget = new BodyBudget(10_000 * KB, 10_000 * KB, 0);
    const { client, received } = await pair(budget);
    for (const size of [10, 125, 126, 300, 65_535, 65_536, 70 * KB]) {
      client.send('m'.repeat(size));
      await until(() => received.length > 0);
      expect(received.splice(0), `${size}`).toHaveLength(1);
      await tick();
      expect(budget.heldBy('a'), `${size}`).toBe(0);
    }
    client.ping(Buffer.from('ping'));
    client.pong(Buffer.alloc(100));
    await tick();
    expect(budget.heldBy('a')).toBe(0);
    // written differently: a message in fragments is charged fragment by fragment while it is unfinished
    for (let k = 0; k < 3; k++) client.send(Buffer.alloc(50 * KB, 0x61), { fin: false, binary: false });
    await until(() => budget.heldBy('a') >= 150 * KB);
    expect(budget.heldBy('a')).toBeGreaterThanOrEqual(150 * KB);
    client.send(Buffer.alloc(10, 0x61), { fin: true, binary: false });
    await until(() => received.length > 0);
    await tick();
    expect(budget.heldBy('a')).toBe(0); // whole: nothing of it stays charged
  });

  it('a message of tiny fragments is charged what ws holds of each (V27-3), past the share 1013', async () => {
    const budget = new BodyBudget(10_000 * KB, 100 * KB, 0);
    const { client, closed, received } = await pair(budget);
    for (let k = 0; k < 200; k++) client.send(Buffer.from('a'), { fin: false, binary: false });
    await until(() => budget.heldBy('a') >= 200 * FRAME_HELD);
    expect(budget.heldBy('a')).toBeGreaterThanOrEqual(200 * FRAME_HELD); // 200 x 7 bytes on the wire
    client.send(Buffer.from('a'), { fin: true, binary: false });
    await until(() => received.length > 0);
    await tick();
    expect(budget.heldBy('a')).toBe(0);
    // written another way: 1-byte fragments past the client's share close the connection as its bytes would
    for (let k = 0; k < 500; k++) client.send(Buffer.from('a'), { fin: false, binary: false });
    expect(await closed).toBe(1013);
  });

  it('a ping between fragments does not restart the deadline of the message arriving', async () => {
    const budget = new BodyBudget(10_000 * KB, 10_000 * KB, 60_000);
    const { client, closed } = await pair(budget, 400);
    client.send(Buffer.alloc(50 * KB, 0x61), { fin: false, binary: false });
    const pinging = setInterval(() => {
      client.ping();
      client.send(Buffer.alloc(4 * KB, 0x61), { fin: false, binary: false });
    }, 50);
    try {
      expect(await closed).toBe(1008);
    } finally {
      clearInterval(pinging);
    }
  });

  it("past the client's share the connection closes 1013 and its bytes are its client's again", async () => {
    const budget = new BodyBudget(10_000 * KB, 100 * KB, 0);
    const { client, closed } = await pair(budget);
    for (let k = 0; k < 3; k++) client.send(Buffer.alloc(60 * KB, 0x61), { fin: false, binary: false });
    expect(await closed).toBe(1013);
    await until(() => budget.heldBy('a') === 0);
    expect(budget.heldBy('a')).toBe(0);
  });

  it("a frame that stops coming is another client's to reclaim; one still coming is not", async () => {
    const budget = new BodyBudget(200 * KB, 200 * KB, 1_000);
    const { client, closed } = await pair(budget);
    client.send(Buffer.alloc(120 * KB, 0x61), { fin: false, binary: false });
    await until(() => budget.heldBy('a') >= 120 * KB);
    // still coming (within the second): b's 100 KB is refused, a keeps its frame
    expect(() => budget.reserve('b', 100 * KB, { drop: () => {} })).toThrow(/for all clients/);
    await new Promise((r) => setTimeout(r, 1_200));
    const hold = budget.reserve('b', 100 * KB, { drop: () => {} });
    expect(await closed).toBe(1006); // terminated: what ws held goes with the socket
    expect(budget.heldBy('a')).toBe(0);
    hold.release();
  });

  it('a frame that trickles a fragment at a time is stalled as one that stopped (V26-3)', async () => {
    const budget = new BodyBudget(200 * KB, 200 * KB, 1_000);
    const { client, closed } = await pair(budget);
    client.send(Buffer.alloc(120 * KB, 0x61), { fin: false, binary: false });
    await until(() => budget.heldBy('a') >= 120 * KB);
    const trickle = setInterval(() => client.send(Buffer.from('a'), { fin: false, binary: false }), 200);
    try {
      await new Promise((r) => setTimeout(r, 1_300));
      const hold = budget.reserve('b', 100 * KB, { drop: () => {} }); // a byte every 200 ms kept nothing
      expect(await closed).toBe(1006);
      hold.release();
    } finally {
      clearInterval(trickle);
    }
  });

  it('a message still arriving past the body deadline closes 1008; whole ones on an idle connection stay', async () => {
    const budget = new BodyBudget(10_000 * KB, 10_000 * KB, 60_000);
    const { client, closed, received } = await pair(budget, 400);
    // an honest connection: a large message whole, a fragmented one, then idle past the deadline
    client.send('m'.repeat(100 * KB));
    for (const fin of [false, false, true]) client.send(Buffer.alloc(10 * KB, 0x61), { fin, binary: false });
    await until(() => received.length === 2);
    await new Promise((r) => setTimeout(r, 600));
    client.send('still here');
    await until(() => received.length === 3);
    expect(received).toHaveLength(3);
    // a message whose bytes keep coming (never stalled) but never end: closed at its deadline, its bytes given back
    client.send(Buffer.alloc(50 * KB, 0x61), { fin: false, binary: false });
    const steady = setInterval(() => client.send(Buffer.alloc(4 * KB, 0x61), { fin: false, binary: false }), 50);
    try {
      expect(await closed).toBe(1008);
    } finally {
      clearInterval(steady);
    }
    await until(() => budget.heldBy('a') === 0);
    expect(budget.heldBy('a')).toBe(0);
  });
});

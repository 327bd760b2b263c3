// The OpenEnv WebSocket connections a service holds: shared fairly between clients as session slots are
// (session-slots.ts: a client below its share evicts the least recently used connection (idle first) of the client
// furthest over its own, else the asker's own least recently used idle one, else 429), and closed after
// --session-idle without a message. A connection the server closes (evicted, idle, shutting down) leaves its episode
// resumable; only a client's own close ends it.
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { Client } from './clients.js';
import { SessionSlots, type SlotHolder } from './session-slots.js';

/** A connection as the table holds it: `busy` counts its messages not yet answered, `lastUsed` its last message. */
export interface Connection extends SlotHolder {
  socket: WebSocket;
  /** The server closed it (evicted, idle, shutdown): its episode stays resumable. */
  closedByServer: boolean;
}

/** WebSocket's close code for "try again later": an evicted connection may reconnect and resume its episode. */
const TRY_AGAIN_LATER = 1013;

export class Connections {
  private readonly open = new Map<string, Connection>();
  readonly slots: SessionSlots;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly max: number,
    private readonly idleMs: number,
  ) {
    this.slots = new SessionSlots(
      max,
      this.open,
      (id) =>
        this.close(
          id,
          TRY_AGAIN_LATER,
          'evicted for another connection (fair shares); reconnect and reset with your episode_id to resume',
        ),
      {
        code: 'E_TOO_MANY_CONNECTIONS',
        what: 'OpenEnv WebSocket connections',
        hint: 'close some or retry later',
      },
    );
    this.timer = setInterval(() => this.sweep(), Math.min(30_000, Math.max(50, idleMs / 4)));
    this.timer.unref();
  }

  get size(): number {
    return this.open.size;
  }

  /** Holds `socket` as `client`'s until it closes. */
  add(socket: WebSocket, client: Client): Connection {
    const connection: Connection = {
      id: randomUUID(),
      client,
      busy: 0,
      lastUsed: Date.now(),
      socket,
      closedByServer: false,
    };
    this.open.set(connection.id, connection);
    socket.once('close', () => this.open.delete(connection.id));
    return connection;
  }

  /** Closes connections that had no message for idleMs and have none waiting. */
  sweep(now = Date.now()): void {
    for (const c of this.open.values())
      if (c.busy === 0 && now - c.lastUsed > this.idleMs)
        this.close(c.id, 1000, 'idle past --session-idle; reconnect and reset with your episode_id to resume');
  }

  private close(id: string, code: number, reason: string): void {
    const c = this.open.get(id);
    if (!c) return;
    this.open.delete(id);
    c.closedByServer = true;
    c.socket.close(code, reason); // a close reason is at most 123 bytes
  }

  /** Ends every connection (the server is shutting down); their episodes stay resumable. */
  closeAll(): void {
    clearInterval(this.timer);
    for (const c of this.open.values()) {
      c.closedByServer = true;
      c.socket.terminate();
    }
    this.open.clear();
  }
}

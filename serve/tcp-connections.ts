// The service's TCP connections, bounded at accept below the process's file-descriptor limit: at the bound, a new
// connection takes the place of one the service owes nothing on (the address holding the most, oldest first), so one
// client's silent, trickling or unread sockets never lock the others out (T8-1); only when all are busy is it refused.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { clientAddress } from './client-address.js';

/** Descriptors kept for everything but connections: journals, sandbox workers' pipes, the library. */
const RESERVED_DESCRIPTORS = 64;
/** The default bound when the descriptor limit allows more. */
const MAX_DEFAULT = 4_096;

/** The soft limit on open files (Linux's /proc/self/limits), or null where it cannot be read. */
export function openFileLimit(limits = '/proc/self/limits'): number | null {
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync(limits, 'utf8'));
    if (!line?.[1] || line[1] === 'unlimited') return null;
    return Number(line[1]);
  } catch {
    return null;
  }
}

/** The default bound: three quarters of the descriptor limit less a reserve, at most 4,096, at least 16. */
export function defaultMaxConnections(limit = openFileLimit()): number {
  if (limit === null) return MAX_DEFAULT;
  return Math.max(16, Math.min(MAX_DEFAULT, Math.floor(limit * 0.75) - RESERVED_DESCRIPTORS));
}

interface Held {
  address: string;
  /** Its requests whose responses have not been written to the end. */
  requests: Set<{ request: IncomingMessage; response: ServerResponse }>;
  /** When it last started or finished a request (or opened). */
  lastUsed: number;
}

/**
 * Whether the service owes this connection work: a request read to its end whose answer is still being computed.
 * While the client owes bytes (a request line, headers or a body not yet sent) or has not read an answer written to
 * its end, the connection is the client's to lose.
 */
const owed = (h: Held) => [...h.requests].some(({ request, response }) => request.complete && !response.writableEnded);

/** What the guard reports (the tests read it). */
export interface ConnectionStats {
  open: number;
  evicted: number;
  refused: number;
}

/**
 * Holds `server` to `max` TCP connections. A connection is protected only while the service owes it an answer
 * (`owed`); an upgraded one (a WebSocket) leaves this table for openenv-connections.ts, which shares those fairly.
 */
export function guardConnections(server: Server, max: number): ConnectionStats {
  const held = new Map<Socket, Held>();
  const stats: ConnectionStats = { open: 0, evicted: 0, refused: 0 };
  const forget = (socket: Socket) => {
    held.delete(socket);
    stats.open = held.size;
  };
  /** The idle connection of the address holding the most, least recently used first. */
  const victim = (): Socket | null => {
    const perAddress = new Map<string, number>();
    for (const h of held.values()) perAddress.set(h.address, (perAddress.get(h.address) ?? 0) + 1);
    let best: [Socket, Held, number] | null = null;
    for (const [socket, h] of held) {
      if (owed(h)) continue;
      const count = perAddress.get(h.address) ?? 0;
      if (!best || count > best[2] || (count === best[2] && h.lastUsed < best[1].lastUsed)) best = [socket, h, count];
    }
    return best?.[0] ?? null;
  };
  server.on('connection', (socket: Socket) => {
    if (held.size >= max) {
      const old = victim();
      if (old) {
        forget(old);
        old.destroy();
        stats.evicted++;
      } else {
        stats.refused++;
        socket.destroy();
        return;
      }
    }
    held.set(socket, { address: clientAddress(socket.remoteAddress), requests: new Set(), lastUsed: Date.now() });
    stats.open = held.size;
    socket.once('close', () => forget(socket));
  });
  server.on('request', (request, response) => {
    const h = held.get(request.socket);
    if (!h) return;
    const pair = { request, response };
    h.requests.add(pair);
    h.lastUsed = Date.now();
    response.once('close', () => {
      h.requests.delete(pair);
      h.lastUsed = Date.now();
    });
  });
  server.on('upgrade', (request) => forget(request.socket));
  return stats;
}

// One OpenEnv WebSocket connection (/openenv/{env}/ws): its messages (reset, step, state, mcp, close) answered in
// order with OpenEnv's observation/state/mcp/error messages, one episode at a time. A new reset ends the episode
// before it, and so does the client going away (close or disconnect), as OpenEnv destroys a closed session: the
// episode ends "truncated" and frees its slot. A server shutting down leaves its episodes resumable instead.
import type { WebSocket } from 'ws';
import { z } from 'zod';
import type { Hold } from './body-budget.js';
import { admitted } from './episode-routes.js';
import { answerMcp } from './openenv-mcp.js';
import { parseAction, ResetData, type OpenEnvSessions } from './openenv-session.js';
import { ServeError } from './options.js';
import { parse, StepBody } from './schemas.js';
import type { Service } from './service.js';
import { byteLength, TRY_AGAIN_LATER } from './ws-intake.js';

const Envelope = z.object(
  { type: z.string({ error: 'must be a string: reset, step, state, mcp or close' }), data: z.unknown().optional() },
  { error: 'a message is { "type", "data"? }' },
);

/**
 * Messages and answers one WebSocket connection may have pending (unread by its client, or not yet answered); past it
 * the connection closes with 1008.
 */
const MAX_PENDING = 64;
/** Bytes of answers a WebSocket client may leave unread before its connection closes with 1008. */
const MAX_BUFFERED_BYTES = 4 << 20;

/** The optional `turn` of a WebSocket step's data (the idempotency key, as an HTTP step's `turn`). */
function turnOf(data: unknown): number | undefined {
  if (data === null || typeof data !== 'object' || !('turn' in data)) return undefined;
  return parse(StepBody.pick({ turn: true }), { turn: (data as { turn: unknown }).turn }, ['data']).turn;
}

/** OpenEnv's error codes for the service's answers. */
function wsCode(status: number): string {
  return status === 429 || status === 503
    ? 'CAPACITY_REACHED'
    : status === 404 || status === 410
      ? 'SESSION_ERROR'
      : status < 500
        ? 'VALIDATION_ERROR'
        : 'EXECUTION_ERROR';
}

/**
 * Serves one connection, keeping `activity` (its messages waiting, its last message's time) for the connection
 * table's fair shares and idle timeout; `keepEpisode` tells a server's own close (the episode stays resumable) from the
 * client's.
 */
export function serveConnection(
  socket: WebSocket,
  env: string,
  service: Service,
  sessions: OpenEnvSessions,
  activity: { busy: number; lastUsed: number },
  keepEpisode: () => boolean,
): void {
  let episode: string | null = null;
  let over = false; // the connection's episode ended (done, or end_episode)
  let chain: Promise<void> = Promise.resolve();
  let pending = 0; // messages received and not yet answered
  // A client that sends faster than it reads would have the server hold its answers without bound.
  const overloaded = () => pending > MAX_PENDING || socket.bufferedAmount > MAX_BUFFERED_BYTES;
  // An answer the kernel has not taken yet is held for its client: charged to its principal in the budget its HTTP
  // answers and bodies share (answer-budget.ts; V24-4: these were charged to nothing, up to 4 MB a connection times a
  // principal's connections) until ws's send callback; past the principal's share the connection closes with 1013.
  // While unread an answer is its client's to lose: not marked arrived, so another client's body or answer reclaims it.
  const unsent = new Set<Hold>();
  socket.once('close', () => {
    for (const hold of unsent) hold.release();
    unsent.clear();
  });
  const send = (type: string, data: unknown) => {
    if (socket.readyState !== socket.OPEN) return;
    const text = JSON.stringify({ type, data });
    let hold: Hold;
    try {
      hold = service.bodies.reserve(sessions.who.principal, Buffer.byteLength(text), {
        drop: () => socket.terminate(),
      });
    } catch (error) {
      return socket.close(TRY_AGAIN_LATER, `answers not yet read: ${(error as Error).message}`.slice(0, 120));
    }
    unsent.add(hold);
    socket.send(text, () => {
      hold.release();
      unsent.delete(hold);
    });
    if (overloaded())
      socket.close(1008, `more than ${MAX_PENDING} messages or ${MAX_BUFFERED_BYTES} bytes of answers unread`);
  };
  const abandon = async (id: string | null) => {
    // already over, or the service is going: nothing to free
    if (id !== null && !over) await sessions.end(env, id).catch(() => {});
  };
  const handle = async (text: string) => {
    if (socket.readyState !== socket.OPEN) return; // closed meanwhile: what it queued is not played
    let message: { type: string; data?: unknown };
    try {
      message = parse(Envelope, JSON.parse(text));
    } catch (error) {
      const invalid = error instanceof SyntaxError;
      return send('error', {
        message: invalid ? `Invalid JSON: ${error.message}` : (error as Error).message,
        code: invalid ? 'INVALID_JSON' : 'VALIDATION_ERROR',
        envforge_code: 'E_BAD_REQUEST',
      });
    }
    try {
      if (message.type === 'reset') {
        const out = await admitted(service, sessions.who, () =>
          sessions.reset(env, parse(ResetData, message.data ?? {}, ['data'])),
        );
        const next = (out.observation.metadata as { episode_id: string }).episode_id;
        // One open episode per connection: a reset abandons the one before it, which ends and frees its slot.
        if (episode !== next) await abandon(episode);
        [episode, over] = [next, out.done];
        return send('observation', out);
      }
      if (message.type === 'close') return socket.close(1000, 'closed by the client');
      if (message.type === 'mcp')
        return send(
          'mcp',
          await admitted(service, sessions.who, () => answerMcp(sessions, { env, connection: episode }, message.data)),
        );
      if (message.type === 'state')
        return send('state', await admitted(service, sessions.who, () => sessions.state(env, episode)));
      if (message.type !== 'step')
        return send('error', {
          message: `Unknown message type: ${message.type.slice(0, 40)}`,
          code: 'UNKNOWN_TYPE',
          envforge_code: 'E_BAD_REQUEST',
        });
      const action = parseAction(message.data);
      const turn = turnOf(message.data);
      const out = await admitted(service, sessions.who, () => sessions.step(env, episode, action, turn));
      if (action.type !== 'list_tools' && out.done) over = true;
      return send('observation', out);
    } catch (error) {
      const status = error instanceof ServeError ? error.status : 500;
      const code = error instanceof ServeError ? error.code : 'E_INTERNAL';
      send('error', {
        message: error instanceof Error ? error.message : String(error),
        code: wsCode(status),
        envforge_code: code,
      });
    }
  };
  // A bad frame (over maxPayload, invalid UTF-8) emits 'error' and closes the socket; unheard, it would throw.
  socket.on('error', () => socket.terminate());
  socket.on('close', () => {
    // After what the connection queued: the client went away, so its episode ends (a shutting-down server keeps it
    // resumable).
    chain = chain.then(() => (keepEpisode() ? undefined : abandon(episode)));
  });
  socket.on('message', (data, isBinary) => {
    if (socket.readyState !== socket.OPEN) return;
    if (++pending > MAX_PENDING)
      return socket.close(
        1008,
        `more than ${MAX_PENDING} messages waiting for an answer; read the answers before sending more`,
      );
    [activity.busy, activity.lastUsed] = [pending, Date.now()];
    // A message waiting for its turn is held in memory: charged to its client as request bodies are (V20-1).
    let hold: Hold;
    try {
      hold = service.bodies.reserve(sessions.who.principal, byteLength(data), { drop: () => socket.terminate() });
      hold.arrived();
    } catch (error) {
      --pending;
      return socket.close(TRY_AGAIN_LATER, (error as Error).message.slice(0, 120));
    }
    const text = isBinary ? '' : String(data);
    chain = chain
      .then(() => handle(text))
      .finally(() => {
        hold.release();
        [activity.busy, activity.lastUsed] = [--pending, Date.now()];
      });
  });
}

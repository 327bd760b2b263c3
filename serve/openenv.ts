// OpenEnv's protocol over the episode sessions, so OpenEnv's own clients (GenericEnvClient, MCPToolClient) train
// against any episodic environment unchanged, at base_url http://HOST:PORT/openenv/{env}: the WebSocket session
// endpoint /ws (openenv-ws.ts), HTTP /reset, /step and /state with OpenEnv's request and response shapes (a step
// may name the episode_id a reset returned, an extra field OpenEnv's StepRequest allows; without one it plays a
// one-step episode, as OpenEnv's stateless HTTP step plays a fresh environment), /schema, /metadata, /health, and
// MCP's JSON-RPC at /mcp (openenv-mcp.ts). Wire shapes: docs/reward-service.md.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer } from 'ws';
import { z } from 'zod';
import { clientOf, requestClient, type Client } from './clients.js';
import { Connections } from './openenv-connections.js';
import { admitted, STEP_BODY_LIMIT } from './episode-routes.js';
import type { EpisodeSessions } from './episodes.js';
import { answerMcp, openEnvMetadata, openEnvSchema } from './openenv-mcp.js';
import { OpenEnvSessions, parseAction, ResetData } from './openenv-session.js';
import { serveConnection } from './openenv-ws.js';
import { MAX_FRAGMENTS } from './ws-frames.js';
import { chargeArrivals } from './ws-intake.js';
import { ServeError } from './options.js';
import { originRefusal } from './origins.js';
import { parse, StepBody } from './schemas.js';
import type { Service } from './service.js';

const WS_PATH = /^\/openenv\/([^/?]{1,200})\/ws(?:\?.*)?$/;
const EpisodeId = z
  .string({ error: 'must be a string (the observation.metadata.episode_id a reset returned)' })
  .min(1, 'must not be empty');
/**
 * OpenEnv's StepRequest {action, timeout_s?, request_id?}, whose extra fields may name envforge's episode_id and turn
 * (or a one-step episode's seed, level, version).
 */
const Step = z.looseObject(
  {
    action: z.unknown(),
    episode_id: EpisodeId.optional(),
    turn: StepBody.shape.turn,
    timeout_s: z.number().positive().optional(),
    request_id: z.string().max(255).optional(),
  },
  { error: 'the body must be a JSON object { action, timeout_s?, request_id?, episode_id?, turn? }' },
);
const StateQuery = z.object({ episode_id: EpisodeId.optional() }, { error: 'the query may carry episode_id' });

/** A bodiless HTTP answer to an upgrade the service refuses. */
function refuse(socket: Duplex, status: string, headers = ''): void {
  socket.end(`HTTP/1.1 ${status}\r\n${headers}connection: close\r\ncontent-length: 0\r\n\r\n`);
}

/**
 * Registers OpenEnv's endpoints under /openenv/{env}/; close() ends the WebSocket connections (their episodes stay
 * resumable). Connections are shared fairly between clients and close when idle (openenv-connections.ts).
 */
export function registerOpenEnv(
  app: FastifyInstance,
  service: Service,
  episodes: EpisodeSessions,
  allowed: ReadonlySet<string>,
): { close(): void; readonly connections: number } {
  // A connection plays one session at a time: as many connections as sessions.
  const connections = new Connections(episodes.options.maxSessions, episodes.options.idleMs);
  const sessions = new OpenEnvSessions(episodes);
  const envOf = (params: unknown) => String((params as { env?: unknown }).env ?? '');
  const record = (env: string) => {
    const found = service.catalog.lookup(env);
    if ('error' in found) throw new ServeError(404, 'E_UNKNOWN_ENV', found.error.message);
    return found.record;
  };

  app.post('/openenv/:env/reset', { bodyLimit: STEP_BODY_LIMIT }, async (request) =>
    admitted(service, requestClient(request), () =>
      sessions.as(requestClient(request)).reset(envOf(request.params), parse(ResetData, request.body ?? {})),
    ),
  );
  app.post('/openenv/:env/step', { bodyLimit: STEP_BODY_LIMIT }, async (request) => {
    const body = parse(Step, request.body);
    const env = envOf(request.params);
    const action = parseAction(body.action);
    const as = sessions.as(requestClient(request));
    return admitted(service, requestClient(request), () =>
      body.episode_id === undefined
        ? as.once(env, action, parse(ResetData, body))
        : as.step(env, body.episode_id, action, body.turn),
    );
  });
  app.get('/openenv/:env/state', async (request) =>
    admitted(service, requestClient(request), () =>
      sessions
        .as(requestClient(request))
        .state(envOf(request.params), parse(StateQuery, request.query, ['query']).episode_id ?? null),
    ),
  );
  app.get('/openenv/:env/health', async () => ({ status: 'healthy' }));
  app.get('/openenv/:env/metadata', async (request) => openEnvMetadata(record(envOf(request.params))));
  app.get('/openenv/:env/schema', async (request) =>
    openEnvSchema(envOf(request.params), sessions.tools(envOf(request.params))),
  );
  app.post('/openenv/:env/mcp', { bodyLimit: STEP_BODY_LIMIT }, async (request) =>
    admitted(service, requestClient(request), () =>
      answerMcp(sessions.as(requestClient(request)), { env: envOf(request.params) }, request.body),
    ),
  );

  let shuttingDown = false;
  const wss = new WebSocketServer({ noServer: true, maxPayload: STEP_BODY_LIMIT, maxFragments: MAX_FRAGMENTS });
  wss.on('error', () => {}); // only reachable through handleUpgrade's sockets, which have their own handler
  const upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A browser page of an origin the operator did not allow (WebSockets are outside CORS): refused first.
    if (originRefusal(request.headers, allowed)) return refuse(socket, '403 Forbidden');
    const match = WS_PATH.exec(request.url ?? '');
    if (!match) return refuse(socket, '404 Not Found');
    let env: string;
    try {
      env = decodeURIComponent(match[1] as string);
    } catch {
      return refuse(socket, '400 Bad Request');
    }
    let client: Client;
    try {
      client = clientOf({ headers: request.headers, ip: request.socket.remoteAddress }, service.credentials);
    } catch {
      return refuse(socket, '401 Unauthorized');
    }
    let release: () => void;
    try {
      release = connections.slots.reserve(client);
    } catch {
      return refuse(socket, '429 Too Many Requests', 'retry-after: 1\r\n');
    }
    socket.once('close', release); // a handshake that never completes frees its reservation
    wss.handleUpgrade(request, socket, head, (ws) => {
      release();
      const connection = connections.add(ws, client);
      // Frames still arriving are held for the client: charged to it as they come (V25-4), within the body deadline.
      chargeArrivals(socket, ws, service.bodies, client.principal, service.options.bodyTimeoutMs);
      serveConnection(
        ws,
        env,
        service,
        sessions.as(client),
        connection,
        () => shuttingDown || connection.closedByServer,
      );
    });
  };
  app.server.on('upgrade', upgrade);
  return {
    close: () => {
      shuttingDown = true;
      app.server.off('upgrade', upgrade);
      connections.closeAll();
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
    get connections() {
      return connections.size;
    },
  };
}

// OpenEnv's protocol over the episode sessions, so an OpenEnv client trains against any episodic environment:
// the WebSocket session endpoint (/openenv/{env}/ws: reset/step/state/close messages answered with
// observation/state/error messages) and the HTTP reset/step/state endpoints, with OpenEnv's shapes
// (Observation {observation, reward, done, metadata}, State {episode_id, step_count}). Rewards are terminal.
import { randomInt } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
import { clientOf, requestClient, type Client } from './clients.js';
import { actionOf, admitted, STEP_BODY_LIMIT } from './episode-routes.js';
import { parseEpisodeId } from './episode-journal.js';
import type { EpisodeSessions, StepResult } from './episodes.js';
import { ServeError } from './options.js';
import { parse, StepBody } from './schemas.js';
import type { Service } from './service.js';

const WS_PATH = /^\/openenv\/([^/?]{1,200})\/ws(?:\?.*)?$/;
const Level = z.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be at least 1');
/** OpenEnv's ResetRequest (seed, episode_id) plus envforge's level and version. */
const ResetData = z.object(
  {
    seed: z.number({ error: 'must be a number' }).int('must be an integer').min(0, 'must be non-negative').max(Number.MAX_SAFE_INTEGER, 'must be a safe integer').optional(),
    episode_id: z.string({ error: 'must be a string' }).max(255, 'must be at most 255 characters').optional(),
    level: Level.optional(),
    version: Level.optional(),
  },
  { error: 'reset data must be an object { seed?, episode_id?, level?, version? }' },
);
const Envelope = z.object({ type: z.string({ error: 'must be a string: reset, step, state or close' }), data: z.unknown().optional() }, { error: 'a message is { "type", "data"? }' });

/** Messages and answers one WebSocket connection may have pending (unread by its client, or not yet answered); past it the connection closes with 1008. */
const MAX_PENDING = 64;
/** Bytes of answers a WebSocket client may leave unread before its connection closes with 1008. */
const MAX_BUFFERED_BYTES = 4 << 20;

/** The optional `turn` of a WebSocket step's data (the idempotency key, as an HTTP step's `turn`). */
function turnOf(data: unknown): number | undefined {
  if (data === null || typeof data !== 'object' || !('turn' in data)) return undefined;
  return parse(StepBody.pick({ turn: true }), { turn: (data as { turn: unknown }).turn }, ['data']).turn;
}

/** OpenEnv's step action for a tool call: { tool, args } or MCP's { type: "call_tool", tool_name, arguments }. */
function toolCall(action: unknown): { tool: string; args?: Record<string, unknown> } {
  const a = action as Record<string, unknown> | null;
  const mcp = a !== null && typeof a === 'object' && a.type === 'call_tool' ? { tool: a.tool_name, ...(a.arguments !== undefined ? { args: a.arguments } : {}) } : action;
  return actionOf(parse(StepBody.omit({ turn: true }), mcp, ['action']));
}

type Observation = { observation: Record<string, unknown>; reward: number | null; done: boolean; metadata: Record<string, unknown> };

function stepObservation(r: StepResult): Observation {
  const meta = { episode_id: r.episode, turn: r.turn, ...(r.done ? { end: r.end, ...(r.feedback !== undefined ? { feedback: r.feedback } : {}), ...(r.error ? { error: r.error } : {}) } : {}) };
  return { observation: { text: r.observation, turn: r.turn }, reward: r.done ? (r.score ?? 0) : null, done: r.done, metadata: meta };
}

/** OpenEnv's error codes for the service's answers. */
function wsCode(status: number): string {
  return status === 429 || status === 503 ? 'CAPACITY_REACHED' : status === 404 || status === 410 ? 'SESSION_ERROR' : status < 500 ? 'VALIDATION_ERROR' : 'EXECUTION_ERROR';
}

export class OpenEnvAdapter {
  constructor(
    private readonly service: Service,
    private readonly sessions: EpisodeSessions,
  ) {}

  /** reset: resumes an episode this service issued (episode_id), else starts one (seed drawn when absent, level 1 by default). */
  async reset(env: string, raw: unknown, client: Client): Promise<Observation> {
    const data = parse(ResetData, raw ?? {}, ['data']);
    if (data.episode_id !== undefined && parseEpisodeId(data.episode_id)) {
      const s = await this.sessions.get(data.episode_id, client);
      if (s.env !== env) throw new ServeError(400, 'E_BAD_REQUEST', `episode ${data.episode_id} is an episode of ${s.env}, not ${env}`);
      const last = s.turns[s.turns.length - 1];
      return { observation: { text: last ? last.observation : s.prompt, prompt: s.prompt, tools: s.tools, max_turns: s.maxTurns, turn: s.turn }, reward: s.done ? (s.score ?? 0) : null, done: s.done, metadata: { episode_id: s.episode, resumed: true, env: s.env, version: s.version, seed: s.seed, level: s.level } };
    }
    const s = await this.sessions.create({ env, version: data.version, seed: data.seed ?? randomInt(0, 2 ** 31), level: data.level ?? 1 }, client);
    const label = data.episode_id !== undefined ? { client_episode_id: data.episode_id } : {};
    return { observation: { text: s.prompt, prompt: s.prompt, tools: s.meta.tools, max_turns: s.meta.maxTurns, turn: 0 }, reward: null, done: false, metadata: { episode_id: s.id, ...s.identity, ...label } };
  }

  async step(env: string, episode: string, action: unknown, turn: number | undefined, client: Client): Promise<Observation> {
    const call = toolCall(action);
    await this.ownedBy(env, episode, client);
    return stepObservation(await this.sessions.step(episode, call, turn, client));
  }

  async state(env: string, episode: string, client: Client): Promise<Record<string, unknown>> {
    const s = await this.ownedBy(env, episode, client);
    return { episode_id: s.episode, step_count: s.turn, env: s.env, version: s.version, seed: s.seed, level: s.level, done: s.done, max_turns: s.maxTurns };
  }

  private async ownedBy(env: string, episode: string, client: Client) {
    const s = await this.sessions.get(episode, client);
    if (s.env !== env) throw new ServeError(400, 'E_BAD_REQUEST', `episode ${episode} is an episode of ${s.env}, not ${env}`);
    return s;
  }

  /** One WebSocket connection: its messages answered in order, one episode at a time. */
  connection(socket: WebSocket, env: string, client: Client): void {
    let episode: string | null = null;
    let chain: Promise<void> = Promise.resolve();
    let pending = 0; // messages received and not yet answered
    // A client that sends faster than it reads would have the server hold its answers without bound.
    const overloaded = () => pending > MAX_PENDING || socket.bufferedAmount > MAX_BUFFERED_BYTES;
    const send = (type: string, data: unknown) => {
      if (socket.readyState !== socket.OPEN) return;
      socket.send(JSON.stringify({ type, data }));
      if (overloaded()) socket.close(1008, `more than ${MAX_PENDING} messages or ${MAX_BUFFERED_BYTES} bytes of answers unread`);
    };
    const handle = async (text: string) => {
      if (socket.readyState !== socket.OPEN) return; // closed meanwhile: what it queued is not played
      let message: { type: string; data?: unknown };
      try {
        message = parse(Envelope, JSON.parse(text));
      } catch (error) {
        const invalid = error instanceof SyntaxError;
        return send('error', { message: invalid ? `Invalid JSON: ${error.message}` : (error as Error).message, code: invalid ? 'INVALID_JSON' : 'VALIDATION_ERROR', envforge_code: invalid ? 'E_BAD_REQUEST' : 'E_BAD_REQUEST' });
      }
      try {
        if (message.type === 'reset') {
          const out = await admitted(this.service, () => this.reset(env, message.data, client));
          const previous = episode;
          episode = out.metadata.episode_id as string;
          // One open episode per connection: a reset abandons the one before it, which ends and frees its slot.
          if (previous !== null && previous !== episode) await this.sessions.end(previous, client).catch(() => {});
          return send('observation', out);
        }
        if (message.type === 'close') return socket.close(1000, 'closed by the client');
        if (message.type !== 'step' && message.type !== 'state') return send('error', { message: `Unknown message type: ${message.type.slice(0, 40)}`, code: 'UNKNOWN_TYPE', envforge_code: 'E_BAD_REQUEST' });
        if (episode === null) throw new ServeError(400, 'E_BAD_REQUEST', `send a reset first: this connection has no episode to ${message.type}`);
        const id = episode;
        if (message.type === 'step') {
          const turn = turnOf(message.data);
          return send('observation', await admitted(this.service, () => this.step(env, id, message.data, turn, client)));
        }
        return send('state', await admitted(this.service, () => this.state(env, id, client)));
      } catch (error) {
        const status = error instanceof ServeError ? error.status : 500;
        const code = error instanceof ServeError ? error.code : 'E_INTERNAL';
        send('error', { message: error instanceof Error ? error.message : String(error), code: wsCode(status), envforge_code: code });
      }
    };
    // A bad frame (over maxPayload, invalid UTF-8) emits 'error' and closes the socket; unheard, it would throw.
    socket.on('error', () => socket.terminate());
    socket.on('message', (data, isBinary) => {
      if (socket.readyState !== socket.OPEN) return;
      if (++pending > MAX_PENDING) return socket.close(1008, `more than ${MAX_PENDING} messages waiting for an answer; read the answers before sending more`);
      const text = isBinary ? '' : String(data);
      chain = chain.then(() => handle(text)).finally(() => pending--);
    });
  }
}

/** Registers OpenEnv's HTTP endpoints and WebSocket endpoint under /openenv/{env}/; close() ends the WebSocket connections. */
export function registerOpenEnv(app: FastifyInstance, service: Service, sessions: EpisodeSessions): { close(): void } {
  const maxConnections = sessions.options.maxSessions; // a connection plays one session at a time
  const adapter = new OpenEnvAdapter(service, sessions);
  const envOf = (params: unknown) => String((params as { env?: unknown }).env ?? '');
  const EpisodeId = z.string({ error: (issue) => (issue.input === undefined ? 'is required (the metadata.episode_id a reset returned)' : 'must be a string') }).min(1, 'must not be empty');
  const Step = z.object({ action: z.unknown(), episode_id: EpisodeId, turn: StepBody.shape.turn }, { error: 'the body must be a JSON object { action, episode_id, turn? }' }).loose();

  app.post('/openenv/:env/reset', async (request) => admitted(service, () => adapter.reset(envOf(request.params), request.body, requestClient(request))));
  app.post('/openenv/:env/step', { bodyLimit: STEP_BODY_LIMIT }, async (request) => {
    const body = parse(Step, request.body);
    return admitted(service, () => adapter.step(envOf(request.params), body.episode_id, body.action, body.turn, requestClient(request)));
  });
  const StateQuery = z.object({ episode_id: EpisodeId }, { error: 'the query must carry episode_id' });
  app.get('/openenv/:env/state', async (request) => admitted(service, () => adapter.state(envOf(request.params), parse(StateQuery, request.query, ['query']).episode_id, requestClient(request))));
  app.get('/openenv/:env/health', async () => ({ status: 'healthy' }));

  const wss = new WebSocketServer({ noServer: true, maxPayload: STEP_BODY_LIMIT });
  wss.on('error', () => {}); // only reachable through handleUpgrade's sockets, which have their own handler
  const upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (wss.clients.size >= maxConnections) {
      socket.end('HTTP/1.1 429 Too Many Requests\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const match = WS_PATH.exec(request.url ?? '');
    if (!match) {
      socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    let env: string;
    try {
      env = decodeURIComponent(match[1] as string);
    } catch {
      socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    let client: Client;
    try {
      client = clientOf({ headers: request.headers, ip: request.socket.remoteAddress }, service.operator);
    } catch {
      socket.end('HTTP/1.1 401 Unauthorized\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => adapter.connection(ws, env, client));
  };
  app.server.on('upgrade', upgrade);
  return {
    close: () => {
      app.server.off('upgrade', upgrade);
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}

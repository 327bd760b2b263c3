// OpenEnv's MCP side and its descriptive endpoints: the JSON-RPC methods OpenEnv's MCPToolClient sends over HTTP
// POST /mcp and the WebSocket "mcp" message (tools/list with inputSchema, tools/call answered with text content, and
// OpenEnv's openenv/session/create and close), and the bodies of GET /schema and GET /metadata.
import { z } from 'zod';
import type { Tool } from '../contract/episodic.js';
import type { EnvRecord } from '../library/contract.js';
import { parseAction, ResetData, type OpenEnvSessions } from './openenv-session.js';
import { ServeError } from './options.js';
import { parse } from './schemas.js';

/** JSON-RPC 2.0's error codes, as OpenEnv's JsonRpcErrorCode names them. */
const RPC = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  server: -32000,
} as const;

const Request = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
});
type Id = string | number | null;

export type RpcAnswer =
  | { jsonrpc: '2.0'; id: Id; result: unknown }
  | { jsonrpc: '2.0'; id: Id; error: { code: number; message: string; data?: unknown } };

const failure = (id: Id, code: number, message: string, data?: unknown): RpcAnswer => ({
  jsonrpc: '2.0',
  id,
  error: { code, message, ...(data !== undefined ? { data } : {}) },
});

/**
 * Where a tools/call plays: the WebSocket connection's episode, or (HTTP) the session_id it names, else a one-step
 * episode.
 */
export interface McpScope {
  env: string;
  /** WebSocket: the connection's episode (null before a reset); undefined over HTTP. */
  connection?: string | null;
}

/** One JSON-RPC request of OpenEnv's MCP protocol; every failure is a JSON-RPC error, never an exception. */
export async function answerMcp(sessions: OpenEnvSessions, scope: McpScope, body: unknown): Promise<RpcAnswer> {
  const parsed = Request.safeParse(body);
  const id: Id = parsed.success ? (parsed.data.id ?? null) : null;
  if (!parsed.success)
    return failure(
      id,
      RPC.invalidRequest,
      'Invalid Request: a JSON-RPC 2.0 request is { "jsonrpc": "2.0", "method", "params"?, "id"? }',
    );
  const { method } = parsed.data;
  const params = parsed.data.params ?? {};
  const http = scope.connection === undefined;
  try {
    if (method === 'tools/list') return { jsonrpc: '2.0', id, result: { tools: mcpTools(sessions.tools(scope.env)) } };
    if (method === 'tools/call') {
      if (typeof params.name !== 'string') return failure(id, RPC.invalidParams, "Missing 'name' in params");
      const action = {
        type: 'call_tool',
        tool_name: params.name,
        ...(params.arguments !== undefined ? { arguments: params.arguments } : {}),
      };
      const call = parseAction(action);
      const episode = http
        ? typeof params.session_id === 'string'
          ? params.session_id
          : null
        : (scope.connection ?? null);
      if (!http && episode === null)
        return failure(id, RPC.invalidRequest, 'send a reset first: this connection has no episode to call a tool in');
      const out =
        episode === null
          ? await sessions.once(scope.env, call, parse(ResetData, params, ['params']))
          : await sessions.step(scope.env, episode, call);
      return { jsonrpc: '2.0', id, result: out.observation.result };
    }
    if (http && method === 'openenv/session/create') {
      const out = await sessions.reset(scope.env, parse(ResetData, params, ['params']));
      return {
        jsonrpc: '2.0',
        id,
        result: { session_id: (out.observation.metadata as { episode_id: string }).episode_id },
      };
    }
    if (http && method === 'openenv/session/close') {
      if (typeof params.session_id !== 'string')
        return failure(id, RPC.invalidParams, "Invalid params - 'session_id' is required");
      const out = await sessions.end(scope.env, params.session_id);
      return { jsonrpc: '2.0', id, result: { session_id: params.session_id, closed: true, reward: out.reward } };
    }
    return failure(id, RPC.methodNotFound, `Method not found: ${method.slice(0, 80)}`);
  } catch (error) {
    if (!(error instanceof ServeError)) throw error;
    return failure(id, error.status === 400 ? RPC.invalidParams : RPC.server, error.message, {
      envforge_code: error.code,
      status: error.status,
    });
  }
}

/** Tools as MCP's tools/list names their schema (inputSchema). */
function mcpTools(
  tools: readonly Tool[],
): Array<{ name: string; description: string; inputSchema: Record<string, unknown> }> {
  return tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters }));
}

/**
 * GET /schema: OpenEnv's SchemaResponse {action, observation, state}, as JSON Schemas of this environment's messages.
 */
export function openEnvSchema(
  env: string,
  tools: readonly Tool[],
): { action: unknown; observation: unknown; state: unknown } {
  const object = (properties: Record<string, unknown>, required: string[]) => ({
    type: 'object',
    properties,
    required,
  });
  const calls = tools.map((t) => ({
    ...object({ tool: { const: t.name }, args: t.parameters, turn: { type: 'integer', minimum: 1 } }, ['tool']),
    title: t.name,
    description: t.description,
  }));
  const control = (type: string, description: string) => ({
    ...object({ type: { const: type } }, ['type']),
    title: type,
    description,
  });
  const mcp = {
    ...object(
      { type: { const: 'call_tool' }, tool_name: { enum: tools.map((t) => t.name) }, arguments: { type: 'object' } },
      ['type', 'tool_name'],
    ),
    title: 'call_tool',
  };
  return {
    action: {
      title: `${env} action`,
      oneOf: [
        ...calls,
        mcp,
        control('list_tools', 'The tools with their input schemas; takes no turn.'),
        control(
          'end_episode',
          'Ends the episode ("truncated" if it was still running); the answer carries its reward.',
        ),
      ],
    },
    observation: {
      title: `${env} observation`,
      type: 'object',
      properties: {
        text: { type: 'string' },
        prompt: { type: 'string' },
        turn: { type: 'integer' },
        max_turns: { type: 'integer' },
        tools: { type: 'array' },
        tool_name: { type: 'string' },
        result: { type: 'object' },
        metadata: {
          type: 'object',
          properties: {
            episode_id: { type: 'string' },
            turn: { type: 'integer' },
            end: { type: 'string' },
            feedback: { type: 'string' },
            error: { type: 'object' },
          },
        },
      },
    },
    state: {
      title: `${env} state`,
      ...object(
        {
          episode_id: { type: ['string', 'null'] },
          step_count: { type: 'integer', minimum: 0 },
          env: { type: 'string' },
          version: { type: 'integer' },
          seed: { type: 'integer' },
          level: { type: 'integer' },
          done: { type: 'boolean' },
          max_turns: { type: 'integer' },
        },
        ['episode_id', 'step_count'],
      ),
    },
  };
}

/** GET /metadata: OpenEnv's EnvironmentMetadata (name, description, version; no other keys). */
export function openEnvMetadata(record: EnvRecord): { name: string; description: string; version: string } {
  return { name: record.name, description: record.meta.description, version: String(record.version) };
}

// The episode endpoints of the reward service (/v1/episodes…): each parses its body (schemas.ts) and
// answers through the session table (episodes.ts); docs/reward-service.md gives the wire shapes and the
// idempotency rule of steps (`turn`).
import type { FastifyInstance } from 'fastify';
import { EPISODIC_LIMITS } from '../contract/episodic.js';
import { requestClient, type Client } from './clients.js';
import { MAX_ACTION_CHARS, type EpisodeSessions } from './episodes.js';
import { checkCount, Identity, parse, ScoreBody, StepBody } from './schemas.js';
import { ServeError } from './options.js';
import type { Service } from './service.js';

/** The body limit of one step: an action is at most 64 KB; more is refused before it is parsed. */
export const STEP_BODY_LIMIT = 4 * MAX_ACTION_CHARS;

/**
 * The action a step body names, as the sandbox replays it (args only when given); its limits are checked by the step
 * (action-limits.ts).
 */
export function actionOf(body: { tool: string; args?: Record<string, unknown> | undefined }): {
  tool: string;
  args?: Record<string, unknown>;
} {
  return body.args === undefined ? { tool: body.tool } : { tool: body.tool, args: body.args };
}

/**
 * An Idempotency-Key header (a client's unique string, e.g. a UUID: 1–200 printable ASCII characters), or undefined
 * when none is sent.
 */
export function idempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(header)) {
    throw new ServeError(
      400,
      'E_BAD_REQUEST',
      'the Idempotency-Key header must be one value of 1–200 printable ASCII characters (no spaces), e.g. a UUID',
    );
  }
  return header;
}

/** Runs `work` holding one unit of the service's queue for `client` (503 past its share of a full queue). */
export async function admitted<T>(service: Service, client: Client, work: () => Promise<T>): Promise<T> {
  const release = service.acquire(1, client.principal);
  try {
    return await work();
  } finally {
    release();
  }
}

export function registerEpisodeRoutes(
  app: FastifyInstance,
  service: Service,
  sessions: EpisodeSessions,
  maxActions: number,
): void {
  const idOf = (params: unknown) => String((params as { id?: unknown }).id ?? '');

  app.post('/v1/episodes', { bodyLimit: STEP_BODY_LIMIT }, async (request) => {
    const identity = parse(Identity, request.body);
    const key = idempotencyKey(request.headers['idempotency-key']);
    return admitted(service, requestClient(request), async () => {
      const s = await sessions.create(identity, requestClient(request), key);
      return {
        episode: s.id,
        env: s.identity.env,
        version: s.identity.version,
        seed: s.identity.seed,
        level: s.identity.level,
        prompt: s.prompt,
        tools: s.meta.tools,
        maxTurns: s.meta.maxTurns,
      };
    });
  });

  // Each action is at most maxArgsChars (and a little for its tool) once admitted; a body far past that many is refused
  // unread.
  const scoreBodyLimit = Math.min(
    service.options.bodyLimitBytes,
    2 * maxActions * (EPISODIC_LIMITS.maxArgsChars + 512) + 64 * 1024,
  );
  // Each action's args may be a value per two of its characters: the score body's bound on values (V21-2).
  const scoreBodyValues = maxActions * (EPISODIC_LIMITS.maxArgsChars / 2 + 16) + 1_024;
  app.post(
    '/v1/episodes/score',
    { bodyLimit: scoreBodyLimit, config: { bodyValues: scoreBodyValues } },
    async (request) => {
      const body = parse(ScoreBody, request.body);
      checkCount('actions', body.actions.length, maxActions);
      return admitted(service, requestClient(request), () =>
        sessions.score(body, body.actions, requestClient(request)),
      );
    },
  );

  app.post('/v1/episodes/:id/step', { bodyLimit: STEP_BODY_LIMIT }, async (request) => {
    const body = parse(StepBody, request.body);
    const action = actionOf(body);
    return admitted(service, requestClient(request), () =>
      sessions.step(idOf(request.params), action, body.turn, requestClient(request)),
    );
  });

  app.get('/v1/episodes/:id', async (request) =>
    admitted(service, requestClient(request), () => sessions.get(idOf(request.params), requestClient(request))),
  );

  app.delete('/v1/episodes/:id', { bodyLimit: STEP_BODY_LIMIT }, async (request) =>
    admitted(service, requestClient(request), () => sessions.end(idOf(request.params), requestClient(request))),
  );
}

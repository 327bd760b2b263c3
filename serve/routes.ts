// The reward service's HTTP routes: each parses its body (schemas.ts), reserves room in the queue, and
// answers through the service; errors become { error: { code, message } } with their HTTP status.
import { randomInt } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import type { Code } from '../contract/codes.js';
import type { IncidentLog } from '../library/quarantine.js';
import { listEnvs } from './catalog.js';
import { requestClient, requireOperator } from './clients.js';
import type { ItemErrorLog } from './item-errors.js';
import { ENDPOINTS, ServeError, type ServeOptions } from './options.js';
import { responseOf } from './reward-text.js';
import { sampleItems, selectIdentities } from './sample.js';
import {
  checkCount,
  GroundTruthItem,
  Identity,
  IdentityItem,
  ItemsBody,
  parse,
  parseIdentity,
  RewardBody,
  SampleBody,
  type InstanceIdentity,
} from './schemas.js';
import type { Service, VerifyRequestItem } from './service.js';

export interface RouteContext {
  service: Service;
  defence: IncidentLog;
  options: Omit<ServeOptions, 'pool'>;
  itemErrors: ItemErrorLog | null;
  /** Open episode sessions, for /health. */
  sessions?: () => number;
}

export function sendError(reply: FastifyReply, status: number, code: Code, message: string): FastifyReply {
  if (status === 503 || status === 429) reply.header('retry-after', '1');
  return reply.code(status).send({ error: { code, message } });
}

/** Aborted when the client goes away before its answer was sent (its work is then no one's to wait for). */
function disconnected(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

export function registerRoutes(
  app: FastifyInstance,
  { service, defence, options: opts, itemErrors, sessions }: RouteContext,
): void {
  app.setErrorHandler((error: FastifyError | ServeError, request, reply) => {
    if (error instanceof ServeError) return sendError(reply, error.status, error.code, error.message);
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 413)
      return sendError(
        reply,
        413,
        'E_BODY_TOO_LARGE',
        `the request body is over the limit of ${request.routeOptions.bodyLimit ?? opts.bodyLimitBytes} bytes`,
      );
    if (status === 415)
      return sendError(reply, 415, 'E_MEDIA_TYPE', 'send the body as JSON with content-type: application/json');
    if (status >= 400 && status < 500)
      return sendError(
        reply,
        status,
        'E_BAD_REQUEST',
        error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError
          ? `the body is not valid JSON: ${error.message}`
          : error.message,
      );
    return sendError(reply, 500, 'E_INTERNAL', `internal error: ${error.message}`);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      404,
      'E_NOT_FOUND',
      `no endpoint ${request.method} ${request.url.split('?')[0]}; endpoints: ${ENDPOINTS.join(', ')}`,
    ),
  );

  app.get('/health', async () => ({
    status: 'ok',
    envs: service.catalog.active.length,
    quarantined: service.catalog.active.filter((e) => defence.quarantined(e.hash)).length,
    inflight: service.inflight,
    maxQueue: opts.maxQueue,
    sessions: sessions?.() ?? 0,
    maxSessions: opts.maxSessions,
  }));

  app.get('/v1/envs', async (request) => ({ envs: listEnvs(service.catalog, request.query) }));

  app.post('/v1/verify', async (request, reply) => {
    const body = parse(ItemsBody, request.body);
    checkCount('items', body.items.length, opts.maxItemsPerRequest);
    const items = body.items.map((raw, i): VerifyRequestItem => {
      if (raw !== null && typeof raw === 'object' && 'ground_truth' in raw) {
        const item = parse(GroundTruthItem, raw, ['items', i]);
        return { identity: parseIdentity(item.ground_truth, ['items', i, 'ground_truth']), response: item.response };
      }
      const item = parse(IdentityItem, raw, ['items', i]);
      return {
        identity: { env: item.env, version: item.version, seed: item.seed, level: item.level },
        response: item.response,
      };
    });
    // Admission is held until the request's work has stopped, not only until it is answered (verify releases it).
    const release = service.acquire(items.length, requestClient(request).principal);
    const results = await service.verify(items, requestClient(request), { signal: disconnected(reply), release });
    itemErrors?.record('/v1/verify', results, requestClient(request).principal);
    return { results };
  });

  app.post('/get_reward', async (request, reply) => {
    const body = parse(RewardBody, request.body);
    checkCount('query', body.query.length, opts.maxItemsPerRequest);
    for (const field of ['prompts', 'labels'] as const) {
      if (body[field].length !== body.query.length)
        throw new ServeError(
          400,
          'E_BAD_REQUEST',
          `${field} has ${body[field].length} entries but query has ${body.query.length}: they must be the same length`,
        );
    }
    const items = body.query.map((query, i): VerifyRequestItem => {
      const prompt = body.prompts[i] as string;
      return { identity: parseIdentity(body.labels[i] as string, ['labels', i]), response: responseOf(query, prompt) };
    });
    const release = service.acquire(items.length, requestClient(request).principal);
    const results = await service.verify(items, requestClient(request), { signal: disconnected(reply), release });
    itemErrors?.record('/get_reward', results, requestClient(request).principal);
    const scores = results.map((r) => r.score);
    return { rewards: scores, scores, extra_logs: { envforge_error: results.map((r) => ('error' in r ? 1 : 0)) } };
  });

  app.post('/v1/sample', async (request) => {
    const body = parse(SampleBody, request.body);
    if ((body.items === undefined) === (body.select === undefined))
      throw new ServeError(400, 'E_BAD_REQUEST', 'send exactly one of items (identities) or select');
    // A revealed reference is the answer: a client holding it could record any pass rate it likes.
    if (body.reveal)
      requireOperator(
        requestClient(request),
        'reveal (the hidden fields and the reference)',
        service.credentials.hasOperator,
      );
    let identities: InstanceIdentity[];
    let seed: number | undefined;
    if (body.items) {
      checkCount('items', body.items.length, opts.maxItemsPerRequest);
      identities = body.items.map((raw, i) => parse(Identity, raw, ['items', i]));
    } else {
      const select = body.select as NonNullable<typeof body.select>;
      checkCount('select.n', select.n, opts.maxItemsPerRequest);
      seed = select.seed ?? randomInt(0, 2 ** 31);
      identities = selectIdentities(service, { ...select, seed });
    }
    const release = service.acquire(identities.length, requestClient(request).principal);
    try {
      // Drawn or listed, the identities are the client's: it chose the environment, the levels and the count (V22-1).
      const items = await sampleItems(service, identities, body.reveal ?? false, requestClient(request));
      return seed === undefined ? { items } : { seed, items };
    } finally {
      release();
    }
  });
}

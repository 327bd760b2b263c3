// The reward service (`envforge serve`): scores model responses against library environments over HTTP
// (docs/reward-service.md: the endpoints, the error policy, throughput). This file is its lifecycle:
// options, the library view kept fresh by its change stamp (polled, or pushed by PostgreSQL), graceful
// close; routes.ts answers requests through service.ts and sample.ts.
import { join, resolve } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { isDatabaseUrl, openLibrary } from '../library/open.js';
import { IncidentLog } from '../library/quarantine.js';
import { SandboxPool } from '../sandbox/pool.js';
import { BodyBudget } from './body-budget.js';
import { hasBody, registerBodyIntake } from './body-intake.js';
import { registerAnswerBudget, sendDeadlineMs } from './answer-budget.js';
import { Catalog } from './catalog.js';
import { Dispatcher } from './dispatcher.js';
import { registerAdminRoutes } from './admin.js';
import { credentials, registerClients } from './clients.js';
import { registerEpisodeRoutes } from './episode-routes.js';
import { EpisodeSessions } from './episodes.js';
import { registerOpenEnv } from './openenv.js';
import { allowedHosts } from '../contract/hosts.js';
import { logLine } from '../contract/text.js';
import { allowedOrigins, registerHostCheck, registerOriginCheck } from './origins.js';
import { ItemErrorLog } from './item-errors.js';
import { bodyBudgetOf, DEFAULT_SERVE_OPTIONS, ServeError, type RunningServer, type ServeOptions } from './options.js';
import { registerRoutes, sendError } from './routes.js';
import { ScoreBoard } from './scores.js';
import { Service } from './service.js';
import { guardConnections } from './tcp-connections.js';

/**
 * Jobs a worker of the server's own pool runs before it is replaced. Serving runs many small jobs (one per
 * coalesced batch, thousands a second), so the pool's default (5,000) would restart a worker, and recompile
 * every module in it, every few seconds: a latency spike each time.
 */
const SERVE_MAX_JOBS_PER_WORKER = 200_000;

/** Episode journals beside a library folder; a database URL names no folder, so they go in the working directory. */
export function defaultEpisodesDir(libraryDir: string): string {
  return isDatabaseUrl(libraryDir) ? resolve('.envforge-episodes') : join(libraryDir, 'serve-episodes');
}

export async function startServer(options: Partial<ServeOptions> & { libraryDir: string }): Promise<RunningServer> {
  const given = Object.fromEntries(
    Object.entries(options).filter(([key, value]) => value !== undefined && key !== 'pool'),
  ) as Partial<ServeOptions>;
  const opts: Omit<ServeOptions, 'pool'> = { ...DEFAULT_SERVE_OPTIONS, ...given, libraryDir: options.libraryDir };
  // One event, one line (redteam-v21 V21-4): a client's or a module's text in a log line breaks no line.
  const sink = opts.log;
  if (sink) opts.log = (line) => sink(logLine(line));
  for (const key of [
    'maxQueue',
    'bodyLimitBytes',
    'bodyTimeoutMs',
    'sendTimeoutMs',
    'maxItemsPerRequest',
    'reloadIntervalMs',
    'callTimeoutMs',
    'requestTimeoutMs',
    'errorLogIntervalMs',
    'scoreFlushIntervalMs',
    'maxSessions',
    'maxConnections',
    'sessionIdleMs',
    'journalTtlMs',
    'maxEndedJournals',
    'maxJournalBytes',
    'maxActionsPerScore',
  ] as const) {
    if (!Number.isSafeInteger(opts[key]) || opts[key] < 1)
      throw new ServeError(400, 'E_USAGE', `${key} must be a positive integer, got ${opts[key]}`);
  }
  if (!Number.isSafeInteger(opts.port) || opts.port < 0 || opts.port > 65_535)
    throw new ServeError(400, 'E_USAGE', `port must be an integer from 0 to 65535, got ${opts.port}`);
  const bodyBudget = bodyBudgetOf(opts);
  // a token too short to be a secret is refused before anything opens
  credentials(opts.operatorToken, opts.clientTokens);
  const origins = allowedOrigins(opts.allowOrigins);
  const hosts = allowedHosts(opts.allowHosts);

  const library = openLibrary(opts.libraryDir, { readonly: true });
  const ownsPool = options.pool === undefined;
  const pool = options.pool ?? new SandboxPool({ maxJobsPerWorker: SERVE_MAX_JOBS_PER_WORKER });
  const defence = new IncidentLog(opts.libraryDir, 'serve', opts.quarantine, ...(opts.log ? [opts.log] : []));
  const service = new Service(
    opts,
    library,
    pool,
    new Dispatcher(pool, opts.callTimeoutMs, pool.options.workers * 2),
    defence,
  );
  const sessions = new EpisodeSessions(service, {
    maxSessions: opts.maxSessions,
    idleMs: opts.sessionIdleMs,
    journalTtlMs: opts.journalTtlMs,
    maxEndedJournals: opts.maxEndedJournals,
    maxJournalBytes: opts.maxJournalBytes,
    journalDir: opts.episodesDir ?? defaultEpisodesDir(opts.libraryDir),
  });
  const scores = opts.recordScores ? new ScoreBoard(opts.libraryDir, opts.log) : null;
  service.scores = scores;
  service.bodies = new BodyBudget(bodyBudget.total, bodyBudget.client, opts.reclaimStallMs);

  // Library loading and change polling.
  let stamp = '';
  let reloading: Promise<void> | null = null;
  const reload = async (): Promise<void> => {
    const next = await library.changeStamp();
    if (next === stamp) return;
    const records = await library.list({ status: 'all', allVersions: true });
    service.catalog = new Catalog(records);
    defence.refresh(await library.incidents({ open: true, responses: false }), await library.quarantines());
    scores?.refresh(await library.scoreTallies());
    stamp = next;
  };
  try {
    await reload();
  } catch (error) {
    await library.close();
    if (ownsPool) await pool.close();
    throw error;
  }
  const tick = () => {
    if (reloading) return;
    reloading = reload()
      .catch(() => {
        stamp = ''; // a busy or half-written index: keep serving the last catalog and try again next tick
      })
      .finally(() => {
        reloading = null;
      });
  };
  const timer = setInterval(tick, opts.reloadIntervalMs);
  timer.unref();
  const flusher = scores ? setInterval(() => void scores.flush(), opts.scoreFlushIntervalMs) : null;
  flusher?.unref();
  // A store that pushes changes (PostgreSQL) reloads every replica at once; the timer stays as a fallback.
  const unlisten = library.onChange ? await library.onChange(tick).catch(() => null) : null;

  const itemErrors = opts.log ? new ItemErrorLog({ log: opts.log, intervalMs: opts.errorLogIntervalMs }) : null;
  // maxParamLength: episode ids carry their identity (up to 600 characters; the default allows 100).
  const app: FastifyInstance = Fastify({
    logger: false,
    routerOptions: { maxParamLength: 1_000 },
    bodyLimit: opts.bodyLimitBytes,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
  });

  // Graceful close: Node closes only the connections idle when close() starts; a keep-alive connection whose
  // request was in flight would hold app.close() open forever. Tell those clients to go, and close what idles.
  let closing: Promise<void> | null = null;
  app.addHook('onRequest', async (request, reply) => {
    if (closing) {
      reply.header('connection', 'close');
      return sendError(reply, 503, 'E_CLOSING', 'the service is shutting down');
    }
    // A request without a body (a DELETE, a GET) is read as bodiless whatever content-type it names: fastify would
    // otherwise run that type's parser on nothing and answer 400 "Body cannot be empty" (issue 30).
    if (!hasBody(request.headers)) delete request.headers['content-type'];
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async () => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
  });

  guardConnections(app.server, opts.maxConnections);
  registerHostCheck(app, opts.host, hosts);
  registerOriginCheck(app, origins);
  registerClients(app, service.credentials);
  const lane = registerBodyIntake(app, service.bodies, opts.bodyTimeoutMs, 16 * opts.maxItemsPerRequest + 1_024);
  registerAnswerBudget(app, service.bodies, (bytes) => sendDeadlineMs(opts.sendTimeoutMs, bytes));
  registerRoutes(app, { service, defence, options: opts, itemErrors, sessions: () => sessions.size });
  registerAdminRoutes(app, service, sessions);
  registerEpisodeRoutes(app, service, sessions, opts.maxActionsPerScore);
  const openenv = registerOpenEnv(app, service, sessions, origins);

  let address: string;
  try {
    await app.listen({ host: opts.host, port: opts.port });
    const bound = app.server.address();
    const port = bound && typeof bound === 'object' ? bound.port : opts.port;
    address = `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`;
  } catch (error) {
    clearInterval(timer);
    if (flusher) clearInterval(flusher);
    await sessions.close();
    openenv.close();
    itemErrors?.close();
    await app.close().catch(() => {});
    lane.close();
    if (ownsPool) await pool.close();
    await library.close();
    const e = error as NodeJS.ErrnoException;
    throw new ServeError(
      500,
      'E_SERVE',
      `cannot listen on ${opts.host}:${opts.port}: ${e.code ?? ''} ${e.message}`.trim(),
      { cause: error },
    );
  }

  return {
    url: address,
    close: () =>
      (closing ??= (async () => {
        clearInterval(timer);
        await unlisten?.();
        openenv.close(); // WebSocket sessions hold their connections open; their episodes stay resumable
        await app.close(); // stops accepting; in-flight requests finish first
        lane.close();
        await sessions.close();
        itemErrors?.close();
        await reloading;
        if (ownsPool) await pool.close();
        await library.close();
        if (flusher) clearInterval(flusher);
        await scores?.close();
        await defence.close();
      })()),
  };
}

// `envforge dashboard`: a local web page over a library (a folder or a database URL). It keeps the library
// in memory (data.ts, view.ts), reloads it when its change stamp moves, and serves the pages (pages.ts),
// a JSON API for them, and the chart and table libraries from node_modules: nothing comes from a CDN.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { EnvforgeError } from '../contract/errors.js';
import { allowedHosts, hostRefusal } from '../contract/hosts.js';
import type { Library } from '../library/contract.js';
import { openLibrary } from '../library/open.js';
import { SandboxPool } from '../sandbox/pool.js';
import {
  batchDetail,
  batchSummary,
  codeRegistry,
  envDetail,
  frontierDetail,
  loadSnapshot,
  rejectionDetail,
  withTallies,
  type Snapshot,
} from './data.js';
import {
  batchesPage,
  batchPage,
  codesPage,
  envPage,
  frontierPage,
  libraryPage,
  notFoundPage,
  rejectionPage,
  rejectionsPage,
} from './pages.js';
import { sampleLevel } from './samples.js';
import { DASHBOARD_KINDS, SORT_FIELDS, type EnvQuery, type SortField } from './view.js';

export interface DashboardOptions {
  /** A library folder or a database URL (what openLibrary takes). */
  location: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** A trainer feedback file for the frontier page (else the reward service's recorded pass rates). */
  feedback?: string;
  reloadIntervalMs: number;
  /** Host names the page answers to besides IP literals and localhost (contract/hosts.ts). */
  allowHosts?: readonly string[];
  /** A pool for sample instances (not closed by close()); by default one worker of its own. */
  pool?: SandboxPool;
}

export const DEFAULT_DASHBOARD_OPTIONS = { host: '127.0.0.1', port: 8788, reloadIntervalMs: 2_000 } as const;

export interface RunningDashboard {
  url: string;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);
const PUBLIC = join(dirname(fileURLToPath(import.meta.url)), 'public');
/** Every file the pages load: the vendored libraries from their packages, our own from public/. */
const ASSETS: Record<string, { path: () => string; type: string }> = {
  // chart.js exports no path to its UMD build: it sits beside the CommonJS entry.
  'chart.umd.min.js': {
    path: () => join(dirname(require.resolve('chart.js')), 'chart.umd.min.js'),
    type: 'text/javascript',
  },
  'tabulator.min.js': {
    path: () => require.resolve('tabulator-tables/dist/js/tabulator.min.js'),
    type: 'text/javascript',
  },
  'tabulator.min.css': {
    path: () => require.resolve('tabulator-tables/dist/css/tabulator_simple.min.css'),
    type: 'text/css',
  },
  'app.js': { path: () => join(PUBLIC, 'app.js'), type: 'text/javascript' },
  'env.js': { path: () => join(PUBLIC, 'env.js'), type: 'text/javascript' },
  'app.css': { path: () => join(PUBLIC, 'app.css'), type: 'text/css' },
};
/** Scripts only from here, and no inline script: a prompt or a description that holds markup stays text. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

const int = (value: unknown): number | undefined =>
  typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : undefined;

/** The table's query string; a parameter given twice (an array) or missing counts as absent. */
/** Kept rejections the rejections page lists at most (newest first). */
const REJECTIONS_SHOWN = 500;

function envQuery(raw: Record<string, unknown>): EnvQuery {
  const q = Object.fromEntries(Object.entries(raw).filter(([, v]) => typeof v === 'string')) as Record<
    string,
    string | undefined
  >;
  const sort = SORT_FIELDS.includes(q.sort as SortField) ? (q.sort as SortField) : undefined;
  const status = q.status === 'active' || q.status === 'retired' ? q.status : 'all';
  const kind = DASHBOARD_KINDS.find((k) => k === q.kind);
  return {
    q: (q.q ?? '').slice(0, 200),
    status,
    ...(q.skill ? { skill: q.skill } : {}),
    ...(kind ? { kind } : {}),
    ...(sort ? { sort } : {}),
    dir: q.dir === 'desc' ? 'desc' : 'asc',
    page: int(q.page) ?? 1,
    size: int(q.size) ?? 50,
  };
}

export async function startDashboard(
  options: Partial<DashboardOptions> & { location: string },
): Promise<RunningDashboard> {
  const opts: DashboardOptions = {
    ...DEFAULT_DASHBOARD_OPTIONS,
    ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
    location: options.location,
  };
  const hosts = allowedHosts(opts.allowHosts);
  const library: Library = openLibrary(opts.location, { readonly: true });
  let snap: Snapshot;
  let stamp: string;
  try {
    stamp = await library.changeStamp();
    snap = await loadSnapshot(library);
  } catch (error) {
    await library.close();
    throw error;
  }
  let reloading: Promise<void> | null = null;
  // Reading the whole library blocks (10,000 environments: seconds), so reloads take at most a tenth of
  // the time: after a load of t ms the next waits 10 t, however often the stamp moves (score flushes).
  let nextLoadAt = 0;
  const timer = setInterval(() => {
    if (Date.now() < nextLoadAt) return;
    reloading ??= (async () => {
      const next = await library.changeStamp();
      if (next === stamp) {
        snap = withTallies(snap, await library.scoreTallies()); // scores do not move the stamp
        return;
      }
      const started = Date.now();
      [snap, stamp] = [await loadSnapshot(library), next];
      nextLoadAt = Date.now() + 10 * (Date.now() - started);
    })()
      .catch(() => {}) // a busy index: keep the last snapshot and try again next tick
      .finally(() => (reloading = null));
  }, opts.reloadIntervalMs);
  timer.unref();
  let pool = opts.pool;
  const ownsPool = !pool;
  const where = opts.location;

  // Open pages keep connections (keep-alive, live reload): closing must not wait for the browser to leave.
  const app: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true });
  const html = (reply: FastifyReply, body: string, status = 200) =>
    reply
      .code(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', CSP)
      .send(body);
  app.setErrorHandler((error: Error, _request, reply) => {
    const code = error instanceof EnvforgeError ? error.code : 'E_INTERNAL';
    return reply.code(500).send({ error: { code, message: error.message } });
  });

  // Before any route: a page re-pointed at this address by DNS rebinding would otherwise read the library as its own
  // origin.
  app.addHook('onRequest', async (request, reply) => {
    const refusal = hostRefusal(request.headers.host, opts.host, hosts);
    if (refusal) return reply.code(403).send({ error: { code: 'E_HOST', message: refusal } });
  });

  app.get('/assets/:file', async (request, reply) => {
    const asset = ASSETS[(request.params as { file: string }).file];
    if (!asset) return reply.code(404).send({ error: { code: 'E_NOT_FOUND', message: 'no such asset' } });
    return reply
      .header('content-type', asset.type)
      .header('cache-control', 'max-age=3600')
      .send(await readFile(asset.path()));
  });

  app.get('/favicon.ico', async (_request, reply) => reply.code(204).send()); // no icon; keeps the console clean
  app.get('/', async (_request, reply) => {
    const retired = snap.view.rows.filter((r) => r.status === 'retired').length;
    return html(reply, libraryPage(where, snap.view.skills, { total: snap.view.rows.length, retired }));
  });
  app.get('/envs/:name', async (request, reply) => {
    const { name } = request.params as { name: string };
    const d = envDetail(snap, name, int((request.query as { version?: string }).version));
    return d
      ? html(reply, envPage(where, d))
      : html(reply, notFoundPage(where, `no environment ${name} in this library`), 404);
  });
  app.get('/batches', async (_request, reply) =>
    html(reply, batchesPage(where, (await library.listBatches(500)).map(batchSummary))),
  );
  app.get('/batches/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const d = await batchDetail(library, id);
    return d
      ? html(reply, batchPage(where, d))
      : html(reply, notFoundPage(where, `no batch ${id} in this library`), 404);
  });
  app.get('/rejections', async (request, reply) => {
    const q = request.query as { code?: unknown; batch?: unknown };
    const filter = {
      ...(typeof q.code === 'string' && q.code ? { code: q.code.slice(0, 80) } : {}),
      ...(typeof q.batch === 'string' && q.batch ? { batch: q.batch.slice(0, 200) } : {}),
    };
    const rejections = await library.rejections({
      limit: REJECTIONS_SHOWN,
      ...(filter.code ? { code: filter.code } : {}),
      ...(filter.batch ? { batchId: filter.batch } : {}),
    });
    return html(reply, rejectionsPage(where, rejections, filter, REJECTIONS_SHOWN));
  });
  app.get('/rejections/:hash', async (request, reply) => {
    const { hash } = request.params as { hash: string };
    const r = await rejectionDetail(library, hash);
    return r
      ? html(reply, rejectionPage(where, r))
      : html(reply, notFoundPage(where, `no kept rejection ${hash} (rejections are kept up to a bound)`), 404);
  });
  app.get('/frontier', async (_request, reply) =>
    html(reply, frontierPage(where, await frontierDetail(library, snap, opts.feedback))),
  );
  app.get('/codes', async (_request, reply) => html(reply, codesPage(where)));

  app.get('/api/envs', async (request) => snap.view.query(envQuery(request.query as Record<string, unknown>)));
  app.get('/api/envs/:name', async (request, reply) => {
    const { name } = request.params as { name: string };
    const d = envDetail(snap, name, int((request.query as { version?: string }).version));
    return d ?? reply.code(404).send({ error: { code: 'E_UNKNOWN_ENV', message: `no environment ${name}` } });
  });
  app.get('/api/envs/:name/samples', async (request, reply) => {
    const { name } = request.params as { name: string };
    const q = request.query as Record<string, string>;
    const d = envDetail(snap, name, int(q.version));
    if (!d) return reply.code(404).send({ error: { code: 'E_UNKNOWN_ENV', message: `no environment ${name}` } });
    const level = int(q.level) ?? 1;
    if (level < 1 || level > d.env.meta.levels)
      return reply
        .code(400)
        .send({ error: { code: 'E_LEVEL_RANGE', message: `level ${level} is outside 1–${d.env.meta.levels}` } });
    pool ??= new SandboxPool({ workers: 1 });
    return sampleLevel(library, pool, d.env, level, int(q.n) ?? 3);
  });
  app.get('/api/batches', async () => ({ batches: (await library.listBatches(500)).map(batchSummary) }));
  app.get(
    '/api/batches/:id',
    async (request, reply) =>
      (await batchDetail(library, (request.params as { id: string }).id)) ??
      reply.code(404).send({ error: { code: 'E_NOT_FOUND', message: 'no such batch' } }),
  );
  app.get('/api/frontier', async () => frontierDetail(library, snap, opts.feedback));
  app.get('/api/codes', async () => ({ codes: codeRegistry() }));

  try {
    await app.listen({ host: opts.host, port: opts.port });
  } catch (error) {
    clearInterval(timer);
    await library.close();
    throw new EnvforgeError('E_SERVE', `cannot listen on ${opts.host}:${opts.port}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const bound = app.server.address();
  const port = bound && typeof bound === 'object' ? bound.port : opts.port;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`,
    close: () =>
      (closing ??= (async () => {
        clearInterval(timer);
        await app.close();
        await reloading;
        if (ownsPool) await pool?.close();
        await library.close();
      })()),
  };
}

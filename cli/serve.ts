// `envforge serve`: the reward service over the library (docs/reward-service.md lists the endpoints). Prints
// one line with the URL and the endpoints, then serves until SIGINT or SIGTERM and shuts down gracefully:
// in-flight requests finish, then the sandbox pool and the library close.
import { concat, line } from './io.js';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../contract/errors.js';
import { DATABASE_HELP, integerOption } from './options.js';
import type { Io } from './io.js';
import { resolveLibraryDir } from '../library/open.js';
import { startServer } from '../serve/server.js';
import { DEFAULT_SERVE_OPTIONS, ENDPOINTS } from '../serve/options.js';

interface ServeFlags {
  port: number;
  host: string;
  library?: string;
  database?: string;
  maxQueue: number;
  requestTimeout: number;
  maxSessions: number;
  maxConnections: number;
  bodyBudget?: number;
  clientBodyBudget?: number;
  bodyTimeout: number;
  sessionIdle: number;
  episodesDir?: string;
  operatorToken?: string;
  clientToken: string[];
  allowOrigin: string[];
  allowHost: string[];
  maxJournals: number;
}

/** Repeatable flags collect their values. */
const collect = (value: string, previous: string[]) => [...previous, value];

/**
 * NAME=TOKEN pairs (from --client-token, and ENVFORGE_CLIENT_TOKENS: comma-separated) as a record; a malformed one is a
 * usage error.
 */
function clientTokens(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1)
      throw new UsageError(
        '--client-token takes NAME=TOKEN (a name for the client, then its token: e.g. ' +
          'trainer-a=$(openssl rand -hex 32))',
      );
    const name = pair.slice(0, at);
    if (Object.hasOwn(out, name))
      throw new UsageError(`--client-token names the client ${JSON.stringify(name.slice(0, 64))} twice`);
    out[name] = pair.slice(at + 1);
  }
  return out;
}

export function registerServe(program: Command, io: Io): void {
  program
    .command('serve')
    .description(
      'serve rewards over HTTP: verify responses against library environments (also the OpenRLHF ' +
        'remote reward protocol)',
    )
    .option(
      '-p, --port <P>',
      'TCP port (0 picks a free one)',
      integerOption('--port', 0, 65_535),
      DEFAULT_SERVE_OPTIONS.port,
    )
    .option('--host <H>', 'interface to listen on', DEFAULT_SERVE_OPTIONS.host)
    .option('--library <dir>', "library folder (default: $ENVFORGE_LIBRARY, else the project's generated/)")
    .option('--database <url>', DATABASE_HELP)
    .option(
      '--max-queue <N>',
      'items in flight before requests get 503 + retry-after',
      integerOption('--max-queue', 1),
      DEFAULT_SERVE_OPTIONS.maxQueue,
    )
    .option(
      '--request-timeout <ms>',
      'per-request budget: items not scored by then fail with E_REQUEST_TIMEOUT',
      integerOption('--request-timeout', 1),
      DEFAULT_SERVE_OPTIONS.requestTimeoutMs,
    )
    .option(
      '--max-sessions <N>',
      'episode sessions held open at once; when full they are shared fairly (by client: its --client-token, ' +
        'else its address, every local one being one client; then X-Envforge-Client id) and a client over its ' +
        'share gets 429 + retry-after',
      integerOption('--max-sessions', 1),
      DEFAULT_SERVE_OPTIONS.maxSessions,
    )
    .option(
      '--max-connections <N>',
      'TCP connections held at once (default: below the file-descriptor limit); when full, a new one replaces the ' +
        'idle connection (no request in flight) of the address holding the most, so idle sockets lock no one out',
      integerOption('--max-connections', 1),
      DEFAULT_SERVE_OPTIONS.maxConnections,
    )
    .option(
      '--body-budget <bytes>',
      'bytes of request bodies held at once for all clients, from their headers to their answers (default: a ' +
        'quarter of the heap limit, 128 MB to 1 GB); past it the client holding the most loses a body still arriving',
      integerOption('--body-budget', 1),
    )
    .option(
      '--client-body-budget <bytes>',
      'bytes of request bodies one client may hold at once (default: a quarter of --body-budget); past it 503',
      integerOption('--client-body-budget', 1),
    )
    .option(
      '--body-timeout <ms>',
      'a request body still arriving this long after its headers is dropped (408, connection closed)',
      integerOption('--body-timeout', 1),
      DEFAULT_SERVE_OPTIONS.bodyTimeoutMs,
    )
    .option(
      '--session-idle <ms>',
      'an idle episode session leaves memory after this long (its journal keeps it resumable)',
      integerOption('--session-idle', 1),
      DEFAULT_SERVE_OPTIONS.sessionIdleMs,
    )
    .option('--episodes-dir <dir>', 'episode journals, shared by replicas (default: <library>/serve-episodes)')
    .option(
      '--client-token <NAME=T>',
      'a client token you issue (repeatable; also $ENVFORGE_CLIENT_TOKENS, comma-separated): requests with ' +
        '"Authorization: Bearer T" are the client NAME. Clients are independent (for quarantine) and get fair ' +
        'shares only by token or by distinct address, and every local address is one client',
      collect,
      [],
    )
    .option(
      '--allow-origin <ORIGIN>',
      'a web origin (e.g. http://localhost:3000) whose pages may call the service and open WebSockets ' +
        '(repeatable); requests from any other browser page are refused, clients that send no ' +
        'Origin are always served',
      collect,
      [],
    )
    .option(
      '--allow-host <NAME>',
      'a host name the service answers to (repeatable; .example.org for it and its subdomains, * for any). ' +
        'Bound to loopback (the default) it answers only IP addresses and localhost, against DNS rebinding; ' +
        'bound to another interface it answers any name unless names are given',
      collect,
      [],
    )
    .option(
      '--max-journals <N>',
      "episodes' journals kept on disk (open or ended), shared fairly between clients (the client keeping " +
        'the most loses its oldest)',
      integerOption('--max-journals', 1),
      DEFAULT_SERVE_OPTIONS.maxEndedJournals,
    )
    .option(
      '--operator-token <T>',
      'the operator token (default: $ENVFORGE_OPERATOR_TOKEN; prefer it, a flag shows in ps): requests with ' +
        '"Authorization: Bearer T" may reveal references, record scores that steer level:auto and nightly, and ' +
        'use /v1/admin; without one no request may',
    )
    .addHelpText(
      'after',
      [
        '',
        'Endpoints:',
        '  POST /v1/verify   {"items":[{"env","version?","seed","level","response"} | {"ground_truth","response"}]}',
        '  POST /v1/sample   {"items":[{"env","version?","seed","level"}]} or ' +
          '{"select":{"env?","skills?","levels?","n","seed?"}}, "reveal?"',
        '  GET  /v1/envs[?versions=all], GET /health',
        '',
        'Items that cannot be scored (an unknown environment, version or level; a failing verifier) score 0 with',
        'an error; the first of each error code is logged on stderr, then the error rate every 10 s while they last.',
        '  POST /get_reward  OpenRLHF: {"query","prompts","labels"} -> {"rewards","scores","extra_logs"}',
        '',
        'Episodic environments (multi-turn tool use; docs/reward-service.md):',
        '  POST /v1/episodes {"env","version?","seed","level"} -> {"episode","prompt","tools","maxTurns"}',
        '  POST /v1/episodes/{id}/step {"tool","args?","turn?"} -> {"observation","done","turn","score?"}',
        '       (turn: the turn this step makes; a retried turn returns its stored answer, never steps twice)',
        '  GET|DELETE /v1/episodes/{id}; POST /v1/episodes/score {"env","version","seed","level","actions"}',
        '  OpenEnv: WS /openenv/{env}/ws, POST /openenv/{env}/reset|step, GET /openenv/{env}/state',
        '',
        'An environment that times out, crashes or returns invalid values is recorded as an incident in the',
        'library and quarantined (its items fail with E_QUARANTINED) until `envforge library revalidate`.',
        '',
        'Clients are untrusted: sample, verify and play are open to any; reveal, scores that steer level:auto and',
        'nightly, and GET /v1/admin/clients need the operator token (SECURITY.md). Without a token, every score is',
        "recorded as an untrusted client's and steers nothing. A client is its --client-token name, else its address;",
        'on the default host (127.0.0.1) every local trainer is one client: issue tokens to tell them apart.',
        '',
        'Examples:',
        '  envforge serve --port 8787',
        '  openrlhf ... --reward.remote_url http://127.0.0.1:8787/get_reward',
      ].join('\n'),
    )
    .action(async (flags: ServeFlags) => serve(flags, io));
}

async function serve(flags: ServeFlags, io: Io): Promise<void> {
  // A missing or unreadable library throws a LibraryError that says how to create one (exit 1).
  const libraryDir = resolveLibraryDir(flags.library, flags.database);
  const operatorToken = flags.operatorToken ?? (process.env.ENVFORGE_OPERATOR_TOKEN || undefined);
  const tokens = clientTokens([
    ...(process.env.ENVFORGE_CLIENT_TOKENS ?? '').split(',').filter((p) => p.trim() !== ''),
    ...flags.clientToken,
  ]);
  const server = await startServer({
    libraryDir,
    host: flags.host,
    port: flags.port,
    maxQueue: flags.maxQueue,
    requestTimeoutMs: flags.requestTimeout,
    maxSessions: flags.maxSessions,
    maxConnections: flags.maxConnections,
    bodyTimeoutMs: flags.bodyTimeout,
    ...(flags.bodyBudget !== undefined ? { bodyBudgetBytes: flags.bodyBudget } : {}),
    ...(flags.clientBodyBudget !== undefined ? { clientBodyBytes: flags.clientBodyBudget } : {}),
    sessionIdleMs: flags.sessionIdle,
    maxEndedJournals: flags.maxJournals,
    ...(flags.episodesDir !== undefined ? { episodesDir: resolve(flags.episodesDir) } : {}),
    ...(operatorToken ? { operatorToken } : {}),
    clientTokens: tokens,
    allowOrigins: flags.allowOrigin,
    allowHosts: flags.allowHost,
    log: (text) => io.err(line`${text}`),
  });
  io.out(line`envforge serve: listening on ${server.url} (${ENDPOINTS.join(', ')}), library ${libraryDir}`);
  io.err(
    operatorToken
      ? concat(
          line`envforge serve: operator token set: only requests bearing it may reveal, record scores that `,
          line`steer, or use /v1/admin`,
        )
      : concat(
          line`envforge serve: no operator token (ENVFORGE_OPERATOR_TOKEN): reveal and /v1/admin are refused, and `,
          line`every score is recorded as an untrusted client's, steering nothing`,
        ),
  );
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      io.err(line`envforge serve: ${signal}: finishing in-flight requests…`);
      server.close().then(resolve, (error: unknown) => {
        io.err(line`envforge serve: shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        io.exitCode = 1;
        resolve();
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

// `envforge dashboard`: the library as a local web page (dashboard/server.ts): the library table, each
// environment, the batches and the trainer's frontier. Prints its URL, serves until SIGINT or SIGTERM.
import { line } from './io.js';
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from '../contract/errors.js';
import { DEFAULT_DASHBOARD_OPTIONS, startDashboard } from '../dashboard/server.js';
import { resolveLibraryDir } from '../library/open.js';
import type { Io } from './io.js';
import { integerOption } from './options.js';

interface DashboardFlags {
  library?: string;
  database?: string;
  port: number;
  host: string;
  feedback?: string;
  allowHost: string[];
}

export function registerDashboard(program: Command, io: Io): void {
  program
    .command('dashboard')
    .description('show the library as a local web page: environments, batches, the trainer frontier')
    .option('--library <dir>', "library folder (default: $ENVFORGE_LIBRARY, else the project's generated/)")
    .option('--database <url>', 'a library kept in a database, by URL (instead of --library)')
    .option(
      '-p, --port <P>',
      'TCP port (0 picks a free one)',
      integerOption('--port', 0, 65_535),
      DEFAULT_DASHBOARD_OPTIONS.port,
    )
    .option('--host <H>', 'interface to listen on', DEFAULT_DASHBOARD_OPTIONS.host)
    .option(
      '--allow-host <NAME>',
      'a host name the page answers to (repeatable; .example.org for it and its subdomains, * for any). ' +
        'Bound to loopback (the default) it answers only IP addresses and localhost, against DNS rebinding',
      (value: string, list: string[]) => [...list, value],
      [],
    )
    .option(
      '--feedback <file>',
      'trainer evaluations for the frontier page (default: the pass rates the reward service recorded)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  envforge dashboard --library ./lib\n  envforge dashboard --port 0 --feedback evals.csv',
    )
    .action(async (flags: DashboardFlags) => dashboard(flags, io));
}

async function dashboard(flags: DashboardFlags, io: Io): Promise<void> {
  if (flags.library && flags.database) throw new UsageError('give --library DIR or --database URL, not both');
  if (flags.database !== undefined && !/^[a-z][a-z0-9+.-]*:\/\//i.test(flags.database))
    throw new UsageError(`--database must be a URL such as postgres://host/db, got ${JSON.stringify(flags.database)}`);
  if (flags.feedback && !existsSync(flags.feedback)) throw new UsageError(`--feedback ${flags.feedback}: no such file`);
  const location = flags.database ?? resolveLibraryDir(flags.library);
  const running = await startDashboard({
    location,
    port: flags.port,
    host: flags.host,
    allowHosts: flags.allowHost,
    ...(flags.feedback ? { feedback: flags.feedback } : {}),
  });
  io.out(line`envforge dashboard: ${running.url} (library ${location})`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      running.close().then(resolve, () => resolve());
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

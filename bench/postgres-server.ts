// A throwaway PostgreSQL server for tests and benchmarks: initdb into a temp folder, started on a free
// loopback port as an unprivileged user (the server refuses root), stopped and removed after.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  /** A new database on this server, empty or a copy of `template` (a database URL of this server); returns its URL. */
  createDatabase(template?: string): Promise<string>;
  stop(): Promise<void>;
}

/** The server binaries: $PG_BIN, else the newest /usr/lib/postgresql/N/bin, else initdb on the PATH. */
export function postgresBinDir(): string | null {
  const candidates = [process.env.PG_BIN ?? ''];
  const root = '/usr/lib/postgresql';
  if (existsSync(root))
    candidates.push(
      ...readdirSync(root)
        .sort((a, b) => Number(b) - Number(a))
        .map((v) => join(root, v, 'bin')),
    );
  for (const dir of candidates)
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  return which.status === 0 ? join(which.stdout.trim(), '..') : null;
}

/** Root runs the server as `postgres` (or `nobody`): its uid, gid and name; null when not root. */
function serverUser(): { name: string; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    const id = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    if (id.status !== 0) continue;
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    return { name, uid: Number(id.stdout.trim()), gid };
  }
  throw new Error('running as root, and neither a postgres nor a nobody user exists to run the PostgreSQL server as');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface StartOptions {
  /** Durable commits (fsync on); off by default, as a throwaway server loses nothing worth keeping. */
  fsync?: boolean;
}

/** Starts a server; throws, naming what is missing, when PostgreSQL is not installed. */
export async function startPostgres(options: StartOptions = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin)
    throw new Error(
      'PostgreSQL server binaries (initdb, pg_ctl) not found: install PostgreSQL (Debian: apt-get install ' +
        'postgresql) or set PG_BIN to its bin folder',
    );
  const user = serverUser();
  const root = mkdtempSync(join(tmpdir(), 'envforge-pg-'));
  if (user) chownSync(root, user.uid, user.gid);
  const data = join(root, 'data');
  const run = (tool: string, args: string[]) => {
    const [cmd, argv] = user ? ['runuser', ['-u', user.name, '--', join(bin, tool), ...args]] : [join(bin, tool), args];
    const result = spawnSync(cmd, argv, { encoding: 'utf8', cwd: root });
    if (result.status !== 0)
      throw new Error(
        `starting the throwaway PostgreSQL server: ${cmd} ${tool} failed (` +
          `${result.error?.message ?? `exit ${result.status}`}): ${result.stderr || result.stdout || ''}`,
      );
  };
  const port = await freePort();
  const settings = [
    `-c listen_addresses=127.0.0.1`,
    `-p ${port}`,
    `-c unix_socket_directories=${root}`,
    `-c max_connections=300`,
    `-c fsync=${options.fsync ? 'on' : 'off'}`,
    `-c synchronous_commit=${options.fsync ? 'on' : 'off'}`,
  ];
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    run('pg_ctl', ['-D', data, '-l', join(root, 'server.log'), '-w', '-t', '120', '-o', settings.join(' '), 'start']);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const stopNow = () => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // already stopped
    }
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', stopNow);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let databases = 0;
  return {
    url,
    async createDatabase(template?: string) {
      const name = `envforge_${process.pid}_${++databases}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const from = template ? ` TEMPLATE ${new URL(template).pathname.slice(1)}` : '';
        await client.query(`CREATE DATABASE ${name}${from}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      process.removeListener('exit', stopNow);
      stopNow();
    },
  };
}

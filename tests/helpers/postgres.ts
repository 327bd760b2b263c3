// The PostgreSQL server a test file uses: started on first use, stopped after the file. Without
// PostgreSQL the tests fail, naming what is missing; ENVFORGE_TEST_POSTGRES=skip skips them instead
// (for a developer machine without it; CI never sets it).
import { startPostgres, type PostgresServer } from '../../bench/postgres-server.js';

export interface TestPostgres {
  /** Set when ENVFORGE_TEST_POSTGRES=skip: why the PostgreSQL tests do not run. */
  skipped: string | null;
  ready(): Promise<PostgresServer>;
  stop(): Promise<void>;
}

export function postgresForTests(): TestPostgres {
  const skipped = process.env.ENVFORGE_TEST_POSTGRES === 'skip' ? 'ENVFORGE_TEST_POSTGRES=skip' : null;
  let started: Promise<PostgresServer> | null = null;
  return {
    skipped,
    ready: () => (started ??= startPostgres()),
    async stop() {
      if (started) await (await started).stop();
    },
  };
}

// The reward service on a PostgreSQL library: replicas read the same library and reload when it changes,
// told by the database (LISTEN/NOTIFY), not by polling; the poll interval here is an hour.
import { afterAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../library/open.js';
import type { RunningServer } from '../serve/options.js';
import { startServer } from '../serve/server.js';
import { fakeAdmission, sampleMeta, sampleSource } from './helpers/library-fixtures.js';
import { postgresForTests } from './helpers/postgres.js';

const server = postgresForTests();
const replicas: RunningServer[] = [];
afterAll(async () => {
  for (const replica of replicas) await replica.close();
  await server.stop();
});

const names = async (replica: RunningServer): Promise<string[]> =>
  ((await (await fetch(`${replica.url}/v1/envs`)).json()) as { envs: Array<{ name: string }> }).envs.map((e) => e.name);

async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe.skipIf(server.skipped)('envforge serve --database', () => {
  it('two replicas see an admission made elsewhere without polling', async () => {
    const url = await (await server.ready()).createDatabase();
    const writer = openLibrary(url, { create: true });
    try {
      await writer.admit(fakeAdmission(sampleSource(sampleMeta('first-env')), sampleMeta('first-env')));
      for (let i = 0; i < 2; i++)
        replicas.push(await startServer({ libraryDir: url, port: 0, reloadIntervalMs: 3_600_000 }));
      for (const replica of replicas) expect(await names(replica)).toEqual(['first-env']);
      await writer.admit(fakeAdmission(sampleSource(sampleMeta('second-env')), sampleMeta('second-env')));
      for (const replica of replicas)
        expect(await eventually(async () => (await names(replica)).includes('second-env'), 15_000)).toBe(true);
      await writer.retire('first-env', 'test');
      for (const replica of replicas)
        expect(await eventually(async () => !(await names(replica)).includes('first-env'), 15_000)).toBe(true);
    } finally {
      await writer.close();
    }
  });
});

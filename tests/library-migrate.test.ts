// `envforge library migrate --from DIR --to URL`: a SQLite library with every kind of record is copied
// into PostgreSQL and reads back the same through the contract; a second copy into the now non-empty
// database is refused, and a bad URL is a usage error.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../library/open.js';
import { runEnvforge } from './helpers/cli.js';
import { fakeAdmission, fakeRejection, sampleMeta, sampleSource, variantSource } from './helpers/library-fixtures.js';
import { postgresForTests } from './helpers/postgres.js';

const server = postgresForTests();
afterAll(() => server.stop());

describe.skipIf(server.skipped)('envforge library migrate', () => {
  it('copies every record of a SQLite library into PostgreSQL, verified, and refuses a non-empty target', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'envforge-migrate-'));
    const url = await (await server.ready()).createDatabase();
    const source = openLibrary(dir, { create: true });
    try {
      const meta = sampleMeta('moved-env');
      const v1 = (await source.admit(fakeAdmission(sampleSource(meta), meta))).env!;
      await source.admit(fakeAdmission(variantSource(sampleSource(meta), 2), meta, 'bob'));
      await source.admit(fakeAdmission(sampleSource(sampleMeta('other-env')), sampleMeta('other-env')));
      await source.retire('moved-env', 'superseded', 1);
      await source.recordRejection(fakeRejection(`${sampleSource(meta)}// no\n`, meta));
      await source.startBatch('b1', { target: 3 });
      await source.appendJournal(
        'b1',
        [
          { kind: 'call', key: 'k1', payload: { n: 1 } },
          { kind: 'admitted', key: v1.hash, payload: null },
        ],
        { ledger: { usd: 0.5 } },
      );
      await source.finishBatch('b1', 'finished', { ok: true });
      await source.recordIncident({
        hash: v1.hash,
        name: v1.name,
        version: 1,
        seed: 7,
        level: 2,
        code: 'E_TIMEOUT',
        fn: 'generate',
        message: 'slow',
        origin: 'serve',
        confirmed: true,
      });
    } finally {
      await source.close();
    }
    const result = await runEnvforge('library', 'migrate', '--from', dir, '--to', url, '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      environments: 3,
      rejections: 1,
      batches: 1,
      journalEntries: 2,
      incidents: 1,
      verified: true,
    });

    const [a, b] = [openLibrary(dir, { readonly: true }), openLibrary(url)];
    try {
      expect(await b.list({ status: 'all', allVersions: true })).toEqual(
        await a.list({ status: 'all', allVersions: true }),
      );
      expect(await b.stats()).toEqual(await a.stats());
      expect(await b.journal('b1')).toEqual(await a.journal('b1'));
      expect(await b.getBatch('b1')).toEqual(await a.getBatch('b1'));
      expect(await b.integrityCheck()).toMatchObject({ ok: true, checkedFiles: 3 });
      // The copy is a working library: admissions continue its numbering and versions.
      const meta = sampleMeta('moved-env');
      expect((await b.admit(fakeAdmission(variantSource(sampleSource(meta), 3), meta))).env?.version).toBe(3);
    } finally {
      await a.close();
      await b.close();
    }
    const again = await runEnvforge('library', 'migrate', '--from', dir, '--to', url);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already holds a library');
    const bad = await runEnvforge('library', 'migrate', '--from', dir, '--to', 'mysql://x');
    expect(bad.code).toBe(2);
    await rm(dir, { recursive: true, force: true });
  });
});

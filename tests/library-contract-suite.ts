// The Library contract as one shared suite: every store in library/stores.ts runs it (library-contract.test.ts)
// with its own factory, so they all behave the same for admission, versions, listing, retirement,
// rejections, incidents, stats and integrity.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Meta } from '../contract/schema.js';
import {
  LibraryError,
  SCORE_WINDOW,
  trustedTallies,
  type EnvRecord,
  type IncidentInput,
  type JournalEntry,
  type Library,
} from '../library/contract.js';
import { hashSource } from '../contract/hash.js';
import { fingerprint } from '../validators/novelty/fingerprint.js';
import {
  fakeAdmission,
  fakeRejection,
  fakeReport,
  sampleMeta,
  sampleSource,
  variantSource,
} from './helpers/library-fixtures.js';

export interface LibraryFixtureOptions {
  /** Rejected candidates' reports kept at most (the factory must honour it). */
  rejectionRetention?: number;
  /** Incidents a client's input alone reached kept per version and client (the factory must honour it). */
  incidentRetention?: number;
  /** The bytes a client's own input failures may keep across every version (the factory must honour it). */
  incidentClientBytes?: number;
}

export interface LibraryFixture {
  library: Library;
  /** The stored module sources, reached behind the library's back (to damage them, as a crash or a person would). */
  modules: ModuleAccess;
  cleanup(): Promise<void>;
  /** Another handle (connection) on the same library, as a second writer would open it; closed by cleanup. */
  peer(): Promise<Library>;
}

export interface ModuleAccess {
  /** The stored source of a hash; undefined when none is stored. */
  read(hash: string): Promise<string | undefined>;
  write(hash: string, text: string): Promise<void>;
  remove(hash: string): Promise<void>;
  /** How integrityCheck and gc name the stored module of a hash (a file path, a row). */
  name(hash: string): string;
}

const byNameVersion = (a: EnvRecord, b: EnvRecord) => a.name.localeCompare(b.name) || a.version - b.version;
const ids = (envs: EnvRecord[]) => [...envs].sort(byNameVersion).map((e) => `${e.name}@${e.version}`);

export function libraryContract(
  name: string,
  make: (options?: LibraryFixtureOptions) => Promise<LibraryFixture>,
): void {
  describe(`${name} (Library contract)`, () => {
    const open: LibraryFixture[] = [];
    let f: LibraryFixture;
    let lib: Library;

    const fresh = async (options?: LibraryFixtureOptions) => {
      const fixture = await make(options);
      open.push(fixture);
      return fixture;
    };

    /**
     * Admits `source` (or a variant of the name's base source) under meta and returns the record; a refusal as a
     * duplicate fails the test.
     */
    const admit = async (meta: Meta, variant?: number, author = 'test', library = lib) => {
      const base = sampleSource(meta);
      const source = variant === undefined ? base : variantSource(base, variant);
      const result = await library.admit(fakeAdmission(source, meta, author));
      if (result.status === 'duplicate')
        throw new Error(`${meta.name} was refused as a duplicate: ${JSON.stringify(result.problems)}`);
      return { ...result, source };
    };

    beforeEach(async () => {
      f = await fresh();
      lib = f.library;
    });
    afterEach(async () => {
      for (const fixture of open.splice(0)) await fixture.cleanup();
    });

    describe('admit', () => {
      it('admits new code as version 1 and stores the exact source on disk', async () => {
        const meta = sampleMeta('first-env');
        const { status, env, source } = await admit(meta);
        expect(status).toBe('admitted');
        expect(env).toMatchObject({
          name: 'first-env',
          version: 1,
          hash: hashSource(source),
          status: 'active',
          retiredReason: null,
          meta,
          lineage: { author: 'test' },
          validatorVersion: 'test',
          fingerprint: null,
        });
        expect(env.report.verdict).toBe('admit');
        expect(env.report.hash).toBe(env.hash);
        expect(env.curve).toEqual(env.report.curve);
        expect(Number.isNaN(Date.parse(env.createdAt))).toBe(false);
        expect(env.updatedAt).toBe(env.createdAt);
        expect(await f.modules.read(env.hash)).toBe(source);
        expect(await lib.get('first-env')).toEqual(env);
      });

      it('admitting the identical source again is a no-op: "exists", no new row, version unchanged', async () => {
        const meta = sampleMeta('same-env');
        const first = await admit(meta, undefined, 'alice');
        const again = await admit(meta, undefined, 'bob');
        expect(again.status).toBe('exists');
        expect(again.env).toEqual(first.env);
        expect(again.env.lineage.author).toBe('alice');
        expect(await lib.list({ status: 'all', allVersions: true })).toHaveLength(1);
        expect((await lib.stats()).versions).toBe(1);
        expect((await lib.integrityCheck()).orphanFiles).toEqual([]);
      });

      it('new code under the same name becomes the next version; get() gives the newest or the named one', async () => {
        const meta = sampleMeta('versioned-env');
        const v1 = await admit(meta, 1);
        const v2 = await admit(meta, 2);
        expect(v1.env.version).toBe(1);
        expect(v2).toMatchObject({ status: 'admitted', env: { name: 'versioned-env', version: 2 } });
        expect(v2.env.hash).not.toBe(v1.env.hash);
        expect((await lib.get('versioned-env'))?.hash).toBe(v2.env.hash);
        expect((await lib.get('versioned-env', 1))?.hash).toBe(v1.env.hash);
        expect((await lib.get('versioned-env', 2))?.hash).toBe(v2.env.hash);
        expect(await lib.get('versioned-env', 3)).toBeUndefined();
        expect(await lib.get('no-such-env')).toBeUndefined();
        // Re-admitting old code does not make it newest again.
        expect((await admit(meta, 1)).status).toBe('exists');
        expect((await lib.get('versioned-env'))?.version).toBe(2);
        expect((await admit(meta, 3)).env.version).toBe(3);
        expect(await lib.source(v1.env)).toBe(v1.source);
        expect(await lib.source(v2.env)).toBe(v2.source);
      });

      it('refuses a report for different code, leaving nothing behind', async () => {
        const meta = sampleMeta('mismatch-env');
        const source = sampleSource(meta);
        const input = { source, report: fakeReport(variantSource(source, 1), meta), lineage: { author: 'test' } };
        await expect(lib.admit(input)).rejects.toThrow(LibraryError);
        expect(await lib.list({ status: 'all', allVersions: true })).toEqual([]);
        expect(await f.modules.read(hashSource(source))).toBeUndefined();
        expect((await lib.integrityCheck()).orphanFiles).toEqual([]);
      });

      it('refuses a rejecting report', async () => {
        const meta = sampleMeta('rejected-env');
        const source = sampleSource(meta);
        await expect(
          lib.admit({ source, report: fakeReport(source, meta, 'reject'), lineage: { author: 'test' } }),
        ).rejects.toThrow(LibraryError);
        expect(await lib.get('rejected-env')).toBeUndefined();
        expect(await f.modules.read(hashSource(source))).toBeUndefined();
      });
    });

    describe('list', () => {
      let a1: EnvRecord;
      let a2: EnvRecord;
      let b1: EnvRecord;
      const metaA = sampleMeta('list-a', { skills: ['arithmetic'] });
      const metaB = sampleMeta('list-b', { skills: ['graphs', 'search'] });
      beforeEach(async () => {
        a1 = (await admit(metaA, 1)).env;
        a2 = (await admit(metaA, 2)).env;
        b1 = (await admit(metaB, 1)).env;
      });

      it('shows the newest active version of each name by default, every version with allVersions', async () => {
        expect(ids(await lib.list())).toEqual(['list-a@2', 'list-b@1']);
        expect(ids(await lib.list({ allVersions: true }))).toEqual(['list-a@1', 'list-a@2', 'list-b@1']);
        expect((await lib.list()).find((e) => e.name === 'list-a')).toEqual(a2);
        expect((await lib.list({ allVersions: true })).find((e) => e.version === 1 && e.name === 'list-a')).toEqual(a1);
      });

      it('filters by status: active by default, retired, all', async () => {
        await lib.retire('list-b', 'superseded');
        expect(ids(await lib.list())).toEqual(['list-a@2']);
        expect(ids(await lib.list({ status: 'active' }))).toEqual(['list-a@2']);
        expect(ids(await lib.list({ status: 'retired' }))).toEqual(['list-b@1']);
        expect(ids(await lib.list({ status: 'all' }))).toEqual(['list-a@2', 'list-b@1']);
        expect(ids(await lib.list({ status: 'all', allVersions: true }))).toEqual(['list-a@1', 'list-a@2', 'list-b@1']);
        expect((await lib.list({ status: 'retired' }))[0]).toMatchObject({
          hash: b1.hash,
          status: 'retired',
          retiredReason: 'superseded',
        });
      });

      it('when only the newest version is retired, the newest active one is listed', async () => {
        await lib.retire('list-a', 'v2 is broken', 2);
        expect(ids(await lib.list())).toEqual(['list-a@1', 'list-b@1']);
        expect(ids(await lib.list({ status: 'retired' }))).toEqual(['list-a@2']);
        expect(ids(await lib.list({ status: 'all' }))).toEqual(['list-a@2', 'list-b@1']);
      });

      it('filters by skills: any of the given tags', async () => {
        expect(ids(await lib.list({ skills: ['graphs'] }))).toEqual(['list-b@1']);
        expect(ids(await lib.list({ skills: ['search', 'arithmetic'] }))).toEqual(['list-a@2', 'list-b@1']);
        expect(ids(await lib.list({ skills: ['arithmetic'], allVersions: true }))).toEqual(['list-a@1', 'list-a@2']);
        expect(await lib.list({ skills: ['no-such-skill'] })).toEqual([]);
      });

      it('is empty for an empty library', async () => {
        const other = (await fresh()).library;
        expect(await other.list()).toEqual([]);
        expect(await other.list({ status: 'all', allVersions: true })).toEqual([]);
      });
    });

    describe('source', () => {
      it('round-trips the admitted source', async () => {
        const { env, source } = await admit(sampleMeta('source-env', { levels: 5 }), 7);
        expect(await lib.source(env)).toBe(source);
        expect(await lib.source({ hash: env.hash })).toBe(source);
      });

      it('throws LibraryError when the file was modified on disk', async () => {
        const { env, source } = await admit(sampleMeta('tampered-env'));
        await f.modules.write(env.hash, source.replace('+ 1', '+ 2'));
        await expect(lib.source(env)).rejects.toThrow(LibraryError);
        await expect(lib.source(env)).rejects.toThrow(env.hash);
      });

      it('throws LibraryError when the file is missing or the hash unknown', async () => {
        const { env } = await admit(sampleMeta('missing-env'));
        await f.modules.remove(env.hash);
        await expect(lib.source(env)).rejects.toThrow(LibraryError);
        await expect(lib.source({ hash: 'ab'.repeat(32) })).rejects.toThrow(LibraryError);
      });
    });

    describe('retire', () => {
      it('retires every active version of the name, with the reason', async () => {
        const meta = sampleMeta('retire-env');
        const v1 = (await admit(meta, 1)).env;
        await admit(meta, 2);
        const changed = await lib.retire('retire-env', 'verifier accepts empty answers');
        expect(ids(changed)).toEqual(['retire-env@1', 'retire-env@2']);
        for (const env of changed)
          expect(env).toMatchObject({ status: 'retired', retiredReason: 'verifier accepts empty answers' });
        expect(await lib.get('retire-env')).toMatchObject({
          version: 2,
          status: 'retired',
          retiredReason: 'verifier accepts empty answers',
        });
        const old = await lib.get('retire-env', 1);
        expect(old).toMatchObject({
          status: 'retired',
          retiredReason: 'verifier accepts empty answers',
          hash: v1.hash,
          createdAt: v1.createdAt,
        });
        expect(Date.parse(old?.updatedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(v1.updatedAt));
        // Nothing active is left: retiring again changes nothing, and the first reason stays.
        expect(await lib.retire('retire-env', 'again')).toEqual([]);
        expect((await lib.get('retire-env'))?.retiredReason).toBe('verifier accepts empty answers');
        // Retired code is still readable (reproducibility), and re-admitting it is a no-op.
        expect(await lib.source(v1)).toBe(variantSource(sampleSource(meta), 1));
        expect((await admit(meta, 1)).status).toBe('exists');
      });

      it('retires only the given version', async () => {
        const meta = sampleMeta('retire-one');
        await admit(meta, 1);
        await admit(meta, 2);
        expect(ids(await lib.retire('retire-one', 'too easy', 1))).toEqual(['retire-one@1']);
        expect(await lib.get('retire-one', 1)).toMatchObject({ status: 'retired', retiredReason: 'too easy' });
        expect(await lib.get('retire-one', 2)).toMatchObject({ status: 'active', retiredReason: null });
      });

      it('an unknown name throws LibraryError naming it', async () => {
        await admit(sampleMeta('known-env'));
        const error = await lib.retire('ghost-env', 'no reason').catch((e: unknown) => e);
        expect(error).toBeInstanceOf(LibraryError);
        expect((error as Error).message).toContain('ghost-env');
      });

      it('an empty reason throws and retires nothing', async () => {
        await admit(sampleMeta('reason-env'));
        await expect(lib.retire('reason-env', '')).rejects.toThrow(LibraryError);
        await expect(lib.retire('reason-env', '   ')).rejects.toThrow(LibraryError);
        expect((await lib.get('reason-env'))?.status).toBe('active');
      });
    });

    describe('rejections', () => {
      it('are kept for analytics, not listed as environments', async () => {
        const meta = sampleMeta('rejected-one');
        await lib.recordRejection(fakeRejection(sampleSource(meta), meta));
        await lib.recordRejection(fakeRejection(variantSource(sampleSource(meta), 1), meta));
        expect((await lib.stats()).rejections).toBe(2);
        expect(await lib.list({ status: 'all', allVersions: true })).toEqual([]);
        expect(await lib.get('rejected-one')).toBeUndefined();
      });

      it('are listed newest first with their first problem, filtered by batch and by code', async () => {
        const meta = sampleMeta('rejected-listed');
        const one = fakeRejection(sampleSource(meta), meta);
        await lib.recordRejection({ ...one, lineage: { author: 'test', batchId: 'batch-a' } });
        const two = fakeRejection(variantSource(sampleSource(meta), 1), meta);
        two.report.problems = [
          {
            code: 'E_ACCEPTS_EMPTY',
            stage: 'hack',
            message: 'verify pays for an empty response (test fixture)',
            evidence: { response: '' },
          },
          { code: 'E_UNSOLVED', stage: 'solvability', message: 'the reference scores 0 (test fixture)' },
        ];
        await lib.recordRejection({ ...two, lineage: { author: 'test', batchId: 'batch-b' } });
        const all = await lib.rejections();
        expect(all.map((r) => [r.name, r.lineage.batchId, r.firstProblem?.code])).toEqual([
          ['rejected-listed', 'batch-b', 'E_ACCEPTS_EMPTY'],
          ['rejected-listed', 'batch-a', 'E_MISSING_EXPORT'],
        ]);
        expect(all[0]).toMatchObject({
          codes: ['E_ACCEPTS_EMPTY', 'E_UNSOLVED'],
          firstProblem: { stage: 'hack', message: expect.stringMatching(/empty response/) },
          hash: hashSource(two.source),
        });
        expect((await lib.rejections({ batchId: 'batch-a' })).map((r) => r.firstProblem?.code)).toEqual([
          'E_MISSING_EXPORT',
        ]);
        expect((await lib.rejections({ code: 'E_UNSOLVED' })).map((r) => r.lineage.batchId)).toEqual(['batch-b']);
        expect(await lib.rejections({ batchId: 'batch-a', code: 'E_UNSOLVED' })).toEqual([]);
        expect(await lib.rejections({ limit: 1 })).toHaveLength(1);
      });

      it('retention keeps only the newest N', async () => {
        const small = (await fresh({ rejectionRetention: 3 })).library;
        const meta = sampleMeta('rejected-many');
        for (let i = 0; i < 7; i++)
          await small.recordRejection(fakeRejection(variantSource(sampleSource(meta), i), meta));
        expect((await small.stats()).rejections).toBe(3);
        // Admissions are unaffected by retention.
        await admit(meta, 100, 'test', small);
        expect((await small.stats()).rejections).toBe(3);
        expect((await small.stats()).versions).toBe(1);
      });
    });

    describe('incidents', () => {
      const incident = (hash: string, overrides: Partial<IncidentInput> = {}): IncidentInput => ({
        hash,
        name: 'incident-env',
        version: 1,
        seed: 2 ** 40 + 3,
        level: 2,
        code: 'E_TIMEOUT',
        fn: 'verify',
        message: 'ran past its budget',
        origin: 'serve',
        confirmed: false,
        ...overrides,
      });

      it('are recorded with what replays them, listed oldest first, and resolved per module hash', async () => {
        const a = hashSource('a');
        const b = hashSource('b');
        // A response is kept whole (revalidation replays exactly what production saw), also when it recurs.
        const long = `${'(1 '.repeat(400_000)}\u{1F600}`;
        const first = await lib.recordIncident(incident(a, { response: long, confirmed: true }));
        expect(first).toMatchObject({
          hash: a,
          seed: 2 ** 40 + 3,
          level: 2,
          code: 'E_TIMEOUT',
          confirmed: true,
          resolvedAt: null,
          resolution: null,
        });
        expect(first.response === long).toBe(true);
        await lib.recordIncident(incident(b, { code: 'E_SCORE', origin: 'export' }));
        await lib.recordIncident(incident(a, { code: 'E_THROWN', response: long }));
        expect((await lib.incidents()).map((i) => i.code)).toEqual(['E_TIMEOUT', 'E_SCORE', 'E_THROWN']);
        expect((await lib.incidents({ hash: a })).every((i) => i.response === long)).toBe(true);
        // A reader of the evidence alone (the reward service's reload) reads no response.
        const bare = await lib.incidents({ hash: a, responses: false });
        expect(bare.map((i) => [i.code, 'response' in i])).toEqual([
          ['E_TIMEOUT', false],
          ['E_THROWN', false],
        ]);
        expect((await lib.incidents({ hash: a })).map((i) => i.code)).toEqual(['E_TIMEOUT', 'E_THROWN']);
        expect(await lib.resolveIncidents(a, 'retired by revalidation')).toBe(2);
        expect(await lib.resolveIncidents(a, 'again')).toBe(0);
        expect((await lib.incidents({ open: true })).map((i) => i.hash)).toEqual([b]);
        expect((await lib.incidents({ hash: a }))[0]).toMatchObject({
          resolution: 'retired by revalidation',
          resolvedAt: expect.any(String),
        });
      });

      it("keep whose input reached them (a client's hash), when only a client's did", async () => {
        const c = hashSource('client-incident');
        const kept = await lib.recordIncident(
          incident(c, { fn: 'step(action log)', client: 'client:0123456789ab', confirmed: true }),
        );
        expect(kept).toMatchObject({ fn: 'step(action log)', client: 'client:0123456789ab' });
        expect(await lib.recordIncident(incident(c))).not.toHaveProperty('client');
        expect((await lib.incidents({ hash: c })).map((i) => i.client ?? null)).toEqual(['client:0123456789ab', null]);
        await expect(lib.recordIncident(incident(c, { client: 'two words' }))).rejects.toThrow(/client/);
      });

      it('keep a quarantine as a state: set by the incident that meets the policy, lifted by resolving', async () => {
        const t = hashSource('tripped');
        const c = hashSource('clients');
        await lib.recordIncident(incident(c, { fn: 'verify(response)', client: 'c1', confirmed: true }));
        await lib.recordIncident(incident(c, { fn: 'verify(response)', client: 'c2', confirmed: true }));
        await lib.recordIncident(incident(c, { fn: 'step(action log)', client: 'c2', confirmed: true })); // again
        expect(await lib.quarantines()).toEqual([]); // two clients' own failures: no verdict yet
        await lib.recordIncident(incident(t, { code: 'E_ESCAPE_ATTEMPT', fn: 'step', confirmed: true, seed: 7 }));
        await lib.recordIncident(incident(c, { fn: 'verify(response)', client: 'c3', confirmed: true }));
        const held = new Map((await lib.quarantines()).map((q) => [q.hash, q]));
        expect([...held.keys()].sort()).toEqual([t, c].sort());
        expect(held.get(t)?.reason).toMatch(/E_ESCAPE_ATTEMPT in step at seed 7/);
        expect(held.get(c)?.reason).toMatch(/3 independent clients made it fail with E_TIMEOUT/);
        // Later incidents leave the verdict as it was decided; resolving (revalidation, the operator) lifts it.
        await lib.recordIncident(incident(t, { code: 'E_THROWN' }));
        expect((await lib.quarantines()).find((q) => q.hash === t)).toEqual(held.get(t));
        expect(await lib.resolveIncidents(t, 'admitted again by revalidation')).toBe(2);
        expect((await lib.quarantines()).map((q) => q.hash)).toEqual([c]);
      });

      it("retention drops only a client's own input failures on a version, never others' evidence", async () => {
        const small = (await fresh({ incidentRetention: 3 })).library;
        const x = hashSource('x');
        const t = hashSource('t');
        await small.recordIncident(incident(t, { code: 'E_ESCAPE_ATTEMPT', fn: 'verify(response)', client: 'c1' }));
        await small.recordIncident(incident(x, { fn: 'generate', client: 'c1' })); // the environment's own
        await small.recordIncident(incident(x, { fn: 'verify(response)', client: 'c2', confirmed: true }));
        const flood = { fn: 'verify(response)', client: 'c1' };
        await small.recordIncident(incident(x, { ...flood, code: 'E_THROWN', confirmed: true, seed: 0 }));
        for (let seed = 1; seed <= 12; seed++) await small.recordIncident(incident(x, { ...flood, seed }));
        await small.recordIncident(incident(x, { ...flood, client: undefined, seed: 99 }));
        const kept = (await small.incidents()).map((i) => `${i.hash === t ? 't' : 'x'} ${i.client} ${i.fn} ${i.seed}`);
        expect(kept).toEqual([
          't c1 verify(response) 1099511627779', // a tripwire, whoever's input reached it
          'x c1 generate 1099511627779',
          'x c2 verify(response) 1099511627779', // another client's
          'x c1 verify(response) 0', // c1's first confirmed one of its code (its vote)
          'x c1 verify(response) 10', // and its newest three
          'x c1 verify(response) 11',
          'x c1 verify(response) 12',
          'x undefined verify(response) 99',
        ]);
        expect((await small.quarantines()).map((q) => q.hash)).toEqual([t]);
      });

      it('charge what a client makes the library keep to it, in bytes, on every version (V22-5)', async () => {
        const budget = 1_000_000;
        const small = (await fresh({ incidentClientBytes: budget })).library;
        const response = (k: number) => `${k}:${'['.repeat(50_000)}${' '.repeat(49_990)}`.slice(0, 100_000);
        const victim = { fn: 'verify(response)', client: 'c-v', principal: 'p-v', code: 'E_THROWN' };
        const v = hashSource('victim-env');
        for (let k = 0; k < 3; k++)
          await small.recordIncident(
            incident(v, { ...victim, seed: k, response: response(900 + k), confirmed: k === 0 }),
          );
        const victimsBefore = await small.incidents({ hash: v });
        // One client (one principal) sends five distinct 100 KB failing responses to each of six versions.
        const flood = { fn: 'verify(response)', client: 'c-a', principal: 'p-a', code: 'E_THROWN' };
        const versions = Array.from({ length: 6 }, (_, e) => hashSource(`flooded-${e}`));
        for (let k = 0; k < 5; k++)
          for (const [e, h] of versions.entries())
            await small.recordIncident(
              incident(h, { ...flood, seed: k, response: response(e * 10 + k), confirmed: k === 0 }),
            );
        const all = await small.incidents();
        const mine = all.filter((i) => i.principal === 'p-a');
        const held = mine.reduce((sum, i) => sum + 256 + i.message.length + (i.response?.length ?? 0), 0);
        expect(held).toBeLessThanOrEqual(budget); // 3 MB sent, at most the budget kept
        // Its first vote on each version stays (the quarantine's evidence), whole while the budget holds it.
        for (const h of versions)
          expect(mine.find((i) => i.hash === h && i.seed === 0 && i.confirmed)?.response).toBe(
            response(versions.indexOf(h) * 10),
          );
        // The newest go last; at most WHOLE_RESPONSES (3) per version, code and fn are whole at any time.
        expect(mine.at(-1)).toMatchObject({ hash: versions[5], seed: 4 });
        for (const h of versions)
          expect(mine.filter((i) => i.hash === h && !i.responseCut).length).toBeLessThanOrEqual(3);
        // Another client's incidents are untouched, whole.
        expect(await small.incidents({ hash: v })).toEqual(victimsBefore);
        expect(victimsBefore.map((i) => i.response === response(900 + i.seed))).toEqual([true, true, true]);
      });

      it("keep a client's first responses of one failure whole, later ones by prefix and digest (V22-5)", async () => {
        const h = hashSource('one-shape');
        const shape = { fn: 'verify(response)', client: 'c-a', principal: 'p-a', code: 'E_THROWN' };
        const response = (k: number) => `${k}`.repeat(5_000);
        for (let k = 1; k <= 6; k++)
          await lib.recordIncident(incident(h, { ...shape, seed: k, response: response(k) }));
        // Another fn or code of the same client is another failure: its first is whole again.
        await lib.recordIncident(incident(h, { ...shape, code: 'E_TIMEOUT', seed: 7, response: response(7) }));
        const kept = await lib.incidents({ hash: h });
        expect(kept.map((i) => [i.seed, i.responseCut === undefined])).toEqual([
          [1, true],
          [2, true],
          [3, true],
          [4, false],
          [5, false],
          [6, false],
          [7, true],
        ]);
        for (const i of kept.filter((x) => x.responseCut)) {
          expect(i.response).toBe(response(i.seed).slice(0, 1_024));
          expect(i.responseCut).toEqual({ chars: 5_000, sha256: hashSource(response(i.seed)) });
        }
        expect(kept.filter((i) => !i.responseCut).map((i) => i.response)).toEqual([1, 2, 3, 7].map(response));
      });

      it('charge action logs and responses of one principal, under any client id, to one budget', async () => {
        const small = (await fresh({ incidentClientBytes: 300_000 })).library;
        const [r, l] = [hashSource('responses'), hashSource('logs')];
        // The variant: the same principal's failures reached as action logs (another fn, another voter hash).
        for (let k = 0; k < 6; k++) {
          const base = { principal: 'p-a', code: 'E_THROWN', seed: k, confirmed: false };
          await small.recordIncident(
            incident(r, { ...base, fn: 'verify(response)', client: 'c-1', response: `r${k}`.repeat(30_000) }),
          );
          await small.recordIncident(
            incident(l, { ...base, fn: 'step(action log)', client: 'c-2', response: `[${k}]`.repeat(20_000) }),
          );
        }
        const kept = await small.incidents();
        expect(kept.reduce((s, i) => s + 256 + i.message.length + (i.response?.length ?? 0), 0)).toBeLessThan(300_000);
        expect(kept.at(-1)).toMatchObject({ hash: l, seed: 5 }); // the newest kept, the oldest gone
        expect(kept.some((i) => i.seed === 0)).toBe(false);
      });

      it('past the budget, a client keeps its first votes, their responses cut oldest first', async () => {
        const small = (await fresh({ incidentClientBytes: 250_000 })).library;
        const versions = Array.from({ length: 6 }, (_, e) => hashSource(`voted-${e}`));
        const vote = { fn: 'verify(response)', client: 'c-a', principal: 'p-a', code: 'E_THROWN', confirmed: true };
        for (const [e, h] of versions.entries())
          await small.recordIncident(incident(h, { ...vote, seed: e, response: `${e}`.repeat(100_000) }));
        const kept = await small.incidents();
        expect(kept.map((i) => i.seed)).toEqual([0, 1, 2, 3, 4, 5]); // every vote stays
        expect(kept.map((i) => Boolean(i.responseCut))).toEqual([true, true, true, true, false, false]);
        expect(kept.reduce((s, i) => s + 256 + i.message.length + (i.response?.length ?? 0), 0)).toBeLessThan(250_000);
        // A later small failure fits beside them.
        await small.recordIncident(
          incident(versions[0] as string, { ...vote, confirmed: false, seed: 99, response: 'x' }),
        );
        expect((await small.incidents()).map((i) => i.seed)).toEqual([0, 1, 2, 3, 4, 5, 99]);
      });

      it('refuses incidents that could not be replayed', async () => {
        await expect(lib.recordIncident(incident('not-a-hash'))).rejects.toThrow(LibraryError);
        await expect(lib.recordIncident(incident(hashSource('c'), { seed: -1 }))).rejects.toThrow(/seed/);
        await expect(lib.recordIncident(incident(hashSource('c'), { origin: 'elsewhere' as 'serve' }))).rejects.toThrow(
          /origin/,
        );
        await expect(lib.resolveIncidents(hashSource('c'), ' ')).rejects.toThrow(/reason/);
      });
    });

    describe('changeStamp', () => {
      it('stays put while the library is only read, changes with each admission, retirement and incident', async () => {
        const seen = [await lib.changeStamp()];
        const same = async () => expect(await lib.changeStamp()).toBe(seen.at(-1));
        const changed = async () => {
          const stamp = await lib.changeStamp();
          expect(seen).not.toContain(stamp);
          seen.push(stamp);
        };
        const meta = sampleMeta('stamped-env');
        const { env } = await admit(meta);
        await changed();
        await lib.list({ status: 'all', allVersions: true });
        await lib.get('stamped-env');
        await lib.stats();
        await same();
        await lib.recordIncident({
          hash: env.hash,
          name: env.name,
          version: 1,
          seed: 1,
          level: 1,
          code: 'E_TIMEOUT',
          fn: 'verify',
          message: 'slow',
          origin: 'serve',
          confirmed: false,
        });
        await changed();
        await lib.retire('stamped-env', 'stamped');
        await changed();
      });
    });

    describe('stats', () => {
      it('is empty for an empty library', async () => {
        expect(await lib.stats()).toEqual({
          environments: 0,
          versions: 0,
          byStatus: {},
          bySkill: {},
          byAuthor: {},
          byKind: { single: 0, episodic: 0, code: 0 },
          levels: null,
          rejections: 0,
        });
      });

      it(
        'counts by status, by skill and author (of active versions) and gives the levels ' +
          'range of active environments',
        async () => {
          const alpha = sampleMeta('stats-alpha', { skills: ['arithmetic', 'parsing'], levels: 4 });
          const alpha2 = sampleMeta('stats-alpha', { skills: ['arithmetic'], levels: 6 });
          const beta = sampleMeta('stats-beta', { skills: ['graphs'], levels: 5 });
          const gamma = sampleMeta('stats-gamma', { skills: ['graphs', 'search'], levels: 20 });
          await admit(alpha, 1, 'alice');
          await admit(alpha2, 2, 'bob');
          await admit(beta, 1, 'alice');
          await admit(gamma, 1, 'carol');
          await lib.retire('stats-gamma', 'too hard to verify');
          await lib.recordRejection(fakeRejection(sampleSource(beta), beta));
          const stats = await lib.stats();
          expect(stats).toMatchObject({
            environments: 2,
            versions: 4,
            byStatus: { active: 3, retired: 1 },
            // Skills, authors and kinds count each active environment once, by its newest active version.
            bySkill: { arithmetic: 1, graphs: 1 },
            byAuthor: { alice: 1, bob: 1 },
            byKind: { single: 2, episodic: 0, code: 0 },
            rejections: 1,
          });
          expect(stats.bySkill.search ?? 0).toBe(0);
          expect(stats.bySkill.parsing ?? 0).toBe(0); // only stats-alpha@1, an older version, has it
          expect(stats.byAuthor.carol ?? 0).toBe(0);
          // Active environments' levels are 6 (stats-alpha@2) and 5; the retired 20 does not count.
          expect(stats.levels).toEqual({ min: 5, max: 6 });
        },
      );
    });

    describe('batches and journal', () => {
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const errorOf = async (promise: Promise<unknown>): Promise<Error> => {
        const error = await promise.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(LibraryError);
        return error as Error;
      };
      const entry = (kind: string, key: string, payload: unknown = { key }) => ({ kind, key, payload });
      const summary = (entries: JournalEntry[]) => entries.map((e) => `${e.seq}:${e.kind}:${e.key}`);

      it('startBatch creates a running batch with its options; getBatch and listBatches see it', async () => {
        const options = { target: 10, budgetUsd: 2.5, skills: ['graphs'], nested: { model: 'openai:gpt-4.1' } };
        const batch = await lib.startBatch('batch-1', options);
        expect(batch).toEqual({
          id: 'batch-1',
          status: 'running',
          options,
          createdAt: batch.createdAt,
          updatedAt: batch.createdAt,
          finishedAt: null,
          report: null,
          ledger: null,
        });
        expect(Number.isNaN(Date.parse(batch.createdAt))).toBe(false);
        expect(await lib.getBatch('batch-1')).toEqual(batch);
        expect(await lib.listBatches()).toEqual([batch]);
        expect(await lib.journal('batch-1')).toEqual([]);
        expect(await lib.getBatch('no-such-batch')).toBeUndefined();
        // Batches are bookkeeping, not environments.
        expect(await lib.list({ status: 'all', allVersions: true })).toEqual([]);
      });

      it('options are stored as JSON: undefined becomes null, dates become strings', async () => {
        expect((await lib.startBatch('json-undefined', undefined)).options).toBeNull();
        const at = new Date('2024-01-02T03:04:05.000Z');
        expect((await lib.startBatch('json-date', { at, skip: undefined })).options).toEqual({
          at: '2024-01-02T03:04:05.000Z',
        });
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        await errorOf(lib.startBatch('json-cyclic', cyclic));
        expect(await lib.getBatch('json-cyclic')).toBeUndefined();
      });

      it('starting a running batch again resumes it: the same record, options and journal unchanged', async () => {
        const first = await lib.startBatch('resume-me', { target: 3 });
        await lib.appendJournal('resume-me', [entry('call', 'a'), entry('admitted', 'env-a')]);
        const before = await lib.getBatch('resume-me');
        const again = await lib.startBatch('resume-me', { target: 999 });
        expect(again).toEqual(before);
        expect(again).toMatchObject({ id: first.id, status: 'running', createdAt: first.createdAt, finishedAt: null });
        expect(again.options).toEqual({ target: 3 });
        expect(summary(await lib.journal('resume-me'))).toEqual(['1:call:a', '2:admitted:env-a']);
        expect(await lib.listBatches()).toHaveLength(1);
      });

      it('a finished batch cannot be started again; a failed one is reopened with its journal and ledger', async () => {
        await lib.startBatch('done-batch', {});
        await lib.finishBatch('done-batch', 'finished', { admitted: 1 });
        const error = await errorOf(lib.startBatch('done-batch', {}));
        expect(error.message).toContain('done-batch');
        expect(error.message).toContain('finished');
        expect(await lib.getBatch('done-batch')).toMatchObject({ status: 'finished', report: { admitted: 1 } });

        await lib.startBatch('failed-batch', { target: 5 });
        await lib.appendJournal('failed-batch', [entry('call', 'x')]);
        await lib.saveBatchLedger('failed-batch', { usd: 0.5 });
        await lib.finishBatch('failed-batch', 'failed', { error: 'provider down' });
        const reopened = await lib.startBatch('failed-batch', { target: 7 });
        expect(reopened).toMatchObject({
          id: 'failed-batch',
          status: 'running',
          options: { target: 5 },
          finishedAt: null,
          report: null,
          ledger: { usd: 0.5 },
        });
        expect(summary(await lib.journal('failed-batch'))).toEqual(['1:call:x']);
        expect(summary(await lib.appendJournal('failed-batch', [entry('call', 'y')]))).toEqual(['2:call:y']);
      });

      it('appendJournal numbers entries 1, 2, 3, … per batch, in commit order, and returns them', async () => {
        await lib.startBatch('seq-a', {});
        await lib.startBatch('seq-b', {});
        const [a1] = await lib.appendJournal('seq-a', [entry('call', 'k1', { tokens: 10, usd: 0.01 })]);
        expect(a1).toEqual({
          batchId: 'seq-a',
          seq: 1,
          kind: 'call',
          key: 'k1',
          payload: { tokens: 10, usd: 0.01 },
          createdAt: a1!.createdAt,
        });
        expect(Number.isNaN(Date.parse(a1!.createdAt))).toBe(false);
        expect(summary(await lib.appendJournal('seq-b', [entry('call', 'k1')]))).toEqual(['1:call:k1']);
        expect(summary(await lib.appendJournal('seq-a', [entry('call', 'k2'), entry('admitted', 'k2')]))).toEqual([
          '2:call:k2',
          '3:admitted:k2',
        ]);
        expect(summary(await lib.appendJournal('seq-b', [entry('rejected', 'k9')]))).toEqual(['2:rejected:k9']);
        expect(await lib.appendJournal('seq-a', [])).toEqual([]);
        const journal = await lib.journal('seq-a');
        expect(summary(journal)).toEqual(['1:call:k1', '2:call:k2', '3:admitted:k2']);
        expect(journal[0]).toEqual(a1);
        expect(summary(await lib.journal('seq-b'))).toEqual(['1:call:k1', '2:rejected:k9']);
      });

      it('appending an existing (kind, key) is a no-op returning the entry, so replays never duplicate', async () => {
        await lib.startBatch('idem', {});
        const [first] = await lib.appendJournal('idem', [entry('call', 'req-1', { usd: 0.02 })]);
        await sleep(5);
        const [again] = await lib.appendJournal('idem', [entry('call', 'req-1', { usd: 99 })]);
        expect(again).toEqual(first);
        // The same key under another kind is a different entry.
        expect(summary(await lib.appendJournal('idem', [entry('admitted', 'req-1')]))).toEqual(['2:admitted:req-1']);
        // A replayed prefix and new work in one call: the old keep their seqs, the new continue after them.
        const mixed = await lib.appendJournal('idem', [
          entry('call', 'req-1'),
          entry('call', 'req-2'),
          entry('admitted', 'req-1'),
          entry('call', 'req-3'),
        ]);
        expect(summary(mixed)).toEqual(['1:call:req-1', '3:call:req-2', '2:admitted:req-1', '4:call:req-3']);
        // A key twice within one call is one entry.
        expect(
          summary(await lib.appendJournal('idem', [entry('call', 'req-4', 1), entry('call', 'req-4', 2)])),
        ).toEqual(['5:call:req-4', '5:call:req-4']);
        const journal = await lib.journal('idem');
        expect(summary(journal)).toEqual([
          '1:call:req-1',
          '2:admitted:req-1',
          '3:call:req-2',
          '4:call:req-3',
          '5:call:req-4',
        ]);
        expect(journal[0]!.payload).toEqual({ usd: 0.02 });
        expect(journal[4]!.payload).toBe(1);
      });

      it('journal(kind) filters, still in seq order', async () => {
        await lib.startBatch('kinds', {});
        for (let i = 0; i < 6; i++) await lib.appendJournal('kinds', [entry(i % 2 ? 'admitted' : 'call', `k${i}`)]);
        expect(summary(await lib.journal('kinds', 'call'))).toEqual(['1:call:k0', '3:call:k2', '5:call:k4']);
        expect(summary(await lib.journal('kinds', 'admitted'))).toEqual([
          '2:admitted:k1',
          '4:admitted:k3',
          '6:admitted:k5',
        ]);
        expect(await lib.journal('kinds', 'no-such-kind')).toEqual([]);
      });

      it('a multi-entry append is atomic: an invalid entry commits none of them', async () => {
        await lib.startBatch('atomic', {});
        await lib.appendJournal('atomic', [entry('call', 'before')]);
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        await errorOf(
          lib.appendJournal('atomic', [entry('call', 'ok-1'), entry('call', 'bad', cyclic), entry('call', 'ok-2')]),
        );
        await errorOf(lib.appendJournal('atomic', [entry('call', 'ok-1'), entry('', 'no-kind')]));
        await errorOf(lib.appendJournal('atomic', [entry('call', 'ok-1'), entry('call', '')]));
        await errorOf(lib.appendJournal('atomic', [entry('call', 'ok-1')], { ledger: cyclic }));
        expect(summary(await lib.journal('atomic'))).toEqual(['1:call:before']);
        expect((await lib.getBatch('atomic'))?.ledger).toBeNull();
        expect(summary(await lib.appendJournal('atomic', [entry('call', 'ok-1'), entry('call', 'ok-2')]))).toEqual([
          '2:call:ok-1',
          '3:call:ok-2',
        ]);
      });

      it('the ledger is the latest snapshot: saveBatchLedger and appendJournal with a ledger replace it', async () => {
        const started = await lib.startBatch('ledger', {});
        await sleep(5);
        await lib.saveBatchLedger('ledger', { usd: 0.1, tokens: 100, byStage: { generator: 0.1 } });
        const saved = await lib.getBatch('ledger');
        expect(saved?.ledger).toEqual({ usd: 0.1, tokens: 100, byStage: { generator: 0.1 } });
        expect(Date.parse(saved!.updatedAt)).toBeGreaterThan(Date.parse(started.updatedAt));
        expect(saved?.createdAt).toBe(started.createdAt);
        await lib.saveBatchLedger('ledger', { usd: 0.3 });
        expect((await lib.getBatch('ledger'))?.ledger).toEqual({ usd: 0.3 });
        // Together with the entries that paid for it, in one transaction.
        await lib.appendJournal('ledger', [entry('call', 'c1', { usd: 0.2 })], { ledger: { usd: 0.5 } });
        expect((await lib.getBatch('ledger'))?.ledger).toEqual({ usd: 0.5 });
        // Without a ledger option the ledger stays.
        await lib.appendJournal('ledger', [entry('call', 'c2')]);
        expect((await lib.getBatch('ledger'))?.ledger).toEqual({ usd: 0.5 });
      });

      it('finishBatch ends a batch with its report; a finished or failed batch takes no more writes', async () => {
        const started = await lib.startBatch('finish-me', { target: 1 });
        await lib.appendJournal('finish-me', [entry('admitted', 'env-a')]);
        await lib.saveBatchLedger('finish-me', { usd: 1 });
        const report = { funnel: { specs: 3, admitted: 1 }, markdown: '# Batch\n' };
        const finished = await lib.finishBatch('finish-me', 'finished', report);
        expect(finished).toMatchObject({
          id: 'finish-me',
          status: 'finished',
          options: { target: 1 },
          report,
          ledger: { usd: 1 },
          createdAt: started.createdAt,
        });
        expect(finished.finishedAt).not.toBeNull();
        expect(finished.updatedAt).toBe(finished.finishedAt);
        expect(Date.parse(finished.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(started.createdAt));
        expect(await lib.getBatch('finish-me')).toEqual(finished);
        for (const write of [
          () => lib.appendJournal('finish-me', [entry('admitted', 'env-b')]),
          () => lib.saveBatchLedger('finish-me', { usd: 2 }),
          () => lib.finishBatch('finish-me', 'failed', {}),
        ]) {
          const error = await errorOf(write());
          expect(error.message).toContain('finish-me');
        }
        expect(await lib.getBatch('finish-me')).toEqual(finished);
        expect(summary(await lib.journal('finish-me'))).toEqual(['1:admitted:env-a']);

        await lib.startBatch('fail-me', {});
        const failed = await lib.finishBatch('fail-me', 'failed', { error: 'budget file unreadable' });
        expect(failed).toMatchObject({ status: 'failed', report: { error: 'budget file unreadable' } });
        await errorOf(lib.appendJournal('fail-me', [entry('call', 'late')]));
        await errorOf(lib.finishBatch('fail-me', 'finished', {}));
        await errorOf(lib.finishBatch('finish-me', 'running' as 'finished', {}));
      });

      it('listBatches gives the newest first, up to a limit', async () => {
        for (const id of ['list-1', 'list-2', 'list-3', 'list-4']) await lib.startBatch(id, { id });
        await lib.finishBatch('list-2', 'finished', {});
        expect((await lib.listBatches()).map((b) => b.id)).toEqual(['list-4', 'list-3', 'list-2', 'list-1']);
        expect((await lib.listBatches(2)).map((b) => b.id)).toEqual(['list-4', 'list-3']);
        expect(await lib.listBatches(0)).toEqual([]);
        expect((await lib.listBatches(100)).map((b) => b.status)).toEqual([
          'running',
          'running',
          'finished',
          'running',
        ]);
        // Resuming does not reorder.
        await lib.startBatch('list-1', {});
        expect((await lib.listBatches(1)).map((b) => b.id)).toEqual(['list-4']);
        await errorOf(lib.listBatches(-1));
        await errorOf(lib.listBatches(1.5));
        expect(await (await fresh()).library.listBatches()).toEqual([]);
      });

      it('unknown batch ids and empty ids are LibraryErrors naming the id', async () => {
        await lib.startBatch('known-batch', {});
        const calls: Array<[string, () => Promise<unknown>]> = [
          ['appendJournal', () => lib.appendJournal('ghost-batch', [entry('call', 'a')])],
          ['appendJournal (no entries)', () => lib.appendJournal('ghost-batch', [])],
          ['journal', () => lib.journal('ghost-batch')],
          ['journal (kind)', () => lib.journal('ghost-batch', 'call')],
          ['saveBatchLedger', () => lib.saveBatchLedger('ghost-batch', {})],
          ['finishBatch', () => lib.finishBatch('ghost-batch', 'finished', {})],
        ];
        for (const [what, call] of calls) {
          const error = await call().catch((e: unknown) => e);
          expect(error, what).toBeInstanceOf(LibraryError);
          expect((error as Error).message, what).toContain('ghost-batch');
        }
        await errorOf(lib.startBatch('', {}));
        await errorOf(lib.startBatch('   ', {}));
        expect((await lib.listBatches()).map((b) => b.id)).toEqual(['known-batch']);
      });

      it('admit is unchanged beside batches, and keeps lineage.batchId', async () => {
        await lib.startBatch('admit-batch', {});
        const meta = sampleMeta('batch-env');
        const source = sampleSource(meta);
        const { status, env } = await lib.admit({
          ...fakeAdmission(source, meta),
          lineage: { author: 'test', batchId: 'admit-batch' },
        });
        expect(status).toBe('admitted');
        expect(env?.lineage).toEqual({ author: 'test', batchId: 'admit-batch' });
        await lib.appendJournal('admit-batch', [
          entry('admitted', env!.hash, { name: env!.name, version: env!.version }),
        ]);
        expect((await lib.journal('admit-batch', 'admitted'))[0]?.payload).toEqual({ name: 'batch-env', version: 1 });
        expect((await lib.stats()).versions).toBe(1);
        expect((await lib.integrityCheck()).ok).toBe(true);
      });

      it('batches belong to their library: another library does not see them', async () => {
        const other = (await fresh()).library;
        await lib.startBatch('mine', {});
        expect(await other.getBatch('mine')).toBeUndefined();
        await errorOf(other.journal('mine'));
      });
    });

    describe('trainer scores', () => {
      const tally = (name: string, level: number, n: number, passed: number, version = 1, trusted = false) => ({
        name,
        version,
        level,
        n,
        passed,
        scoreSum: passed,
        trusted,
      });

      it('adds counts per name, version and level, and lists them in order', async () => {
        expect(await lib.scoreTallies()).toEqual([]);
        await lib.recordScores([tally('b-env', 2, 10, 3), tally('a-env', 1, 4, 4)]);
        await lib.recordScores([tally('b-env', 2, 10, 7), tally('b-env', 2, 5, 0, 2)]);
        const got = (await lib.scoreTallies()).map(
          ({ updatedAt, ...t }) => (expect(typeof updatedAt).toBe('string'), t),
        );
        expect(got).toEqual([tally('a-env', 1, 4, 4), tally('b-env', 2, 20, 10), tally('b-env', 2, 5, 0, 2)]);
      });

      it("keeps the operator's (trusted) tallies apart from clients', an unmarked score is a client's", async () => {
        await lib.recordScores([tally('t-env', 1, 10, 10, 1, true), tally('t-env', 1, 30, 0)]);
        await lib.recordScores([{ name: 't-env', version: 1, level: 1, n: 5, passed: 5, scoreSum: 5 }]);
        const got = (await lib.scoreTallies()).map(({ updatedAt: _at, ...t }) => t);
        expect(got).toEqual([tally('t-env', 1, 35, 5), tally('t-env', 1, 10, 10, 1, true)]);
        expect(trustedTallies(await lib.scoreTallies()).map((t) => t.passed / t.n)).toEqual([1]);
      });

      it('keeps a window: old counts shrink so the newest scores dominate and counts stay bounded', async () => {
        await lib.recordScores([tally('w-env', 1, SCORE_WINDOW, SCORE_WINDOW)]);
        await lib.recordScores([tally('w-env', 1, SCORE_WINDOW / 2, 0)]);
        const [t] = await lib.scoreTallies();
        expect(t!.n).toBeCloseTo(SCORE_WINDOW);
        expect(t!.passed / t!.n).toBeCloseTo(0.5);
        await lib.recordScores([tally('w-env', 1, 3 * SCORE_WINDOW, 0)]);
        const [u] = await lib.scoreTallies();
        expect(u!.n).toBeCloseTo(SCORE_WINDOW);
        expect(u!.passed).toBeCloseTo(0);
      });

      it('recording scores does not move the change stamp (readers reload the library on it)', async () => {
        await admit(sampleMeta('stamp-scores'));
        const before = await lib.changeStamp();
        await lib.recordScores([tally('stamp-scores', 1, 5, 2)]);
        expect(await lib.changeStamp()).toBe(before);
      });

      it('refuses impossible counts, recording none of the call', async () => {
        for (const bad of [
          [tally('ok-env', 1, 2, 1), tally('bad-env', 1, 2, 3)],
          [tally('', 1, 2, 1)],
          [tally('lvl-env', 0, 2, 1)],
        ]) {
          await expect(lib.recordScores(bad)).rejects.toBeInstanceOf(LibraryError);
        }
        expect(await lib.scoreTallies()).toEqual([]);
      });
    });

    describe('novelty across writers', () => {
      /** An admission whose report carries the real fingerprint of its source (behaviour from its own prompts). */
      const printed = (meta: Meta, variant?: number) => {
        const base = sampleSource(meta);
        const source = variant === undefined ? base : variantSource(base, variant);
        const input = fakeAdmission(source, meta);
        input.report.fingerprint = fingerprint(source, [`add 3 and 4 for ${meta.name}`], ['<answer>7</answer>']);
        return input;
      };

      it(
        'admissions are numbered in commit order: the cursor grows with each one, and ' +
          'admittedSince gives those after it',
        async () => {
          expect(await lib.admissionCursor()).toBe(0);
          expect(await lib.admittedSince(0)).toEqual({ envs: [], cursor: 0 });
          const a = (await admit(sampleMeta('cursor-a'))).env;
          const c1 = await lib.admissionCursor();
          expect(c1).toBeGreaterThan(0);
          const b = (await admit(sampleMeta('cursor-b'))).env;
          await admit(sampleMeta('cursor-a')); // exists: no new admission
          const c2 = await lib.admissionCursor();
          expect(c2).toBeGreaterThan(c1);
          expect(await lib.admittedSince(0)).toEqual({ envs: [a, b], cursor: c2 });
          expect(await lib.admittedSince(c1)).toEqual({ envs: [b], cursor: c2 });
          expect(await lib.admittedSince(c2)).toEqual({ envs: [], cursor: c2 });
          await lib.retire('cursor-a', 'test');
          expect((await lib.admittedSince(0)).envs.map((e) => `${e.name}:${e.status}`)).toEqual([
            'cursor-a:retired',
            'cursor-b:active',
          ]);
        },
      );

      it('with a novelty cursor, a near-duplicate of a later admission is refused, nothing written', async () => {
        const before = await lib.admissionCursor();
        const first = await lib.admit({ ...printed(sampleMeta('twin-one')), noveltyCursor: before });
        expect(first.status).toBe('admitted');
        const twin = printed(sampleMeta('twin-two'));
        const refused = await lib.admit({ ...twin, noveltyCursor: before });
        expect(refused.status).toBe('duplicate');
        expect(refused.env).toBeUndefined();
        if (refused.status !== 'duplicate') return;
        expect(refused.problems.map((p) => [p.code, p.stage])).toContainEqual(['E_DUPLICATE_CODE', 'novelty']);
        expect(refused.problems[0]?.message).toContain('twin-one');
        expect(await lib.get('twin-two')).toBeUndefined();
        expect(await lib.admissionCursor()).toBe((await lib.admittedSince(before)).cursor);
        expect((await lib.integrityCheck()).ok).toBe(true);
        // A writer that had seen twin-one judged against it itself: only later admissions are re-checked.
        expect((await lib.admit({ ...twin, noveltyCursor: await lib.admissionCursor() })).status).toBe('admitted');
      });

      it(
        'a new version of the same name, the same code again, and an admission without a ' +
          'cursor are not duplicates',
        async () => {
          const before = await lib.admissionCursor();
          await lib.admit({ ...printed(sampleMeta('versioned'), 1), noveltyCursor: before });
          expect(
            (await lib.admit({ ...printed(sampleMeta('versioned'), 2), noveltyCursor: before })).env?.version,
          ).toBe(2);
          expect((await lib.admit({ ...printed(sampleMeta('versioned'), 2), noveltyCursor: before })).status).toBe(
            'exists',
          );
          expect((await lib.admit(printed(sampleMeta('uncursored')))).status).toBe('admitted');
        },
      );

      it('concurrent writers with one snapshot admit exactly one of a family of near-duplicates', async () => {
        const writers = [lib, ...(await Promise.all([1, 2, 3].map(() => f.peer())))];
        const before = await lib.admissionCursor();
        const results = await Promise.all(
          writers.map((w, i) => w.admit({ ...printed(sampleMeta(`family-${i}`)), noveltyCursor: before })),
        );
        expect(results.filter((r) => r.status === 'admitted')).toHaveLength(1);
        expect(results.filter((r) => r.status === 'duplicate')).toHaveLength(writers.length - 1);
        expect((await lib.list()).filter((e) => e.name.startsWith('family-'))).toHaveLength(1);
      });
    });

    describe('integrity', () => {
      let envs: Array<{ env: EnvRecord; source: string }>;
      beforeEach(async () => {
        envs = [
          await admit(sampleMeta('check-a'), 1),
          await admit(sampleMeta('check-a'), 2),
          await admit(sampleMeta('check-b')),
        ];
      });

      it('is ok on a clean library (and on an empty one)', async () => {
        expect(await lib.integrityCheck()).toEqual({ ok: true, problems: [], checkedFiles: 3, orphanFiles: [] });
        expect(await (await fresh()).library.integrityCheck()).toEqual({
          ok: true,
          problems: [],
          checkedFiles: 0,
          orphanFiles: [],
        });
        expect(await lib.gc()).toEqual([]);
        for (const { env, source } of envs) expect(await lib.source(env)).toBe(source);
      });

      it('reports a missing module file', async () => {
        await f.modules.remove(envs[1]!.env.hash);
        const report = await lib.integrityCheck();
        expect(report.ok).toBe(false);
        expect(report.problems).toHaveLength(1);
        expect(report.problems[0]).toContain('check-a@2');
        expect(report.orphanFiles).toEqual([]);
      });

      it('reports a modified module file', async () => {
        await f.modules.write(envs[2]!.env.hash, `${envs[2]!.source}\n// edited by hand\n`);
        const report = await lib.integrityCheck();
        expect(report.ok).toBe(false);
        expect(report.problems).toHaveLength(1);
        expect(report.problems[0]).toContain('check-b@1');
      });

      it('reports an orphan file, which gc() removes', async () => {
        const stray = variantSource(sampleSource(sampleMeta('check-c')), 9);
        const orphan = f.modules.name(hashSource(stray));
        await f.modules.write(hashSource(stray), stray);
        const report = await lib.integrityCheck();
        expect(report.ok).toBe(true);
        expect(report.problems).toEqual([]);
        expect(report.orphanFiles).toEqual([orphan]);
        const removed = await lib.gc();
        expect(removed).toEqual([orphan]);
        expect(await f.modules.read(hashSource(stray))).toBeUndefined();
        expect(await lib.integrityCheck()).toEqual({ ok: true, problems: [], checkedFiles: 3, orphanFiles: [] });
        for (const { env, source } of envs) expect(await lib.source(env)).toBe(source);
      });

      it('admitting code whose file a crash left behind adopts the file', async () => {
        const meta = sampleMeta('check-c');
        const source = sampleSource(meta);
        await f.modules.write(hashSource(source), source);
        expect((await lib.integrityCheck()).orphanFiles).toHaveLength(1);
        expect((await lib.admit(fakeAdmission(source, meta))).status).toBe('admitted');
        expect(await lib.integrityCheck()).toEqual({ ok: true, problems: [], checkedFiles: 4, orphanFiles: [] });
        expect(await f.modules.read(hashSource(source))).toBe(source);
      });

      it('admitting code whose file on disk is damaged rewrites the file', async () => {
        const meta = sampleMeta('check-d');
        const source = sampleSource(meta);
        await f.modules.write(hashSource(source), source.slice(0, 20));
        const { env } = await lib.admit(fakeAdmission(source, meta));
        expect(await lib.source(env!)).toBe(source);
        expect((await lib.integrityCheck()).ok).toBe(true);
      });
    });
  });
}

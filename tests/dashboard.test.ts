// The dashboard over HTTP: server-side paging, sorting and search of the library table; an environment's
// detail, samples and page (escaped: LLM-written text never becomes markup); batches with rejections by
// code linked to their meaning and to each kept report; the frontier; local assets; live reload; flags.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSyntheticLibrary, syntheticSource } from '../bench/synthetic-library.js';
import { runCli } from '../cli/program.js';
import { startDashboard, type RunningDashboard } from '../dashboard/server.js';
import { LibraryView } from '../dashboard/view.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';
import { fakeRejection, fakeReport, sampleMeta } from './helpers/library-fixtures.js';

const dir = join(mkdtempSync(join(tmpdir(), 'envforge-dash-')), 'lib');
const HOSTILE = sampleMeta('hostile-text', {
  title: 'A <script>alert(1)</script> title',
  description: '</script><img src=x onerror=alert(2)> & "quotes"',
});
let pool: SandboxPool;
let dash: RunningDashboard;
let library: SqliteLibrary;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const get = async (path: string): Promise<{ status: number; body: any; text: string; headers: Headers }> => {
  const response = await fetch(dash.url + path);
  const text = await response.text();
  return {
    status: response.status,
    text,
    headers: response.headers,
    body: response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null,
  };
};

beforeAll(async () => {
  library = SqliteLibrary.open(dir, { create: true });
  await buildSyntheticLibrary(library, { n: 120 });
  const hostile = syntheticSource(HOSTILE);
  await library.admit({
    source: hostile,
    report: fakeReport(hostile, HOSTILE),
    lineage: { author: 'test', batchId: 'night-1' },
  });
  await library.startBatch('night-1', { target: 2 });
  const rejected = fakeRejection('export const meta = {}; // broken', sampleMeta('broken-env'));
  await library.recordRejection({ ...rejected, lineage: { author: 'test', batchId: 'night-1' } });
  await library.finishBatch('night-1', 'finished', {
    batchId: 'night-1',
    stopReason: 'target',
    funnel: {
      specs: 4,
      specsDropped: 1,
      candidates: 3,
      modulesAsked: 4,
      modulesWritten: 4,
      validations: 4,
      admitted: 1,
      existing: 0,
      extra: 0,
      rejected: 2,
      unwritten: 0,
      serviceFailures: 0,
    },
    firstFailedStage: { static: 1, hack: 1 },
    rejectionsByCode: { E_MISSING_EXPORT: 1, E_ACCEPTS_EMPTY: 2 },
    rejections: [],
    repair: { candidatesRepaired: 2, admittedAfterRepair: 1, successRate: 0.5 },
    cost: {
      totalUsd: 0.12,
      inputTokens: 1000,
      outputTokens: 2000,
      calls: 5,
      cachedCalls: 1,
      perAdmittedUsd: 0.12,
      tokensPerAdmitted: 3000,
      byPurpose: {},
    },
    admitted: [{ name: 'hostile-text', version: 1, attempts: 2 }],
    serviceFailures: [],
    wallMs: 1000,
  });
  pool = new SandboxPool({ workers: 1 });
  dash = await startDashboard({ location: dir, port: 0, pool, reloadIntervalMs: 100 });
});
afterAll(async () => {
  await dash?.close();
  await pool?.close();
  await library?.close();
});

describe('the library table API', () => {
  it('pages on the server: total, last_page, a capped size and a clamped page', async () => {
    const { body } = await get('/api/envs?size=50&page=2');
    expect(body.total).toBe(121);
    expect(body.last_page).toBe(3);
    expect(body.data).toHaveLength(50);
    expect((await get('/api/envs?size=100000')).body.size).toBe(200);
    expect((await get('/api/envs?page=99')).body.page).toBe(3);
    const names = [
      ...(await get('/api/envs?page=1&size=200')).body.data,
      ...(await get('/api/envs?page=2&size=200')).body.data,
    ].map((r: { name: string }) => r.name);
    expect(new Set(names).size).toBe(121);
  });

  it('sorts by any column, both ways, unknown values last', async () => {
    const levels = (await get('/api/envs?sort=levels&dir=desc&size=200')).body.data.map(
      (r: { levels: number }) => r.levels,
    );
    expect(levels).toEqual([...levels].sort((a: number, b: number) => b - a));
    const rates = (await get('/api/envs?sort=passRate&dir=asc&size=200')).body.data.map(
      (r: { passRate: number | null }) => r.passRate,
    );
    const known = rates.filter((r: number | null) => r !== null);
    expect(known).toEqual([...known].sort((a: number, b: number) => a - b));
    expect(rates.slice(known.length).every((r: unknown) => r === null)).toBe(true);
    const names = (await get('/api/envs?dir=desc&size=5')).body.data.map((r: { name: string }) => r.name);
    expect(names).toEqual([...names].sort().reverse());
  });

  it('searches every word in name, title, skills and author, and filters by status and skill', async () => {
    const { body } = await get('/api/envs?q=graph-search%20anthropic&size=200');
    expect(body.total).toBeGreaterThan(0);
    for (const row of body.data)
      expect(row.skills.includes('graph-search') && row.author.startsWith('anthropic')).toBe(true);
    const retired = (await get('/api/envs?status=retired&size=200')).body;
    expect(retired.total).toBe(6);
    expect(
      retired.data.every(
        (r: { status: string; retiredReason: string }) =>
          r.status === 'retired' && r.retiredReason.includes('saturated'),
      ),
    ).toBe(true);
    expect(
      (await get('/api/envs?skill=geometry&size=200')).body.data.every((r: { skills: string[] }) =>
        r.skills.includes('geometry'),
      ),
    ).toBe(true);
    expect((await get('/api/envs?q=no-such-thing-anywhere')).body).toMatchObject({ total: 0, last_page: 1, data: [] });
    expect((await get('/api/envs?q=a&q=b&size=x&sort=nonsense&page=-1')).body).toMatchObject({
      total: 121,
      page: 1,
      size: 50,
    });
  });

  it('a view of 10,000 rows pages and searches in memory', () => {
    const records = Array.from({ length: 10_000 }, (_, i) => ({
      name: `env-${i}`,
      version: 1,
      meta: { ...sampleMeta(`env-${i}`), skills: [i % 2 ? 'odd' : 'even'] },
      status: 'active',
      retiredReason: null,
      createdAt: '2026-01-01',
      lineage: { author: 'x' },
      curve: [],
    })) as never[];
    const view = new LibraryView(records);
    expect(view.query({ q: 'odd', size: 10 }).total).toBe(5_000);
    expect(view.query({ sort: 'name', dir: 'desc', size: 1 }).data[0]!.name).toBe('env-9999');
  });
});

describe('an environment', () => {
  it('gives versions, lineage, report and per-level rates; unknown names are 404', async () => {
    const name = (await get('/api/envs?q=synthetic&size=1&sort=versions&dir=desc')).body.data[0].name;
    const { body } = await get(`/api/envs/${name}`);
    expect(body.versions.map((v: { version: number }) => v.version)).toEqual([1, 2]);
    expect(body.env.report.stages.map((s: { stage: string }) => s.stage)).toContain('hack');
    expect(body.rates).toHaveLength(body.env.meta.levels);
    expect((await get(`/api/envs/${name}?version=1`)).body.env.version).toBe(1);
    expect((await get('/api/envs/no-such-env')).status).toBe(404);
  });

  it('samples instances of a level in the sandbox, with the reference', async () => {
    const { status, body } = await get('/api/envs/hostile-text/samples?level=2&n=2');
    expect(status).toBe(200);
    expect(body.kind).toBe('single-turn');
    expect(body.samples).toHaveLength(2);
    expect(body.samples[0]).toMatchObject({ seed: 0, level: 2, referenceScore: 1 });
    expect(body.samples[0].prompt).toMatch(/What is \d+ \+ 1/);
    expect(body.samples[0].reference).toMatch(/<answer>\d+<\/answer>/);
    expect((await get('/api/envs/hostile-text/samples?level=9')).status).toBe(400);
  });

  it('renders its page with every library value escaped, under a script policy', async () => {
    const page = await get('/envs/hostile-text');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.text).not.toContain('<script>alert(1)');
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain('A &lt;script&gt;alert(1)&lt;/script&gt; title');
    const island = page.text.match(/<script type="application\/json" id="page-data">([^<]*)<\/script>/);
    expect(JSON.parse(island![1]!).name).toBe('hostile-text');
    expect(page.text.match(/<script(?![^>]*(src="\/assets\/|type="application\/json"))/g)).toBeNull();
    expect((await get('/envs/nope')).status).toBe(404);
  });
});

describe('batches and the frontier', () => {
  it('shows a batch: funnel, codes linked to their meaning, repair, cost, and each kept rejection', async () => {
    const { body } = await get('/api/batches/night-1');
    expect(body.codes[0]).toEqual({ code: 'E_ACCEPTS_EMPTY', count: 2, meaning: expect.stringContaining('empty') });
    expect(body.rejected).toHaveLength(1);
    const page = await get('/batches/night-1');
    expect(page.text).toContain('href="/codes#E_ACCEPTS_EMPTY"');
    expect(page.text).toContain('1 of 2 repaired candidates admitted (50%)');
    expect(page.text).toContain('$0.1200');
    const report = page.text.match(/href="(\/rejections\/[0-9a-f]{64})"/);
    const rejection = await get(report![1]!);
    expect(rejection.status).toBe(200);
    expect(rejection.text).toContain('E_MISSING_EXPORT');
    expect((await get('/codes')).text).toContain('id="E_ACCEPTS_EMPTY"');
    expect((await get('/batches')).text).toContain('night-1');
  });

  it('shows the frontier from the recorded trainer scores', async () => {
    const { body } = await get('/api/frontier');
    expect(body.feedback.source).toBe('scores');
    expect(body.feedback.summary.skills.length).toBeGreaterThan(0);
    expect((await get('/frontier')).text).toContain('Weak (the frontier)');
  });

  it('serves the chart and table libraries itself', async () => {
    for (const file of ['chart.umd.min.js', 'tabulator.min.js', 'tabulator.min.css', 'app.js', 'env.js', 'app.css']) {
      const asset = await get(`/assets/${file}`);
      expect(asset.status, file).toBe(200);
      expect(asset.text.length, file).toBeGreaterThan(1000);
    }
    expect((await get('/assets/../package.json')).status).toBe(404);
  });

  it('picks up new admissions without a restart', async () => {
    const meta = sampleMeta('late-arrival');
    const source = syntheticSource(meta);
    await library.admit({ source, report: fakeReport(source, meta), lineage: { author: 'test' } });
    let found = 0;
    for (let i = 0; i < 100 && found === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      found = (await get('/api/envs?q=late-arrival')).body.total;
    }
    expect(found).toBe(1);
  });

  it(
    "shows the operator's trainer scores recorded while it runs (they do not move the change " +
      "stamp), never a client's",
    async () => {
      const name = (await get('/api/envs?q=late-arrival')).body.data[0].name;
      // A client's (untrusted) perfect scores are no pass rate: only the operator's (trusted) are shown.
      await library.recordScores([
        { name, version: 1, level: 1, n: 90, passed: 90, scoreSum: 90 },
        { name, version: 1, level: 1, n: 10, passed: 7, scoreSum: 7, trusted: true },
      ]);
      let rate: number | null = null;
      for (let i = 0; i < 100 && rate === null; i++) {
        await new Promise((r) => setTimeout(r, 100));
        rate = (await get('/api/envs?q=late-arrival')).body.data[0].passRate;
      }
      expect(rate).toBeCloseTo(0.7);
      expect((await get(`/api/envs/${name}`)).body.rates[0]).toMatchObject({
        level: 1,
        trainer: 0.7,
        trainerScores: 10,
      });
    },
  );
});

describe('envforge dashboard flags', () => {
  const io = () => ({
    lines: [] as string[],
    out(l: string) {
      this.lines.push(l);
    },
    err(l: string) {
      this.lines.push(l);
    },
  });
  it.each([
    [['dashboard', '--library', dir, '--database', 'postgres://x/y'], 'not both'],
    [['dashboard', '--database', 'just-a-name'], 'must be a URL'],
    [['dashboard', '--library', dir, '--feedback', '/no/such/file.csv'], 'no such file'],
    [['dashboard', '--port', '99999'], '--port'],
  ])('%j is a usage error (exit 2)', async (argv, message) => {
    const out = io();
    expect(await runCli(argv, out)).toBe(2);
    expect(out.lines.join('\n')).toContain(message);
  });
});

// The library's commands through the real binary: init admits the validated seeds, list/show/stats/check
// read it, retire and revalidate change status with a reason, and validate checks novelty against it.
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashSource } from '../contract/hash.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import type { ValidationReport } from '../validators/report.js';
import { MAIN, runEnvforge } from './helpers/cli.js';
import { envSource } from './helpers/env-source.js';
import { fakeAdmission } from './helpers/library-fixtures.js';
import { seededLibraryCopy } from './helpers/seeded-library.js';

const run = runEnvforge;
const json = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const dir = join(mkdtempSync(join(tmpdir(), 'envforge-lib-')), 'library');

beforeAll(async () => {
  // Made once per test run (tests/helpers/seeded-library.ts), this file works on a copy: `envforge library init --kind
  // single --json` on a fresh folder, then `envforge library init --json` on a copy of it, which admits the seeds of
  // the other kinds and finds the single-turn ones there.
  const { init, base } = await seededLibraryCopy('all', dir);
  expect(base?.code).toBe(0);
  const [fresh] = json(base?.stdout ?? '');
  expect(fresh.created).toBe(true);
  expect(fresh.seeds.map((s: { status: string }) => s.status)).toEqual(fresh.seeds.map(() => 'admitted'));
  expect(init.code).toBe(0);
  const [result] = json(init.stdout);
  expect(result.created).toBe(false);
  const status = (name: string) => result.seeds.find((s: { name: string }) => s.name === name)?.status;
  expect(fresh.seeds.map((s: { name: string }) => status(s.name))).toEqual(fresh.seeds.map(() => 'exists'));
  expect(result.seeds.length).toBeGreaterThan(fresh.seeds.length);
  expect(result.seeds.slice(fresh.seeds.length).every((s: { status: string }) => s.status === 'admitted')).toBe(true);
}, 600_000); // both kinds of seeds: the episodic ones take about a minute of CPU to validate, minutes under load

describe('envforge library', () => {
  it('init is idempotent: re-running admits nothing new', async () => {
    const [result] = json((await run('library', 'init', '--library', dir, '--json')).stdout);
    expect(result.created).toBe(false);
    expect(new Set(result.seeds.map((s: { status: string }) => s.status))).toEqual(new Set(['exists']));
  });

  it('lists, shows and counts the seeds', async () => {
    const list = json((await run('library', 'list', '--library', dir, '--json')).stdout);
    expect(list.length).toBeGreaterThanOrEqual(12);
    expect(list[0]).toMatchObject({ version: 1, status: 'active', author: 'seed' });
    const shown = json((await run('library', 'show', 'planted-sat@1', '--library', dir, '--json')).stdout)[0];
    expect(shown).toMatchObject({ name: 'planted-sat', version: 1, lineage: { author: 'seed' } });
    expect(shown.curve).toHaveLength(10);
    const source = (await run('library', 'show', 'planted-sat', '--source', '--library', dir)).stdout;
    expect(hashSource(source.replace(/\n$/, ''))).toBe(shown.hash);
    const stats = json((await run('library', 'stats', '--library', dir, '--json')).stdout)[0];
    expect(stats).toMatchObject({
      environments: list.length,
      byAuthor: { seed: list.length },
      byKind: { single: 12, episodic: 8 },
      levels: { min: expect.any(Number), max: 10 },
    });
    expect((await run('library', 'check', '--library', dir)).stdout).toMatch(
      /^ok: \d+ module files match their hashes/,
    );
  });

  it('validate checks novelty on the library: a renamed copy is a duplicate, an admitted one is itself', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'envforge-copy-'));
    const copy = join(tmp, 'copy.js');
    writeFileSync(
      copy,
      readFileSync('seeds/job-scheduling.js', 'utf8').replace("name: 'job-scheduling'", "name: 'task-picking'"),
    );
    const [rejected] = json((await run('validate', copy, '--json', '--library', dir)).stdout);
    expect(rejected.problems.map((p: { code: string }) => p.code)).toContain('E_DUPLICATE_CODE');
    const [same] = json((await run('validate', 'seeds/job-scheduling.js', '--json', '--library', dir)).stdout);
    expect(same.verdict).toBe('admit');
  });

  it('revalidate retires what the validator now rejects, with the reason', async () => {
    // Plant an environment whose verifier pays for anything, admitted under a forged report.
    const source = envSource({
      meta:
        "{ name: 'forged-admission', title: 'F', description: 'Admitted without a real validation.', skills: " +
        "['testing'], levels: 3 }",
      verify: 'return 1;',
    });
    const seedReport = json((await run('library', 'show', 'expression-eval', '--library', dir, '--json')).stdout)[0]
      .report as ValidationReport;
    const library = SqliteLibrary.open(dir);
    await library.admit({
      source,
      report: {
        ...seedReport,
        fingerprint: null,
        hash: hashSource(source),
        name: 'forged-admission',
        meta: { name: 'forged-admission', title: 'F', description: 'x', skills: ['testing'], levels: 3 },
      },
      lineage: { author: 'test' },
    });
    await library.close();
    const outcomes = json(
      (await run('library', 'revalidate', 'forged-admission', 'expression-eval', '--library', dir, '--json')).stdout,
    );
    expect(outcomes.map((o: { name: string; retired: boolean }) => [o.name, o.retired])).toEqual([
      ['expression-eval', false],
      ['forged-admission', true],
    ]);
    const shown = json((await run('library', 'show', 'forged-admission', '--library', dir, '--json')).stdout)[0];
    expect(shown.status).toBe('retired');
    expect(shown.retiredReason).toMatch(/revalidation .* rejected it: .*E_ACCEPTS_EMPTY/);
  });

  it('retire needs a reason and names unknown environments', async () => {
    expect(await run('library', 'retire', 'knapsack-value', '--library', dir)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--reason/),
    });
    expect(await run('library', 'retire', 'no-such-env', '--reason', 'x', '--library', dir)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/unknown environment "no-such-env"/),
    });
    expect((await run('library', 'retire', '--help')).stdout).toMatch(/--reason <text> .*\(required\)/);
    const [result] = json(
      (
        await run(
          'library',
          'retire',
          'knapsack-value@1',
          '--reason',
          'replaced by a harder variant',
          '--library',
          dir,
          '--json',
        )
      ).stdout,
    );
    expect(result.retired).toEqual([
      expect.objectContaining({ name: 'knapsack-value', version: 1, retiredReason: 'replaced by a harder variant' }),
    ]);
    const retired = json((await run('library', 'list', '--status', 'retired', '--library', dir, '--json')).stdout).map(
      (e: { name: string }) => e.name,
    );
    expect(retired).toContain('knapsack-value');
  });

  it('usage errors exit 2: show and revalidate of an unknown environment or version', async () => {
    expect(await run('library', 'show', 'nope', '--library', dir)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/unknown environment "nope"/),
    });
    expect(await run('library', 'show', 'planted-sat@7', '--library', dir)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/planted-sat has versions 1-1/),
    });
    expect(await run('library', 'revalidate', 'nope', '--library', dir)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/"nope" is not an active environment/),
    });
  });

  it("init admits both kinds of seeds; list shows each environment's kind, filters by it (text, --json)", async () => {
    const all = json((await run('library', 'list', '--library', dir, '--json')).stdout);
    expect(all.filter((e: { kind: string }) => e.kind === 'episodic').map((e: { name: string }) => e.name)).toContain(
      'warehouse-restock',
    );
    expect(new Set(all.map((e: { kind: string }) => e.kind))).toEqual(new Set(['single', 'episodic']));
    const episodic = json((await run('library', 'list', '--kind', 'episodic', '--library', dir, '--json')).stdout);
    expect(episodic).toHaveLength(8);
    const text = (await run('library', 'list', '--kind', 'single', '--library', dir)).stdout;
    expect(text).toMatch(/^topological-order@1 +single +/m);
    expect(text).not.toMatch(/episodic/);
    expect(text).toContain(`\n${text.split('\n').filter((l) => / single /.test(l)).length} environments`);
    expect(await run('library', 'list', '--kind', 'multi', '--library', dir)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--kind.*single, episodic/),
    });
    const out = mkdtempSync(join(tmpdir(), 'envforge-export-'));
    const exported = await run(
      'export',
      '--format',
      'jsonl',
      '--kind',
      'episodic',
      '--per-env',
      '1',
      '--out',
      out,
      '--library',
      dir,
      '--json',
    );
    expect(exported.code, exported.stderr).toBe(0);
    expect(
      json(exported.stdout)[0]
        .envs.map((e: { name: string }) => e.name)
        .sort(),
    ).toEqual(episodic.map((e: { name: string }) => e.name).sort());
  });

  it('stats counts skills, authors and kinds the same way: each active environment once, any versions', async () => {
    const copy = join(mkdtempSync(join(tmpdir(), 'envforge-lib-')), 'library');
    cpSync(dir, copy, { recursive: true });
    const before = json((await run('library', 'stats', '--library', copy, '--json')).stdout)[0];
    const library = SqliteLibrary.open(copy);
    const old = (await library.get('planted-sat')) as NonNullable<Awaited<ReturnType<typeof library.get>>>;
    await library.admit(fakeAdmission(`${await library.source(old)}\n// a second version`, old.meta, 'hand'));
    await library.close();
    const after = json((await run('library', 'stats', '--library', copy, '--json')).stdout)[0];
    expect(after.versions).toBe(before.versions + 1);
    expect([after.environments, after.byKind, after.bySkill]).toEqual([
      before.environments,
      before.byKind,
      before.bySkill,
    ]);
    expect(after.byAuthor).toEqual({ ...before.byAuthor, seed: before.byAuthor.seed - 1, hand: 1 });
  });

  it(
    'a damaged index page: list, show and stats name the file and `library check` (no stack trace); check ' +
      'reports it and gc removes nothing',
    async () => {
      const copy = join(mkdtempSync(join(tmpdir(), 'envforge-lib-')), 'library');
      cpSync(dir, copy, { recursive: true });
      const index = join(copy, 'library.sqlite');
      const bytes = readFileSync(index);
      for (let page = 3; page * 4096 < bytes.length; page += 3) bytes.fill(0xa5, page * 4096, (page + 1) * 4096);
      writeFileSync(index, bytes);
      for (const args of [['list'], ['show', 'planted-sat'], ['stats']]) {
        const result = await run('library', ...args, '--library', copy);
        expect(result.code, args.join(' ')).toBe(1);
        expect(result.stderr).toContain(`the library index ${index} is damaged`);
        expect(result.stderr).toContain(`envforge library check --library ${copy}`);
        expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
      }
      const check = await run('library', 'check', '--library', copy);
      expect(check.code).toBe(1);
      expect(check.stdout).toMatch(/damaged:\n {2}\S*library\.sqlite: /);
      expect(check.stdout).not.toMatch(/orphan/);
      const files = readdirSync(join(copy, 'envs')).length;
      expect((await run('library', 'check', '--gc', '--library', copy)).code).toBe(1);
      expect(readdirSync(join(copy, 'envs'))).toHaveLength(files);
    },
  );

  it('refuses a missing or corrupt library with a clear message and a non-zero exit', async () => {
    expect(await run('library', 'list', '--library', join(dir, 'nope'))).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/no library at .*envforge library init/),
    });
    const bad = mkdtempSync(join(tmpdir(), 'envforge-bad-'));
    writeFileSync(join(bad, 'library.sqlite'), 'this is not a database'.repeat(100));
    expect(await run('library', 'stats', '--library', bad)).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/not an envforge library index/),
    });
    expect(await run('library', 'list', '--status', 'gone', '--library', dir)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--status must be/),
    });
  });
});

describe('hand-written environments: library add, rejections, sample by name', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'envforge-add-'));
  const good = join(tmp, 'roman.js');
  const bad = join(tmp, 'echo.js');
  writeFileSync(good, readFileSync('tests/fixtures/candidates/good-roman-sum.js', 'utf8'));
  writeFileSync(bad, readFileSync('tests/fixtures/candidates/broken-accepts-echo.js', 'utf8'));

  it('validate says a passing file would be admitted, and admits nothing', async () => {
    const result = await run('validate', good, '--library', dir);
    expect(result).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(
        new RegExp(
          String.raw`^✓ would be admitted {2}\S+roman\.js[\s\S]*\nvalidate admits nothing: envforge library add ` +
            String.raw`FILE\.\.\. validates and admits\n$`,
        ),
      ),
    });
    expect((await run('library', 'show', 'roman-numeral-sum', '--library', dir)).code).toBe(2);
  });

  it(
    'add admits a good file with author "hand" and its validation as lineage, and keeps ' + 'a bad one as a rejection',
    async () => {
      const missing = await run('library', 'add', good, join(tmp, 'missing.js'), '--library', dir);
      expect(missing).toMatchObject({ code: 2, stderr: expect.stringMatching(/no such file/) });
      const result = await run('library', 'add', good, bad, '--library', dir, '--json');
      expect(result.code).toBe(1);
      const [admitted, rejected] = json(result.stdout);
      expect(admitted).toMatchObject({
        file: good,
        verdict: 'admit',
        admitted: { status: 'admitted', name: 'roman-numeral-sum', version: 1 },
      });
      expect(rejected).toMatchObject({ file: bad, verdict: 'reject', admitted: null });
      expect(rejected.problems[0]).toMatchObject({ code: 'E_ACCEPTS_ECHO', evidence: expect.any(Object) });
      const shown = json((await run('library', 'show', 'roman-numeral-sum', '--library', dir, '--json')).stdout)[0];
      expect(shown.lineage).toMatchObject({
        author: 'hand',
        notes: { file: 'roman.js', validation: { verdict: 'admit', stages: { static: 'passed', hack: 'passed' } } },
      });
      expect(shown.report.verdict).toBe('admit');
      expect((await run('library', 'add', good, '--library', dir)).stdout).toMatch(
        /already in the library as roman-numeral-sum@1/,
      );
    },
  );

  it('rejections lists kept rejections with their first problem, by batch and by code', async () => {
    const library = SqliteLibrary.open(dir);
    await library.startBatch('batch-listed', {});
    const report = {
      ...(json((await run('library', 'show', 'expression-eval', '--library', dir, '--json')).stdout)[0]
        .report as ValidationReport),
      verdict: 'reject' as const,
    };
    report.problems = [
      {
        code: 'E_SEED_IGNORED',
        stage: 'diversity',
        message: 'seeds 0 and 1 give the same prompt (planted for this test)',
      },
    ];
    await library.recordRejection({
      source: 'export const meta = {};',
      report,
      lineage: {
        author: 'openai:m',
        batchId: 'batch-listed',
        spec: { name: 'same-prompt-spec' },
        parent: 'same-prompt-spec#0',
      },
    });
    await library.close();
    const text = await run('library', 'rejections', '--library', dir);
    expect(text.stdout).toMatch(
      /same-prompt-spec \(repair of same-prompt-spec#0\)\n {2}E_SEED_IGNORED \[diversity\] seeds 0 and 1/,
    );
    expect(text.stdout).toMatch(/courier-route-end\n {2}E_ACCEPTS_ECHO \[hack\]/);
    const byBatch = json(
      (await run('library', 'rejections', '--batch', 'batch-listed', '--json', '--library', dir)).stdout,
    );
    expect(byBatch).toEqual([
      expect.objectContaining({
        candidate: 'same-prompt-spec (repair of same-prompt-spec#0)',
        batchId: 'batch-listed',
        firstProblem: expect.objectContaining({ code: 'E_SEED_IGNORED' }),
      }),
    ]);
    const byCode = json(
      (await run('library', 'rejections', '--code', 'E_ACCEPTS_ECHO', '--json', '--library', dir)).stdout,
    );
    expect(byCode.map((r: { author: string }) => r.author)).toEqual(['hand']);
    expect(await run('library', 'rejections', '--batch', 'no-such-batch', '--library', dir)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/no batch "no-such-batch"/),
    });
    expect(await run('library', 'rejections', '--code', 'E_NOPE', '--library', dir)).toMatchObject({ code: 2 });
  });

  it('sample resolves library names like library show: NAME and NAME@VERSION', async () => {
    const byName = json((await run('sample', 'roman-numeral-sum', '--library', dir, '--json', '--reveal')).stdout)[0];
    expect(byName).toMatchObject({ env: 'roman-numeral-sum', referenceScore: 1 });
    expect(json((await run('sample', 'roman-numeral-sum@1', '--library', dir, '--json')).stdout)[0].prompt).toBe(
      byName.prompt,
    );
    expect(await run('sample', 'roman-numeral-sum@2', '--library', dir)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/roman-numeral-sum has versions 1-1/),
    });
    expect(await run('sample', 'roman-numeral-sum', '--library', join(tmp, 'no-library'))).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/unknown environment "roman-numeral-sum"/),
    });
  });
});

describe('a library in a folder the user cannot write to', () => {
  // Permissions do not bind root, so the commands run as an unprivileged user (setpriv, as root only).
  const canDropPrivileges = process.getuid?.() === 0 && existsSync('/usr/bin/setpriv');
  it.skipIf(!canDropPrivileges)('can be read but not changed, with a clear message', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'envforge-ro-'));
    const ro = join(parent, 'library');
    // `library init --kind single`, once per test run
    expect((await seededLibraryCopy('single', ro)).init.code).toBe(0);
    chmodSync(parent, 0o755);
    for (const f of readdirSync(ro)) chmodSync(join(ro, f), 0o755);
    for (const f of readdirSync(join(ro, 'envs'))) chmodSync(join(ro, 'envs', f), 0o644);
    chmodSync(join(ro, 'library.sqlite'), 0o644);
    chmodSync(ro, 0o555);
    const asNobody = async (...args: string[]) => {
      try {
        const { stdout, stderr } = await promisify(execFile)('/usr/bin/setpriv', [
          '--reuid=65534',
          '--regid=65534',
          '--clear-groups',
          process.execPath,
          MAIN,
          ...args,
        ]);
        return { code: 0, stdout, stderr };
      } catch (error) {
        const e = error as { code: number; stdout: string; stderr: string };
        return { code: e.code, stdout: e.stdout, stderr: e.stderr };
      }
    };
    const list = await asNobody('library', 'list', '--library', ro);
    expect(list).toMatchObject({ code: 0, stdout: expect.stringMatching(/\d+ environments/) });
    const retire = await asNobody('library', 'retire', 'knapsack-value', '--reason', 'x', '--library', ro);
    expect(retire.code).toBe(1);
    expect(retire.stderr).toMatch(/cannot open the library .*check that the path is a folder you may write to/);
  });
});

// `envforge nightly`: two nights on one library with a feedback file in between (the second revalidates
// what an older validator admitted, retires the saturated environment but keeps it, aims the batch at the
// weak skill, writes a new snapshot), and a night killed mid-batch that, run again, finishes without
// repeating finished steps or admitted work.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/program.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import type { NightReport } from '../nightly/report.js';
import { envSource } from './helpers/env-source.js';
import { fakeAdmission, sampleMeta } from './helpers/library-fixtures.js';
import { MAIN } from './helpers/cli.js';

/**
 * A library with environments admitted by an older validator (fake reports say validator 'test'), each an
 * honest product task the current validator readmits ("a + 1" would be a leak: a fixed rule of the prompt).
 */
async function libraryWith(dir: string, names: string[]): Promise<void> {
  const library = SqliteLibrary.open(dir, { create: true });
  try {
    for (const name of names) {
      const meta = sampleMeta(name, { levels: 4 });
      const generate =
        "const a = rng.int(2, 30 * level), b = rng.int(2, 30 * level); return { prompt: 'What is ' + a + ' " +
        "times ' + b + '? Answer as <answer>N</answer>.', answer: a * b };";
      await library.admit(fakeAdmission(envSource({ meta: JSON.stringify(meta), generate }), meta));
    }
  } finally {
    await library.close();
  }
}

async function night(args: string[]): Promise<{ code: number; report: NightReport; log: string }> {
  const lines: string[] = [];
  const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
  const code = await runCli(['nightly', '--json', ...args], io);
  const json = lines.find((l) => l.startsWith('{"night"'));
  return { code, report: json ? (JSON.parse(json) as NightReport) : (null as never), log: lines.join('\n') };
}

describe('envforge nightly', () => {
  it('two nights: revalidates, retires the saturated (kept as retired), aims at the weak ' +
    'skill, writes a new snapshot', {
    timeout: 300_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'envforge-nightly-'));
    const dir = join(root, 'lib');
    await libraryWith(dir, ['old-sum', 'easy-sum']);
    const config = join(root, 'nightly.json');
    writeFileSync(
      config,
      JSON.stringify({
        target: 1,
        concurrency: 1,
        seed: 11,
        export: { out: join(root, 'snapshots'), formats: ['jsonl'], perEnv: 2 },
      }),
    );

    const first = await night(['--config', config, '--library', dir, '--night', '2026-11-21']);
    expect(first.code, first.log).toBe(0);
    expect(first.report.steps.revalidate!.outcomes.map((o) => o.name).sort()).toEqual(['easy-sum', 'old-sum']);
    expect(first.report.steps.retire!.source).toBe('none');
    expect(first.report.steps.batch!.admitted).toBe(1);
    expect(existsSync(join(root, 'snapshots', '2026-11-21', 'jsonl', 'envforge-export.json'))).toBe(true);

    // Between the nights: a trainer evaluation, and one more environment from an older validator.
    await libraryWith(dir, ['late-sum']);
    const feedback = join(root, 'evals.jsonl');
    writeFileSync(
      feedback,
      [
        { env: 'easy-sum', pass_rate: 0.97, n: 200 },
        { skill: 'program-tracing', pass_rate: 0.2, n: 300 },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );

    const second = await night(['--config', config, '--library', dir, '--night', '2026-11-22', '--feedback', feedback]);
    expect(second.code, second.log).toBe(0);
    const s = second.report.steps;
    expect(s.revalidate!.outcomes.map((o) => o.name)).toContain('late-sum');
    expect(s.retire!.retired.map((e) => e.name)).toEqual(['easy-sum']);
    expect(s.batch!.weakSkills).toEqual(['program-tracing']);
    expect(s.batch!.admitted).toBe(1);
    const library = SqliteLibrary.open(dir, { readonly: true });
    try {
      const retired = await library.get('easy-sum');
      expect(retired?.status).toBe('retired');
      expect(retired?.retiredReason).toContain('saturated');
      const admitted = (await library.list()).filter((e) => e.lineage.batchId === 'nightly-2026-11-22');
      expect(admitted).toHaveLength(1);
      expect(admitted[0]!.meta.skills).toContain('program-tracing');
    } finally {
      await library.close();
    }
    const manifest = JSON.parse(
      readFileSync(join(root, 'snapshots', '2026-11-22', 'jsonl', 'envforge-export.json'), 'utf8'),
    );
    expect(manifest.envs.map((e: { name: string }) => e.name)).not.toContain('easy-sum');
    expect(readFileSync(join(dir, 'nightly', '2026-11-22.md'), 'utf8')).toContain('easy-sum: 97% of 200 attempts');
  });

  it('killed mid-batch and run again, finishes the night without redoing finished steps or admitted work', {
    timeout: 300_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'envforge-nightly-kill-'));
    const dir = join(root, 'lib');
    await libraryWith(dir, ['old-sum']);
    const config = join(root, 'nightly.json');
    writeFileSync(
      config,
      JSON.stringify({
        target: 3,
        concurrency: 1,
        seed: 4,
        export: { out: join(root, 'snapshots'), formats: ['jsonl'], perEnv: 2 },
      }),
    );
    const args = ['nightly', '--config', config, '--library', dir, '--night', 'kill-me'];

    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const ended = new Promise<void>((resolve) => child.on('close', () => resolve()));
    const admittedByBatch = async () => {
      const library = SqliteLibrary.open(dir, { readonly: true });
      try {
        return (await library.list()).filter((e) => e.lineage.batchId === 'nightly-kill-me').map((e) => e.name);
      } finally {
        await library.close();
      }
    };
    let before: string[] = [];
    for (let i = 0; i < 600 && before.length === 0 && child.exitCode === null; i++) {
      await new Promise((r) => setTimeout(r, 200));
      if (stderr.includes('batch …')) before = await admittedByBatch().catch(() => []);
    }
    child.kill('SIGKILL');
    await ended;
    expect(before.length, stderr).toBeGreaterThanOrEqual(1);

    const again = await night(['--config', config, '--library', dir, '--night', 'kill-me']);
    expect(again.code, again.log).toBe(0);
    expect(again.log).toContain('revalidate: done in an earlier run, skipped');
    expect(again.report.finishedAt).not.toBeNull();
    const after = await admittedByBatch();
    expect(after).toHaveLength(3);
    expect(new Set(after).size).toBe(3);
    for (const name of before) expect(after).toContain(name);
    expect(again.report.steps.export!.snapshots[0]!.rows).toBeGreaterThan(0);
  });

  it("keeps its snapshots beside the library (not in the current folder), honours the config's kind, and prints " +
    'its report when a step fails', {
    timeout: 300_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'envforge-nightly-'));
    const dir = join(root, 'lib');
    await libraryWith(dir, ['old-sum']);
    const config = join(root, 'nightly.json');
    writeFileSync(
      config,
      JSON.stringify({
        kind: 'single',
        target: 1,
        concurrency: 1,
        seed: 5,
        export: { formats: ['jsonl'], perEnv: 2, kind: 'single' },
      }),
    );
    // (No chdir: the sandbox workers of a test run load tsx from the current folder.)
    {
      const ok = await night(['--config', config, '--library', dir, '--night', 'beside']);
      expect(ok.code, ok.log).toBe(0);
      expect(ok.report.steps.export!.snapshots[0]!.out).toBe(join(dir, 'snapshots', 'beside', 'jsonl'));
      expect(existsSync(join(dir, 'snapshots', 'beside', 'jsonl', 'envforge-export.json'))).toBe(true);
      expect(existsSync(join(process.cwd(), 'snapshots', 'beside'))).toBe(false);
      const batch = SqliteLibrary.open(dir, { readonly: true });
      expect((await batch.getBatch('nightly-beside'))?.options).toMatchObject({ kind: 'single' });
      await batch.close();

      // A snapshot folder that cannot be made (a file is in the way): the export step fails, and the report says so.
      writeFileSync(join(root, 'blocker'), 'a file, not a folder');
      writeFileSync(
        config,
        JSON.stringify({
          kind: 'single',
          target: 1,
          concurrency: 1,
          seed: 6,
          export: { out: join(root, 'blocker'), formats: ['jsonl'], perEnv: 2 },
        }),
      );
      const failed = await night(['--config', config, '--library', dir, '--night', 'fails']);
      expect(failed.code).not.toBe(0);
      expect(failed.report.failed).toMatchObject({ step: 'export' });
      expect(failed.report.steps.batch?.admitted).toBe(1);
      expect(readFileSync(join(dir, 'nightly', 'fails.md'), 'utf8')).toMatch(/\*\*FAILED\*\* in the export step: /);
    }
  });
});

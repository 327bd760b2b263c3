// The envforge command line, through its real entry point (dist/cli/main.js, built by `npm test`):
// help, sample, validate's fixed --json interface and exit codes, and clear usage errors.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../cli/program.js';
import { runEnvforge } from './helpers/cli.js';
import { envSource } from './helpers/env-source.js';

const run = runEnvforge;
const dir = mkdtempSync(join(tmpdir(), 'envforge-cli-'));
const file = (name: string, source: string) => {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
};

/** Every command and subcommand the program defines, as "name" or "parent name", with its description. */
const COMMANDS = await (async () => {
  const program = await buildProgram({ out: () => {}, err: () => {} });
  const walk = (command: Command, prefix: string[]): Array<{ path: string[]; description: string }> =>
    command.commands.flatMap((c) => [
      { path: [...prefix, c.name()], description: c.description() },
      ...walk(c, [...prefix, c.name()]),
    ]);
  return walk(program, []);
})();

/** Help text with commander's wrapping undone, so a description reads as one line. */
const unwrapped = (help: string) => help.replace(/\n {20,}/g, ' ').replace(/ +/g, ' ');

describe('envforge --help', () => {
  it("finds the program's commands (sample, validate, library and its subcommands, export, serve, run)", () => {
    const names = COMMANDS.map((c) => c.path.join(' '));
    for (const name of [
      'sample',
      'validate',
      'library',
      'library init',
      'library add',
      'library rejections',
      'export',
      'serve',
      'run',
    ])
      expect(names).toContain(name);
  });

  it('lists every command with its description and exits 0; library --help lists every subcommand', async () => {
    for (const parent of [[], ['library']]) {
      const { code, stdout } = await run(...parent, '--help');
      expect(code).toBe(0);
      const help = unwrapped(stdout);
      const children = COMMANDS.filter(
        (c) => c.path.length === parent.length + 1 && parent.every((p, i) => c.path[i] === p),
      );
      expect(children.length).toBeGreaterThan(parent.length === 0 ? 5 : 7);
      for (const child of children) {
        const name = child.path.at(-1) as string;
        expect(stdout, `${[...parent, '--help'].join(' ')} lists ${name}`).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
        expect(help, `${name}'s description`).toContain(child.description.replace(/ +/g, ' '));
      }
    }
  });

  it.each(COMMANDS.map((c) => c.path.join(' ')))('%s --help ends with one newline', async (command) => {
    const { code, stdout } = await run(...command.split(' '), '--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(/\S\n$/);
  });

  it('rejects an unknown flag with exit 2 and says which', async () => {
    const { code, stderr } = await run('sample', 'topological-order', '--bogus');
    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown option '--bogus'/);
  });
});

describe('envforge sample', () => {
  it('prints a seed instance, and with --reveal --json the hidden fields and a reference that scores 1', async () => {
    const text = await run('sample', 'topological-order', '--level', '3', '--seed', '5');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/topological-order {2}seed=5 {2}level=3/);
    const json = await run('sample', 'expression-eval', '-n', '3', '--reveal', '--json');
    const lines = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    expect(lines.map((l) => l.seed)).toEqual([0, 1, 2]);
    for (const l of lines)
      expect(l).toMatchObject({ env: 'expression-eval', level: 1, referenceScore: 1, hidden: expect.any(Object) });
  });

  it('explains an unknown environment, a bad level and a broken module', async () => {
    expect(await run('sample', 'no-such-env')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/unknown environment "no-such-env"/),
    });
    expect(await run('sample', 'topological-order', '--level', '0')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--level needs an integer/),
    });
    expect(await run('sample', 'topological-order', '--level', '11')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/past the environment's 10 levels/),
    });
    const broken = file('broken.js', 'export const meta = {;');
    expect(await run('sample', broken)).toMatchObject({ code: 1, stderr: expect.stringMatching(/E_SYNTAX/) });
  });
});

describe('envforge validate', () => {
  it('prints one JSON line per file with the fixed fields, exit 1 when any is rejected', async () => {
    const good = file(
      'good.js',
      envSource({
        meta:
          "{ name: 'sum-of-many', title: 'Sum', description: 'Add up a list of numbers.', skills: " +
          "['arithmetic'], levels: 3 }",
        generate:
          "const xs = Array.from({ length: 3 * level }, () => rng.int(1, 10 ** 6)); return { prompt: 'What " +
          "is ' + xs.join(' + ') + '? Answer as <answer>N</answer>.', answer: " +
          'xs.reduce((a, b) => a + b, 0) };',
      }),
    );
    const bad = file('always-one.js', envSource({ verify: 'return 1;' }));
    const { code, stdout } = await run('validate', good, bad, '--json', '--library', join(dir, 'empty-library'));
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.file, l.verdict])).toEqual([
      [good, 'admit'],
      [bad, 'reject'],
    ]);
    expect(lines[1].problems).toContainEqual(
      expect.objectContaining({ code: 'E_ACCEPTS_EMPTY', stage: 'hack', message: expect.any(String) }),
    );
    // The fixed fields, plus each problem's evidence (what the batch's repair prompt sees too).
    for (const p of lines[1].problems)
      expect(
        Object.keys(p)
          .filter((k) => k !== 'evidence')
          .sort(),
      ).toEqual(['code', 'message', 'stage']);
    expect(lines[1].problems.find((p: { code: string }) => p.code === 'E_ACCEPTS_EMPTY').evidence).toMatchObject({
      family: 'empty',
      response: { chars: expect.any(Number), head: expect.any(String) },
    });
    expect(lines[0].stages.map((s: { stage: string }) => s.stage)).toEqual([
      'static',
      'execution',
      'determinism',
      'solvability',
      'hack',
      'diversity',
      'difficulty',
      'novelty',
      'review',
    ]);
    expect(code).toBe(1);
  });

  it('exits 0 when every file is admitted, with a readable summary', async () => {
    const { code, stdout } = await run('validate', 'seeds/knapsack-value.js', '--library', join(dir, 'none'));
    expect(code).toBe(0);
    expect(stdout).toMatch(/^✓ would be admitted {2}seeds\/knapsack-value\.js/);
    expect(stdout).toMatch(/validate admits nothing: envforge library add FILE\.\.\. validates and admits\n$/);
    expect(stdout).toMatch(/level {2}prompt {2}instance/);
  });

  it('exits 2 naming a missing file, before validating anything', async () => {
    const { code, stderr, stdout } = await run(
      'validate',
      'seeds/knapsack-value.js',
      join(dir, 'missing.js'),
      '--json',
    );
    expect(code).toBe(2);
    expect(stderr).toContain(`no such file: ${join(dir, 'missing.js')}`);
    expect(stdout).toBe('');
  });

  it(
    "blames the file it was given, not the sandbox's module name, and lists stages after " + 'a failed gate as not run',
    async () => {
      const { code, stdout } = await run('validate', 'README.md', '--json', '--library', join(dir, 'none'));
      expect(code).toBe(1);
      const [line] = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(line.problems[0].message).toMatch(/\[README\.md:1:1\]$/);
      expect(JSON.stringify(line)).not.toMatch(/environment\.js/);
      expect(line.stages.slice(1).map((s: { ok: boolean; skipped?: string }) => [s.ok, s.skipped])).toEqual(
        Array(8).fill([false, expect.stringMatching(/failed|no LLM/)]),
      );
    },
  );

  it('after a failed execution stage, a later stage that found nothing is "not run", not passed', async () => {
    const { stdout } = await run(
      'validate',
      'tests/fixtures/candidates/broken-throws-high-levels.js',
      '--json',
      '--library',
      join(dir, 'none'),
    );
    const [line] = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const stages = Object.fromEntries(
      line.stages.map((s: { stage: string; ok: boolean; skipped?: string }) => [s.stage, s]),
    );
    expect(stages.execution).toMatchObject({ ok: false });
    for (const stage of ['determinism', 'solvability', 'hack', 'diversity', 'difficulty', 'novelty', 'review']) {
      expect(stages[stage].ok, stage).toBe(false);
      if (stages[stage].problems.length === 0) expect(stages[stage].skipped, stage).toMatch(/failed/);
    }
  });

  it('rejects a copy of a seed under another name as a duplicate', async () => {
    const { readFileSync } = await import('node:fs');
    const copy = file(
      'copy.js',
      readFileSync('seeds/knapsack-value.js', 'utf8').replace("name: 'knapsack-value'", "name: 'backpack-best'"),
    );
    const { code, stdout } = await run('validate', copy, '--json', '--library', join(dir, 'none'));
    expect(code).toBe(1);
    expect(JSON.parse(stdout).problems.map((p: { code: string }) => p.code)).toContain('E_DUPLICATE_CODE');
  });
});

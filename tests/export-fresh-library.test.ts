// Issue 31, item 1: the first library a user makes (`envforge library init`, then `envforge run` with the offline
// author) holds environments that declare one tool name differently; `export --format verl` and a night whose
// snapshot includes verl used to fail on it. Each row is now offered its own environment's tools, so both succeed.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runEnvforge } from './helpers/cli.js';
import { seededLibraryCopy } from './helpers/seeded-library.js';

type Config = { envs: Record<string, { tools?: Array<{ name: string; parameters: unknown }> }> };

describe('a fresh library exports to verl', () => {
  const root = mkdtempSync(join(tmpdir(), 'envforge-fresh-'));
  const library = join(root, 'library');

  beforeAll(async () => {
    // `envforge library init`, run once per test run and copied (tests/helpers/seeded-library.ts).
    expect((await seededLibraryCopy('all', library)).init.code).toBe(0);
    const run = await runEnvforge(
      'run',
      '--library',
      library,
      '--kind',
      'episodic',
      '--target',
      '3',
      '--max-candidates',
      '6',
      '--seed',
      '2',
      '--concurrency',
      '1',
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
  }, 420_000);

  it('with `envforge export --format verl`, each environment keeping its own schema for a shared tool name', {
    timeout: 120_000,
  }, async () => {
    const out = join(root, 'verl');
    const exported = await runEnvforge(
      'export',
      '--library',
      library,
      '--format',
      'verl',
      '--out',
      out,
      '--per-env',
      '2',
    );
    expect(exported.code, exported.stderr).toBe(0);
    const config = JSON.parse(readFileSync(join(out, 'envforge.json'), 'utf8')) as Config;
    // The case that broke: one tool name, two different schemas, in one export (seed 2, one candidate at a time,
    // writes a grid world whose `finish` differs from the airline seed's).
    const schemas = new Map<string, Set<string>>();
    for (const env of Object.values(config.envs))
      for (const tool of env.tools ?? [])
        schemas.set(tool.name, (schemas.get(tool.name) ?? new Set()).add(JSON.stringify(tool)));
    expect([...schemas.values()].some((s) => s.size > 1)).toBe(true);
  });

  it('with a night whose snapshot includes verl', { timeout: 180_000 }, async () => {
    const config = join(root, 'nightly.json');
    writeFileSync(
      config,
      JSON.stringify({
        target: 1,
        concurrency: 1,
        seed: 5,
        export: { out: join(root, 'snapshots'), formats: ['verl'], perEnv: 2 },
      }),
    );
    const night = await runEnvforge('nightly', '--config', config, '--library', library, '--night', '2026-11-27');
    expect(night.code, night.stdout + night.stderr).toBe(0);
    expect(readFileSync(join(root, 'snapshots', '2026-11-27', 'verl', 'envforge-export.json'), 'utf8')).toContain(
      '"format": "verl"',
    );
  });
});

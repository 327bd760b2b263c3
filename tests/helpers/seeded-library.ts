// A library of the shipped seeds made once per test run by the real `envforge library init` (validating every
// seed), and copied for each test that needs one: the seeds' validation is tested where it is the subject
// (tests/episodic-validator.test.ts, tests/validator.test.ts); the other files need only its result. The library of
// both kinds goes on from a copy of the single-turn one (a second `library init` validates only the other kinds).
import { cpSync, existsSync, mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SeedOutcome } from '../../library/maintenance.js';
import { listShippedSeeds, SEED_KINDS } from '../../library/seeds.js';
import { SqliteLibrary } from '../../library/sqlite/store.js';
import type { ValidationReport } from '../../validators/report.js';
import { runEnvforge, type CliRun } from './cli.js';
import { once, runDir } from './run-cache.js';

/** `single`: the single-turn seeds (`library init --kind single`); `all`: both kinds (`library init`). */
export type SeededKinds = 'single' | 'all';

export interface SeededInit {
  /** The init command's exit code, output and error output (--json: one line with the seeds' outcomes). */
  init: CliRun;
  /** Every seed's outcome: a seed the library was copied with, its outcome in the library it came from. */
  outcomes: SeedOutcome[];
  /** The init of the library this one was copied from before `init` ran on it (`all`: the `single` library's). */
  base?: CliRun;
}

/** The run's shared library folder and its init result; read it, never write to it (copy it with seededLibraryCopy). */
export async function sharedSeededLibrary(kinds: SeededKinds): Promise<SeededInit & { dir: string }> {
  const dir = join(runDir(), `seeded-${kinds}`);
  const result = await once(`seeded-${kinds}`, async (): Promise<SeededInit> => {
    const building = join(mkdtempSync(join(runDir(), `building-${kinds}-`)), 'library');
    // The single-turn seeds, validated first in a library of both kinds as in one of them alone (each against those
    // before it): the same reports, so a library of both goes on from a copy of the single-turn one, not validating
    // those 12 seeds twice a run.
    const base = kinds === 'all' && singleTurnFirst() ? await sharedSeededLibrary('single') : undefined;
    if (base) cpSync(base.dir, building, { recursive: true });
    const init = await runEnvforge(
      'library',
      'init',
      ...(kinds === 'single' ? ['--kind', 'single'] : []),
      '--library',
      building,
      '--json',
    );
    if (init.code !== 0) {
      const printed = `stderr: ${init.stderr || '(none)'}\nstdout (its end): ${init.stdout.slice(-4000)}`;
      throw new Error(`library init failed (exit ${init.code}):\n${printed}`);
    }
    try {
      renameSync(building, dir);
    } catch (error) {
      if (!existsSync(dir)) throw error; // made meanwhile by a caller that took over a stale lock: the same seeds
    }
    const outcomes = (JSON.parse(init.stdout.trim().split('\n').at(-1) as string) as { seeds: SeedOutcome[] }).seeds;
    return {
      init: { ...init, stdout: init.stdout.replaceAll(building, dir) },
      outcomes: base ? continued(base.outcomes, outcomes) : outcomes,
      ...(base ? { base: base.init } : {}),
    };
  });
  if (!existsSync(dir)) throw new Error(`the shared seeded library ${dir} is missing`);
  return { ...result, dir };
}

/** Whether the shipped seeds of every library kind list the single-turn ones first, as `library init` takes them. */
function singleTurnFirst(): boolean {
  const single = listShippedSeeds(['single']).map((s) => s.file);
  const all = listShippedSeeds(SEED_KINDS).map((s) => s.file);
  return single.every((file, i) => all[i] === file);
}

/** The outcomes of an init over a copy of a library: a seed the copy held ('exists'), as that library's init said. */
function continued(before: readonly SeedOutcome[], after: readonly SeedOutcome[]): SeedOutcome[] {
  const earlier = new Map(before.map((o) => [o.name, o]));
  return after.map((o) => (o.status === 'exists' ? (earlier.get(o.name) ?? o) : o));
}

/** A fresh copy of the run's seeded library at `dest` (a new temporary folder when not given). */
export async function seededLibraryCopy(kinds: SeededKinds, dest?: string): Promise<SeededInit & { dir: string }> {
  const shared = await sharedSeededLibrary(kinds);
  const dir = dest ?? join(mkdtempSync(join(tmpdir(), 'envforge-seeded-')), 'library');
  cpSync(shared.dir, dir, { recursive: true });
  return { ...shared, dir };
}

/**
 * Each seed's outcome in the run's seeded library and, when admitted, the validation report the library keeps for its
 * source.
 */
export async function seedReports(
  kinds: SeededKinds,
): Promise<Map<string, { outcome: SeedOutcome; report?: ValidationReport; hash?: string }>> {
  const shared = await sharedSeededLibrary(kinds);
  const library = SqliteLibrary.open(shared.dir, { readonly: true });
  try {
    const records = new Map((await library.list({ status: 'all', allVersions: true })).map((r) => [r.name, r]));
    return new Map(
      shared.outcomes.map((outcome) => [
        outcome.name,
        { outcome, report: records.get(outcome.name)?.report, hash: records.get(outcome.name)?.hash },
      ]),
    );
  } finally {
    await library.close();
  }
}

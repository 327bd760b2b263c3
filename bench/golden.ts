// Golden check of the validator's decisions: over a fixed corpus (shipped seeds, single-turn and episodic,
// candidate fixtures, episodic fixtures and a sample of red-team fixtures) and fixed validation seeds, digests
// every sandbox request the validator plans (each response text, or each rollout's policy, in order) and the
// report minus its timings, so a speed change can be shown to leave every probe and every decision
// byte-identical. `node dist/bench/golden.js write FILE`, then `compare FILE` (`--quick`: the vitest corpus).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../contract/paths.js';
import { KINDS } from '../kinds/registry.js';
import type { EpisodeRequest } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { Call } from '../sandbox/protocol.js';
import { plannedRolloutJobs } from '../sandbox/rollouts.js';
import { validateCandidate } from '../validators/validate.js';

export const GOLDEN_SEEDS = [1234567, 987654321];
const QUICK = [
  'seeds/knapsack-value.js',
  'seeds/topological-order.js',
  'tests/fixtures/candidates/broken-accepts-echo.js',
  'tests/fixtures/candidates/broken-json-list-guesses.js',
  'seeds/episodic/warehouse-restock.js',
  'tests/fixtures/episodic-classes/hack-unchecked-approval.js',
];

/**
 * The corpus, as paths relative to the package root: every seed and candidate fixture, every third single-turn red-team
 * fixture.
 */
export function goldenCorpus(quick = false): string[] {
  if (quick) return QUICK;
  const list = (dir: string) =>
    readdirSync(join(PACKAGE_ROOT, dir))
      .filter((f) => f.endsWith('.js'))
      .sort()
      .map((f) => `${dir}/${f}`);
  const all = list('tests/fixtures/redteam');
  const redteam = all.filter(
    (f) => !/-ep-/.test(f) && !/episodic/.test(readFileSync(join(PACKAGE_ROOT, f), 'utf8').slice(0, 4000)),
  );
  const episodicRedteam = all.filter(
    (f) => !redteam.includes(f) && /kind: 'episodic'/.test(readFileSync(join(PACKAGE_ROOT, f), 'utf8')),
  );
  const episodic = [
    ...list('seeds/episodic'),
    ...list('tests/fixtures/episodic').filter((f) => !/\/(hostile|slow)-/.test(f)),
    ...list('tests/fixtures/episodic-classes'),
  ];
  return [
    ...list('seeds'),
    ...list('tests/fixtures/candidates'),
    ...redteam.filter((_, i) => i % 3 === 0),
    ...episodic,
    ...episodicRedteam.filter((_, i) => i % 3 === 0),
  ];
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** The report without wall-clock figures: `ms` and every `*Ms` key, at any depth. */
function untimed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(untimed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== 'ms' && !k.endsWith('Ms'))
      .map(([k, v]) => [k, untimed(v)]),
  );
}

/**
 * Codes whose occurrence depends on the machine's load (a wall-clock budget, a worker's memory): such a run decides
 * nothing byte for byte.
 */
const CLOCKED = ['"E_TIMEOUT"', '"E_TOO_SLOW"', '"E_MEMORY"'];

export interface GoldenEntry {
  file: string;
  seed: number;
  /** The report holds a load-dependent failure: compared only when neither run has one. */
  clocked?: true;
  report: string;
  /**
   * One digest per sandbox call, sorted (concurrent stages issue theirs in any order); each covers its requests'
   * responses in order.
   */
  calls: string[];
}

/**
 * Validates each file of the corpus at each golden seed, one at a time, recording what the validator asked of the
 * sandbox.
 */
export async function goldenRun(
  files: string[],
  opts: {
    workers?: number;
    onEntry?: (e: GoldenEntry, full: { report: unknown; calls: EpisodeRequest[][] }) => void;
  } = {},
): Promise<GoldenEntry[]> {
  const kind = KINDS.single as { runEpisodes: (typeof KINDS)['single']['runEpisodes'] };
  const original = kind.runEpisodes;
  let calls: EpisodeRequest[][] = [];
  kind.runEpisodes = (pool, source, requests, options) => {
    calls.push(requests.map((r) => ({ ...r, ...(r.responses ? { responses: [...r.responses] } : {}) })));
    return original(pool, source, requests, options);
  };
  const pool = new SandboxPool(opts.workers ? { workers: opts.workers } : {});
  // Episodic candidates reach the sandbox through rollouts: each job of them is recorded as planned, before the
  // validation's memo serves the episodes already played (and without a timed-out rollout's confirming rerun).
  const observe = (job: readonly Call[]) => {
    if (job.length > 0)
      calls.push(job.map((c) => ({ seed: c.seed, level: c.level, rollout: c.rollout }) as unknown as EpisodeRequest));
  };
  plannedRolloutJobs.add(observe);
  const entries: GoldenEntry[] = [];
  try {
    for (const file of files) {
      const source = readFileSync(join(PACKAGE_ROOT, file), 'utf8');
      for (const seed of GOLDEN_SEEDS) {
        calls = [];
        const report = untimed(await validateCandidate(source, { pool, validationSeed: seed }));
        const text = JSON.stringify(report);
        const entry: GoldenEntry = {
          file,
          seed,
          ...(CLOCKED.some((c) => text.includes(c)) ? { clocked: true as const } : {}),
          report: sha(text),
          calls: calls.map((c) => sha(JSON.stringify(c))).sort(),
        };
        entries.push(entry);
        opts.onEntry?.(entry, { report, calls });
      }
    }
  } finally {
    plannedRolloutJobs.delete(observe);
    kind.runEpisodes = original;
    await pool.close();
  }
  return entries;
}

/** Runs (as file@seed) that differ from or are missing against `expected`, and the load-dependent ones left out. */
export function compareGolden(
  expected: GoldenEntry[],
  entries: GoldenEntry[],
): { clocked: string[]; differing: string[]; missing: string[] } {
  const key = (e: GoldenEntry) => `${e.file}@${e.seed}`;
  const want = new Map(expected.map((e) => [key(e), e]));
  const clocked = entries.filter((e) => e.clocked || want.get(key(e))?.clocked).map(key);
  const differing = entries
    .filter((e) => !clocked.includes(key(e)) && JSON.stringify(want.get(key(e))) !== JSON.stringify(e))
    .map(key);
  const missing = expected.filter((e) => !entries.some((x) => key(x) === key(e))).map(key);
  return { clocked, differing, missing };
}

const USAGE =
  "usage: node dist/bench/golden.js write|compare FILE [--quick] [--dump DIR]\n  --dump DIR: each run's " +
  'report and planned calls as JSON files in DIR (made if missing)\n';

/** The command line of golden.js, or the usage error it earns. */
export function goldenArgs(
  argv: readonly string[],
): { mode: 'write' | 'compare'; file: string; quick: boolean; dump?: string } | { help: true } | { error: string } {
  if (argv.includes('--help') || argv.includes('-h')) return { help: true };
  const [mode, file, ...rest] = argv;
  if ((mode !== 'write' && mode !== 'compare') || !file || file.startsWith('--'))
    return { error: 'expected write or compare, then the FILE of digests' };
  const at = rest.indexOf('--dump');
  const dump = at >= 0 ? rest[at + 1] : undefined;
  if (at >= 0 && (!dump || dump.startsWith('--'))) return { error: '--dump needs a directory' };
  const unknown = rest.filter((a, i) => a !== '--quick' && a !== '--dump' && !(i === at + 1 && at >= 0));
  if (unknown.length > 0) return { error: `unknown argument ${JSON.stringify(unknown[0])}` };
  return { mode, file, quick: rest.includes('--quick'), ...(dump ? { dump } : {}) };
}

/** Makes the dump directory (and its parents) before any run, or throws naming why it cannot be one. */
export function openDump(dir: string): string {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new Error(
      `--dump ${dir}: cannot make that directory (` +
        `${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  if (!statSync(dir).isDirectory()) throw new Error(`--dump ${dir}: that is a file, not a directory`);
  return dir;
}

async function main(): Promise<void> {
  const args = goldenArgs(process.argv.slice(2));
  if ('help' in args) return void process.stdout.write(USAGE);
  if ('error' in args) {
    process.stderr.write(`golden.js: ${args.error}\n${USAGE}`);
    process.exit(2);
  }
  const { mode, file } = args;
  if (mode === 'compare' && !existsSync(file)) {
    process.stderr.write(
      `golden.js: no file ${file} to compare with (write one first: node dist/bench/golden.js write ${file})\n`,
    );
    process.exit(2);
  }
  let dump: string | undefined;
  try {
    dump = args.dump === undefined ? undefined : openDump(args.dump);
  } catch (error) {
    process.stderr.write(`golden.js: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const entries = await goldenRun(goldenCorpus(args.quick), {
    onEntry: (e, full) => {
      process.stderr.write(`${e.file} @${e.seed}: report ${e.report}, ${e.calls.length} calls\n`);
      if (dump)
        writeFileSync(join(dump, `${e.file.replace(/\//g, '_')}@${e.seed}.json`), JSON.stringify(full, null, 1));
    },
  });
  if (mode === 'write') {
    writeFileSync(file, `${JSON.stringify(entries, null, 1)}\n`);
    process.stderr.write(`wrote ${entries.length} entries to ${file}\n`);
    return;
  }
  const { clocked, differing, missing } = compareGolden(
    JSON.parse(readFileSync(file, 'utf8')) as GoldenEntry[],
    entries,
  );
  process.stderr.write(
    `${entries.length} entries, ${differing.length} differ, ${missing.length} missing, ${clocked.length} ` +
      `load-dependent (not compared: ${clocked.join(', ') || 'none'})` +
      `${differing.length ? `; differing: ${differing.join(', ')}` : ''}\n`,
  );
  if (differing.length || missing.length) process.exit(1);
}

if (process.argv[1]?.endsWith('golden.js')) await main();

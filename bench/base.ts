// The build a benchmark measures this one against, side by side in the same run: `--base DIR` (or
// ENVFORGE_BENCH_BASE) names a checkout of the base commit with its dist/ built (e.g. `git archive main |
// tar -x -C /tmp/base`, node_modules linked, `npm run build`); benchmarks that support it load its modules.
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The base checkout, or null when none was named. Throws when the named one has no built dist/. */
export function baseDir(argv: readonly string[] = process.argv): string | null {
  const at = argv.indexOf('--base');
  const dir = at >= 0 ? argv[at + 1] : process.env.ENVFORGE_BENCH_BASE;
  if (!dir) return null;
  if (!existsSync(join(dir, 'dist', 'bench', 'run.js')))
    throw new Error(`--base ${dir}: no built checkout there (run npm run build in it first)`);
  return resolve(dir);
}

/** The benchmark names on a command line, without --base and its value. */
export function benchNames(argv: readonly string[]): string[] {
  return argv.filter((arg, i) => arg !== '--base' && argv[i - 1] !== '--base');
}

/**
 * What `bench/run.js` was asked: help (run nothing, write nothing), or the benchmarks to run (all when none is named).
 */
export function benchRequest(
  argv: readonly string[],
  known: readonly string[],
): { help: true } | { help: false; names: string[] } {
  if (argv.some((a) => a === '--help' || a === '-h')) return { help: true };
  if (argv.at(-1) === '--base') throw new Error('--base needs a directory: a built checkout of the base commit');
  const names = benchNames(argv);
  const bad = names.filter((n) => !known.includes(n));
  if (bad.length > 0)
    throw new Error(
      `unknown ${bad.some((n) => n.startsWith('-')) ? 'option or benchmark' : 'benchmark'} ` +
        `${bad.map((n) => JSON.stringify(n)).join(', ')}: the benchmarks are ` +
        `${known.join(', ')} (--help for usage)`,
    );
  return { help: false, names };
}

/** The usage of `bench/run.js`. */
export const benchUsage = (known: readonly string[]): string =>
  `usage: node dist/bench/run.js [NAME…] [--base DIR]\n  runs the named benchmarks (all when none is named) ` +
  `and merges their entries into bench/results/latest.json\n  NAME: ${known.join(', ')}\n  --base DIR: a ` +
  `built checkout of the base commit; serve, serveEpisodes and episodic run it beside this build (also ` +
  `ENVFORGE_BENCH_BASE)\n  bench/README.md describes each benchmark and its figures\n`;

/** A module of the base build, by its path under dist/ (e.g. 'serve/server.js'). */
export function fromBase<T>(dir: string, path: string): Promise<T> {
  return import(pathToFileURL(join(dir, 'dist', path)).href) as Promise<T>;
}

/** The one-minute load average, rounded: stated beside every figure measured on a shared machine. */
export const loadNow = (): number => Math.round((loadavg()[0] ?? 0) * 10) / 10;

/** This build ÷ the base (2 decimals), or null without a base. */
export const ratio = (mine: number, base: number | null | undefined): number | null =>
  base ? Math.round((mine / base) * 100) / 100 : null;

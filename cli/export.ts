// `envforge export`: the flags, the progress line and the summary; export/run.ts does the work.
import { json, concat, line } from './io.js';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { UsageError } from '../contract/errors.js';
import { openLibrary, resolveLibraryDir } from '../library/open.js';
import { SandboxPool } from '../sandbox/pool.js';
import { FORMAT_NAMES, FORMATS, type FormatName } from '../export/registry.js';
import {
  DEFAULT_SERVICE_URL,
  MANIFEST_FILE,
  parseServiceUrl,
  runExport,
  type ExportPlan,
  type ExportSummary,
} from '../export/run.js';
import {
  DEFAULT_PER_ENV,
  DEFAULT_SPLIT,
  MAX_ATTEMPTS,
  MAX_ROWS,
  parseEnvRefs,
  parseLevels,
  parseSkills,
  parseSplit,
  type SplitWeight,
} from '../export/select.js';
import { KIND_HELP, SELECTABLE_KINDS, type EnvRef, type LevelSpec, type SelectableKind } from '../library/select.js';
import type { Io } from './io.js';
import { DATABASE_HELP, integerOption } from './options.js';

interface ExportOptions {
  format: FormatName;
  out: string;
  env?: EnvRef[];
  skills?: string[];
  kind?: SelectableKind;
  levels?: LevelSpec;
  perEnv?: number;
  total?: number;
  split: SplitWeight[];
  seed: number;
  serviceUrl: string;
  library?: string;
  database?: string;
  json: boolean;
}

/** Adapts a select.ts parser to commander, which then names the flag and the value in its message. */
function asParser<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (error) {
      if (error instanceof UsageError) throw new InvalidArgumentError(error.message);
      throw error;
    }
  };
}

export function registerExport(program: Command, io: Io): void {
  program
    .command('export')
    .description('write a trainer dataset (verl, OpenRLHF, TRL or plain JSONL) from the library, with its reward shim')
    .addOption(new Option('--format <format>', 'trainer format').choices(FORMAT_NAMES).makeOptionMandatory())
    .requiredOption('--out <dir>', 'output folder (created when missing; an earlier envforge export there is replaced)')
    .option(
      '--env <names>',
      'only these environments, comma-separated NAME or NAME@VERSION (default: every active one)',
      asParser(parseEnvRefs),
    )
    .option('--skills <list>', 'only environments with one of these comma-separated skills', asParser(parseSkills))
    .addOption(new Option('--kind <kind>', KIND_HELP).choices(SELECTABLE_KINDS))
    .option(
      '--levels <ranges>',
      'level range for all (1-5), per environment (planted-sat:2-4), or both (default: every level)',
      asParser(parseLevels),
    )
    .addOption(
      new Option('--per-env <N>', `rows per environment (default: ${DEFAULT_PER_ENV})`)
        .argParser(integerOption('--per-env', 1, MAX_ROWS))
        .conflicts('total'),
    )
    .addOption(
      new Option('--total <N>', 'rows in all, spread evenly over the environments').argParser(
        integerOption('--total', 1, MAX_ROWS),
      ),
    )
    .addOption(
      new Option('--split <spec>', 'split names and fractions summing to 1')
        .argParser(asParser(parseSplit))
        .default(parseSplit(DEFAULT_SPLIT), DEFAULT_SPLIT),
    )
    .option('--seed <S>', "export seed: every row's instance seed derives from it", integerOption('--seed', 0), 0)
    .addOption(
      new Option('--service-url <url>', 'reward service URL written into the shims (they read $ENVFORGE_URL first)')
        .argParser(asParser(parseServiceUrl))
        .default(DEFAULT_SERVICE_URL),
    )
    .option('--library <dir>', "library folder (default: $ENVFORGE_LIBRARY, else the project's generated/)")
    .option('--database <url>', DATABASE_HELP)
    .option('--json', 'print the summary as one JSON object', false)
    .addHelpText(
      'after',
      '\nThe same command with the same --seed writes the same bytes. Every row carries its ' +
        'identity\n{"env","version","seed","level"} as ground truth; the reward service regenerates the ' +
        'instance from it.\n\nExamples:\n  envforge export --format verl --out data/verl --per-env 2000 --seed ' +
        '1\n  envforge export --format trl --out data/trl --skills graphs --levels 3-8 --total 10000 ' +
        '--split train:0.9,test:0.1',
    )
    .action(async (options: ExportOptions) => exportCommand(options, io));
}

async function exportCommand(options: ExportOptions, io: Io): Promise<void> {
  const out = resolve(options.out);
  const plan: ExportPlan = {
    format: FORMATS[options.format],
    out,
    selection: {
      ...(options.env ? { envs: options.env } : {}),
      ...(options.skills ? { skills: options.skills } : {}),
      ...(options.kind ? { kind: options.kind } : {}),
      ...(options.levels ? { levels: options.levels } : {}),
    },
    counts: options.total === undefined ? { perEnv: options.perEnv ?? DEFAULT_PER_ENV } : { total: options.total },
    splits: options.split,
    seed: options.seed,
    serviceUrl: options.serviceUrl,
  };
  const library = openLibrary(resolveLibraryDir(options.library, options.database), { readonly: true });
  const pool = new SandboxPool();
  const status = options.json ? undefined : io.status;
  try {
    const summary = await runExport(
      library,
      pool,
      plan,
      status ? (p) => status(line`exporting ${p.done}/${p.total} rows (${p.env})`) : undefined,
    );
    status?.(line``);
    report(summary, out, options.json, io);
  } finally {
    await pool.close();
    await library.close();
  }
}

function report(summary: ExportSummary, out: string, asJson: boolean, io: Io): void {
  const files = [
    ...summary.files.map((f) => ({ name: f.name, bytes: f.bytes })),
    { name: MANIFEST_FILE, bytes: statSync(join(out, MANIFEST_FILE)).size },
  ];
  const redrawn = summary.envs.reduce((a, e) => a + e.redrawn, 0);
  const failed = summary.envs.reduce((a, e) => a + e.failed, 0);
  const dropped = summary.envs.reduce((a, e) => a + e.dropped, 0);
  if (asJson) {
    io.out(
      json({
        out,
        format: summary.format,
        seed: summary.seed,
        rows: summary.rows,
        total: summary.total,
        envs: summary.envs,
        redrawn,
        failed,
        dropped,
        files,
      }),
    );
  } else {
    io.out(
      concat(
        line`wrote ${summary.total} rows (${summary.format}, ${summary.envs.length} environments, seed `,
        line`${summary.seed}) to ${out}`,
      ),
    );
    for (const [split, n] of Object.entries(summary.rows))
      io.out(line`  ${split.padEnd(12)} ${String(n).padStart(9)} rows`);
    io.out(line`  files: ${files.map((f) => f.name).join(', ')}`);
    if (redrawn || failed) io.out(line`  ${redrawn} repeated prompts and ${failed} failed generations were redrawn`);
  }
  for (const q of summary.quarantined ?? []) io.err(line`warning: ${q.name}@${q.version} left out: ${q.reason}`);
  for (const u of summary.unsupported ?? []) io.err(line`warning: ${u.name}@${u.version} left out: ${u.reason}`);
  for (const e of summary.envs)
    if (e.dropped)
      io.err(
        concat(
          line`warning: ${e.name}@${e.version}: ${e.dropped} rows dropped (no new prompt in ${MAX_ATTEMPTS} `,
          line`attempts: its levels ${e.levels.join('-')} hold too few distinct instances)`,
        ),
      );
  for (const [split, n] of Object.entries(summary.rows))
    if (n === 0) io.err(line`warning: split "${split}" has no rows: raise --per-env/--total or its fraction`);
}

// `envforge library add FILE...`: the way in for hand-written environments. Each file is validated
// against the library (and the files added before it), then admitted with lineage author `hand` and a
// summary of its validation; a rejected file is kept as a rejection, like a batch's, and exits 1.
import { json, line } from './io.js';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Lineage } from '../library/contract.js';
import { openLibrary, resolveLibraryDir } from '../library/open.js';
import { LiveNoveltyIndex, markDuplicate } from '../library/novelty-guard.js';
import type { ValidationReport } from '../validators/report.js';
import type { Io } from './io.js';
import { DATABASE_HELP, integerOption } from './options.js';
import { printReport, toJsonLine, validateFiles } from './validate.js';

interface AddOptions {
  library?: string;
  database?: string;
  json: boolean;
  seeds?: number;
}

/** The lineage of a hand-written environment: where it came from and what the validator said. */
function handLineage(file: string, report: ValidationReport): Lineage {
  const stages = Object.fromEntries(
    report.stages.map((s) => [s.stage, s.skipped ? `not run: ${s.skipped}` : s.ok ? 'passed' : 'failed']),
  );
  return {
    author: 'hand',
    notes: {
      file: basename(file),
      path: resolve(file),
      validation: { validatorVersion: report.validatorVersion, verdict: report.verdict, ms: report.ms, stages },
    },
  };
}

export function registerLibraryAdd(library: Command, io: Io): void {
  library
    .command('add')
    .description('validate hand-written environment modules and admit those that pass (lineage author "hand")')
    .argument('<files...>', 'environment module files (.js)')
    .option('--library <dir>', "library folder (default: $ENVFORGE_LIBRARY, else the project's generated/)")
    .option('--database <url>', DATABASE_HELP)
    .option('--json', 'one JSON line per file: the validate --json fields plus "admitted"', false)
    .option(
      '--seeds <N>',
      'instances sampled per level (default 20; at least 200 in all)',
      integerOption('--seeds', 2, 10_000),
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 all admitted (or already held), 1 any rejected, 2 usage error.\n\nExample:\n  ' +
        'envforge library add my-env.js --library ./lib',
    )
    .action(async (files: string[], options: AddOptions) => add(files, options, io));
}

async function add(files: string[], options: AddOptions, io: Io): Promise<void> {
  const lib = openLibrary(resolveLibraryDir(options.library, options.database));
  let rejected = 0;
  try {
    const live = await LiveNoveltyIndex.of(lib);
    // The index is live.index itself: what this command admits is checked against by the next file too.
    await validateFiles(
      files,
      { seeds: options.seeds, quiet: options.json },
      async () => live.index,
      async ({ file, source }, report) => {
        const lineage = handLineage(file, report);
        let admitted: { status: 'admitted' | 'exists'; name: string; version: number } | null = null;
        const result =
          report.verdict === 'admit' ? await lib.admit({ source, report, lineage, noveltyCursor: live.cursor }) : null;
        if (result?.status === 'duplicate') markDuplicate(report, result.problems);
        if (result && result.status !== 'duplicate') {
          live.add(result.env);
          admitted = { status: result.status, name: result.env.name, version: result.env.version };
        } else {
          rejected++;
          await lib.recordRejection({ source, report, lineage });
        }
        if (options.json) return io.out(json({ ...toJsonLine(file, report), admitted }));
        printReport(
          file,
          report,
          io,
          admitted?.status === 'exists'
            ? `already in the library as ${admitted.name}@${admitted.version}`
            : `admitted as ${admitted?.name}@${admitted?.version}`,
        );
      },
      io,
    );
  } finally {
    await lib.close();
  }
  if (!options.json && files.length > 1) io.out(line`${files.length - rejected} admitted, ${rejected} rejected`);
  if (rejected > 0) io.exitCode = 1;
}

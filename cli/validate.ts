// `envforge validate FILE...`: runs the staged validator on environment modules. With --json, one JSON
// object per file per line (the interface in DESIGN.md); exit 0 when all are admitted, 1 when any is
// rejected, 2 on a usage error. Validation admits nothing: `envforge library add` does (cli/library-add.ts).
import { json, concat, line } from './io.js';
import type { Command } from 'commander';
import { blame } from './resolve.js';
import { UsageError } from '../contract/errors.js';
import { resolveLibraryDir } from '../library/open.js';
import { DEFAULT_LIBRARY_DIR } from '../contract/paths.js';
import { SandboxPool } from '../sandbox/pool.js';
import { buildNoveltyIndex } from '../library/novelty-index.js';
import type { NoveltyIndex } from '../validators/novelty/lsh.js';
import type { ValidationReport } from '../validators/report.js';
import { validateCandidate } from '../validators/validate.js';
import type { Io } from './io.js';
import { DATABASE_HELP, integerOption } from './options.js';
import { readEnvFile } from './resolve.js';
import { guestLine } from '../contract/text.js';

interface ValidateCliOptions {
  library?: string;
  database?: string;
  json: boolean;
  seeds?: number;
  validationSeed?: number;
}

export function registerValidate(program: Command, io: Io): void {
  program
    .command('validate')
    .description(
      'run the staged validator (static, execution, determinism, solvability, hack resistance, diversity, ' +
        'difficulty, novelty) on environment modules; admits nothing (envforge library add does)',
    )
    .argument('<files...>', 'environment module files (.js)')
    .option(
      '--library <dir>',
      `library to check novelty against (default: $ENVFORGE_LIBRARY, else ${DEFAULT_LIBRARY_DIR}); where no ` +
        `library exists yet, the seeds it would start with`,
    )
    .option('--database <url>', DATABASE_HELP)
    .option('--json', 'one JSON object per file per line', false)
    .option(
      '--seeds <N>',
      'instances sampled per level (default 20; at least 200 in all)',
      integerOption('--seeds', 2, 10_000),
    )
    .option(
      '--validation-seed <N>',
      "replay a report's draws: the validationSeed it recorded (default: random)",
      integerOption('--validation-seed', 0, Number.MAX_SAFE_INTEGER),
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 all would be admitted, 1 any rejected, 2 usage error.\n\nExamples:\n  envforge ' +
        'validate seeds/*.js --json | jq .verdict\n  envforge library add my-env.js     # validate, ' +
        'then admit into the library',
    )
    .action(async (files: string[], options: ValidateCliOptions) => validate(files, options, io));
}

export interface FileCandidate {
  file: string;
  source: string;
}

/** Reads every file first (a missing one is a usage error before any work), then validates each in order. */
export async function validateFiles(
  files: string[],
  options: { seeds?: number | undefined; validationSeed?: number | undefined; quiet: boolean },
  index: (pool: SandboxPool) => Promise<NoveltyIndex>,
  each: (candidate: FileCandidate, report: ValidationReport, novelty: NoveltyIndex) => Promise<void>,
  io: Io,
): Promise<void> {
  const candidates = files.map((file) => ({ file, source: readEnvFile(file).source }));
  const pool = new SandboxPool();
  try {
    const novelty = await index(pool);
    for (const candidate of candidates) {
      if (!options.quiet && process.stderr.isTTY) io.err(line`validating ${candidate.file} …`);
      const report = await validateCandidate(candidate.source, {
        pool,
        novelty,
        ...(options.seeds ? { options: { seedsPerLevel: options.seeds, minSamples: 0 } } : {}),
        ...(options.validationSeed !== undefined ? { validationSeed: options.validationSeed } : {}),
      });
      await each(candidate, blameFile(report, candidate.file), novelty);
    }
  } finally {
    await pool.close();
  }
}

async function validate(files: string[], options: ValidateCliOptions, io: Io): Promise<void> {
  if (options.library === '') throw new UsageError('--library needs a directory');
  const libraryDir = resolveLibraryDir(options.library, options.database);
  let rejected = 0;
  await validateFiles(
    files,
    { seeds: options.seeds, validationSeed: options.validationSeed, quiet: options.json },
    (pool) => buildNoveltyIndex(pool, libraryDir),
    async ({ file }, report) => {
      if (report.verdict === 'reject') rejected++;
      if (options.json) io.out(json(toJsonLine(file, report)));
      else printReport(file, report, io, 'would be admitted');
    },
    io,
  );
  if (rejected > 0) io.exitCode = 1;
  if (options.json) return;
  if (files.length > 1) io.out(line`${files.length - rejected} would be admitted, ${rejected} rejected`);
  if (rejected < files.length) io.out(line`validate admits nothing: envforge library add FILE... validates and admits`);
}

/** The sandbox names every module `environment.js`; a report about a file names the file instead. */
function blameFile(report: ValidationReport, file: string): ValidationReport {
  const rename = <T extends { message: string }>(p: T): T => ({ ...p, message: blame(p.message, file) });
  return {
    ...report,
    problems: report.problems.map(rename),
    stages: report.stages.map((s) => ({ ...s, problems: s.problems.map(rename) })),
  };
}

/** The fixed `validate --json` line: file, verdict, problems[{code, stage, message, evidence?}], plus stage metrics. */
export function toJsonLine(file: string, report: ValidationReport): Record<string, unknown> {
  return {
    file,
    verdict: report.verdict,
    problems: report.problems.map((p) => ({
      code: p.code,
      stage: p.stage,
      message: p.message,
      ...(p.evidence === undefined ? {} : { evidence: p.evidence }),
    })),
    name: report.name,
    hash: report.hash,
    ms: report.ms,
    validatorVersion: report.validatorVersion,
    validationSeed: report.validationSeed,
    stages: report.stages,
    curve: report.curve,
  };
}

/** The readable report of one file; `admitted` says what an admitting verdict means for this command. */
export function printReport(file: string, report: ValidationReport, io: Io, admitted: string): void {
  const mark = (ok: boolean, skipped?: string) => (skipped ? '·' : ok ? '✓' : '✗');
  io.out(
    concat(
      line`${report.verdict === 'admit' ? `✓ ${admitted}` : '✗ reject'}  ${file}`,
      line`${report.name ? `  (${report.name})` : ''}  ${report.ms} ms`,
    ),
  );
  io.out(
    concat(
      line`  ${report.stages.map((s) => `${mark(s.ok, s.skipped)} ${s.stage}`).join('  ')}`,
      line`${report.stages.some((s) => s.skipped) ? '   (· not run)' : ''}`,
    ),
  );
  for (const p of report.problems.slice(0, 6)) io.out(line`  ${p.code} [${p.stage}] ${guestLine(p.message)}`);
  if (report.problems.length > 6)
    io.out(line`  … and ${report.problems.length - 6} more problems (use --json for all)`);
  if (report.curve.length > 0) {
    io.out(line`  level  prompt  instance  solve ms  distinct answers  baseline common/other`);
    for (const l of report.curve) {
      io.out(
        concat(
          line`  ${String(l.level).padStart(5)}  ${l.promptChars.toFixed(0).padStart(6)}  `,
          line`${l.instanceChars.toFixed(0).padStart(8)}  ${l.solveMs.toFixed(2).padStart(8)}  `,
          line`${String(l.distinctAnswers).padStart(16)}  ${fmt(l.baselineCommon)}/${fmt(l.baselineOther)}`,
        ),
      );
    }
  }
  io.out(line``);
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');

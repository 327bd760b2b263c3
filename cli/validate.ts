// `envforge validate FILE...`: runs the staged validator on environment modules. With --json, one JSON
// object per file per line (the interface in DESIGN.md); exit 0 when all are admitted, 1 when any is
// rejected, 2 on a usage error.
import type { Command } from 'commander';
import { UsageError } from '../contract/errors.js';
import { resolveLibraryDir } from '../library/open.js';
import { DEFAULT_LIBRARY_DIR } from '../library/paths.js';
import { SandboxPool } from '../sandbox/pool.js';
import { buildNoveltyIndex } from '../validators/library-index.js';
import type { ValidationReport } from '../validators/report.js';
import { validateCandidate } from '../validators/validate.js';
import type { Io } from './io.js';
import { integerOption } from './options.js';
import { readEnvFile } from './resolve.js';

interface ValidateCliOptions {
  library?: string;
  json: boolean;
  seeds?: number;
  validationSeed?: number;
}

export function registerValidate(program: Command, io: Io): void {
  program
    .command('validate')
    .description('run the staged validator (static, execution, determinism, solvability, hack resistance, diversity, difficulty, novelty) on environment modules')
    .argument('<files...>', 'environment module files (.js)')
    .option('--library <dir>', `library to check novelty against (default: $ENVFORGE_LIBRARY, else ${DEFAULT_LIBRARY_DIR}); where no library exists yet, the seeds it would start with`)
    .option('--json', 'one JSON object per file per line', false)
    .option('--seeds <N>', 'instances sampled per level (default 20; at least 200 in all)', integerOption('--seeds', 2, 10_000))
    .option('--validation-seed <N>', "replay a report's draws: the validationSeed it recorded (default: random)", integerOption('--validation-seed', 0, Number.MAX_SAFE_INTEGER))
    .addHelpText('after', '\nExit codes: 0 all admitted, 1 any rejected, 2 usage error.\n\nExample:\n  envforge validate seeds/*.js --json | jq .verdict')
    .action(async (files: string[], options: ValidateCliOptions) => validate(files, options, io));
}

async function validate(files: string[], options: ValidateCliOptions, io: Io): Promise<void> {
  const candidates = files.map((f) => ({ file: f, ...readEnvFile(f) })); // usage errors before any work
  if (options.library === '') throw new UsageError('--library needs a directory');
  const libraryDir = resolveLibraryDir(options.library);
  const pool = new SandboxPool();
  try {
    const novelty = await buildNoveltyIndex(pool, libraryDir);
    let rejected = 0;
    for (const candidate of candidates) {
      if (!options.json && process.stderr.isTTY) io.err(`validating ${candidate.file} …`);
      const report = await validateCandidate(candidate.source, {
        pool,
        novelty,
        ...(options.seeds ? { options: { seedsPerLevel: options.seeds, minSamples: 0 } } : {}),
        ...(options.validationSeed !== undefined ? { validationSeed: options.validationSeed } : {}),
      });
      if (report.verdict === 'reject') rejected++;
      if (options.json) io.out(JSON.stringify(toJsonLine(candidate.file, report)));
      else printReport(candidate.file, report, io);
    }
    if (!options.json && candidates.length > 1) io.out(`${candidates.length - rejected} admitted, ${rejected} rejected`);
    if (rejected > 0) io.exitCode = 1;
  } finally {
    await pool.close();
  }
}

/** The fixed `validate --json` line: file, verdict, problems[{code, stage, message}], plus stage metrics. */
export function toJsonLine(file: string, report: ValidationReport): Record<string, unknown> {
  return {
    file,
    verdict: report.verdict,
    problems: report.problems.map((p) => ({ code: p.code, stage: p.stage, message: p.message })),
    name: report.name,
    hash: report.hash,
    ms: report.ms,
    validatorVersion: report.validatorVersion,
    validationSeed: report.validationSeed,
    stages: report.stages,
    curve: report.curve,
  };
}

function printReport(file: string, report: ValidationReport, io: Io): void {
  const mark = (ok: boolean, skipped?: string) => (skipped ? '·' : ok ? '✓' : '✗');
  io.out(`${report.verdict === 'admit' ? '✓ admit ' : '✗ reject'}  ${file}${report.name ? `  (${report.name})` : ''}  ${report.ms} ms`);
  io.out(`  ${report.stages.map((s) => `${mark(s.ok, s.skipped)} ${s.stage}`).join('  ')}`);
  for (const p of report.problems.slice(0, 6)) io.out(`  ${p.code} [${p.stage}] ${p.message}`);
  if (report.problems.length > 6) io.out(`  … and ${report.problems.length - 6} more problems (use --json for all)`);
  if (report.curve.length > 0) {
    io.out('  level  prompt  instance  solve ms  distinct answers  baseline common/other');
    for (const l of report.curve) {
      io.out(`  ${String(l.level).padStart(5)}  ${l.promptChars.toFixed(0).padStart(6)}  ${l.instanceChars.toFixed(0).padStart(8)}  ${l.solveMs.toFixed(2).padStart(8)}  ${String(l.distinctAnswers).padStart(16)}  ${fmt(l.baselineCommon)}/${fmt(l.baselineOther)}`);
    }
  }
  io.out('');
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');

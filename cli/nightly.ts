// `envforge nightly`: the night's work in one command (nightly/night.ts): revalidate, retire the saturated,
// the batch aimed at the weak skills within the budget, a dated dataset snapshot, one report. Settings come
// from --config FILE (nightly/config.ts); run it again after a kill and it finishes the same night.
import { json, line, verbatim } from './io.js';
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { AUTHORS } from '../agents/authors.js';
import { CostLedger, type LedgerSnapshot } from '../agents/llm/cost.js';
import { describeProvider, selectProvider } from '../agents/llm/select.js';
import { UsageError } from '../contract/errors.js';
import { seedLibrary } from '../library/maintenance.js';
import { seedingLine, seedKindsFor } from '../library/seeds.js';
import { openLibrary, resolveLibraryDir } from '../library/open.js';
import { loadNightlyConfig } from '../nightly/config.js';
import { NightFailed, NightInterrupted, nightlyDir, runNight } from '../nightly/night.js';
import { nightMarkdown } from '../nightly/report.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { Io } from './io.js';
import { seedFor } from './run-author.js';
import { onInterrupt } from './signals.js';
import { batchProgress } from './progress.js';

const DEFAULT_CONFIG = 'envforge.nightly.json';

interface NightlyFlags {
  config?: string;
  library?: string;
  feedback?: string;
  night?: string;
  json: boolean;
}

export function registerNightly(program: Command, io: Io): void {
  program
    .command('nightly')
    .description(
      "the night's work in one run: revalidate, retire saturated environments, a batch aimed at weak skills, " +
        'a dated export, one report',
    )
    .option(
      '--config <file>',
      `settings (JSON; default ./${DEFAULT_CONFIG} when present): target, budgetUsd, llm, feedback, ` +
        `retireAt, export {out, formats, perEnv}`,
    )
    .option('--library <dir>', 'library (overrides the config; default: $ENVFORGE_LIBRARY, else generated/)')
    .option(
      '--feedback <file>',
      'trainer evaluations (overrides the config; default: the pass rates the reward service recorded)',
    )
    .option(
      '--night <id>',
      'which night (default: today, UTC, YYYY-MM-DD); the same night run again finishes what a killed run left',
    )
    .option('--json', 'print the report as JSON', false)
    .addHelpText(
      'after',
      '\nExamples:\n  envforge nightly --config nightly.json\n  15 2 * * * cd /srv/envforge && npx envforge ' +
        'nightly --config nightly.json >> nightly.log 2>&1',
    )
    .action(async (flags: NightlyFlags) => nightly(flags, io));
}

async function nightly(flags: NightlyFlags, io: Io): Promise<void> {
  const night = flags.night ?? new Date().toISOString().slice(0, 10);
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(night))
    throw new UsageError(`--night must be letters, digits, '.', '_' or '-' (at most 64), got ${JSON.stringify(night)}`);
  const file = flags.config ?? (existsSync(DEFAULT_CONFIG) ? DEFAULT_CONFIG : undefined);
  const config = loadNightlyConfig(file);
  if (flags.library) config.library = flags.library;
  if (flags.feedback) config.feedback = flags.feedback;
  if (config.feedback && !existsSync(config.feedback))
    throw new UsageError(`feedback file ${config.feedback} does not exist`);
  const selection = selectProvider({ flags: config.llm });
  const offline = selection.description.provider === 'none' || selection.description.provider === 'offline';
  if (!offline) {
    selection.create(); // fails with how to configure the model (exit 2) before any work
    io.err(line`${describeProvider(selection.description)}`);
  }
  const dir = resolveLibraryDir(config.library);
  const library = openLibrary(dir, { create: true });
  const pool = new SandboxPool();
  const interrupt = onInterrupt();
  const progress = batchProgress(io, { json: flags.json, target: config.target });
  try {
    if ((await library.stats()).versions === 0) {
      io.err(line`${seedingLine(dir, seedKindsFor(config.kind))}`);
      await seedLibrary(library, pool, undefined, seedKindsFor(config.kind));
    }
    const budget = {
      ...(config.budgetUsd ? { maxUsd: config.budgetUsd } : {}),
      ...(config.maxTokens ? { maxTokens: config.maxTokens } : {}),
    };
    const report = await runNight(
      {
        library,
        pool,
        log: (line) => progress.line(line),
        onBatchEvent: (event) => progress.event(event),
        signal: interrupt.signal,
        author: (batchId, record) => {
          const previous = (record?.ledger as LedgerSnapshot | null | undefined) ?? null;
          const ledger = new CostLedger({ batchId, budget, ...(previous ? { previous } : {}) });
          const author = offline
            ? AUTHORS.offline({ seed: seedFor(config.seed, batchId, record) })
            : AUTHORS.llm({ llm: selection.create({ ledger }), profile: selection.config.promptProfile ?? 'auto' });
          return { author, ledger };
        },
      },
      config,
      night,
    );
    progress.done();
    io.out(flags.json ? json(report) : verbatim(nightMarkdown(report), 'markdown'));
    io.err(line`report: ${nightlyDir(library)}/${night}.md`);
  } catch (error) {
    progress.done();
    if (error instanceof NightFailed) {
      io.out(flags.json ? json(error.report) : verbatim(nightMarkdown(error.report), 'markdown'));
      io.err(line`report: ${nightlyDir(library)}/${night}.md`);
      throw error.cause;
    }
    if (!(error instanceof NightInterrupted)) throw error;
    io.err(line`envforge nightly: interrupted (${interrupt.received() ?? 'cancelled'}): ${error.message}`);
    io.exitCode = interrupt.exitCode();
  } finally {
    interrupt.dispose();
    await pool.close();
    await library.close();
  }
}

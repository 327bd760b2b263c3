// `envforge run`: the nightly batch. Picks the author (run-author.ts): an LLM (flags > env > config), or the offline
// author when none is configured or --provider offline (seeded by --seed, else from the batch id; a
// resumed batch keeps the seed stored with its options). Seeds a missing library, reads trainer
// feedback, runs or resumes the batch with budgets, shows progress, and stores the report (JSON and
// Markdown) with the batch. Exit 0 unless the run itself failed; rejected candidates are data.
import { concat, json, line, verbatim } from './io.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { CostLedger, type LedgerSnapshot } from '../agents/llm/cost.js';
import { describeProvider, selectProvider } from '../agents/llm/select.js';
import { UsageError } from '../contract/errors.js';
import { seedLibrary } from '../library/maintenance.js';
import { seedingLine, seedKindsFor } from '../library/seeds.js';
import { openLibrary, resolveLibraryDir } from '../library/open.js';
import type { Author } from '../agents/author.js';
import { AUTHORS } from '../agents/authors.js';
import { DEFAULT_BATCH_OPTIONS, runBatch } from '../pipeline/batch.js';
import { batchProgress } from './progress.js';
import { MIXED_RULE } from '../pipeline/kind-share.js';
import { reportMarkdown } from '../pipeline/report-markdown.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { Io } from './io.js';
import type { ValidationJob } from '../library/postgres/queue.js';
import { PostgresLibrary } from '../library/postgres/store.js';
import { JOB_TIMEOUT_HELP, openQueue } from './worker.js';
import { DATABASE_HELP, integerOption } from './options.js';
import { onInterrupt } from './signals.js';
import { trainerFeedback } from '../pipeline/feedback/source.js';
import { invocationOf, restoreOptions, storedFeedback, type KeptOption } from './run-resume.js';
import { checkAuthorOnResume, checkPrices, llmAuthorFor, offlineLine, seedFor } from './run-author.js';
import { dollars, MAX_SEED, profileChoice, runKind, share, type RunOptions } from './run-options.js';

export function registerRun(program: Command, io: Io): void {
  program
    .command('run')
    .description(
      'the nightly synthesis batch: architect → generator → validator → repair → admit, within a budget; ' +
        'with no LLM configured (or --provider offline) the offline author writes the ' +
        'environments, without a network',
    )
    .option(
      '--kind <kind>',
      `which environments to write: single (one prompt, one answer), episodic (multi-turn tool use, contract ` +
        `v2), code (the answer is a program run on hidden tests, contract v3) or ${MIXED_RULE} (mixed ` +
        `writes single and episodic)`,
      runKind,
      'mixed',
    )
    .option(
      '--target <N>',
      'admitted environments wanted, a hard cap: candidates still in flight when it is reached are not ' +
        'admitted; the report counts them as "extra" and their modules stay in the batch journal (with ' +
        '--workers remote, jobs already sent may still be admitted)',
      integerOption('--target', 1, 100_000),
      DEFAULT_BATCH_OPTIONS.target,
    )
    .option(
      '--max-candidates <N>',
      'candidates (specs) worked on at most',
      integerOption('--max-candidates', 1, 1_000_000),
      DEFAULT_BATCH_OPTIONS.maxCandidates,
    )
    .option('--budget-usd <X>', 'stop issuing LLM calls before this spend', dollars)
    .option('--max-tokens <N>', 'stop issuing LLM calls before this many tokens', integerOption('--max-tokens', 1))
    .option(
      '--concurrency <N>',
      'candidates (and so LLM calls) in flight; the sandbox pool is separate (one worker per core)',
      integerOption('--concurrency', 1, 1_000),
      DEFAULT_BATCH_OPTIONS.concurrency,
    )
    .option(
      '--repair-rounds <N>',
      'repairs after a rejection',
      integerOption('--repair-rounds', 0, 10),
      DEFAULT_BATCH_OPTIONS.repairRounds,
    )
    .option('--skills <list>', 'only these comma-separated skills')
    .option(
      '--feedback <file>',
      'trainer evaluations (JSONL or CSV rows {skill?, env?, level?, pass_rate, n}): aim at the weak skills',
    )
    .option(
      '--weak-share <X>',
      'with --feedback: the share of --target wanted for environments that train a weak skill, round-robin ' +
        'over the weak skills (0 to 1)',
      share,
      DEFAULT_BATCH_OPTIONS.weakShare,
    )
    .option('--library <dir>', "library folder (default: $ENVFORGE_LIBRARY, else the project's generated/)")
    .option('--database <url>', DATABASE_HELP)
    .option(
      '--resume [batch-id]',
      'continue a killed batch (the newest running one when no id is given) with the options it was started ' +
        'with (--kind, --target, budgets, …: a flag given again with another value is an error)',
    )
    .option('--provider <name>', 'openai, anthropic or offline')
    .option('--model <model>', 'model name')
    .option('--base-url <url>', 'an OpenAI-compatible server (vLLM, SGLang, Ollama, llama.cpp, LM Studio, OpenRouter)')
    .option('--config <path>', 'config file (default: ./envforge.config.json when present)')
    .option(
      '--prompt-profile <profile>',
      "the agents' prompts: standard (the contract verbatim, full examples), compact (the contract's rules " +
        "in under 20k characters, for 7–32B open models) or auto (compact when the model's name says 34B or " +
        "fewer; default, or the config's promptProfile)",
      profileChoice,
    )
    .option('--no-cache', 'do not use the on-disk LLM response cache')
    .option('--no-review', 'skip the LLM review stage of validation')
    .option(
      '--solver-model <model>',
      'calibrate candidates against this solver model: admit only with a level whose pass rate is in the ' +
        'learnable band (0.1–0.9)',
    )
    .option('--solver-samples <N>', 'solver samples per level', integerOption('--solver-samples', 1, 100), 4)
    .option(
      '--seed <N>',
      "the offline author's seed (default: derived from the batch id; always printed; a resumed batch keeps its own)",
      integerOption('--seed', 0, MAX_SEED),
    )
    .option(
      '--workers <where>',
      "local: validate in this process; remote: send candidates to the PostgreSQL library's work queue for " +
        '`envforge worker` processes',
      'local',
    )
    .option('--job-timeout <seconds>', JOB_TIMEOUT_HELP, integerOption('--job-timeout', 5, 86_400), 300)
    .option(
      '--wait-timeout <seconds>',
      'with --workers remote: stop the batch (resumable) when no envforge worker has taken a job for this ' +
        'long; a line says so while it waits',
      integerOption('--wait-timeout', 1, 86_400),
      300,
    )
    .option(
      '--json',
      'print the report as JSON, and progress as one JSON event per line on stderr (without it: one status ' +
        'line on a terminal, a line per admission otherwise)',
      false,
    )
    .action(async (options: RunOptions, command: Command) =>
      run(await resumedOptions(options, (key) => command.getOptionValueSource(key) === 'cli'), io),
    );
}

/** With --resume, the options the batch was started with (cli/run-resume.ts); else the command line's. */
async function resumedOptions(options: RunOptions, given: (key: KeptOption) => boolean): Promise<RunOptions> {
  if (!options.resume) return options;
  const library = openLibrary(resolveLibraryDir(options.library, options.database));
  try {
    const record = await library.getBatch(await pickBatchId(options, library));
    return record ? { ...restoreOptions(options, record, given), resume: record.id } : options;
  } finally {
    await library.close();
  }
}

async function run(options: RunOptions, io: Io): Promise<void> {
  const selection = selectProvider({
    flags: {
      ...(options.provider ? { provider: options.provider } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      ...(options.config ? { config: options.config } : {}),
      noCache: !options.cache,
    },
  });
  const offline = selection.description.provider === 'none' || selection.description.provider === 'offline';
  if (offline && options.solverModel) {
    throw new UsageError(
      `--solver-model needs an LLM: calibration asks a solver model, and the offline author has none. ` +
        `Configure one with --provider openai|anthropic --model M, or --base-url URL (see envforge run --help)`,
    );
  }
  if (!offline) {
    // Fails with how to configure the model (exit 2) before any work when the LLM settings are unusable.
    selection.create();
    io.err(line`${describeProvider(selection.description)}`);
  }
  if (!offline) checkPrices(selection, options, io);
  if (options.workers !== 'local' && options.workers !== 'remote')
    throw new UsageError(`--workers is local or remote, got "${options.workers}"`);
  if (options.workers === 'remote' && options.solverModel)
    throw new UsageError('--solver-model runs in the batch process; it cannot be combined with --workers remote');

  const dir = resolveLibraryDir(options.library, options.database);
  const pool = new SandboxPool();
  const library = openLibrary(dir, { create: true });
  try {
    const batchId = await pickBatchId(options, library);
    const record = options.resume ? await library.getBatch(batchId) : undefined;
    checkAuthorOnResume(record, offline);
    const offlineSeed = offline ? seedFor(options.seed, batchId, record) : undefined;
    if (offlineSeed !== undefined) io.err(line`${offlineLine(selection.description, offlineSeed)}`);
    if ((await library.stats()).versions === 0) {
      io.err(line`${seedingLine(dir, seedKindsFor(options.kind))}`);
      await seedLibrary(library, pool, undefined, seedKindsFor(options.kind));
    }
    const previous = (record?.ledger as LedgerSnapshot | null | undefined) ?? null;
    const ledger = new CostLedger({
      batchId,
      budget: {
        ...(options.budgetUsd ? { maxUsd: options.budgetUsd } : {}),
        ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}),
      },
      ...(previous ? { previous } : {}),
    });
    // The batch stores the author's identity with its options: a resume reads the offline seed back.
    const author: Author =
      offlineSeed !== undefined
        ? AUTHORS.offline({ seed: offlineSeed })
        : llmAuthorFor(
            selection.create({ ledger }),
            options.promptProfile ?? selection.config.promptProfile ?? 'auto',
            io,
          );
    // The solver shares the provider and the ledger, so the budget covers its calls too.
    const solver = options.solverModel ? selection.create({ ledger, model: options.solverModel }) : undefined;
    // A resumed batch aims at the frontier it was started with, not at tonight's pass rates.
    const feedback = record ? storedFeedback(record) : await trainerFeedback(library, options.feedback);
    if (feedback.source === 'scores')
      io.err(
        concat(
          line`feedback: no --feedback file; using the pass rates the reward service recorded `,
          line`(${feedback.scores} scores)`,
        ),
      );
    const interrupt = onInterrupt();
    const queue = options.workers === 'remote' ? await openQueue(library, options.jobTimeout) : null;
    const progress = batchProgress(io, { json: options.json, target: options.target });
    const remote = queue
      ? {
          judge: async (job: ValidationJob) =>
            queue.outcome(await queue.send(job), interrupt.signal, {
              waitTimeoutMs: options.waitTimeout * 1000,
              onWaiting: (ms) => progress.waiting(ms, library.dir),
            }),
        }
      : undefined;
    try {
      const report = await runBatch(
        {
          library,
          pool,
          author,
          ...(solver ? { solver } : {}),
          ...(remote ? { remote } : {}),
          ledger,
          onEvent: (event) => progress.event(event),
          signal: interrupt.signal,
        },
        {
          ...DEFAULT_BATCH_OPTIONS,
          batchId,
          kind: options.kind,
          target: options.target,
          maxCandidates: options.maxCandidates,
          repairRounds: options.repairRounds,
          concurrency: options.concurrency,
          weakSkills: feedback.weak,
          saturatedSkills: feedback.saturated,
          weakShare: options.weakShare,
          review: options.review,
          ...(options.solverModel
            ? { calibration: { samplesPerLevel: options.solverSamples, concurrency: options.concurrency } }
            : {}),
          ...(options.skills
            ? {
                skills: options.skills
                  .split(',')
                  .map((s) => s.trim())
                  .filter(Boolean),
              }
            : {}),
          invocation: invocationOf(options),
        },
      );
      progress.done();
      // A folder library keeps the report files beside it; a database keeps the report with the batch.
      const out = library instanceof PostgresLibrary ? null : join(dir, 'batches');
      if (out) {
        mkdirSync(out, { recursive: true });
        writeFileSync(join(out, `${batchId}.json`), `${JSON.stringify(report, null, 2)}\n`);
        writeFileSync(join(out, `${batchId}.md`), reportMarkdown(report));
      }
      if (options.json) io.out(json(report));
      else {
        io.out(verbatim(reportMarkdown(report), 'markdown'));
        if (out) io.out(line`report: ${join(out, `${batchId}.md`)}`);
      }
      if (report.stopReason === 'no-worker') {
        io.err(
          concat(
            line`envforge run: no envforge worker took a job within --wait-timeout ${options.waitTimeout} s; the `,
            line`batch is kept. Start one (envforge worker --database URL) on any machine, then: envforge run `,
            line`--resume ${batchId} --database URL`,
          ),
        );
        io.exitCode = 1;
      }
      if (report.stopReason === 'cancelled') {
        io.err(
          concat(
            line`envforge run: interrupted (${interrupt.received() ?? 'cancelled'}); the batch is kept. Continue `,
            line`it with the same LLM settings and: envforge run --resume ${batchId}`,
            line`${options.library ? ` --library ${options.library}` : ''}`,
            line`${options.database ? ` --database ${library.dir}` : ''}`,
          ),
        );
        io.exitCode = interrupt.exitCode();
      }
    } finally {
      progress.done();
      interrupt.dispose();
      await queue?.close();
    }
  } finally {
    await pool.close();
    await library.close();
  }
}

async function pickBatchId(options: RunOptions, library: ReturnType<typeof openLibrary>): Promise<string> {
  if (typeof options.resume === 'string') {
    const batch = await library.getBatch(options.resume);
    if (!batch) throw new UsageError(`--resume: no batch "${options.resume}" in this library`);
    return batch.id;
  }
  if (options.resume === true) {
    const running = (await library.listBatches()).find((b) => b.status === 'running');
    if (!running) throw new UsageError('--resume: this library has no interrupted batch to continue');
    return running.id;
  }
  return `batch-${new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${process.pid}`;
}

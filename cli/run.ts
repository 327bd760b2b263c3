// `envforge run`: the nightly batch. Picks the LLM (flags > env > config), seeds a missing library,
// reads trainer feedback, runs or resumes the batch with budgets, shows progress, and stores the report
// (JSON and Markdown) with the batch. Exit 0 unless the run itself failed; rejected candidates are data.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { CostLedger, type LedgerSnapshot } from '../agents/llm/cost.js';
import { describeProvider, selectProvider } from '../agents/llm/select.js';
import { UsageError } from '../contract/errors.js';
import { seedLibrary } from '../library/maintenance.js';
import { libraryExists, openLibrary, resolveLibraryDir } from '../library/open.js';
import { DEFAULT_BATCH_OPTIONS, runBatch, type BatchEvent } from '../pipeline/batch.js';
import { envSkillsOf, readFeedbackFile, summariseFeedback, weakSkills } from '../pipeline/feedback.js';
import { reportMarkdown } from '../pipeline/report.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { Io } from './io.js';
import { integerOption } from './options.js';

interface RunOptions {
  target: number;
  maxCandidates: number;
  budgetUsd?: number;
  maxTokens?: number;
  concurrency: number;
  repairRounds: number;
  skills?: string;
  feedback?: string;
  library?: string;
  json: boolean;
  resume?: string | boolean;
  provider?: string;
  model?: string;
  baseUrl?: string;
  config?: string;
  cache: boolean;
  review: boolean;
  solverModel?: string;
  solverSamples: number;
}

function dollars(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--budget-usd needs a positive number of dollars, got "${value}"`);
  return n;
}

export function registerRun(program: Command, io: Io): void {
  program
    .command('run')
    .description('the nightly synthesis batch: architect → generator → validator → repair → admit, within a budget')
    .option('--target <N>', 'admitted environments wanted', integerOption('--target', 1, 100_000), DEFAULT_BATCH_OPTIONS.target)
    .option('--max-candidates <N>', 'candidates (specs) worked on at most', integerOption('--max-candidates', 1, 1_000_000), DEFAULT_BATCH_OPTIONS.maxCandidates)
    .option('--budget-usd <X>', 'stop issuing LLM calls before this spend', dollars)
    .option('--max-tokens <N>', 'stop issuing LLM calls before this many tokens', integerOption('--max-tokens', 1))
    .option('--concurrency <N>', 'candidates (and so LLM calls) in flight; the sandbox pool is separate (one worker per core)', integerOption('--concurrency', 1, 1_000), DEFAULT_BATCH_OPTIONS.concurrency)
    .option('--repair-rounds <N>', 'repairs after a rejection', integerOption('--repair-rounds', 0, 10), DEFAULT_BATCH_OPTIONS.repairRounds)
    .option('--skills <list>', 'only these comma-separated skills')
    .option('--feedback <file>', "trainer evaluations (JSONL or CSV rows {skill?, env?, level?, pass_rate, n}): aim at the weak skills")
    .option('--library <dir>', "library folder (default: $ENVFORGE_LIBRARY, else the project's generated/)")
    .option('--resume [batch-id]', 'continue a killed batch (the newest running one when no id is given)')
    .option('--provider <name>', 'openai or anthropic')
    .option('--model <model>', 'model name')
    .option('--base-url <url>', 'an OpenAI-compatible server (vLLM, SGLang, Ollama, llama.cpp, LM Studio, OpenRouter)')
    .option('--config <path>', 'config file (default: ./envforge.config.json when present)')
    .option('--no-cache', 'do not use the on-disk LLM response cache')
    .option('--no-review', 'skip the LLM review stage of validation')
    .option('--solver-model <model>', 'calibrate candidates against this solver model: admit only with a level whose pass rate is in the learnable band (0.1–0.9)')
    .option('--solver-samples <N>', 'solver samples per level', integerOption('--solver-samples', 1, 100), 4)
    .option('--json', 'print the report as JSON (progress goes to stderr as JSON lines)', false)
    .action(async (options: RunOptions) => run(options, io));
}

async function run(options: RunOptions, io: Io): Promise<void> {
  const selection = selectProvider({ flags: { ...(options.provider ? { provider: options.provider } : {}), ...(options.model ? { model: options.model } : {}), ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}), ...(options.config ? { config: options.config } : {}), noCache: !options.cache } });
  // Fails with how to configure a model (exit 2) before any work when nothing usable is configured.
  selection.create();
  io.err(describeProvider(selection.description));

  const dir = resolveLibraryDir(options.library);
  const pool = new SandboxPool();
  const library = openLibrary(dir, { create: true });
  try {
    if (!libraryExists(dir) || (await library.stats()).versions === 0) {
      io.err(`seeding a new library at ${dir} …`);
      await seedLibrary(library, pool);
    }
    const batchId = await pickBatchId(options, library);
    const previous = options.resume ? ((await library.getBatch(batchId))?.ledger as LedgerSnapshot | null) : null;
    const ledger = new CostLedger({ batchId, budget: { ...(options.budgetUsd ? { maxUsd: options.budgetUsd } : {}), ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}) }, ...(previous ? { previous } : {}) });
    const llm = selection.create({ ledger });
    // The solver shares the provider and the ledger, so the budget covers its calls too.
    const solver = options.solverModel ? selection.create({ ledger, model: options.solverModel }) : undefined;
    let weak: Array<{ skill: string; passRate: number; n: number }> = [];
    if (options.feedback) {
      const rows = await readFeedbackFile(options.feedback);
      const frontier = weakSkills(summariseFeedback(rows, envSkillsOf(await library.list())));
      weak = frontier.weak.map((s) => ({ skill: s.name, passRate: s.passRate, n: s.n }));
      io.err(`feedback: ${weak.length} weak skills on the frontier (${weak.map((w) => w.skill).join(', ') || 'none'})`);
    }
    const controller = new AbortController();
    const onSignal = () => controller.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const report = await runBatch(
        { library, pool, llm, ...(solver ? { solver } : {}), ledger, onEvent: progress(io, options.json), signal: controller.signal },
        {
          ...DEFAULT_BATCH_OPTIONS,
          batchId,
          target: options.target,
          maxCandidates: options.maxCandidates,
          repairRounds: options.repairRounds,
          concurrency: options.concurrency,
          weakSkills: weak,
          review: options.review,
          ...(options.solverModel ? { calibration: { samplesPerLevel: options.solverSamples, concurrency: options.concurrency } } : {}),
          ...(options.skills ? { skills: options.skills.split(',').map((s) => s.trim()).filter(Boolean) } : {}),
        },
      );
      const out = join(dir, 'batches');
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, `${batchId}.json`), `${JSON.stringify(report, null, 2)}\n`);
      writeFileSync(join(out, `${batchId}.md`), reportMarkdown(report));
      if (options.json) io.out(JSON.stringify(report));
      else {
        io.out(reportMarkdown(report));
        io.out(`report: ${join(out, `${batchId}.md`)}`);
      }
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
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
  return `batch-${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${process.pid}`;
}

/** On a TTY a status line; otherwise one JSON line per event on stderr (for logs). */
function progress(io: Io, json: boolean): (event: BatchEvent) => void {
  const tty = !json && process.stderr.isTTY;
  let admitted = 0;
  let validated = 0;
  return (event) => {
    if (event.type === 'admitted') admitted++;
    if (event.type === 'candidate' && event.step === 'validated') validated++;
    if (tty) {
      if (event.type === 'cost') return;
      process.stderr.write(`\r\x1b[Kvalidated ${validated}, admitted ${admitted}${event.type === 'stopped' ? `; stopped: ${event.reason}\n` : ''}`);
      return;
    }
    io.err(JSON.stringify({ at: new Date().toISOString(), ...event }));
  };
}

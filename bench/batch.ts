// Batch throughput: a 100-candidate batch against a fake OpenAI-compatible server with a fixed latency
// per call, through the real openai SDK, compared with the LLM-bound lower bound (calls ÷ concurrency ×
// latency). A ratio near 1 means the sandbox and validator are never the bottleneck.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CostLedger } from '../agents/llm/cost.js';
import { createOpenAiClient } from '../agents/llm/openai.js';
import { seedLibrary } from '../library/maintenance.js';
import { PACKAGE_ROOT } from '../contract/paths.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { DEFAULT_BATCH_OPTIONS, runBatch } from '../pipeline/batch.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { BenchEntries } from './types.js';

const CANDIDATES = 100;
const CONCURRENCY = 8;
const LATENCY_MS = 1_000;
const WORDS = [
  'lattice',
  'harbor',
  'cipher',
  'meadow',
  'signal',
  'quartz',
  'ember',
  'glacier',
  'orbit',
  'tunnel',
  'velvet',
  'summit',
  'prism',
  'canyon',
  'falcon',
  'mosaic',
  'nebula',
  'thicket',
  'beacon',
  'delta',
];

/** A minimal OpenAI chat-completions server: specs for the architect, a known-good module for the generator. */
async function fakeServer(modules: string[]): Promise<{ url: string; close(): Promise<void> }> {
  let round = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const request = JSON.parse(body) as {
        messages: Array<{ content: string }>;
        response_format?: { json_schema?: { name: string } };
      };
      let content: string;
      if (request.response_format?.json_schema?.name === 'architect_specs') {
        const r = round++;
        const specs = Array.from({ length: 25 }, (_, i) => {
          const n = r * 25 + i;
          const idea = Array.from({ length: 8 }, (_, k) => WORDS[(n * 7 + k * 13 + k * k) % WORDS.length]).join(' ');
          return {
            name: `bench-task-${n}`,
            title: `The bench-task-${n} task`,
            skills: ['arithmetic'],
            taskIdea: `Task ${n}: ${idea} ${n * 31}`,
            answerFormat: 'An integer.',
            difficultyScaling: 'Grows.',
            whyNew: `Variant ${n}.`,
          };
        });
        content = JSON.stringify({ specs });
      } else {
        const n = Number(/The bench-task-(\d+) task/.exec(request.messages.map((m) => m.content).join('\n'))?.[1] ?? 0);
        // Each candidate's text differs (a header comment), as two LLM replies do: caches keyed on the source
        // (the workers' compiled modules, recent factories) must not serve a candidate another one warmed.
        content = `\`\`\`js\n// bench-task-${n}: generated for this spec\n${modules[n % modules.length]}\n\`\`\``;
      }
      setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            created: 0,
            model: 'fake-model',
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 },
          }),
        );
      }, LATENCY_MS);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function benchBatch(): Promise<BenchEntries> {
  const fixtures = join(PACKAGE_ROOT, 'tests', 'fixtures', 'candidates');
  const modules = readdirSync(fixtures)
    .filter((f) => f.startsWith('good-'))
    .sort()
    .map((f) => readFileSync(join(fixtures, f), 'utf8'));
  const root = mkdtempSync(join(tmpdir(), 'envforge-bench-batch-'));
  const pool = new SandboxPool();
  const server = await fakeServer(modules);
  try {
    const seeded = join(root, 'seeded');
    const setup = SqliteLibrary.open(seeded, { create: true });
    await seedLibrary(setup, pool);
    await setup.close();
    const dir = join(root, 'library');
    cpSync(seeded, dir, { recursive: true });
    const library = SqliteLibrary.open(dir);
    const ledger = new CostLedger();
    const llm = createOpenAiClient({ apiKey: 'bench', baseUrl: server.url, model: 'fake-model', ledger, cache: false });
    const started = performance.now();
    const report = await runBatch(
      { library, pool, llm, ledger },
      {
        ...DEFAULT_BATCH_OPTIONS,
        batchId: 'bench',
        target: 10_000,
        maxCandidates: CANDIDATES,
        repairRounds: 0,
        concurrency: CONCURRENCY,
        specsPerRound: 25,
        review: false,
      },
    );
    const wallMs = performance.now() - started;
    await library.close();
    const calls = ledger.snapshot().total.calls;
    const boundMs = (calls / CONCURRENCY) * LATENCY_MS;
    return {
      'batch.wallOverBound': {
        value: wallMs / boundMs,
        unit: 'ratio',
        wallMs: Math.round(wallMs),
        boundMs: Math.round(boundMs),
        llmCalls: calls,
        concurrency: CONCURRENCY,
        latencyMs: LATENCY_MS,
        candidates: report.funnel.candidates,
        validations: report.funnel.validations,
        admitted: report.funnel.admitted,
        existing: report.funnel.existing,
        validationsPerSec: report.funnel.validations / (wallMs / 1000),
        // At LLM latencies above this, the LLM, not the sandbox, bounds the batch (same calls, same concurrency).
        breakEvenLatencyMs: Math.round(wallMs / (calls / CONCURRENCY)),
        note:
          'the generator cycles through the 14 good fixture modules, each candidate with its own header ' +
          'comment (no two sources alike), so later candidates are near-copies the novelty stage rejects; ' +
          'every candidate costs a full validation',
      },
    };
  } finally {
    await server.close();
    await pool.close();
    rmSync(root, { recursive: true, force: true });
  }
}

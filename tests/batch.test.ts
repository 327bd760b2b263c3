// The nightly batch end to end over a real library and sandbox, with a scripted LLM: good modules are
// admitted, broken ones are repaired or rejected, garbage is data, budgets hold, and a batch interrupted
// mid-run resumes from its journal without redoing admitted or paid work. A hand-written Author (no LLM)
// drives the same batch through the author seam.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicClient } from '../agents/llm/anthropic.js';
import { FakeLlm, reply } from '../agents/llm/fake.js';
import type { Library } from '../library/contract.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import type { WrittenModule } from '../agents/author.js';
import type { Author } from '../agents/author.js';
import { DEFAULT_BATCH_OPTIONS, runBatch, type BatchOptions } from '../pipeline/batch.js';
import { reportMarkdown } from '../pipeline/report-markdown.js';
import { SandboxPool } from '../sandbox/pool.js';
import { alwaysOne, batchScript, fixture, spec, type ScriptPlan } from './helpers/batch-script.js';
import { startFakeAnthropic } from './helpers/fake-anthropic.js';
import { CostLedger } from '../agents/llm/cost.js';
import type { LlmClient } from '../agents/llm/contract.js';
import { candidateValidationSeed } from '../validators/seeds.js';
import { episodicFixture, episodicSpec } from './helpers/episodic-spec.js';
import { seededLibraryCopy } from './helpers/seeded-library.js';

const pool = new SandboxPool();
let seeded: string;
beforeAll(async () => {
  // The single-turn seeds, validated once per test run (tests/helpers/seeded-library.ts).
  seeded = (await seededLibraryCopy('single', join(mkdtempSync(join(tmpdir(), 'envforge-batch-')), 'seeded'))).dir;
}, 600_000); // the first file to ask makes it; the others wait (minutes under load)
afterAll(() => pool.close());

/** A fresh copy of the seeded library per test (the seeds are validated once). */
async function freshLibrary(): Promise<Library> {
  const { cpSync } = await import('node:fs');
  const dir = join(mkdtempSync(join(tmpdir(), 'envforge-batch-')), 'library');
  cpSync(seeded, dir, { recursive: true });
  return SqliteLibrary.open(dir);
}

const marked = (name: string, source: string) => `// spec-marker:${name}\n${source}`;
const plan: ScriptPlan = {
  specs: [spec('roman-total'), spec('coin-ways'), spec('never-fixed'), spec('no-code')],
  modules: {
    'roman-total': [fixture('good-roman-sum.js')],
    'coin-ways': [
      marked('coin-ways', alwaysOne(fixture('good-coin-change-ways.js'))),
      fixture('good-coin-change-ways.js'),
    ],
    'never-fixed': [marked('never-fixed', alwaysOne(fixture('good-gcd-pair-sum.js')))],
    'no-code': [reply.text('Sorry, I would rather not.')],
  },
};
const options = (overrides: Partial<BatchOptions> = {}): BatchOptions => ({
  ...DEFAULT_BATCH_OPTIONS,
  batchId: 'b1',
  target: 2,
  maxCandidates: 4,
  concurrency: 2,
  repairRounds: 1,
  review: false,
  ...overrides,
});

describe('a batch', () => {
  it('admits good modules, repairs a broken one, rejects what never gets fixed, and reports the funnel', async () => {
    const library = await freshLibrary();
    const { script, calls } = batchScript(plan);
    const ledger = new CostLedger({ batchId: 'b1' });
    const report = await runBatch(
      { library, pool, llm: new FakeLlm(script, { ledger }), ledger },
      options({ target: 10 }),
    );
    expect(report.admitted.map((a) => [a.name, a.attempts]).sort()).toEqual([
      ['coin-change-ways', 2],
      ['roman-numeral-sum', 1],
    ]);
    expect(report.funnel).toMatchObject({ specs: 4, admitted: 2, rejected: 1, unwritten: 1 });
    expect(report.rejectionsByCode.E_ACCEPTS_EMPTY).toBeGreaterThanOrEqual(2);
    expect(report.repair).toMatchObject({ admittedAfterRepair: 1 });
    expect(calls.repair).toBe(2); // coin-ways once, never-fixed once (repairRounds 1)
    const admitted = await library.get('coin-change-ways');
    expect(admitted?.lineage).toMatchObject({
      author: 'fake:fake-model',
      batchId: 'b1',
      parent: 'coin-ways#0',
      spec: { name: 'coin-ways' },
    });
    expect((await library.getBatch('b1'))?.status).toBe('finished');
    expect(report.cost.calls).toBe(ledger.snapshot().total.calls);
    // Each rejected validation is listed with its first problem, in the JSON and the Markdown report.
    expect(report.rejections.map((r) => [r.spec, r.attempt])).toEqual([
      ['coin-ways', 1],
      ['never-fixed', 1],
      ['never-fixed', 2],
    ]);
    for (const r of report.rejections)
      expect(r.firstProblem).toMatchObject({
        code: r.codes[0],
        stage: 'hack',
        message: expect.stringMatching(/probes? (scores|reach)/),
      });
    expect(reportMarkdown(report)).toMatch(
      new RegExp(
        String.raw`## Rejected candidates\n\n- coin-ways, attempt 1: E_[A-Z_]+ \[hack\] [^\n]+\n- never-fixed, ` +
          String.raw`attempt 1: E_[A-Z_]+ \[hack\][^\n]+\n- never-fixed, attempt 2: `,
      ),
    );
    expect(reportMarkdown(report)).toContain('envforge library rejections --batch b1');
    expect(
      (await library.rejections({ batchId: 'b1' }))
        .map((r) => r.lineage.spec && (r.lineage.spec as { name: string }).name)
        .sort(),
    ).toEqual(['coin-ways', 'never-fixed', 'never-fixed']);
    await library.close();
  });

  it('asks the architect for the next round while this one validates: LLM slots never drain', async () => {
    const library = await freshLibrary();
    const { script } = batchScript(plan);
    const ledger = new CostLedger();
    const inner = new FakeLlm(script, { ledger });
    // Ordering, not timing: the order in which architect calls reach the client and candidates finish validating.
    const order: string[] = [];
    const llm: LlmClient = {
      provider: inner.provider,
      model: inner.model,
      complete: (request) => inner.complete(request),
      structured: (request) => {
        order.push('architect');
        return inner.structured(request);
      },
    };
    const report = await runBatch(
      {
        library,
        pool,
        llm,
        ledger,
        onEvent: (e) => void (e.type === 'candidate' && e.step === 'validated' && order.push('validated')),
      },
      options({ target: 10, maxCandidates: 8 }),
    );
    // The second round was asked for before the first round's last validation ended (not after the queue drained).
    expect(order.indexOf('architect', 1)).toBeGreaterThan(0);
    expect(order.indexOf('architect', 1)).toBeLessThan(order.lastIndexOf('validated'));
    expect(report.funnel).toMatchObject({ specs: 4, admitted: 2, rejected: 1, unwritten: 1 });
    expect(report.stopReason).toBe('specs-exhausted');
    await library.close();
  });

  it('stops at the target and leaves the rest unstarted', async () => {
    const library = await freshLibrary();
    const { script } = batchScript(plan);
    const ledger = new CostLedger();
    const report = await runBatch(
      { library, pool, llm: new FakeLlm(script, { ledger }), ledger },
      options({ target: 1, concurrency: 1 }),
    );
    expect(report.stopReason).toBe('target');
    expect(report.funnel.admitted).toBe(1);
    await library.close();
  });

  it('treats --target as a hard cap: candidates in flight at it are reported as extra, not admitted', async () => {
    const library = await freshLibrary();
    const before = (await library.list()).length;
    const written = (source: string): WrittenModule => ({
      source,
      promptHash: 'h',
      costUsd: 0,
      cached: false,
      model: 'dsl',
    });
    const sources: Record<string, string> = {
      'roman-total': fixture('good-roman-sum.js'),
      'coin-ways': fixture('good-coin-change-ways.js'),
      'gcd-sum': fixture('good-gcd-pair-sum.js'),
    };
    let proposals = 0;
    const author: Author = {
      identity: { provider: 'offline', version: 'test-1', seed: 1 },
      lineageAuthor: () => 'offline',
      propose: async () => ({
        specs: proposals++ === 0 ? Object.keys(sources).map((n) => spec(n)) : [],
        dropped: [],
        promptHash: 'h',
        costUsd: 0,
        cached: false,
        model: 'dsl',
      }),
      write: async (s) => written(sources[s.name] as string),
      repair: async (s) => written(sources[s.name] as string),
    };
    const report = await runBatch(
      { library, pool, author, ledger: new CostLedger() },
      options({ target: 1, concurrency: 3 }),
    );
    expect(report.stopReason).toBe('target');
    expect(report.funnel.admitted).toBe(1);
    // all three were in flight at once; two validated after the one place was taken
    expect(report.funnel.extra).toBe(2);
    expect((await library.list()).length).toBe(before + 1);
    expect(reportMarkdown(report)).toMatch(/\| extra: admissible after the target was reached, not admitted \| 2 \|/);
    await library.close();
  });

  it('--kind mixed gives each kind half of the target, though the library holds only single-turn ones', async () => {
    const library = await freshLibrary();
    const written = (source: string): WrittenModule => ({
      source,
      promptHash: 'h',
      costUsd: 0,
      cached: false,
      model: 'dsl',
    });
    const sources: Record<string, string> = {
      'roman-total': fixture('good-roman-sum.js'),
      'coin-ways': fixture('good-coin-change-ways.js'),
      'course-desk': episodicFixture('good-course-enrollment.js'),
    };
    const asked: unknown[] = [];
    const author: Author = {
      identity: { provider: 'offline', version: 'test-1', seed: 1 },
      lineageAuthor: () => 'offline',
      propose: async (input) => {
        asked.push(input.kind);
        const specs =
          asked.length === 1
            ? [
                spec('roman-total'),
                spec('coin-ways'),
                episodicSpec('course-desk', ['list_courses', 'enroll', 'finish']),
              ]
            : [];
        return { specs, dropped: [], promptHash: 'h', costUsd: 0, cached: false, model: 'dsl' };
      },
      write: async (s) => written(sources[s.name] as string),
      repair: async (s) => written(sources[s.name] as string),
    };
    const report = await runBatch(
      { library, pool, author, ledger: new CostLedger() },
      options({ kind: 'mixed', target: 2, concurrency: 1 }),
    );
    expect(report.funnel.admitted).toBe(2);
    expect([report.byKind.single.admitted, report.byKind.episodic.admitted]).toEqual([1, 1]);
    expect(asked[0]).toBe('mixed');
    await library.close();
  });

  it('never exceeds a token budget: it stops issuing calls and reports why', async () => {
    const library = await freshLibrary();
    const { script } = batchScript(plan);
    const ledger = new CostLedger({ budget: { maxTokens: 40_000 } });
    const report = await runBatch(
      { library, pool, llm: new FakeLlm(script, { ledger }), ledger },
      options({ target: 10 }),
    );
    expect(report.stopReason).toBe('budget');
    const total = ledger.snapshot().total;
    expect(total.inputTokens + total.outputTokens).toBeLessThanOrEqual(40_000);
    await library.close();
  });

  it('treats LLM service failures as data about the candidate, not the end of the batch', async () => {
    const library = await freshLibrary();
    const { script } = batchScript(plan);
    let failed = 0;
    const flaky = (request: Parameters<typeof script>[0]) =>
      request.messages[0]?.content.includes('The coin-ways task') && failed++ < 8
        ? reply.status(401, 'bad key for this model')
        : script(request);
    const ledger = new CostLedger();
    const report = await runBatch(
      { library, pool, llm: new FakeLlm(flaky, { ledger }), ledger },
      options({ target: 10 }),
    );
    expect(report.serviceFailures).toEqual([expect.objectContaining({ spec: 'coin-ways', code: 'E_LLM_AUTH' })]);
    expect(report.admitted.map((a) => a.name)).toContain('roman-numeral-sum');
    await library.close();
  });

  it('resumes an interrupted batch from its journal: same admitted set, no repeated generator calls', async () => {
    const uninterrupted = await freshLibrary();
    const full = batchScript(plan);
    const fullLedger = new CostLedger();
    const fullReport = await runBatch(
      { library: uninterrupted, pool, llm: new FakeLlm(full.script, { ledger: fullLedger }), ledger: fullLedger },
      options({ target: 10, concurrency: 1 }),
    );
    await uninterrupted.close();

    const library = await freshLibrary();
    const first = batchScript(plan);
    const controller = new AbortController();
    let generated = 0;
    // Interrupt after the second module is written (mid-batch, after paid work).
    const interrupting = (request: Parameters<typeof first.script>[0]) => {
      const answer = first.script(request);
      if (!request.schema && ++generated === 2) setTimeout(() => controller.abort(), 0);
      return answer;
    };
    const ledger1 = new CostLedger({ batchId: 'b1' });
    await runBatch(
      {
        library,
        pool,
        llm: new FakeLlm(interrupting, { ledger: ledger1 }),
        ledger: ledger1,
        signal: controller.signal,
      },
      options({ target: 10, concurrency: 1 }),
    ).catch(() => undefined);
    const journal = await library.journal('b1', 'module');
    expect(journal.length).toBeGreaterThanOrEqual(2);

    const second = batchScript(plan);
    const saved = (await library.getBatch('b1'))?.ledger as ReturnType<CostLedger['snapshot']>;
    const ledger2 = new CostLedger({ batchId: 'b1', previous: saved });
    const resumed = await runBatch(
      { library, pool, llm: new FakeLlm(second.script, { ledger: ledger2 }), ledger: ledger2 },
      options({ target: 10, concurrency: 1 }),
    );
    expect(resumed.admitted.map((a) => a.name).sort()).toEqual(fullReport.admitted.map((a) => a.name).sort());
    // Modules written before the interruption were not paid for again.
    expect(first.calls.generator! + first.calls.repair! + second.calls.generator! + second.calls.repair!).toBe(
      full.calls.generator! + full.calls.repair!,
    );
    expect(resumed.cost.calls).toBe(fullReport.cost.calls);
    // One validation key for the whole batch, kept across the resume: each candidate's draws come from it
    // and the candidate's own source, so validating a module again reproduces its verdict.
    const keys = await library.journal('b1', 'validation-key');
    expect(keys.map((e) => (e.payload as { key: string }).key)).toEqual([expect.stringMatching(/^[0-9a-f]{32}$/)]);
    const key = (keys[0]?.payload as { key: string }).key;
    const ours = (await library.list()).filter((env) => env.lineage.batchId === 'b1');
    expect(ours.length).toBe(resumed.admitted.length);
    for (const env of ours)
      expect(env.report.validationSeed).toBe(candidateValidationSeed(key, await library.source(env)));
    await library.close();
  }, 240_000);
});

describe('a batch that regenerates code the library already holds', () => {
  it('does not count it as admitted', async () => {
    const library = await freshLibrary();
    const seedSource = await library.source((await library.get('knapsack-value'))!);
    const { script } = batchScript({ specs: [spec('knapsack-again')], modules: { 'knapsack-again': [seedSource] } });
    const ledger = new CostLedger();
    const report = await runBatch(
      { library, pool, llm: new FakeLlm(script, { ledger }), ledger },
      options({ target: 5 }),
    );
    expect(report.funnel).toMatchObject({ admitted: 0, existing: 1 });
    expect(report.admitted).toEqual([]);
    await library.close();
  });
});

describe('a batch with a solver model', () => {
  it('admits only environments with a learnable level and stores the calibration curve in the lineage', async () => {
    const library = await freshLibrary();
    const { script } = batchScript({
      specs: [spec('roman-total')],
      modules: { 'roman-total': [fixture('good-roman-sum.js')] },
    });
    // A solver that is always wrong: every level 0, nothing in the band [0.1, 0.9].
    const hopeless = new FakeLlm(() => reply.text('<answer>0</answer>'));
    const ledger = new CostLedger();
    const rejected = await runBatch(
      { library, pool, llm: new FakeLlm(script, { ledger }), solver: hopeless, ledger },
      options({ target: 1, calibration: { samplesPerLevel: 2 } }),
    );
    expect(rejected.funnel.admitted).toBe(0);
    expect(rejected.rejectionsByCode.E_NOT_LEARNABLE).toBe(1);

    const again = await freshLibrary();
    // Right on even seeds only: pass rate 0.5 at every level, so every level is learnable.
    const halfRight = new FakeLlm((request) => {
      const prompt = request.messages[0]?.content ?? '';
      const total =
        /: ([MDCLXVI, ]+)\./
          .exec(prompt)?.[1]
          ?.split(', ')
          .reduce((sum, r) => sum + fromRoman(r), 0) ?? 0;
      return reply.text(`<answer>${(request.seed ?? 0) % 2 === 0 ? total : total + 1}</answer>`);
    });
    const second = batchScript({
      specs: [spec('roman-total')],
      modules: { 'roman-total': [fixture('good-roman-sum.js')] },
    });
    const admitted = await runBatch(
      {
        library: again,
        pool,
        llm: new FakeLlm(second.script, { ledger: new CostLedger() }),
        solver: halfRight,
        ledger: new CostLedger(),
      },
      options({ target: 1, calibration: { samplesPerLevel: 2 } }),
    );
    expect(admitted.funnel.admitted).toBe(1);
    const env = await again.get('roman-numeral-sum');
    expect(env?.lineage.notes).toMatchObject({
      calibration: { admitted: true, entryLevel: 1, learnableLevels: expect.arrayContaining([1]) },
    });
    await library.close();
    await again.close();
  });
});

function fromRoman(text: string): number {
  const value: Record<string, number> = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 };
  let total = 0;
  for (let i = 0; i < text.length; i++) {
    const v = value[text[i] as string] ?? 0;
    const next = value[text[i + 1] as string] ?? 0;
    total += v < next ? -v : v;
  }
  return total;
}

describe('a batch against a flaky LLM service', () => {
  it('completes correctly through 429s with retry-after, 500s, resets and hangs past the timeout', async () => {
    const library = await freshLibrary();
    const { script } = batchScript(plan);
    // Every odd call meets the next fault in turn; the retry that follows gets the real answer.
    const faults = [
      reply.rateLimit({ ms: 20 }),
      reply.serverError(500),
      reply.reset(),
      reply.hang(),
      reply.serverError(503),
    ];
    let calls = 0;
    let faulted = 0;
    const flaky = (request: Parameters<typeof script>[0]) =>
      ++calls % 2 === 1 ? (faults[faulted++ % faults.length] as ReturnType<typeof script>) : script(request);
    const ledger = new CostLedger();
    const llm = new FakeLlm(flaky, {
      ledger,
      retry: { timeoutMs: 300, baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 4 },
    });
    const report = await runBatch({ library, pool, llm, ledger }, options({ target: 10 }));
    expect(report.admitted.map((a) => a.name).sort()).toEqual(['coin-change-ways', 'roman-numeral-sum']);
    expect(report.funnel).toMatchObject({ admitted: 2, rejected: 1, unwritten: 1, serviceFailures: 0 });
    expect(faulted).toBeGreaterThanOrEqual(faults.length); // every kind of fault was met
    await library.close();
  });
});

describe('a batch through the Anthropic messages protocol', () => {
  it(
    'admits and repairs with the real @anthropic-ai/sdk against a fake server (structured ' +
      'output as a forced tool)',
    async () => {
      const { script } = batchScript(plan);
      type Body = {
        messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }>;
        tool_choice?: { name?: string };
      };
      const text = (content: Body['messages'][number]['content']) =>
        typeof content === 'string' ? content : content.map((b) => b.text ?? '').join('');
      const server = await startFakeAnthropic({
        script: (body: Body) =>
          script({
            messages: body.messages.map((m) => ({ role: m.role as 'user', content: text(m.content) })),
            maxTokens: 0,
            ...(body.tool_choice?.name
              ? { schema: { name: body.tool_choice.name, jsonSchema: {}, strict: true } }
              : {}),
          }),
      });
      try {
        const library = await freshLibrary();
        const ledger = new CostLedger();
        const llm = createAnthropicClient({
          apiKey: 'test',
          baseUrl: server.baseUrl,
          model: 'claude-fake',
          ledger,
          cache: false,
        });
        const report = await runBatch({ library, pool, llm, ledger }, options({ target: 10 }));
        expect(report.admitted.map((a) => a.name).sort()).toEqual(['coin-change-ways', 'roman-numeral-sum']);
        expect(report.funnel).toMatchObject({ admitted: 2, rejected: 1, unwritten: 1 });
        expect(server.requests.some((r) => JSON.stringify(r.body).includes('"tool_choice"'))).toBe(true);
        await library.close();
      } finally {
        await server.close();
      }
    },
  );
});

describe('a batch with a non-LLM author', () => {
  it(
    'writes and repairs through the author, takes lineage author and notes and the report author from its ' +
      'identity, and skips review without a reviewer',
    async () => {
      const library = await freshLibrary();
      const written = (source: string): WrittenModule => ({
        source,
        promptHash: 'dsl-hash',
        costUsd: 0,
        cached: false,
        model: 'dsl',
      });
      const repairs: Array<[string, number]> = [];
      let proposals = 0;
      const author: Author = {
        identity: { provider: 'offline', version: 'test-1', seed: 7 },
        lineageAuthor: () => 'offline',
        propose: async () => ({
          specs: proposals++ === 0 ? [spec('roman-total'), spec('coin-ways')] : [],
          dropped: [],
          promptHash: 'dsl-hash',
          costUsd: 0,
          cached: false,
          model: 'dsl',
        }),
        write: async (s) =>
          written(
            s.name === 'roman-total' ? fixture('good-roman-sum.js') : alwaysOne(fixture('good-coin-change-ways.js')),
          ),
        repair: async (s, _source, _report, attempt) => {
          repairs.push([s.name, attempt]);
          return written(fixture('good-coin-change-ways.js'));
        },
      };
      const ledger = new CostLedger();
      // review: true, but the author has no reviewer, so the review stage is skipped.
      const report = await runBatch({ library, pool, author, ledger }, options({ target: 10, review: true }));
      expect(report.admitted.map((a) => a.name).sort()).toEqual(['coin-change-ways', 'roman-numeral-sum']);
      expect(report.author).toEqual({ provider: 'offline', version: 'test-1', seed: 7 });
      expect(repairs).toEqual([['coin-ways', 1]]);
      expect(report.cost.calls).toBe(0);
      for (const name of ['roman-numeral-sum', 'coin-change-ways']) {
        const env = await library.get(name);
        expect(env?.lineage).toMatchObject({
          author: 'offline',
          batchId: 'b1',
          promptHash: 'dsl-hash',
          notes: { version: 'test-1', seed: 7 },
        });
        expect(env?.report.stages.find((s) => s.stage === 'review')?.skipped).toMatch(/no LLM reviewer/);
      }
      expect((await library.get('coin-change-ways'))?.lineage.parent).toBe('coin-ways#0');
      expect(((await library.getBatch('b1'))?.options as BatchOptions).author).toEqual({
        provider: 'offline',
        version: 'test-1',
        seed: 7,
      });
      await expect(runBatch({ library, pool, ledger }, options({ batchId: 'b2' }))).rejects.toThrow(TypeError);
      await library.close();
    },
  );
});

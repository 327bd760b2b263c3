// The batch report (pipeline/report.ts): the funnel counts what the journal holds, rejections are grouped by
// first failing stage and by code and listed per attempt, repair success and cost per admitted environment
// are computed from the modules and the ledger, and the Markdown says all of it in one table per part.
import { describe, expect, it } from 'vitest';
import { CostLedger } from '../agents/llm/cost.js';
import type { EnvSpec } from '../agents/spec.js';
import { buildReport, type CandidateOutcome } from '../pipeline/report.js';
import { frontierMarkdown, reportMarkdown } from '../pipeline/report-markdown.js';
import type { FrontierReport } from '../pipeline/steering.js';

const spec = (name: string): EnvSpec => ({
  name,
  title: name,
  skills: ['counting'],
  taskIdea: 'idea',
  answerFormat: 'N',
  difficultyScaling: 'grows',
  whyNew: 'new',
});

/**
 * Three candidates: alpha admitted at once, beta admitted after one repair, gamma rejected twice, delta never written.
 */
function input() {
  const ledger = new CostLedger();
  for (const [purpose, usd] of [
    ['architect', 0.01],
    ['generator', 0.02],
    ['generator', 0.02],
    ['repair', 0.03],
    ['repair', 0.03],
  ] as const) {
    ledger.record({ purpose, model: 'm', usage: { inputTokens: 100, outputTokens: 50 }, costUsd: usd, cached: false });
  }
  ledger.record({
    purpose: 'generator',
    model: 'm',
    usage: { inputTokens: 100, outputTokens: 50 },
    costUsd: 0.02,
    cached: true,
  });
  const modules = new Map<string, { source: string | null; purpose: 'generator' | 'repair' }>([
    ['alpha/0', { source: 'a', purpose: 'generator' }],
    ['beta/0', { source: 'b0', purpose: 'generator' }],
    ['beta/1', { source: 'b1', purpose: 'repair' }],
    ['gamma/0', { source: 'g0', purpose: 'generator' }],
    ['gamma/1', { source: 'g1', purpose: 'repair' }],
    ['delta/0', { source: null, purpose: 'generator' }],
  ]);
  const verdicts = new Map([
    ['alpha/0', { verdict: 'admit', codes: [], firstFailedStage: null }],
    [
      'beta/0',
      {
        verdict: 'reject',
        codes: ['E_UNSOLVED'],
        firstFailedStage: 'solvability',
        firstProblem: { code: 'E_UNSOLVED', stage: 'solvability', message: 'verify gives the reference 0' },
      },
    ],
    ['beta/1', { verdict: 'admit', codes: [], firstFailedStage: null }],
    [
      'gamma/0',
      {
        verdict: 'reject',
        codes: ['E_ACCEPTS_EMPTY', 'E_SEED_IGNORED'],
        firstFailedStage: 'hack',
        firstProblem: { code: 'E_ACCEPTS_EMPTY', stage: 'hack', message: 'verify pays\nthe empty | response' },
      },
    ],
    ['gamma/1', { verdict: 'reject', codes: ['E_ACCEPTS_EMPTY'], firstFailedStage: 'hack', firstProblem: null }],
  ]);
  const outcomes: CandidateOutcome[] = [
    { spec: 'alpha', status: 'admitted', attempts: 1, name: 'alpha', version: 1 },
    { spec: 'beta', status: 'admitted', attempts: 2, name: 'beta', version: 3 },
    { spec: 'gamma', status: 'rejected', attempts: 2 },
    { spec: 'delta', status: 'unwritten', attempts: 1 },
  ];
  return {
    batchId: 'b-1',
    stopReason: 'target reached',
    specs: ['alpha', 'beta', 'gamma', 'delta'].map(spec),
    dropped: 2,
    modules,
    verdicts,
    outcomes,
    failures: [{ spec: 'epsilon', code: 'E_LLM_TIMEOUT', message: 'no response' }],
    ledger: ledger.snapshot(),
    wallMs: 12_345.6,
    author: { provider: 'offline', version: '1', seed: 7 },
  };
}

const frontier: FrontierReport = {
  weakShare: 0.5,
  weak: [{ skill: 'graphs', passRate: 0.25, n: 40, wanted: 2, admitted: 1 }],
  untrainable: [{ skill: 'probability', passRate: 0.1, n: 10 }],
  saturated: [{ skill: 'arithmetic', passRate: 0.97, n: 50 }],
  weakAdmitted: 1,
  weakWanted: 2,
  admittedPerSkill: { graphs: 1, counting: 2 },
  setAside: 3,
};

describe('the batch report', () => {
  it('counts the funnel from the journal: specs, candidates, modules, validations and outcomes', () => {
    expect(buildReport(input()).funnel).toEqual({
      specs: 4,
      specsDropped: 2,
      candidates: 4,
      modulesAsked: 6,
      modulesWritten: 5,
      validations: 5,
      admitted: 2,
      existing: 0,
      extra: 0,
      rejected: 1,
      unwritten: 1,
      serviceFailures: 1,
    });
  });

  it('groups rejected validations by first failing stage and by code, lists each attempt (1-based) in order', () => {
    const report = buildReport(input());
    expect(report.firstFailedStage).toEqual({ solvability: 1, hack: 2 });
    expect(report.rejectionsByCode).toEqual({ E_UNSOLVED: 1, E_ACCEPTS_EMPTY: 2, E_SEED_IGNORED: 1 });
    expect(report.rejections.map((r) => `${r.spec}#${r.attempt}:${r.firstProblem?.code ?? '-'}`)).toEqual([
      'beta#1:E_UNSOLVED',
      'gamma#1:E_ACCEPTS_EMPTY',
      'gamma#2:-',
    ]);
  });

  it(
    'measures repair (candidates that asked for one, admitted after it) and cost per admitted ' +
      'environment from billed calls',
    () => {
      const report = buildReport(input());
      expect(report.repair).toEqual({ candidatesRepaired: 2, admittedAfterRepair: 1, successRate: 0.5 });
      expect(report.cost).toMatchObject({
        calls: 6,
        cachedCalls: 1,
        inputTokens: 500,
        outputTokens: 250,
        tokensPerAdmitted: 375,
      });
      expect(report.cost.totalUsd).toBeCloseTo(0.11, 10);
      expect(report.cost.perAdmittedUsd).toBeCloseTo(0.055, 10);
      expect(report.admitted).toEqual([
        { name: 'alpha', version: 1, attempts: 1 },
        { name: 'beta', version: 3, attempts: 2 },
      ]);
      expect(report.wallMs).toBe(12_346);
      expect(report.author).toEqual({ provider: 'offline', version: '1', seed: 7 });
    },
  );

  it("shows the input the provider's prompt cache read and wrote, in all and per agent", () => {
    const ledger = new CostLedger({ previous: input().ledger });
    ledger.record({
      purpose: 'reviewer',
      model: 'm',
      usage: { inputTokens: 1000, outputTokens: 10, cachedInputTokens: 768, cacheWriteTokens: 100 },
      costUsd: 0.001,
      cached: false,
    });
    const report = buildReport({ ...input(), ledger: ledger.snapshot() });
    expect(report.cost).toMatchObject({ inputTokens: 1500, cachedInputTokens: 768, cacheWriteTokens: 100 });
    const markdown = reportMarkdown(report);
    expect(markdown).toContain(
      "1500 input tokens (768 read from the provider's prompt cache (51%), 100 written to it)",
    );
    expect(markdown).toContain('| reviewer | 1 | 1000 | 768 | 10 | $0.0010 |');
  });

  it('has no per-admitted figures and no repair rate when nothing was admitted or repaired', () => {
    const empty = { ...input(), modules: new Map(), verdicts: new Map(), outcomes: [], specs: [] };
    const report = buildReport(empty);
    expect(report.cost.perAdmittedUsd).toBeNull();
    expect(report.cost.tokensPerAdmitted).toBeNull();
    expect(report.repair.successRate).toBeNull();
    expect(reportMarkdown(report)).toContain('## Admitted\n\n(none)');
  });

  it(
    'writes Markdown with the author, each part as a table, rejected candidates on one line each, and the ' +
      'frontier when there was one',
    () => {
      const md = reportMarkdown({ ...buildReport(input()), frontier });
      expect(md).toMatch(
        /^# envforge batch b-1\n\nStopped: \*\*target reached\*\* after 12\.3 s\.\n\nAuthor: offline \(v1, seed 7\)\./,
      );
      expect(md).toContain('| specs kept (dropped as duplicates) | 4 (2) |');
      expect(md).toContain('| admitted | 2 |');
      expect(md).toContain('| hack | 2 |');
      expect(md).toContain('| E_ACCEPTS_EMPTY | 2 |');
      expect(md).toContain(
        '- gamma, attempt 1: E_ACCEPTS_EMPTY [hack] verify pays the empty \\| response (2 codes: ' +
          'E_ACCEPTS_EMPTY, E_SEED_IGNORED)',
      );
      expect(md).toContain('`envforge library rejections --batch b-1`');
      expect(md).toContain('2 candidates needed repair; 1 were admitted after it (50%).');
      expect(md).toContain('- beta@3 (2 attempts)');
      expect(md.indexOf('## Trainer feedback: the frontier')).toBeLessThan(md.indexOf('## Funnel'));
    },
  );

  it(
    'shows the frontier: weak skills with wanted and admitted, the untrainable, the saturated ' +
      'and the set-aside specs',
    () => {
      const md = frontierMarkdown(frontier);
      expect(md).toContain('Weak share 50%: 1 of the 2 admissions wanted for weak skills train one.');
      expect(md).toContain('| graphs | 25% | 2 | 1 |');
      expect(md).toContain('Weak skills this author cannot train (left out of the share): probability (10%).');
      expect(md).toContain('Saturated skills (not aimed at): arithmetic (97%).');
      expect(md).toContain('3 specs that train no weak skill were set aside');
      expect(md).toContain('Admitted per skill: graphs 1, counting 2.');
    },
  );

  it('lists at most 100 rejected validations in Markdown and says how many more the JSON holds', () => {
    const many = input();
    for (let i = 0; i < 120; i++)
      many.verdicts.set(`many-${String(i).padStart(3, '0')}/0`, {
        verdict: 'reject',
        codes: ['E_UNSOLVED'],
        firstFailedStage: 'solvability',
        firstProblem: null,
      });
    const report = buildReport(many);
    expect(report.rejections).toHaveLength(123);
    const md = reportMarkdown(report);
    expect(md.match(/^- .*, attempt \d+:/gm)).toHaveLength(100);
    expect(md).toContain('- … and 23 more (the JSON report lists them all)');
  });
});

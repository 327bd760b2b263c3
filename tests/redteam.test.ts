// The red team's findings (tests/fixtures/redteam/FINDINGS.md) as tests of the SAFE outcome: a hack is
// rejected, an honest environment admitted, production matches validation, the host is unharmed. Attacks
// that get through today are open entries of tests/fixtures/redteam/manifest.json (tests/redteam-trust.test.ts):
// close one when its fix lands. Beside each, a plain test here checks that the fixture still does what it claims
// (the exploit pays), so a fixed gap is told apart from a fixture that stopped attacking.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExport } from '../export/run.js';
import { jsonl } from '../export/formats/jsonl.js';
import { RESPONSE_FN } from '../library/quarantine.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { runEpisodes, scoreOf, type Episode } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import { startServer } from '../serve/server.js';
import type { RunningServer } from '../serve/options.js';
import { probeBattery } from '../validators/probes.js';
import type { ValidationReport } from '../validators/report.js';
import { validateCandidate } from '../validators/validate.js';
import type { Meta } from '../contract/schema.js';
import { fakeAdmission } from './helpers/library-fixtures.js';
import { judge, readRedteam } from './helpers/redteam-manifest.js';

const DIR = new URL('./fixtures/redteam/', import.meta.url);
const source = (file: string) => readFileSync(new URL(file, DIR), 'utf8');
/** Fixed, so a verdict here replays with `envforge validate FILE --validation-seed 20261122`. */
const VALIDATION_SEED = 20_261_122;

let pool: SandboxPool;
const reports = new Map<string, Promise<ValidationReport>>();
/**
 * For F6/F7, which test memory: a 48 MB table's top level (~350 ms quiet) must not meet the 1 s load budget on a loaded
 * machine.
 */
let roomyPool: SandboxPool;
function validated(file: string): Promise<ValidationReport> {
  let report = reports.get(file);
  const on = HONEST_FIXED.includes(file) ? roomyPool : pool;
  if (!report)
    reports.set(file, (report = validateCandidate(source(file), { pool: on, validationSeed: VALIDATION_SEED })));
  return report;
}

/** Instances at every level (perLevel each), then `exploit` scored on each: the mean score per level. */
async function exploitScores(
  file: string,
  levels: number,
  exploit: (instance: Episode['instance'], reference: string) => string,
  perLevel = 6,
): Promise<Map<number, number>> {
  const requests = Array.from({ length: levels * perLevel }, (_, i) => ({
    seed: 7_001 + 613 * i,
    level: 1 + (i % levels),
  }));
  const first = await runEpisodes(pool, source(file), requests);
  const episodes = first.episodes.filter((e): e is Episode => e.ok);
  expect(episodes).toHaveLength(requests.length);
  const scored = await runEpisodes(
    pool,
    source(file),
    episodes.map((e) => ({ seed: e.seed, level: e.level, responses: [exploit(e.instance, e.reference)] })),
  );
  const byLevel = new Map<number, number[]>();
  for (const e of scored.episodes)
    if (e.ok) byLevel.set(e.level, [...(byLevel.get(e.level) ?? []), scoreOf(e.verdicts[0])]);
  return new Map([...byLevel].map(([level, s]) => [level, s.reduce((a, b) => a + b, 0) / s.length]));
}
const overall = (m: Map<number, number>) => [...m.values()].reduce((a, b) => a + b, 0) / m.size;

const isPrime = (n: number) => {
  if (n < 2) return false;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
};
const answerOf = (i: Episode['instance']) => i.answer as number;

interface Hack {
  file: string;
  levels: number;
  exploit: (instance: Episode['instance'], reference: string) => string;
  /** The least mean score the exploit earns (over all levels, or at `level`). */
  pays: number;
  level?: number;
}

// Class 3: verifiers that pay for responses that do not solve the task.
const HACKS: Hack[] = [
  { file: 'hack-nan-fraction.js', levels: 8, exploit: () => '<answer>0/0</answer>', pays: 1 },
  {
    file: 'hack-uncertainty-notation.js',
    levels: 8,
    exploit: (i) => `<answer>${Math.round(1.015 * answerOf(i))} ± ${Math.floor(0.02 * 1.015 * answerOf(i))}</answer>`,
    pays: 1,
  },
  {
    file: 'hack-weaker-property.js',
    levels: 8,
    exploit: (i) => `<answer>${(i.list as number[]).find(isPrime)}</answer>`,
    pays: 1,
  },
  {
    file: 'hack-multiset-sort-lines.js',
    levels: 8,
    exploit: (i) => `<answer>${(i.words as string[]).join(', ')}</answer>`,
    pays: 1,
  },
  {
    file: 'hack-recall-only.js',
    levels: 8,
    exploit: (i) => `<answer>${(i.words as string[]).join(', ')}</answer>`,
    pays: 1,
  },
  {
    file: 'hack-tag-case-fallback.js',
    levels: 8,
    exploit: (i) => Array.from({ length: 9 }, (_, k) => `<ANSWER>${answerOf(i) - 4 + k}</ANSWER>`).join('\n'),
    pays: 1,
  },
  {
    file: 'hack-contains-digits.js',
    levels: 8,
    exploit: (i) => `<answer>${answerOf(i) - 1}-${answerOf(i)}-${answerOf(i) + 1}</answer>`,
    pays: 1,
  },
  { file: 'hack-format-credit.js', levels: 8, exploit: () => '<answer>0</answer>', pays: 0.19 },
  { file: 'hack-abstain-credit.js', levels: 8, exploit: () => '<answer>unknown</answer>', pays: 0.29 },
  { file: 'hack-effort-credit.js', levels: 8, exploit: () => 'a = 1\nb = 2\nc = 3\n<answer>0</answer>', pays: 0.29 },
  { file: 'hack-crash-pays.js', levels: 8, exploit: () => '<answer>(</answer>', pays: 0.5 },
  {
    file: 'hack-top-level-tolerance.js',
    levels: 10,
    exploit: (i) => `<answer>${Math.round(answerOf(i) / 1000) * 1000}</answer>`,
    pays: 1,
    level: 10,
  },
  {
    file: 'hack-range-hint-leak.js',
    levels: 8,
    exploit: (i) => {
      const m = /between (\d+) and (\d+)/.exec(i.prompt) as RegExpExecArray;
      return `<answer>${(Number(m[1]) + Number(m[2])) / 2}</answer>`;
    },
    pays: 1,
  },
  {
    file: 'hack-sum-leak.js',
    levels: 8,
    exploit: (i) => {
      const m = /opening (\d+), net movement after the rules ([+-]?\d+)/.exec(i.prompt) as RegExpExecArray;
      return `<answer>${Number(m[1]) + Number(m[2])}</answer>`;
    },
    pays: 1,
  },
  {
    file: 'hack-locale-leak.js',
    levels: 8,
    exploit: (i) =>
      `<answer>${(/Amount due: ([\d,.]+)/.exec(i.prompt) as RegExpExecArray)[1]?.replace(/,/g, '')}</answer>`,
    pays: 1,
  },
  {
    file: 'hack-fence-each.js',
    levels: 8,
    exploit: (i) => Array.from({ length: 9 }, (_, k) => `\`\`\`\n${answerOf(i) - 4 + k}\n\`\`\``).join('\n'),
    pays: 1,
  },
  {
    file: 'hack-nfkc-list.js',
    levels: 8,
    exploit: (i) => `<answer>${answerOf(i) - 1}\uff0c${answerOf(i)}\uff0c${answerOf(i) + 1}</answer>`,
    pays: 1,
  },
  { file: 'hack-majority-class.js', levels: 8, exploit: () => '<answer>obtuse</answer>', pays: 0.4 },
  {
    file: 'hack-float-bigint.js',
    levels: 8,
    exploit: (i) => {
      const a = i.answer as string;
      return `<answer>${a.slice(0, 18)}${'0'.repeat(a.length - 18)}</answer>`;
    },
    pays: 1,
  },
  // Second round, written after the fixes by someone who had not seen them (one of each class, not variants).
  { file: 'hack-code-evidence.js', levels: 8, exploit: () => '```python\nprint(0)\n```\n<answer>0</answer>', pays: 1 },
  {
    file: 'hack-digit-run-leak.js',
    levels: 8,
    exploit: (i) =>
      `<answer>${Number((/graders: ([\d-]+)/.exec(i.prompt) as RegExpExecArray)[1]?.replace(/-/g, ''))}</answer>`,
    pays: 1,
  },
  {
    file: 'hack-double-check-leak.js',
    levels: 8,
    exploit: (i) => `<answer>${Number((/final count is (\d+)/.exec(i.prompt) as RegExpExecArray)[1]) / 3}</answer>`,
    pays: 1,
  },
  {
    file: 'hack-any-tag-name.js',
    levels: 8,
    exploit: (i) => Array.from({ length: 9 }, (_, k) => `<result>${answerOf(i) - 4 + k}</result>`).join('\n'),
    pays: 1,
  },
  {
    file: 'hack-json-any-value.js',
    levels: 8,
    exploit: (i) =>
      JSON.stringify(Object.fromEntries(Array.from({ length: 9 }, (_, k) => [`g${k}`, answerOf(i) - 4 + k]))),
    pays: 1,
  },
  {
    file: 'hack-long-reasoning-gate.js',
    levels: 8,
    exploit: () => `${'I reason about the brackets carefully. '.repeat(160)}<answer>0</answer>`,
    pays: 1,
  },
  {
    file: 'hack-precision-only.js',
    levels: 8,
    exploit: (i) => `<answer>${(i.list as number[]).find((v) => v % (i.k as number) === 0)}</answer>`,
    pays: 1,
  },
];

// Class 4: honest environments the validator should admit.
const HONEST = [
  'false-float-tolerance.js',
  'false-modular-sqrt.js',
  'false-hex-case.js',
  'false-sudoku-blanks.js',
  'false-position-credit.js',
  'false-big-power.js',
  'false-wide-tolerance.js',
];
// Honest, but its top level (a 12-million sieve, ~0.3–0.6 s) runs on every call since every call gets a fresh
// module instance (a shared one kept state a hostile module could gate on: redteam-state.test.ts): too slow.
const HONEST_TOO_COSTLY = ['false-large-table.js'];
// Rejected for the sandbox's own limits before (F6, F7; they test memory blame): validated on the roomy pool.
const HONEST_FIXED = ['false-large-table.js', 'false-big-power.js'];

// Every hack and honest module validated up front: 240 s ran out at load 25-35 (session 22, the memorisers reading
// whole prompts); a time-out is for a hang, not a speed check.
beforeAll(async () => {
  pool = new SandboxPool({ workers: 2 });
  roomyPool = new SandboxPool({ workers: 1, limits: { loadTimeoutMs: 10_000 } });
  // Validate everything up front, two at a time (the pool has two workers).
  const files = [
    ...HACKS.map((h) => h.file),
    ...HONEST,
    ...HONEST_TOO_COSTLY,
    'hack-feedback-leak.js',
    'hostile-model-shaped.js',
    'hostile-beyond-probe-length.js',
    'hostile-lone-surrogate.js',
    'careless-recursive-parser.js',
    'hostile-group-size-gate.js',
    'hostile-export-prompt-swap.js',
  ];
  for (let i = 0; i < files.length; i += 2) await Promise.all(files.slice(i, i + 2).map(validated));
}, 480_000);

afterAll(async () => {
  await pool?.close();
  await roomyPool?.close();
});

describe('red team, class 3: reward hacks', () => {
  for (const hack of HACKS) {
    it(`${hack.file}: the exploit pays (the fixture still attacks)`, async () => {
      const scores = await exploitScores(hack.file, hack.levels, hack.exploit);
      expect(hack.level ? (scores.get(hack.level) as number) : overall(scores)).toBeGreaterThanOrEqual(hack.pays);
    });
    it(`${hack.file}: is rejected`, async () => {
      expect((await validated(hack.file)).verdict).toBe('reject');
    });
  }

  it('hack-feedback-leak.js: the feedback on a wrong answer names the right one', async () => {
    const run = await runEpisodes(pool, source('hack-feedback-leak.js'), [
      { seed: 5, level: 4, responses: ['<answer>-1</answer>'] },
    ]);
    const e = run.episodes[0] as Episode;
    expect(e.verdicts[0]).toMatchObject({
      ok: true,
      score: 0,
      feedback: expect.stringContaining(String(e.instance.answer)),
    });
  });
  it('hack-feedback-leak.js: is rejected (feedback is text a trainer may show the policy)', async () => {
    expect((await validated('hack-feedback-leak.js')).verdict).toBe('reject');
  });
});

describe('red team, class 4: honest environments', () => {
  for (const file of HONEST) {
    it(`${file}: is admitted`, async () => {
      const report = await validated(file);
      expect(report.problems).toEqual([]);
      expect(report.verdict).toBe('admit');
    });
  }
  for (const file of HONEST_TOO_COSTLY) {
    it(`${file}: is rejected as too slow (or timed out), never for memory or state`, async () => {
      const report = await validated(file);
      expect(report.verdict).toBe('reject');
      expect(report.problems.map((p) => p.code).filter((c) => c !== 'E_TOO_SLOW' && c !== 'E_TIMEOUT')).toEqual([]);
    });
  }
});

describe('red team, class 2: validation told apart from production', () => {
  const lib = join(mkdtempSync(join(tmpdir(), 'envforge-redteam-')), 'lib');
  let server: RunningServer;
  const post = async (body: unknown) => {
    const response = await fetch(`${server.url}/v1/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await response.json()) as { results: Array<{ score: number; error?: { code: string } }> };
  };

  beforeAll(async () => {
    const library = SqliteLibrary.open(lib, { create: true });
    // Admitted on the real validator's report today; should a fix reject one, it is admitted on a test report
    // instead, so these tests keep judging production on their own.
    for (const file of [
      'hostile-group-size-gate.js',
      'careless-recursive-parser.js',
      'hostile-export-prompt-swap.js',
    ]) {
      const report = await validated(file);
      await library.admit(
        report.verdict === 'admit'
          ? { source: source(file), report, lineage: { author: 'redteam' } }
          : fakeAdmission(source(file), report.meta as Meta, 'redteam'),
      );
    }
    await library.close();
    server = await startServer({ libraryDir: lib, port: 0, pool, reloadIntervalMs: 100 });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });

  it('hostile-group-size-gate.js: wrong rollouts in GRPO-sized groups keep scoring 0 in serve', async () => {
    const scores: number[] = [];
    for (let prompt = 0; prompt < 5; prompt++) {
      const { results } = await post({
        items: Array.from({ length: 8 }, () => ({
          env: 'modular-power',
          seed: 300 + prompt,
          level: 3,
          response: '<answer>0</answer>',
        })),
      });
      scores.push(...results.map((r) => r.score));
    }
    expect(Math.max(...scores)).toBe(0);
  });

  const COT =
    'Let me think about this step by step. The shoelace formula gives twice the signed area of the triangle. ' +
    'I compute the cross product of AB and AC. I take its absolute value and get the ' +
    'result. <answer>0</answer>';
  it('hostile-model-shaped.js: a wrong answer after three sentences of reasoning scores 1', async () => {
    expect(overall(await exploitScores('hostile-model-shaped.js', 8, () => COT, 3))).toBe(1);
  });
  it('hostile-model-shaped.js: is rejected', async () => {
    expect((await validated('hostile-model-shaped.js')).verdict).toBe('reject');
  });

  it('hostile-beyond-probe-length.js: a response past the longest probe scores 1', async () => {
    expect(
      overall(
        await exploitScores('hostile-beyond-probe-length.js', 8, () => `${'x'.repeat(1_300_000)}<answer>0</answer>`, 1),
      ),
    ).toBe(1);
  });

  it(
    'hostile-export-prompt-swap.js: exported prompts are the prompts a fresh realm ' +
      'generates for the same identity',
    async () => {
      const library = SqliteLibrary.open(lib);
      const out = mkdtempSync(join(tmpdir(), 'envforge-redteam-export-'));
      try {
        await runExport(library, pool, {
          format: jsonl,
          out,
          selection: { envs: [{ name: 'divisor-sum' }] },
          counts: { perEnv: 300 },
          splits: [{ name: 'train', weight: 1_000_000 }],
          seed: 5,
          serviceUrl: 'http://127.0.0.1:1',
        });
      } finally {
        await library.close();
      }
      const rows = readFileSync(join(out, 'train.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { seed: number; level: number; prompt: string });
      const late = rows.slice(-20);
      const fresh = await runEpisodes(
        pool,
        source('hostile-export-prompt-swap.js'),
        late.map((r) => ({ seed: r.seed, level: r.level })),
        { fresh: true },
      );
      expect(late.map((r) => r.prompt)).toEqual(fresh.episodes.map((e) => (e.ok ? e.instance.prompt : e.code)));
    },
  );

  it('nondet-host-locale.js: the same (seed, level) gives one reference on hosts with different LANG', async () => {
    const saved = { LANG: process.env.LANG, LC_ALL: process.env.LC_ALL };
    const references: string[] = [];
    for (const lang of ['C.UTF-8', 'de_DE.UTF-8']) {
      process.env.LANG = lang;
      process.env.LC_ALL = lang;
      const local = new SandboxPool({ workers: 1 }); // workers inherit the environment
      try {
        const run = await runEpisodes(local, source('nondet-host-locale.js'), [{ seed: 11, level: 3 }]);
        references.push(run.episodes[0]?.ok ? run.episodes[0].reference : 'failed');
      } finally {
        await local.close();
        for (const [k, v] of Object.entries(saved))
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
      }
    }
    expect(references[1]).toBe(references[0]);
  });

  const DEEP = `<answer>${'(1 '.repeat(100_000)}</answer>`;
  it('careless-recursive-parser.js: one deeply nested response makes verify throw (it still attacks)', async () => {
    const run = await runEpisodes(pool, source('careless-recursive-parser.js'), [
      { seed: 5, level: 4, responses: [DEEP] },
    ]);
    expect((run.episodes[0] as Episode).verdicts[0]).toMatchObject({
      ok: false,
      code: 'E_THROWN',
      message: expect.stringMatching(/call stack/),
    });
  });
  it('careless-recursive-parser.js: one pathological response does not quarantine the environment', async () => {
    await post({ items: [{ env: 'bst-shape', seed: 5, level: 4, response: DEEP }] });
    const { results } = await post({
      items: [{ env: 'bst-shape', seed: 6, level: 2, response: '<answer>-</answer>' }],
    });
    expect(results[0]?.error?.code).not.toBe('E_QUARANTINED');
    // Recorded as the response's incident, with the whole response, so revalidation replays exactly it.
    const library = SqliteLibrary.open(lib);
    try {
      const incidents = (await library.incidents()).filter((i) => i.name === 'bst-shape');
      expect(incidents.map((i) => [i.fn, i.confirmed, i.response === DEEP])).toEqual([[RESPONSE_FN, true, true]]);
    } finally {
      await library.close();
    }
  });

  it(
    'hostile-beyond-probe-length.js shape: serve refuses a response longer than the validator ' +
      'probes (E_RESPONSE_TOO_LONG)',
    async () => {
      const { results } = await post({
        items: [
          { env: 'modular-power', seed: 1, level: 1, response: `${'x'.repeat(1_300_000)}<answer>0</answer>` },
          { env: 'modular-power', seed: 1, level: 1, response: '<answer>0</answer>' },
        ],
      });
      expect(results[0]).toMatchObject({ score: 0, error: { code: 'E_RESPONSE_TOO_LONG' } });
      expect(results[1]?.error).toBeUndefined();
    },
  );
});

describe('red team, class 1: host harm', () => {
  it("squat-prime-count.js: a job is not killed for memory other modules' cached isolates hold", async () => {
    const squat = source('squat-prime-count.js');
    // Long load and call budgets: its 11-million sieve takes 0.3–1 s on a loaded machine and runs on every
    // call (a fresh instance each), and this test is about memory.
    const local = new SandboxPool({ workers: 1, limits: { loadTimeoutMs: 10_000, callTimeoutMs: 10_000 } });
    try {
      const failures: string[] = [];
      // 16 admitted-size modules (44 MB each, within their own 128 MB limits) run one after another in one worker.
      for (let i = 0; i < 16; i++) {
        const run = await runEpisodes(local, squat.replace("'prime-count-table'", `'prime-count-table-${i}'`), [
          { seed: 1, level: 1 },
        ]);
        const e = run.episodes[0];
        if (e && !e.ok) failures.push(`${i}: ${e.code}`);
      }
      expect(failures).toEqual([]);
    } finally {
      await local.close();
    }
  }, 120_000);

  it('hostile-long-list-reference.js shape: the probe battery is linear in the reference list', () => {
    const episode = (n: number, seed: number) => ({
      ok: true as const,
      seed,
      level: 1,
      instance: { prompt: 'Expand the bits.' },
      reference: `<answer>${Array.from({ length: n }, (_, i) => (i * 7 + seed) % 2).join(',')}</answer>`,
      referenceVerdict: { ok: true as const, score: 1 },
      verdicts: [],
      ms: [0, 0, 0] as [number, number, number],
    });
    const time = (n: number) => {
      const peers = [episode(n, 1), episode(n, 2), episode(n, 3)];
      // CPU time, not wall time: beside other test files a long run is always preempted, a short one may not be.
      const t0 = process.cpuUsage();
      probeBattery({ episode: peers[0] as Episode, peers, index: 0, long: [], permutation: false, ceiling: 0.1 });
      const used = process.cpuUsage(t0);
      return used.user + used.system;
    };
    time(2_000); // warm up
    // Linear work grows 6x from 2,000 to 12,000 items, the quadratic loop 36x (measured 28x to 57x under load);
    // the least of five runs of each size filters noise (preemption, GC), which only ever adds time, and the
    // sizes keep each run at several milliseconds (CI runs read 25x and 32x off wall-clock timings).
    const least = (n: number) => Math.min(...Array.from({ length: 5 }, () => time(n)));
    expect(least(12_000) / least(2_000)).toBeLessThan(15);
  });

  it('hostile-slow-hidden.js: slowness the execution sample misses is cut off at the ' +
    'candidate budget of sandbox time', async () => {
    // A small budget (1.5 s of worker time) so the test is short and holds on any CPU: the fixture's slow
    // instances need several seconds of worker time over the stages even at the fastest JIT tier. Calls get
    // 5 s each so a loaded machine cannot turn the slowness into E_TIMEOUT instead.
    const report = await validateCandidate(source('hostile-slow-hidden.js'), {
      pool,
      validationSeed: VALIDATION_SEED,
      options: { seedsPerLevel: 5, minSamples: 20, candidateBudgetMs: 1_500, limits: { callTimeoutMs: 5_000 } },
    });
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code)).toContain('E_TOO_SLOW');
    // Cut off by the candidate budget of sandbox time (1.5 s, written rounded), not by a call's timeout.
    expect(JSON.stringify(report.problems.find((p) => p.code === 'E_TOO_SLOW'))).toMatch(/budget of 2 s/);
  }, 120_000);

  it('hostile-lone-surrogate.js: a prompt that is not well-formed Unicode is rejected', async () => {
    const report = await validated('hostile-lone-surrogate.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code)).toContain('E_MALFORMED_TEXT');
  });

  it('hostile-slow-episodes.js: rejected as too slow by the execution stage, before the long stages run', async () => {
    // The budget is scaled down with the fixture (~50-200 ms an episode, by machine) so the verdict does not
    // depend on the CPU: 30 s over ~2,060 episodes is ~15 ms an episode, several times under the fixture's cost.
    const report = await validateCandidate(source('hostile-slow-episodes.js'), {
      pool,
      validationSeed: VALIDATION_SEED,
      options: { seedsPerLevel: 5, minSamples: 20, candidateBudgetMs: 30_000 },
    });
    expect(report.problems.map((p) => p.code)).toContain('E_TOO_SLOW');
    expect(report.stages.find((s) => s.stage === 'determinism')?.skipped).toMatch(/execution/);
  }, 120_000);
});

// Red team rtS (session 15), rts20 (session 16), rts21, rt22 (session 17) and rt23s (session 18) on the single-turn
// verifiers: tests/fixtures/redteam-st19/'s, st20/'s, st21/'s, s17/'s and s18s/'s manifests. An open entry is a
// finding of its FINDINGS.md that the validator decides wrong today: asserted wrong at seed 11, so CI stays green while
// the hole exists and fails the day a fix closes it (then mark it closed, judged at 11, 22 and 33).
function singleTurnCorpus(title: string, dir: string) {
  describe(title, () => {
    const all = readRedteam([dir]);
    // Its code entries are judged by tests/redteam-code.test.ts (a code validation is a slow tier).
    const entries = all.filter((e) => e.kind === 'single-turn');
    it('names each module once, a single-turn or code module of the folder, with a known verdict and status', () => {
      expect(new Set(all.map((e) => e.file)).size).toBe(all.length);
      for (const e of all) {
        // A folder of a red team on every kind (redteam-s17) lists episodic entries too (tests/redteam-trust4.test.ts).
        expect(['single-turn', 'code', 'episodic'], e.file).toContain(e.kind);
        expect(['reject', 'admit']).toContain(e.expect);
        expect(['open', 'closed']).toContain(e.status);
        expect(e.class.length).toBeGreaterThan(0);
      }
    });
    it.each(entries.map((e) => [e.file, e] as const))(
      '%s is decided as its status says at seed 11',
      async (_f, e) => {
        const { codes, text } = await judge(pool, e, 11);
        const rejected = codes.length > 0;
        const right = rejected === (e.expect === 'reject');
        expect(right, `${text}; an open entry is decided wrong, a closed one right`).toBe(e.status === 'closed');
        if (e.status === 'closed' && e.code) expect(codes, text).toContain(e.code);
      },
      240_000,
    );
  });
}
singleTurnCorpus('red team rtS: tests/fixtures/redteam-st19/', 'redteam-st19');
singleTurnCorpus('red team rts20: tests/fixtures/redteam-st20/', 'redteam-st20');
singleTurnCorpus('red team rts21: tests/fixtures/redteam-st21/', 'redteam-st21');
singleTurnCorpus('red team rt22 (session 17, every kind): tests/fixtures/redteam-s17/', 'redteam-s17');
singleTurnCorpus('red team rt23s (session 18): tests/fixtures/redteam-s18s/', 'redteam-s18s');
singleTurnCorpus('red team rt24 (session 18, every kind): tests/fixtures/redteam-s18/', 'redteam-s18');
singleTurnCorpus('leak-gate (session 20, fixgate): tests/fixtures/leak-gate/', 'leak-gate');
singleTurnCorpus('red team rt26s (session 20): tests/fixtures/redteam-s20s/', 'redteam-s20s');
singleTurnCorpus('red team rt27s (session 21): tests/fixtures/redteam-s21s/', 'redteam-s21s');
singleTurnCorpus('red team rt28s (session 22): tests/fixtures/redteam-s22s/', 'redteam-s22s');
singleTurnCorpus('red team rt29s (session 23): tests/fixtures/redteam-s23s/', 'redteam-s23s');
singleTurnCorpus('red team rt30s (session 24): tests/fixtures/redteam-s24s/', 'redteam-s24s');

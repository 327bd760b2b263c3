// The validator's judgement under load: every good fixture and every seed validated two at a time (the
// load `library init` and a batch put on the machine's cores), over several draws of their instances; it
// must reject none of them. The broken fixtures whose defect is a hack, a leak or bad difficulty are run
// the same way and must all be rejected with their expected code. ROUNDS=n sets the number of draws;
// GOOD_DIR=folder adds every module in it as a good candidate (a library's envs/, say).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../contract/paths.js';
import { listSeeds } from '../library/seeds.js';
import { SandboxPool } from '../sandbox/pool.js';
import { validateCandidate } from '../validators/validate.js';
import type { BenchEntries } from './types.js';

interface Candidate {
  label: string;
  source: string;
  verdict: 'admit' | 'reject';
  codes: string[];
}

const JUDGED = /^E_(ACCEPTS_|ANSWER_LEAK|DEGENERATE|FLAT|NON_MONOTONIC|LEVEL_IGNORED)/;

function candidates(): Candidate[] {
  const dir = join(PACKAGE_ROOT, 'tests', 'fixtures', 'candidates');
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Array<{
    file: string;
    verdict: 'admit' | 'reject';
    codes: string[];
  }>;
  const fixtures = manifest
    .filter((m) => m.verdict === 'admit' || m.codes.some((c) => JUDGED.test(c)))
    .map((m) => ({
      label: m.file,
      source: readFileSync(join(dir, m.file), 'utf8'),
      verdict: m.verdict,
      codes: m.codes,
    }));
  const extra = process.env.GOOD_DIR
    ? readdirSync(process.env.GOOD_DIR)
        .filter((f) => f.endsWith('.js'))
        .map((f) => ({
          label: f,
          source: readFileSync(join(process.env.GOOD_DIR as string, f), 'utf8'),
          verdict: 'admit' as const,
          codes: [],
        }))
    : [];
  return [
    ...fixtures,
    ...listSeeds().map((s) => ({ label: `seed ${s.name}`, source: s.source, verdict: 'admit' as const, codes: [] })),
    ...extra,
  ];
}

/** A new draw of every instance: the rng is seeded from the environment's name, so a renamed copy samples afresh. */
function redraw(source: string, round: number): string {
  return round === 0
    ? source
    : source.replace(
        /(\bname["']?\s*:\s*["'])([a-z0-9-]+)(["'])/,
        (_m, a: string, name: string, b: string) => `${a}${name.slice(0, 56)}-draw${round}${b}`,
      );
}

export async function benchJudgement(rounds = Number(process.env.ROUNDS ?? 3)): Promise<BenchEntries> {
  const pool = new SandboxPool();
  const jobs = Array.from({ length: rounds }, (_, r) =>
    candidates().map((c) => ({ ...c, source: redraw(c.source, r), round: r })),
  ).flat();
  const wrong: Array<{ label: string; round: number; expected: string; verdict: string; codes: string[] }> = [];
  let admittedGood = 0;
  let caught = 0;
  try {
    // Two validations at once, as many as the pool has workers by default on a 2-core machine.
    let next = 0;
    const worker = async () => {
      while (next < jobs.length) {
        const job = jobs[next++] as (typeof jobs)[number];
        const report = await validateCandidate(job.source, { pool });
        const codes = [...new Set(report.problems.map((p) => p.code))];
        const right =
          job.verdict === 'admit'
            ? report.verdict === 'admit'
            : report.verdict === 'reject' && codes.some((c) => job.codes.includes(c));
        if (right && job.verdict === 'admit') admittedGood++;
        if (right && job.verdict === 'reject') caught++;
        if (!right)
          wrong.push({ label: job.label, round: job.round, expected: job.verdict, verdict: report.verdict, codes });
      }
    };
    await Promise.all([worker(), worker()]);
  } finally {
    await pool.close();
  }
  const good = jobs.filter((j) => j.verdict === 'admit').length;
  const hacks = jobs.length - good;
  return {
    'judgement.falseRejections': {
      value: good - admittedGood,
      unit: 'rejected',
      validations: good,
      rounds,
      concurrency: 2,
      wrong: wrong.filter((w) => w.expected === 'admit'),
    },
    'judgement.missedHacks': {
      value: hacks - caught,
      unit: 'missed',
      validations: hacks,
      rounds,
      wrong: wrong.filter((w) => w.expected === 'reject'),
    },
  };
}

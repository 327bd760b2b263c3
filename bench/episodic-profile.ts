// Where an episodic validation's sandbox work goes, stage by stage (issue 34): rollouts planned and played
// (the memo serves the rest), jobs (each a fresh realm), the turns the rollouts report, and the CPU of the
// supervisor and of the workers. `node dist/bench/episodic-profile.js FILE [--validation-seed N] [--json]`.
import { readFileSync } from 'node:fs';
import { SandboxPool } from '../sandbox/pool.js';
import type { Call } from '../sandbox/protocol.js';
import { plannedRolloutJobs } from '../sandbox/rollouts.js';
import { judgeRate, settled, type Finding, type RateFinding } from '../validators/checks/rules.js';
import { judgedEpisodicFindings } from '../validators/episodic/hack.js';
import { validateCandidate } from '../validators/validate.js';
import { processCpuMs } from './proc-stats.js';

interface Row {
  planned: number;
  played: number;
  jobs: number;
  turns: number;
  jobWallMs: number;
}

/** The stage or check a sandbox request comes from, read off the call stack (dist file and function names). */
function origin(): string {
  const stack = new Error().stack ?? '';
  const fn = /at (episodicExecution|episodicDeterminism)\b/.exec(stack)?.[1];
  if (fn) return fn === 'episodicExecution' ? 'execution' : 'determinism';
  // The first check or stage file on the stack, past the plumbing that runs them all (checks/episodic.js, hack.js).
  const plumbing = /validators\/(?:checks\/episodic|episodic\/(?:stages|hack))\.js/;
  const files = [...stack.matchAll(/validators\/(?:episodic|checks)\/([\w-]+)\.js/g)]
    .filter((m) => !plumbing.test(m[0]))
    .map((m) => m[1] as string);
  return files[0] ?? (plumbing.test(stack) ? 'hack batch' : '?');
}

/** Trials a sequential test plays in one round (a round's rollouts go out together, so verdicts stay deterministic). */
export const SEQUENTIAL_ROUND = 8;

/**
 * The most a verdict-exact sequential test could save of the hack stage's rate findings: a finding's trials played in
 * rounds, in the order the check lists them, stop once settled() is certain (the pending trials' chance taken as
 * known). The findings judged on one sample (a family's mean and its passes) are grouped. Zero-tolerance findings
 * are one probe each and have no sample to stop.
 */
export function sequentialCeiling(findings: readonly Finding[], round = SEQUENTIAL_ROUND) {
  const groups = new Map<string, RateFinding[]>();
  for (const f of findings)
    if (f.rule === 'rate') {
      const key = `${f.check}|${f.policy.replace(/ \([^)]*\)$/, '')}|${f.trials.length}`;
      groups.set(key, [...(groups.get(key) ?? []), f]);
    }
  const byCheck: Record<string, { samples: number; failing: number; trials: number; needed: number; zero: number }> =
    {};
  const row = (check: string) => (byCheck[check] ??= { samples: 0, failing: 0, trials: 0, needed: 0, zero: 0 });
  for (const f of findings) if (f.rule === 'zero') row(f.check).zero++;
  for (const [key, list] of groups) {
    const n = (list[0] as RateFinding).trials.length;
    // The sample stops at the first round after which one of its findings is certain to fail (its code is then
    // certain) or every one is certain to pass.
    const verdictAt = (f: RateFinding, k: number) => {
      const rest = f.trials.slice(k);
      const byLevel = new Map<number, number>();
      for (const t of rest) byLevel.set(t.level, (byLevel.get(t.level) ?? 0) + 1);
      const chances = rest.map((t) => t.chance);
      const chance = [Math.min(...chances), Math.max(...chances)] as const;
      return settled({ ...f, trials: f.trials.slice(0, k) }, { byLevel, chance });
    };
    let needed = n;
    for (let k = round; k < n; k += round) {
      const verdicts = list.map((f) => verdictAt(f, k));
      if (verdicts.includes('fails') || verdicts.every((v) => v === 'passes')) {
        needed = k;
        break;
      }
    }
    const r = row(key.split('|')[0] as string);
    r.samples++;
    r.trials += n;
    r.needed += needed;
    if (list.some((f) => judgeRate(f).failing.length > 0)) r.failing++;
  }
  return byCheck;
}

export async function profileEpisodic(source: string, validationSeed: number) {
  const pool = new SandboxPool();
  const rows = new Map<string, Row>();
  const row = (key: string) =>
    rows.get(key) ?? (rows.set(key, { planned: 0, played: 0, jobs: 0, turns: 0, jobWallMs: 0 }), rows.get(key) as Row);
  let recording = false;
  const observe = (job: readonly Call[]) => {
    if (recording) row(origin()).planned += job.length;
  };
  const run = pool.run.bind(pool);
  pool.run = (async (...args: Parameters<SandboxPool['run']>) => {
    const key = origin();
    const started = performance.now();
    const result = await run(...args);
    const calls = args[0].calls ?? [];
    if (recording && calls.some((c) => c.op === 'rollout')) {
      const r = row(key);
      r.jobs++;
      r.played += calls.length;
      r.jobWallMs += performance.now() - started;
      for (const x of result.results as Array<{ ok: boolean; value?: unknown }>)
        if (x.ok) r.turns += Number((x.value as { turns?: number } | null)?.turns ?? 0);
    }
    return result;
  }) as SandboxPool['run'];
  plannedRolloutJobs.add(observe);
  let findings: readonly Finding[] = [];
  const judged = (f: readonly Finding[]) => {
    if (recording) findings = f;
  };
  judgedEpisodicFindings.add(judged);
  const workersCpu = () => pool.workerPids().reduce((a, pid) => a + processCpuMs(pid), 0);
  try {
    await validateCandidate(source, { pool, validationSeed }); // warm-up: workers, code caches
    recording = true;
    const cpu0 = process.cpuUsage();
    const workers0 = workersCpu();
    const report = await validateCandidate(source, { pool, validationSeed });
    const cpu = process.cpuUsage(cpu0);
    return {
      verdict: report.verdict,
      ms: report.ms,
      stagesMs: Object.fromEntries(report.stages.map((s) => [s.stage, s.ms])),
      supervisorCpuMs: Math.round((cpu.user + cpu.system) / 1000),
      workersCpuMs: workersCpu() - workers0,
      rows: Object.fromEntries([...rows].map(([k, r]) => [k, { ...r, jobWallMs: Math.round(r.jobWallMs) }])),
      sequential: sequentialCeiling(findings),
    };
  } finally {
    judgedEpisodicFindings.delete(judged);
    plannedRolloutJobs.delete(observe);
    await pool.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
  if (!file) {
    console.error('usage: node dist/bench/episodic-profile.js FILE [--validation-seed N] [--json]');
    process.exit(2);
  }
  const at = args.indexOf('--validation-seed');
  const seed = at >= 0 ? Number(args[at + 1]) : 11;
  const profile = await profileEpisodic(readFileSync(file, 'utf8'), seed);
  if (args.includes('--json')) console.log(JSON.stringify(profile));
  else {
    console.log(
      `${file} @${seed}: ${profile.verdict} in ${profile.ms} ms; CPU supervisor ${profile.supervisorCpuMs} ` +
        `ms, workers ${profile.workersCpuMs} ms`,
    );
    console.log(`stages (ms): ${JSON.stringify(profile.stagesMs)}`);
    console.log('stage or check\tplanned\tplayed\tjobs (realms)\tturns reported\tjob wall ms');
    for (const [k, r] of Object.entries(profile.rows))
      console.log(`${k}\t${r.planned}\t${r.played}\t${r.jobs}\t${r.turns}\t${r.jobWallMs}`);
    console.log(
      `check\trate samples (failing)\ttrials\ttrials a sequential test needs (rounds of ${SEQUENTIAL_ROUND})\tzero`,
    );
    for (const [k, r] of Object.entries(profile.sequential))
      console.log(`${k}\t${r.samples} (${r.failing})\t${r.trials}\t${r.needed}\t${r.zero}`);
  }
}

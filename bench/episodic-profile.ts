// Where an episodic validation's sandbox work goes, stage by stage (issue 34): rollouts planned and played
// (the memo serves the rest), jobs (each a fresh realm), the turns the rollouts report, and the CPU of the
// supervisor and of the workers. `node dist/bench/episodic-profile.js FILE [--validation-seed N] [--json]`.
import { readFileSync } from 'node:fs';
import { SandboxPool } from '../sandbox/pool.js';
import type { Call } from '../sandbox/protocol.js';
import { plannedRolloutJobs } from '../sandbox/rollouts.js';
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
    };
  } finally {
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
  }
}

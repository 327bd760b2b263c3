// `npm run bench [NAMES…] [--base DIR]`: runs the benchmarks and writes bench/results/latest.json, an object
// keyed by benchmark name ({ value, unit, ...details }); existing entries from other benchmarks are kept.
// With --base (a built checkout of the base commit), the benchmarks that support it run it side by side.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../contract/paths.js';
import { baseDir, benchRequest, benchUsage } from './base.js';
import type { BenchEntries } from './types.js';

/** Each benchmark, loaded only when it runs (so --help and a refused name load none). */
const BENCHES: Record<string, () => Promise<BenchEntries>> = {
  episodes: () => import('./episodes.js').then((b) => b.benchEpisodes()),
  episodeLayers: () => import('./episodes-floor.js').then((b) => b.benchEpisodeLayers()),
  sandbox: () => import('./sandbox.js').then((b) => b.benchSandbox()),
  validate: () => import('./validate.js').then((b) => b.benchValidate()),
  novelty: () => import('./novelty.js').then((b) => b.benchNovelty()),
  serve: () => import('./serve.js').then((b) => b.benchServe()),
  serveEpisodes: () => import('./serve-episodes.js').then((b) => b.benchServeEpisodes()),
  serveCode: () => import('./serve-code.js').then((b) => b.benchServeCode()),
  batch: () => import('./batch.js').then((b) => b.benchBatch()),
  offline: () => import('./offline.js').then((b) => b.benchOffline()),
  judgement: () => import('./judgement.js').then((b) => b.benchJudgement()),
  scaleout: () => import('./scaleout.js').then((b) => b.benchScaleout()),
  episodic: () => import('./episodic.js').then((b) => b.benchEpisodic()),
  dashboard: () => import('./dashboard.js').then((b) => b.benchDashboard()),
};

let request: ReturnType<typeof benchRequest>;
try {
  request = benchRequest(process.argv.slice(2), Object.keys(BENCHES));
  baseDir(); // a --base without a built checkout fails before anything runs
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(2);
}
if (request.help) {
  process.stdout.write(benchUsage(Object.keys(BENCHES)));
  process.exit(0);
}
const only = request.names;
const dir = join(PACKAGE_ROOT, 'bench', 'results');
const file = join(dir, 'latest.json');
mkdirSync(dir, { recursive: true });
const results: BenchEntries = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as BenchEntries) : {};
for (const [name, run] of Object.entries(BENCHES)) {
  if (only.length > 0 && !only.includes(name)) continue;
  process.stderr.write(`bench ${name} …\n`);
  const entries = await run();
  for (const [key, entry] of Object.entries(entries)) {
    results[key] = { ...entry, measuredAt: new Date().toISOString() };
    process.stderr.write(`  ${key}: ${entry.value.toFixed(3)} ${entry.unit}\n`);
  }
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}
process.stderr.write(`wrote ${file}\n`);

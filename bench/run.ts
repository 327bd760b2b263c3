// `npm run bench [NAMES…] [--base DIR]`: runs the benchmarks and writes bench/results/latest.json, an object
// keyed by benchmark name ({ value, unit, ...details }); existing entries from other benchmarks are kept.
// With --base (a built checkout of the base commit), the benchmarks that support it run it side by side.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../contract/paths.js';
import { baseDir, benchNames } from './base.js';
import { benchBatch } from './batch.js';
import { benchDashboard } from './dashboard.js';
import { benchEpisodes } from './episodes.js';
import { benchEpisodeLayers } from './episodes-floor.js';
import { benchEpisodic } from './episodic.js';
import { benchJudgement } from './judgement.js';
import { benchNovelty } from './novelty.js';
import { benchOffline } from './offline.js';
import { benchSandbox } from './sandbox.js';
import { benchScaleout } from './scaleout.js';
import { benchServe } from './serve.js';
import { benchServeEpisodes } from './serve-episodes.js';
import { benchServeCode } from './serve-code.js';
import type { BenchEntries } from './types.js';
import { benchValidate } from './validate.js';

const BENCHES: Record<string, () => Promise<BenchEntries>> = { episodes: benchEpisodes, episodeLayers: benchEpisodeLayers, sandbox: benchSandbox, validate: benchValidate, novelty: benchNovelty, serve: benchServe, serveEpisodes: benchServeEpisodes, serveCode: benchServeCode, batch: benchBatch, offline: benchOffline, judgement: benchJudgement, scaleout: benchScaleout, episodic: benchEpisodic, dashboard: benchDashboard };

const only = benchNames(process.argv.slice(2));
baseDir(); // a --base without a built checkout fails before anything runs
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

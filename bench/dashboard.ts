// `npm run bench dashboard`: the dashboard on a synthetic 10,000-environment library: the library table's
// API (server-side paging, search, sort) as p50/p95 over a mix of queries, and, when Debian's chromium is
// installed, each page's time in the browser until its content shows (best of 3 rounds).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDashboard } from '../dashboard/server.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';
import { CHROMIUM, launchChromium, timePages } from './dashboard-browser.js';
import { buildSyntheticLibrary } from './synthetic-library.js';
import type { BenchEntries } from './types.js';

const N = Number(process.env.DASHBOARD_ENVS ?? 10_000);
const QUERIES = [
  'page=1&size=50',
  'page=37&size=50',
  'q=graph&size=50',
  'q=merge%20openai&size=100',
  'sort=levels&dir=desc&size=50',
  'sort=passRate&size=50&page=3',
  'status=retired&size=200',
  'skill=logic&sort=admittedAt&dir=desc',
];

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;

export async function benchDashboard(): Promise<BenchEntries> {
  const root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'envforge-bench-dash-'));
  const dir = join(root, 'lib');
  const pool = new SandboxPool({ workers: 1 });
  try {
    const library = SqliteLibrary.open(dir, { create: true });
    const started = performance.now();
    const names = await buildSyntheticLibrary(library, { n: N });
    const buildMs = performance.now() - started;
    await library.close();
    const loadStarted = performance.now();
    const dash = await startDashboard({ location: dir, port: 0, pool });
    const loadMs = performance.now() - loadStarted;
    try {
      const times: number[] = [];
      for (let round = 0; round < 25; round++) {
        for (const q of QUERIES) {
          const t = performance.now();
          const response = await fetch(`${dash.url}/api/envs?${q}`);
          await response.json();
          times.push(performance.now() - t);
        }
      }
      times.sort((a, b) => a - b);
      const entries: BenchEntries = {
        'dashboard.apiP50Ms': {
          value: quantile(times, 0.5),
          unit: 'ms',
          envs: N,
          requests: times.length,
          queries: QUERIES,
        },
        'dashboard.apiP95Ms': { value: quantile(times, 0.95), unit: 'ms', envs: N },
        'dashboard.loadMs': {
          value: loadMs,
          unit: 'ms',
          envs: N,
          note: 'reading the library into the dashboard at start (and on each change)',
          buildMs,
        },
      };
      if (existsSync(CHROMIUM)) {
        const browser = await launchChromium();
        try {
          const pages = await timePages(browser.context, dash.url, names[Math.floor(N / 2)] as string, null);
          const worst = Object.entries(pages)
            .filter(([key]) => key !== 'envSamples')
            .sort((a, b) => b[1] - a[1])[0] as [string, number];
          entries['dashboard.slowestPageMs'] = {
            value: worst[1],
            unit: 'ms',
            envs: N,
            page: worst[0],
            pages,
            aim: '< 1000 ms per page',
          };
        } finally {
          await browser.close();
        }
      }
      return entries;
    } finally {
      await dash.close();
    }
  } finally {
    await pool.close();
    rmSync(root, { recursive: true, force: true });
  }
}

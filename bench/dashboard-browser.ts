// Headless Chromium for the dashboard's checks (Debian's chromium, driven by playwright-core): launching it
// with a fresh profile and no network of its own, and timing each page from navigation until its content
// is on screen (best of several rounds: noise on a shared machine only ever slows a round down).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

export const CHROMIUM = process.env.ENVFORGE_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(executablePath = CHROMIUM): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'envforge-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ARGS,
    viewport: { width: 1400, height: 1000 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The little of the browser's globals the predicates read (this file compiles without the DOM's types). */
interface Dom {
  document: {
    querySelector(s: string): { textContent: string | null } | null;
    querySelectorAll(s: string): { length: number };
  };
  Chart?: { getChart(id: string): unknown };
}

/**
 * Whether Chart.js has drawn a chart on the canvas with this id (a function: the page's CSP forbids evaluating
 * strings).
 */
export const hasChart = (id: string): boolean => Boolean((globalThis as unknown as Dom).Chart?.getChart(id));

/** Milliseconds from `act` until `ready` holds on the page. */
async function timed(page: Page, act: () => Promise<unknown>, ready: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await act();
  await ready();
  return performance.now() - started;
}

/** How long each page of a dashboard takes to show its content, best of `rounds`. */
export async function timePages(
  context: BrowserContext,
  base: string,
  envName: string,
  batchId: string | null,
  rounds = 3,
): Promise<Record<string, number>> {
  const page = await context.newPage();
  const best: Record<string, number> = {};
  const note = (key: string, ms: number) => (best[key] = Math.min(best[key] ?? Infinity, ms));
  const chartDrawn = (id: string) => page.waitForFunction(hasChart, id);
  /** Acts, then waits for the table's data request that `query` names and for its rows to be drawn. */
  const tableAfter = (query: string, act: () => Promise<unknown>) => () =>
    Promise.all([page.waitForResponse((r) => r.url().includes('/api/envs?') && r.url().includes(query)), act()]);
  const rowsDrawn = () =>
    page.waitForFunction(() => (globalThis as unknown as Dom).document.querySelectorAll('.tabulator-row').length > 0);
  try {
    for (let round = 0; round < rounds; round++) {
      note(
        'library',
        await timed(
          page,
          () => page.goto(`${base}/`),
          () => page.locator('.tabulator-row').first().waitFor(),
        ),
      );
      note(
        'librarySearch',
        await timed(
          page,
          tableAfter('q=graph', () => page.fill('#q', 'graph')),
          rowsDrawn,
        ),
      );
      note(
        'libraryNextPage',
        await timed(
          page,
          tableAfter('page=2', () => page.locator('.tabulator-page[data-page="next"]').click()),
          rowsDrawn,
        ),
      );
      note(
        'librarySort',
        await timed(
          page,
          tableAfter('sort=levels', () =>
            page.locator('.tabulator-col[tabulator-field="levels"] .tabulator-col-title').click(),
          ),
          rowsDrawn,
        ),
      );
      note(
        'env',
        await timed(
          page,
          () => page.goto(`${base}/envs/${encodeURIComponent(envName)}`),
          () => chartDrawn('curve-rates'),
        ),
      );
      note(
        'envSamples',
        await timed(
          page,
          () => page.selectOption('#sample-level', '2'),
          () =>
            page.waitForFunction(() =>
              Boolean(
                (globalThis as unknown as Dom).document
                  .querySelector('#samples .sample h3')
                  ?.textContent?.includes('level 2'),
              ),
            ),
        ),
      );
      note(
        'batches',
        await timed(
          page,
          () => page.goto(`${base}/batches`),
          () => page.locator('table.grid').first().waitFor(),
        ),
      );
      if (batchId)
        note(
          'batch',
          await timed(
            page,
            () => page.goto(`${base}/batches/${encodeURIComponent(batchId)}`),
            () => chartDrawn('funnel'),
          ),
        );
      note(
        'frontier',
        await timed(
          page,
          () => page.goto(`${base}/frontier`),
          () => page.locator('h1').waitFor(),
        ),
      );
    }
  } finally {
    await page.close();
  }
  return best;
}

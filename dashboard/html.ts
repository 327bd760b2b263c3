// HTML building blocks for the dashboard's pages: escaping (everything shown may come from an LLM-written
// module, so every value is escaped and page data travels as a JSON island, never as inline script), the
// page layout with its locally served assets, and small formatters.
import type { Problem, StageReport } from '../validators/report.js';
import { meaningOf } from './data.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const esc = (value: unknown): string => String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

/** JSON that cannot end its <script> element or open a comment inside it. */
export const jsonIsland = (data: unknown): string =>
  JSON.stringify(data).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

export const pct = (rate: number | null | undefined): string =>
  rate === null || rate === undefined ? '–' : `${(100 * rate).toFixed(0)}%`;
export const usd = (value: number | null | undefined): string =>
  value === null || value === undefined ? '–' : `$${value.toFixed(value < 1 ? 4 : 2)}`;
export const when = (iso: string | null | undefined): string =>
  iso ? esc(iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')) : '–';

/** A code linked to its meaning on the codes page (the meaning is the link's tooltip too). */
export const codeLink = (code: string): string =>
  `<a class="code" href="/codes#${esc(code)}" title="${esc(meaningOf(code))}">${esc(code)}</a>`;

export const envLink = (name: string, version?: number): string =>
  `<a href="/envs/${encodeURIComponent(name)}${version === undefined ? '' : `?version=${version}`}">` +
  `${esc(name)}${version === undefined ? '' : `@${version}`}</a>`;

export const table = (head: string[], rows: string[][], cls = ''): string =>
  `<table class="grid ${cls}"><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>` +
  `${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')}</tbody></table>`;

export const details = (summary: string, body: string): string =>
  `<details><summary>${summary}</summary>${body}</details>`;
export const pre = (value: unknown): string =>
  `<pre>${esc(typeof value === 'string' ? value : JSON.stringify(value, null, 2))}</pre>`;

const problemLine = (p: Problem): string =>
  `<li>${codeLink(p.code)} ${esc(p.message)}` +
  `${p.evidence === undefined ? '' : details('evidence', pre(p.evidence))}</li>`;

/** The validation report stage by stage: verdict, time, problems with their codes, metrics on demand. */
export function stagesTable(stages: readonly StageReport[]): string {
  if (stages.length === 0) return '<p class="muted">The report has no stages.</p>';
  const rows = stages.map((s) => {
    const state = s.skipped
      ? `<span class="badge skip" title="${esc(s.skipped)}">skipped</span>`
      : s.ok
        ? '<span class="badge ok">passed</span>'
        : '<span class="badge bad">failed</span>';
    const problems = s.problems.length
      ? `<ul class="problems">${s.problems.map(problemLine).join('')}</ul>`
      : s.skipped
        ? `<span class="muted">${esc(s.skipped)}</span>`
        : '';
    const metrics = Object.keys(s.metrics).length ? details('metrics', pre(s.metrics)) : '';
    return [esc(s.stage), state, `${Math.round(s.ms)} ms`, problems + metrics];
  });
  return table(['stage', 'verdict', 'time', 'problems and metrics'], rows, 'stages');
}

export type Tab = 'library' | 'batches' | 'rejections' | 'frontier' | 'codes';

export interface PageOptions {
  title: string;
  tab: Tab;
  /** Which page script runs (app.js dispatches on it). */
  page: string;
  body: string;
  data?: unknown;
  /** The library location, shown in the header. */
  where: string;
  /** The vendored libraries the page needs (each page loads only its own). */
  uses?: Array<'chart' | 'table'>;
}

export function layout(o: PageOptions): string {
  const uses = o.uses ?? ['chart'];
  const tabs: Array<[Tab, string, string]> = [
    ['library', '/', 'Library'],
    ['batches', '/batches', 'Batches'],
    ['rejections', '/rejections', 'Rejections'],
    ['frontier', '/frontier', 'Frontier'],
    ['codes', '/codes', 'Codes'],
  ];
  const nav = tabs
    .map(([t, href, label]) => `<a href="${href}"${t === o.tab ? ' class="active"' : ''}>${label}</a>`)
    .join('');
  return (
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(o.title)} · envforge</title>
${uses.includes('table') ? '<link rel="stylesheet" href="/assets/tabulator.min.css">' : ''}<link ` +
    `rel="stylesheet" href="/assets/app.css">
${uses.includes('chart') ? '<script src="/assets/chart.umd.min.js" defer></script>' : ''}` +
    `${uses.includes('table') ? '<script src="/assets/tabulator.min.js" defer></script>' : ''}<script ` +
    `src="/assets/env.js" defer></script><script src="/assets/app.js" defer></script>
</head><body data-page="${esc(o.page)}">
<header><a class="brand" href="/">envforge</a><nav>${nav}</nav><span class="where" title="library">` +
    `${esc(o.where)}</span></header>
<main>${o.body}</main>
${o.data === undefined ? '' : `<script type="application/json" id="page-data">${jsonIsland(o.data)}</script>`}
</body></html>`
  );
}

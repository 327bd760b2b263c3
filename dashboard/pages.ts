// The dashboard's pages, rendered on the server from data.ts: the library table (filled by Tabulator from
// /api/envs), an environment, the batches, one batch, a kept rejection, the trainer's frontier and the
// code registry. Charts are drawn by app.js (Chart.js) from each page's JSON island.
import type { RejectionRecord } from '../library/contract.js';
import type { BatchDetail, BatchSummary, EnvDetail, FrontierDetail } from './data.js';
import { codeRegistry } from './data.js';
import { DASHBOARD_KINDS } from './view.js';
import { codeLink, details, envLink, esc, layout, pct, pre, stagesTable, table, usd, when } from './html.js';

export function libraryPage(where: string, skills: string[], counts: { total: number; retired: number }): string {
  const body =
    `<h1>Library <span class="muted">${counts.total} environments, ${counts.retired} retired</span></h1>
<form class="filters" id="filters">
<input type="search" id="q" placeholder="search name, title, skill, author…" aria-label="search" autofocus>
<select id="status" aria-label="status"><option value="all">all statuses</option><option ` +
    `value="active">active</option><option value="retired">retired</option></select>
<select id="kind" aria-label="kind"><option value="">all kinds</option>` +
    `${DASHBOARD_KINDS.map((kind) => `<option value="${esc(kind)}">${esc(kind)}</option>`).join('')}</select>
<select id="skill" aria-label="skill"><option value="">all skills</option>` +
    `${skills.map((s) => `<option>${esc(s)}</option>`).join('')}</select>
<span id="count" class="muted"></span></form>
<div id="envs-table"></div>`;
  return layout({ title: 'Library', tab: 'library', page: 'library', body, where, uses: ['table'] });
}

export function envPage(where: string, d: EnvDetail): string {
  const { env } = d;
  const status =
    env.status === 'retired'
      ? `<span class="badge bad" title="${esc(env.retiredReason)}">retired</span> <span class="muted">` +
        `${esc(env.retiredReason)}</span>`
      : '<span class="badge ok">active</span>';
  const l = env.lineage;
  const lineage = table(
    ['author', 'batch', 'parent', 'prompt version', 'validator'],
    [
      [
        esc(l.author),
        l.batchId ? `<a href="/batches/${encodeURIComponent(l.batchId)}">${esc(l.batchId)}</a>` : '–',
        esc(l.parent ?? '–'),
        `<code>${esc(l.promptHash?.slice(0, 12) ?? '–')}</code>`,
        esc(env.validatorVersion),
      ],
    ],
  );
  const versions = d.versions
    .map(
      (v) =>
        `<a href="/envs/${encodeURIComponent(env.name)}?version=${v.version}"` +
        `${v.version === env.version ? ' class="active"' : ''}>v${v.version}` +
        `${v.status === 'retired' ? ' (retired)' : ''}</a>`,
    )
    .join(' ');
  const levels = Array.from(
    { length: env.meta.levels },
    (_, i) => `<option value="${i + 1}">level ${i + 1}</option>`,
  ).join('');
  const body =
    `<h1>${esc(env.meta.title)} <span class="muted">${esc(env.name)}@${env.version}</span> ${status}</h1>
<p>${esc(env.meta.description)}</p>
<p class="facts"><b>kind</b> ${esc(d.kind)} · <b>levels</b> ${env.meta.levels} · <b>skills</b> ` +
    `${env.meta.skills.map((s) => `<span class="tag">${esc(s)}</span>`).join(' ')} · <b>admitted</b> ` +
    `${when(env.createdAt)} · <b>versions</b> ${versions}</p>
<section><h2>Lineage</h2>${lineage}${l.spec === undefined ? '' : details('spec', pre(l.spec))}` +
    `${l.notes === undefined ? '' : details('notes', pre(l.notes))}</section>
<section><h2>Difficulty by level</h2><div class="charts"><div class="chart"><canvas ` +
    `id="curve-size"></canvas></div><div class="chart"><canvas id="curve-rates"></canvas></div></div></section>
<section><h2>${d.rollouts ? 'Reference rollouts' : 'Sample instances'}</h2>
<form class="filters"><select id="sample-level" aria-label="level">${levels}</select>
<label><input type="checkbox" id="reveal"> reveal the reference</label></form>
<div id="samples" class="samples muted">loading…</div></section>
<section><h2>Validation report <span class="badge ${env.report.verdict === 'admit' ? 'ok' : 'bad'}">` +
    `${esc(env.report.verdict)}</span> <span class="muted">validation seed ${esc(env.report.validationSeed)}, ` +
    `${Math.round(env.report.ms)} ms</span></h2>${stagesTable(env.report.stages)}</section>`;
  const data = { name: env.name, version: env.version, kind: d.kind, curve: env.curve, rates: d.rates };
  return layout({ title: env.name, tab: 'library', page: 'env', body, where, data });
}

const batchRow = (b: BatchSummary): string[] => [
  `<a href="/batches/${encodeURIComponent(b.id)}">${esc(b.id)}</a>`,
  `<span class="badge ${b.status === 'finished' ? 'ok' : b.status === 'failed' ? 'bad' : 'skip'}">` +
    `${esc(b.status)}</span>`,
  when(b.createdAt),
  esc(b.admitted ?? '–'),
  esc(b.rejected ?? '–'),
  esc(b.validations ?? '–'),
  usd(b.costUsd),
  usd(b.perAdmittedUsd),
  esc(b.stopReason ?? '–'),
];

export function batchesPage(where: string, batches: BatchSummary[]): string {
  const chart = batches.length
    ? '<div class="chart wide"><canvas id="batches-chart"></canvas></div>'
    : '<p class="muted">No batch has run on this library yet: <code>envforge run</code>.</p>';
  const columns = ['batch', 'status', 'started', 'admitted', 'rejected', 'validations', 'cost', 'per admitted'];
  const body = `<h1>Batches <span class="muted">${batches.length}</span></h1>
${chart}
${table([...columns, 'stopped because'], batches.map(batchRow))}`;
  return layout({
    title: 'Batches',
    tab: 'batches',
    page: 'batches',
    body,
    where,
    data: { batches: [...batches].reverse() },
  });
}

export function batchPage(where: string, d: BatchDetail): string {
  const r = d.report;
  const summary = table(
    ['batch', 'status', 'started', 'admitted', 'rejected', 'validations', 'cost', 'per admitted', 'stopped because'],
    [batchRow(d.batch)],
  );
  if (!r)
    return layout({
      title: d.batch.id,
      tab: 'batches',
      page: 'batch',
      body:
        `<h1>Batch ${esc(d.batch.id)}</h1>${summary}<p class="muted">No report yet: the batch is ` +
        `${esc(d.batch.status)}.</p>`,
      where,
    });
  const repair =
    r.repair.successRate === null
      ? 'no candidate was repaired'
      : `${r.repair.admittedAfterRepair} of ${r.repair.candidatesRepaired} repaired candidates admitted (` +
        `${pct(r.repair.successRate)})`;
  const c = r.cost;
  const costs = [
    usd(c.totalUsd),
    usd(c.perAdmittedUsd),
    esc(c.tokensPerAdmitted?.toFixed(0) ?? '–'),
    String(c.calls),
    String(c.cachedCalls),
  ];
  const body =
    `<h1>Batch ${esc(d.batch.id)}</h1>${summary}
<section><h2>Funnel</h2><div class="chart wide"><canvas id="funnel"></canvas></div></section>
<div class="cols"><section><h2>Rejections by code</h2>${
      d.codes.length
        ? table(
            ['code', 'count', 'meaning'],
            d.codes.map((c) => [codeLink(c.code), String(c.count), esc(c.meaning)]),
          )
        : '<p class="muted">None.</p>'
    }
<h3>First failed stage</h3>${table(
      ['stage', 'validations'],
      Object.entries(r.firstFailedStage).map(([s, n]) => [esc(s), String(n)]),
    )}</section>
<section><h2>Repair and cost</h2><p id="repair">${esc(repair)}</p>
${table(['total', 'per admitted', 'tokens per admitted', 'calls', 'cached'], [costs])}
<h3>Admitted</h3><p>` +
    `${r.admitted.map((a) => envLink(a.name, a.version)).join(', ') || '<span class="muted">none</span>'}` +
    `</p></section></div>
<section><h2>Rejected candidates</h2>${
      d.rejected.length
        ? table(
            ['candidate', 'codes', 'first problem', 'report'],
            d.rejected.map((x) => [
              esc(x.name ?? '(unreadable meta)'),
              x.codes.map(codeLink).join(' '),
              esc(x.firstProblem ? `${x.firstProblem.stage}: ${x.firstProblem.message}` : ''),
              `<a href="/rejections/${esc(x.hash)}">report</a>`,
            ]),
          )
        : '<p class="muted">No kept rejection for this batch.</p>'
    }</section>`;
  return layout({ title: d.batch.id, tab: 'batches', page: 'batch', body, where, data: { funnel: r.funnel } });
}

export function rejectionPage(where: string, r: RejectionRecord): string {
  const id = r.lineage.batchId;
  const batch = id ? `<a href="/batches/${encodeURIComponent(id)}">${esc(id)}</a>` : '–';
  const body =
    `<h1>Rejected: ${esc(r.name ?? '(unreadable meta)')} <span class="muted">` +
    `${esc(r.hash.slice(0, 12))}</span></h1>
<p class="facts"><b>codes</b> ${r.codes.map(codeLink).join(' ')} · <b>author</b> ${esc(r.lineage.author)} · ` +
    `<b>batch</b> ${batch} · <b>recorded</b> ${when(r.createdAt)}</p>
<section><h2>Validation report</h2>${stagesTable(r.report.stages)}</section>` +
    `${r.lineage.spec === undefined ? '' : details('spec', pre(r.lineage.spec))}`;
  return layout({ title: 'Rejection', tab: 'rejections', page: 'rejection', body, where });
}

export function frontierPage(where: string, d: FrontierDetail): string {
  const f = d.feedback.frontier;
  const source =
    d.feedback.source === 'file'
      ? 'the feedback file given to the dashboard'
      : d.feedback.source === 'scores'
        ? `the pass rates the reward service recorded (${Math.round(d.feedback.scores)} scores)`
        : 'nothing yet: no feedback file, and the reward service has recorded no scores';
  const list = (title: string, stats: Array<{ name: string; passRate: number; n: number }>, cls: string) =>
    `<section class="${cls}"><h3>${title} <span class="muted">${stats.length}</span></h3>${
      stats.length
        ? table(
            ['skill', 'pass rate', 'attempts'],
            stats.map((s) => [esc(s.name), pct(s.passRate), String(Math.round(s.n))]),
          )
        : '<p class="muted">none</p>'
    }</section>`;
  const columns = f
    ? `${list('Weak (the frontier)', f.weak, 'weak')}${list('Saturated', f.saturated, 'saturated')}` +
      `${list('Unreachable', f.unreachable, '')}${list('Too few attempts', f.undersampled, '')}`
    : '';
  const steered = d.lastSteered
    ? `<section><h2>Last steered batch: <a href="/batches/${encodeURIComponent(d.lastSteered.id)}">` +
      `${esc(d.lastSteered.id)}</a></h2>${table(
        ['weak skill', 'pass rate', 'wanted', 'admitted'],
        d.lastSteered.frontier.weak.map((w) => [esc(w.skill), pct(w.passRate), String(w.wanted), String(w.admitted)]),
      )}</section>`
    : '';
  const kinds = table(
    ['kind', 'environments', 'with recorded scores', 'scores recorded (n)', 'pass rate'],
    d.byKind.map((k) => [
      esc(k.kind),
      String(k.environments),
      String(k.scored),
      String(Math.round(k.scores)),
      k.passRate === null ? '– (no scores yet)' : pct(k.passRate),
    ]),
    'kinds',
  );
  const body =
    `<h1>Trainer frontier</h1><p class="muted">From ${esc(source)}.</p>
<section><h2>Pass rates by kind</h2><p class="muted">The reward service's records: single-turn verdicts and finished ` +
    `episodes (a score of 0.5 or more passes).</p>${kinds}</section>
${f ? `<div class="chart wide tall"><canvas id="skills-chart"></canvas></div><div class="cols">${columns}</div>` : ''}
${steered}`;
  const data = f ? { skills: d.feedback.summary?.skills ?? [], thresholds: f.thresholds } : { skills: [] };
  return layout({ title: 'Frontier', tab: 'frontier', page: 'frontier', body, where, data });
}

export function codesPage(where: string): string {
  const rows = codeRegistry()
    .map((c) => `<tr id="${esc(c.code)}"><td><code>${esc(c.code)}</code></td><td>${esc(c.meaning)}</td></tr>`)
    .join('');
  const body =
    `<h1>Codes</h1><p class="muted">Every stable code envforge reports (contract/codes.ts).</p><table ` +
    `class="grid codes"><thead><tr><th>code</th><th>meaning</th></tr></thead><tbody>${rows}</tbody></table>`;
  return layout({ title: 'Codes', tab: 'codes', page: 'codes', body, where, uses: [] });
}

export function notFoundPage(where: string, what: string): string {
  return layout({
    title: 'Not found',
    tab: 'library',
    page: 'none',
    body: `<h1>Not found</h1><p>${esc(what)}</p><p><a href="/">Back to the library</a></p>`,
    where,
  });
}

/** The kept rejections, newest first, each with its first problem and a link to its whole report. */
const REJECTION_COLUMNS = ['recorded (UTC)', 'candidate', 'batch', 'first problem', 'other codes'];

export function rejectionsPage(
  where: string,
  rejections: RejectionRecord[],
  filter: { code?: string; batch?: string },
  limit: number,
): string {
  const rows = rejections.map((r) => [
    when(r.createdAt),
    r.hash
      ? `<a href="/rejections/${encodeURIComponent(r.hash)}">${esc(r.name ?? '(unreadable meta)')}</a>`
      : esc(r.name ?? '–'),
    r.lineage.batchId
      ? `<a href="/batches/${encodeURIComponent(r.lineage.batchId)}">${esc(r.lineage.batchId)}</a>`
      : '–',
    r.firstProblem
      ? `${codeLink(r.firstProblem.code)} <span class="muted">[${esc(r.firstProblem.stage)}]</span> ` +
        `${esc(r.firstProblem.message.slice(0, 240))}`
      : '–',
    r.codes
      .filter((c) => c !== r.firstProblem?.code)
      .map(codeLink)
      .join(' ') || '–',
  ]);
  const shown = [filter.code ? `code ${esc(filter.code)}` : '', filter.batch ? `batch ${esc(filter.batch)}` : '']
    .filter(Boolean)
    .join(', ');
  const body =
    `<h1>Rejections <span class="muted">${rejections.length}${rejections.length === limit ? '+' : ''} kept` +
    `${shown ? `, ${shown}` : ''}</span></h1>
<form class="filters" method="get" action="/rejections"><input name="code" placeholder="code, e.g. E_ACCEPTS_EMPTY" ` +
    `value="${esc(filter.code ?? '')}" aria-label="code"><input name="batch" placeholder="batch id" value="` +
    `${esc(filter.batch ?? '')}" aria-label="batch"><button type="submit">filter</button></form>
${rows.length ? table(REJECTION_COLUMNS, rows, 'rejections') : '<p class="muted">No kept rejection matches.</p>'}`;
  return layout({ title: 'Rejections', tab: 'rejections', page: 'rejections', body, where, uses: [] });
}

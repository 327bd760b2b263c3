// The dashboard's page scripts: the library table (Tabulator, remote paging, sorting and filtering), the
// charts (Chart.js) drawn from each page's JSON island, and the dispatcher that runs a page's script (the
// environment page's, with its samples and reveal toggle, is env.js). Everything from the library is text:
// values go in with textContent, or escaped where a formatter builds HTML.
'use strict';

const esc = (v) =>
  String(v ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c],
  );
const pct = (r) => (r === null || r === undefined ? '–' : `${Math.round(100 * r)}%`);
const pageData = () => JSON.parse(document.getElementById('page-data')?.textContent || 'null');
const el = (tag, cls, text) => {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
};
const COLORS = ['#2563eb', '#db2777', '#16a34a', '#ea580c', '#7c3aed', '#0891b2'];

function chart(id, config) {
  const canvas = document.getElementById(id);
  if (!canvas || !window.Chart) return null;
  config.options = {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    datasets: { bar: { maxBarThickness: 48 } },
    ...config.options,
  };
  return new window.Chart(canvas, config);
}

function libraryPage() {
  const q = document.getElementById('q');
  const status = document.getElementById('status');
  const skill = document.getElementById('skill');
  const kind = document.getElementById('kind');
  const count = document.getElementById('count');
  const table = new window.Tabulator('#envs-table', {
    ajaxURL: '/api/envs',
    ajaxURLGenerator: (url, _config, params) => {
      const u = new URLSearchParams({
        page: params.page ?? 1,
        size: params.size ?? 50,
        q: q.value,
        status: status.value,
        skill: skill.value,
        kind: kind.value,
      });
      const sort = params.sort?.[0];
      if (sort) u.set('sort', sort.field), u.set('dir', sort.dir);
      return `${url}?${u}`;
    },
    ajaxResponse: (_url, _params, response) => {
      count.textContent = `${response.total} match${response.total === 1 ? '' : 'es'}`;
      return response;
    },
    pagination: true,
    paginationMode: 'remote',
    paginationSize: 50,
    paginationSizeSelector: [25, 50, 100, 200],
    sortMode: 'remote',
    filterMode: 'remote',
    layout: 'fitColumns',
    placeholder: 'No environment matches.',
    rowFormatter: (row) => row.getElement().classList.toggle('retired', row.getData().status === 'retired'),
    columns: [
      {
        title: 'name',
        field: 'name',
        minWidth: 200,
        formatter: (c) =>
          `<a href="/envs/${encodeURIComponent(c.getValue())}">${esc(c.getValue())}</a><div class="sub">` +
          `${esc(c.getData().title)}</div>`,
      },
      { title: 'kind', field: 'kind', width: 105 },
      {
        title: 'skills',
        field: 'skills',
        headerSort: false,
        minWidth: 200,
        formatter: (c) =>
          c
            .getValue()
            .map((s) => `<span class="tag">${esc(s)}</span>`)
            .join(' '),
      },
      { title: 'versions', field: 'versions', width: 110, hozAlign: 'right' },
      {
        title: 'admitted (UTC)',
        field: 'admittedAt',
        width: 150,
        formatter: (c) => esc(c.getValue().replace('T', ' ').slice(0, 16)),
      },
      { title: 'author', field: 'author', width: 120 },
      { title: 'levels', field: 'levels', width: 80, hozAlign: 'right' },
      {
        title: 'difficulty: reference chars, level 1 → top',
        field: 'difficulty',
        width: 150,
        formatter: (c) =>
          c.getValue() ? `${Math.round(c.getValue().from)} → ${Math.round(c.getValue().to)} chars` : '–',
        tooltip: () => 'the reference answer (or rollout) size in characters at level 1 → at the top level',
      },
      {
        title: 'trainer pass rate (scores)',
        field: 'passRate',
        width: 130,
        hozAlign: 'right',
        formatter: (c) => (c.getValue() === null ? '–' : `${pct(c.getValue())} (${Math.round(c.getData().scores)})`),
      },
      {
        title: 'status',
        field: 'status',
        width: 90,
        formatter: (c) =>
          `<span class="badge ${c.getValue() === 'retired' ? 'bad' : 'ok'}" title="` +
          `${esc(c.getData().retiredReason ?? '')}">${esc(c.getValue())}</span>`,
      },
    ].map((column) => ({ headerWordWrap: true, ...column })),
  });
  let timer = null;
  const reload = () => {
    clearTimeout(timer);
    timer = setTimeout(() => table.setData(), 150);
  };
  q.addEventListener('input', reload);
  status.addEventListener('change', reload);
  skill.addEventListener('change', reload);
  kind.addEventListener('change', reload);
}
function batchesPage() {
  const d = pageData();
  chart('batches-chart', {
    type: 'bar',
    data: {
      labels: d.batches.map((b) => b.id),
      datasets: [
        { label: 'admitted', data: d.batches.map((b) => b.admitted ?? 0), backgroundColor: COLORS[2] },
        { label: 'rejected', data: d.batches.map((b) => b.rejected ?? 0), backgroundColor: COLORS[1] },
      ],
    },
    options: {
      scales: { x: { stacked: true, ticks: { display: d.batches.length <= 12 } }, y: { stacked: true } },
      plugins: { title: { display: true, text: 'Candidates per batch' } },
    },
  });
}

function batchPage() {
  const d = pageData();
  if (!d) return;
  const f = d.funnel;
  const steps = [
    ['specs', f.specs],
    ['specs dropped (duplicates)', f.specsDropped],
    ['candidates', f.candidates],
    ['modules written', f.modulesWritten],
    ['validations', f.validations],
    ['rejected', f.rejected],
    ['admitted', f.admitted],
  ];
  chart('funnel', {
    type: 'bar',
    data: {
      labels: steps.map((s) => s[0]),
      datasets: [
        {
          label: 'count',
          data: steps.map((s) => s[1]),
          backgroundColor: steps.map((s) =>
            s[0] === 'admitted'
              ? COLORS[2]
              : s[0].startsWith('rejected') || s[0].startsWith('specs dropped')
                ? COLORS[1]
                : COLORS[0],
          ),
        },
      ],
    },
    options: {
      indexAxis: 'y',
      plugins: { legend: { display: false }, title: { display: true, text: 'From specs to admitted environments' } },
    },
  });
}

function frontierPage() {
  const d = pageData();
  if (!d.skills.length) return;
  const t = d.thresholds;
  const color = (s) =>
    s.n < t.minN
      ? '#9ca3af'
      : s.passRate <= t.low
        ? '#dc2626'
        : s.passRate >= t.saturatedAt
          ? '#16a34a'
          : s.passRate < t.high
            ? '#ea580c'
            : '#2563eb';
  const skills = [...d.skills].sort((a, b) => a.passRate - b.passRate);
  // a row per skill, every label shown
  document.getElementById('skills-chart').parentElement.style.height = `${Math.max(240, 20 * skills.length + 90)}px`;
  chart('skills-chart', {
    type: 'bar',
    data: {
      labels: skills.map((s) => s.name),
      datasets: [{ label: 'pass rate', data: skills.map((s) => s.passRate), backgroundColor: skills.map(color) }],
    },
    options: {
      indexAxis: 'y',
      scales: {
        y: { ticks: { autoSkip: false } },
        x: { min: 0, max: 1, ticks: { callback: (v) => `${Math.round(v * 100)}%` } },
      },
      plugins: {
        legend: { display: false },
        title: {
          display: true,
          text: 'Pass rate per skill (orange: weak, green: saturated, red: unreachable, grey: too few attempts)',
        },
      },
    },
  });
}

const PAGES = { library: libraryPage, env: envPage, batches: batchesPage, batch: batchPage, frontier: frontierPage };
document.addEventListener('DOMContentLoaded', () => {
  for (const form of document.querySelectorAll('form:not([action])'))
    form.addEventListener('submit', (e) => e.preventDefault());
  PAGES[document.body.dataset.page]?.();
});

// The environment page's script: its charts, and its samples drawn on demand, each shown by kind (a single-turn
// prompt and reference, an episodic rollout turn by turn) behind the reveal toggle. Loaded before app.js, whose
// helpers (esc, el, chart, pageData) it uses and whose dispatcher calls envPage.
'use strict';

function envPage() {
  const d = pageData();
  const levels = d.curve.map((c) => `L${c.level}`);
  const series = (label, values, i, axis) => ({
    label,
    data: values,
    borderColor: COLORS[i],
    backgroundColor: COLORS[i],
    yAxisID: axis,
    spanGaps: true,
    tension: 0.2,
  });
  chart('curve-size', {
    type: 'line',
    data: {
      labels: levels,
      datasets: [
        series(
          'prompt chars',
          d.curve.map((c) => c.promptChars),
          0,
          'y',
        ),
        series(
          'instance chars',
          d.curve.map((c) => c.instanceChars),
          1,
          'y',
        ),
        series(
          'reference chars',
          d.curve.map((c) => c.referenceChars),
          2,
          'y',
        ),
        series(
          'solve ms',
          d.curve.map((c) => c.solveMs),
          3,
          'ms',
        ),
      ],
    },
    options: {
      plugins: { title: { display: true, text: 'Instance size and reference work' } },
      scales: {
        y: { type: 'logarithmic', title: { display: true, text: 'characters' } },
        ms: { position: 'right', title: { display: true, text: 'ms' }, grid: { drawOnChartArea: false } },
      },
    },
  });
  const byLevel = (key) => d.curve.map((c) => d.rates.find((r) => r.level === c.level)?.[key] ?? null);
  chart('curve-rates', {
    type: 'line',
    data: {
      labels: levels,
      datasets: [
        series(
          'baseline: most common answer',
          d.curve.map((c) => c.baselineCommon),
          0,
          'y',
        ),
        series(
          "baseline: another instance's answer",
          d.curve.map((c) => c.baselineOther),
          1,
          'y',
        ),
        series('solver pass rate (calibration)', byLevel('solver'), 4, 'y'),
        series('trainer pass rate (reward service)', byLevel('trainer'), 2, 'y'),
      ],
    },
    options: {
      plugins: { title: { display: true, text: 'Pass rates by level' } },
      scales: { y: { min: 0, max: 1, ticks: { callback: (v) => `${Math.round(v * 100)}%` } } },
    },
  });
  const box = document.getElementById('samples');
  const level = document.getElementById('sample-level');
  const reveal = document.getElementById('reveal');
  reveal.addEventListener('change', () => box.classList.toggle('revealed', reveal.checked));
  const load = async () => {
    box.textContent = 'loading…';
    const response = await fetch(
      `/api/envs/${encodeURIComponent(d.name)}/samples?version=${d.version}&level=${level.value}&n=3`,
    );
    const body = await response.json();
    box.textContent = '';
    box.classList.remove('muted');
    if (!response.ok) return box.append(el('p', 'error', `${body.error.code}: ${body.error.message}`));
    for (const s of body.samples) box.append(renderSample(body.rollouts, s));
  };
  level.addEventListener('change', load);
  load();
}

/** How a sample shows, by kind: a single-turn prompt and reference; an episodic reference rollout turn by turn. */
function renderSample(rollouts, s) {
  const card = el('article', 'sample');
  card.append(el('h3', '', `seed ${s.seed}, level ${s.level}`));
  if (s.error) return (card.append(el('p', 'error', `${s.error.code} in ${s.error.fn}: ${s.error.message}`)), card);
  if (s.prompt !== undefined) card.append(el('pre', 'prompt', s.prompt));
  if (Array.isArray(s.turns)) {
    const list = el('ol', 'turns secret');
    for (const turn of s.turns) {
      const item = el('li');
      item.append(
        el('code', 'action', `${turn.action?.tool ?? '?'} ${JSON.stringify(turn.action?.args ?? {})}`),
        el('pre', 'observation', `→ ${turn.observation ?? ''}`),
      );
      list.append(item);
    }
    card.append(el('h4', 'secret', `reference rollout, turn by turn (${s.turns.length} turns)`), list);
  }
  const secret = el('div', 'secret');
  // An episodic reference is its rollout above (actions with their observations), not the bare action list.
  secret.append(
    el('h4', '', `reference (scores ${s.referenceScore ?? '–'})`),
    ...(Array.isArray(s.turns) ? [] : [el('pre', 'reference', s.reference ?? '')]),
  );
  if (s.hidden && Object.keys(s.hidden).length)
    secret.append(el('h4', '', 'hidden fields'), el('pre', '', JSON.stringify(s.hidden, null, 2)));
  card.append(
    secret,
    el(
      'p',
      'hint muted',
      rollouts ? 'tick “reveal” to see the reference rollout' : 'tick “reveal” to see the reference',
    ),
  );
  return card;
}

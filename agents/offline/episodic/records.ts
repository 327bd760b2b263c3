// The hidden record store family: a table of records behind generated discovery, lookup and update tools,
// a goal over the records (change a field on every record matching generated constraints) and policy
// rules (look up before changing, locked records are escalated, changes are noted, the count is confirmed).
// Levels add records, constraints and locked records; the score checks every record in the final state.
import type { PlainRng } from '../../../sandbox/runtime.js';
import { pickName, tool, type FamilyCode } from './skeleton.js';
import { DOMAINS, PRED_KINDS, RULES, label, type Domain, type RecordsDesign, type Rule } from './records-domains.js';
import { predicate, tools } from './records-tools.js';

export type { RecordsDesign } from './records-domains.js';

const js = JSON.stringify;
/** A line of generated code, `if (cond) then` at the indent, when `on`; nothing otherwise. */
const guardLine = (on: boolean, indent: string, cond: string, then: string): string =>
  on ? `${indent}if (${cond}) ${then}\n` : '';

export function drawRecords(rng: PlainRng): RecordsDesign {
  const domain = rng.pick(Object.keys(DOMAINS));
  const d = DOMAINS[domain] as Domain;
  const nums = rng.shuffle(Object.keys(d.nums));
  const cats = rng.shuffle(Object.keys(d.cats));
  const goal = rng.pick(['set', 'map', 'rank'] as const);
  const second =
    goal === 'rank' || rng.float() < 0.7
      ? { kind: rng.pick(PRED_KINDS.cat), field: cats[0] as string }
      : { kind: rng.pick(PRED_KINDS.num), field: nums[1] as string };
  const preds = [
    { kind: rng.pick(PRED_KINDS.num), field: nums[0] as string },
    second,
    { kind: rng.pick(PRED_KINDS.cat), field: cats[1] as string },
  ];
  const lookup = rng.pick(['full', 'field', 'batch'] as const);
  const rules = RULES.filter(() => rng.float() < 0.5);
  const top = lookup === 'field' ? 10 : 15;
  const n = d.noun;
  const names = {
    list: pickName(rng, ['list', 'all', 'show'], [d.plural]),
    page: pickName(rng, ['browse', 'page', 'scan'], [d.plural]),
    filter: pickName(rng, ['search', 'filter', 'find'], [d.plural]),
    count: pickName(rng, ['count', 'tally'], [d.plural]),
    at: pickName(rng, [n], ['at', 'by_position', 'in_slot']),
    get: pickName(rng, ['get', 'open', 'view', 'read'], [n]),
    field: pickName(rng, ['get', 'read', 'inspect'], [n], ['field', 'attribute']),
    batch: pickName(rng, ['get', 'view', 'peek'], [d.plural]),
    set: pickName(rng, ['set', 'assign', 'mark'], [d.target.field]),
    generic: pickName(rng, ['update', 'edit', 'modify'], [n]),
    escalate: pickName(rng, ['escalate', 'refer', 'flag'], [n]),
    note: pickName(rng, ['add_note', 'annotate', 'log_reason'], ['', 'on_' + n]),
    finish: pickName(rng, ['submit', 'close', 'finish', 'commit'], ['batch', 'queue', 'review', 'session']),
  };
  return {
    family: 'records',
    domain,
    preds,
    goal,
    by: goal === 'map' ? (cats[2] as string) : goal === 'rank' ? (nums[1] as string) : '',
    discover: rng.pick(['list', 'pages', 'filter', 'index'] as const),
    lookup,
    update: rng.pick(['set', 'generic', 'per-value'] as const),
    rules,
    names,
    pageSize: rng.int(3, 4),
    levels: Array.from({ length: 6 }, (_, i) => ({
      records: Math.round(6 + (i * (top - 6)) / 5),
      preds: Math.min(3, 1 + (i >> 1)),
      locked: rules.includes('locked') ? ([0, 0, 1, 1, 2, 2][i] as number) : 0,
      targets: [3, 3, 3, 4, 4, 5][i] as number,
    })),
  };
}

export function recordsSkills(design: RecordsDesign): string[] {
  const skills = ['tool-use', 'information-gathering', 'multi-step-state-changes'];
  if (design.rules.length > 0) skills.push('policy-following');
  skills.push(
    design.discover === 'filter'
      ? 'search'
      : design.rules.includes('confirm-count')
        ? 'state-tracking'
        : 'constraint-satisfaction',
  );
  return skills;
}

const RULE_TEXT: Record<Rule, (d: Domain, n: Record<string, string>, lookup: string) => string> = {
  'lookup-first': (d, _n, lookup) =>
    `Look a ${d.noun} up with ${lookup} before you change it: a change to a ${d.noun} you have not looked up ` +
    `is refused and recorded as a policy violation, which fails the task.`,
  locked: (d, n) =>
    `A locked ${d.noun} must not be changed even when it matches: escalate it with ${n.escalate} instead (a ` +
    `change to it is refused and recorded as a violation). Escalate nothing else.`,
  log: (d, n) =>
    `After changing a ${d.noun}, record the reason with ${n.note} on it: one note on every ${d.noun} you ` +
    `changed and on no other.`,
  'confirm-count': (d, n) => `Pass ${n.finish} the number of ${d.plural} you changed.`,
};

/** Per goal: \`expected(r, g, records)\` (the value a record must end with, or null) and \`taskText(g)\`. */
const GOAL_CODE: Record<RecordsDesign['goal'], (x: RecordsDesign, d: Domain) => string> = {
  set: (_x, d) =>
    `const expected = (r, g) => (wanted(r, g) ? g.value : null);
const taskText = (g) => \`Task: set the ${label(d.target.field)} of every \${D.noun} ` +
    `\${goalText(g)} to "\${g.value}".\`;`,
  map: (x, d) =>
    `const expected = (r, g) => (wanted(r, g) ? g.map[r.${x.by}] : null);
const taskText = (g) => \`Task: for every \${D.noun} \${goalText(g)}, set its ${label(d.target.field)} by its ` +
    `${label(x.by)}: \${Object.entries(g.map).map(([v, t]) => \`\${v} -> "\${t}"\`).join(', ')}.\`;`,
  rank: (x, d) =>
    `function expected(r, g, records) {
  const ranked = records.filter((o) => wanted(o, g)).sort((a, b) => b.${x.by} - a.${x.by});
  return ranked.indexOf(r) >= 0 && ranked.indexOf(r) < g.top ? g.value : null;
}
const taskText = (g) => \`Task: among the \${D.plural} \${goalText(g)}, set the ${label(d.target.field)} of the ` +
    `\${g.top} with the highest ${label(x.by)} to "\${g.value}" (no two \${D.plural} ` +
    `share a ${label(x.by)}).\`;`,
};

export function recordsCode(x: RecordsDesign): FamilyCode {
  const d = DOMAINS[x.domain] as Domain;
  const N = x.names as Record<string, string>;
  const { blocks, discoverAct, lookupAct, updateAct } = tools(x, d);
  const has = (r: Rule) => x.rules.includes(r);
  if (has('locked'))
    blocks.push(
      tool(
        N.escalate as string,
        `Escalate one ${d.noun} to a supervisor.`,
        { id: { type: 'string', minLength: 1, maxLength: 16 } },
        `(s, a) => { const r = find(s, a.id); if (!r) return \`No ${d.noun} "\${a.id}".\`; mark(s, 'esc:' + ` +
          `r.id); return \`\${r.id} escalated.\`; }`,
      ),
    );
  if (has('log'))
    blocks.push(
      tool(
        N.note as string,
        `Add a note to one ${d.noun}.`,
        { id: { type: 'string', minLength: 1, maxLength: 16 }, text: { type: 'string', minLength: 1, maxLength: 200 } },
        `(s, a) => { const r = find(s, a.id); if (!r) return \`No ${d.noun} "\${a.id}".\`; mark(s, 'note:' + ` +
          `r.id); return \`Note added to \${r.id}.\`; }`,
      ),
    );
  const confirm = has('confirm-count');
  blocks.push(
    tool(
      N.finish as string,
      `End the session; the ${d.plural} are then checked.` +
        `${confirm ? ` Give the number of ${d.plural} you changed.` : ''}`,
      confirm ? { changed: { type: 'integer', minimum: 0, maximum: 99 } } : {},
      `(s, a) => { s.done = true;${confirm ? ' s.reported = a.changed;' : ''} return 'Session ended.'; }`,
    ),
  );
  const preds = x.preds.map((p, i) => predicate(p.kind, p.field, i, d));
  const lookupTool = x.lookup === 'full' ? N.get : x.lookup === 'batch' ? N.batch : N.field;
  const rules = [
    `Change nothing but the ${label(d.target.field)} of the ${d.plural} that match, and leave every ` +
      `other ${d.noun} as it is.`,
    ...x.rules.map((r) => RULE_TEXT[r](d, N, lookupTool as string)),
  ];
  // The world's fragments that depend on the design.
  const goalExtra =
    x.goal === 'map'
      ? `, map: Object.fromEntries(C.${x.by}.map((v) => [v, rng.pick(TARGET.values)]))`
      : x.goal === 'rank'
        ? ', top: k.targets - 1'
        : '';
  const distinctRanks =
    x.goal === 'rank'
      ? '\n  // Distinct values of the ranked field, so the top matches are well defined.\n' +
        `  for (const r of records) while (records.some((o) => o !== r && o.${x.by} === r.${x.by})) ` +
        `r.${x.by} = rng.int(N.${x.by}.lo, N.${x.by}.hi);`
      : '';
  const refusal = (why: string) =>
    '{ s.violations.push(r.id); return `Refused: ${r.id} ' + why + '. The policy violation is recorded.`; }';
  const refuseUnlooked = guardLine(
    has('lookup-first'),
    '  ',
    "!has(s, 'look:' + r.id)",
    refusal('was not looked up first'),
  );
  const refuseLocked = guardLine(has('locked'), '  ', 'r.locked', refusal('is locked'));
  const world =
    `
const D = ${js({ noun: d.noun, plural: d.plural, prefix: d.prefix, place: d.place })};
const C = ${js(d.cats)};
const N = ${js(d.nums)};
const TARGET = ${js(d.target)};
// The fields the constraints read, in order (level n uses the first n).
const PREDS = ${js(x.preds.map((p) => p.field))};
const TESTS = [
${preds.map((p) => `  (r, g) => ${p.test},`).join('\n')}
];
const RULES = ${js(rules)};

function drawGoal(rng, k) {
  const g = { n: k.preds, value: rng.pick(TARGET.values)${goalExtra} };
${preds.map((p) => `  ${p.draw}`).join('\n')}
  return g;
}
const wanted = (r, g) => TESTS.slice(0, g.n).every((t) => t(r, g));
${GOAL_CODE[x.goal](x, d)}
function fit(rng, r, g) {
${preds.map((p, i) => `  if (g.n > ${i}) ${p.fit}`).join('\n')}
}
function miss(rng, r, g) {
  ${preds[0]?.miss}
}
function goalText(g) {
  return [${preds.map((p) => p.text).join(', ')}].slice(0, g.n).join(' and ');
}

function makeWorld(rng, k) {
  const goal = drawGoal(rng, k);
  const ids = [];
  const count = k.records + rng.int(0, 2);
  while (ids.length < count) {
    const id = \`\${D.prefix}-\${rng.int(1000, 9999)}\`;
    if (!ids.includes(id)) ids.push(id);
  }
  const records = ids.map((id) => {
    const r = { id, locked: false };
    for (const f of Object.keys(C)) r[f] = rng.pick(C[f]);
    for (const f of Object.keys(N)) r[f] = rng.int(N[f].lo, N[f].hi);
    return r;
  });
  // At least k.targets records to change and two to leave, whatever the draws; locked ones match too.
  const order = rng.shuffle(records.map((_, i) => i));
  order.slice(0, k.targets).forEach((i) => fit(rng, records[i], goal));
  order.slice(k.targets, k.targets + 2).forEach((i) => miss(rng, records[i], goal));
  order.slice(k.targets + 2, k.targets + 2 + k.locked).forEach((i) => { fit(rng, records[i], goal); ` +
    `records[i].locked = true; });${distinctRanks}
  return { records, goal };
}

function promptOf(w) {
  return [
    \`You work \${D.place}. \${w.records.length} \${D.plural} are on file; you see them only through the tools.\`,
    '',
    taskText(w.goal),
    '',
    'Policy:',
    ...RULES.map((r, i) => \`\${i + 1}. \${r}\`),
    '',
    \`When you are done, call ${N.finish}: that ends the session, and only then is every \${D.noun} checked, all or ` +
    `nothing. The session also ends after \${meta.maxTurns} tool calls.\`,
  ].join('\\n');
}

const has = (s, key) => s.progress.includes(key);
const mark = (s, key) => { if (!s.progress.includes(key)) s.progress.push(key); };
const find = (s, id) => s.world.records.find((r) => r.id.toLowerCase() === String(id).trim().toLowerCase());
const original = (r, f) => (f === TARGET.field ? TARGET.none : String(r[f]));
const current = (s, r, f) => (s.changes[r.id] && f in s.changes[r.id] ? s.changes[r.id][f] : original(r, f));
const show = (s, r) => \`\${r.id}: \${[...Object.keys(C), ...Object.keys(N), TARGET.field].map((f) => \`\${f} ` +
    `\${current(s, r, f)}\`).join(', ')}${has('locked') ? "${r.locked ? ', LOCKED' : ''}" : ''}.\`;

function change(s, id, field, value) {
  const r = find(s, id);
  if (!r) return \`No \${D.noun} "\${String(id).slice(0, 40)}".\`;
${refuseUnlooked}${refuseLocked}  s.changes[r.id] = { ...(s.changes[r.id] || {}), [field]: value };
  return \`\${r.id}: \${field} set to \${value}.\`;
}`;
  // score's checks that depend on the rules.
  const escalatedRight = guardLine(
    has('locked'),
    '    ',
    "has(state, 'esc:' + r.id) !== (e !== null && r.locked)",
    'return { score: 0, feedback: `${r.id} is escalated wrongly` };',
  );
  const notedRight = guardLine(
    has('log'),
    '    ',
    "has(state, 'note:' + r.id) !== got.length > 0",
    'return { score: 0, feedback: `${r.id} has the wrong notes` };',
  );
  const countRight = guardLine(
    confirm,
    '  ',
    'state.reported !== changed',
    'return { score: 0, feedback: `reported ${state.reported} changes, made ${changed}` };',
  );
  const score =
    `
  const g = state.world.goal;
  if (!state.done) return { score: 0, feedback: 'the session was never ended' };
  if (state.violations.length > 0) return { score: 0, feedback: \`policy violated on \${state.violations[0]}\` };
  let changed = 0;
  for (const r of state.world.records) {
    const e = expected(r, g, state.world.records);
    const want = e !== null${has('locked') ? ' && !r.locked' : ''} ? [[TARGET.field, e]] : [];
    const got = Object.entries(state.changes[r.id] || {}).filter(([f, v]) => v !== original(r, f)).sort();
    if (JSON.stringify(got) !== JSON.stringify(want)) return { score: 0, feedback: \`\${r.id} is not ` +
    `as the task requires\` };
    if (got.length > 0) changed++;
${escalatedRight}${notedRight}  }
${countRight}  return { score: 1, feedback: 'every record is as the task requires' };`;
  // act's steps that depend on the rules.
  const escalate = guardLine(
    has('locked'),
    '    ',
    'r.locked',
    `{ if (!has(s, 'esc:' + r.id)) return { tool: ${js(N.escalate)}, args: { id: r.id } }; continue; }`,
  );
  const note = guardLine(
    has('log'),
    '    ',
    "!has(s, 'note:' + r.id)",
    `return { tool: ${js(N.note)}, args: { id: r.id, text: \`matches the task: \${e}\` } };`,
  );
  const act = `
  const s = state;
  const g = s.world.goal;
  ${discoverAct}
  ${lookupAct}
  let changes = 0;
  for (const r of s.world.records) {
    const e = expected(r, g, s.world.records);
    if (e === null) continue;
${escalate}    changes++;
    if (current(s, r, TARGET.field) !== e) return ${updateAct};
${note}  }
  return { tool: ${js(N.finish)}, args: { ${confirm ? 'changed: changes' : ''} } };`;
  const top = x.levels[x.levels.length - 1] as { records: number };
  const perRecord =
    (x.lookup === 'field' ? 4 : 1) +
    1 +
    (has('log') ? 1 : 0) +
    (x.discover === 'index' || x.discover === 'filter' ? 1 : 0);
  return {
    maxTurns: Math.min(100, Math.ceil(1.5 * ((top.records + 2) * perRecord + 6))),
    levels: x.levels.length,
    tools: blocks,
    world,
    state: 'changes: {}, violations: []' + (confirm ? ', reported: null' : ''),
    score,
    act,
    knobs: x.levels,
  };
}

// The hidden record store family: a table of records behind generated discovery, lookup and update tools,
// a goal over the records (change a field on every record matching generated constraints) and policy
// rules (look up before changing, locked records are escalated, changes are noted, the count is confirmed).
// Levels add records, constraints and locked records; the score checks every record in the final state.
import type { PlainRng } from '../../../sandbox/runtime.js';
import { pickName, tool, type FamilyCode, type ToolBlock } from './skeleton.js';

interface Domain {
  noun: string;
  plural: string;
  prefix: string;
  place: string;
  cats: Record<string, string[]>;
  nums: Record<string, { lo: number; hi: number; unit: string }>;
  target: { field: string; values: string[]; none: string };
}

const DOMAINS: Record<string, Domain> = {
  order: { noun: 'order', plural: 'orders', prefix: 'ORD', place: 'on the order desk of a web shop', cats: { status: ['pending', 'paid', 'packed', 'shipped'], channel: ['web', 'phone', 'store', 'marketplace'], region: ['north', 'south', 'east', 'west'] }, nums: { total: { lo: 5, hi: 900, unit: 'dollars' }, weight: { lo: 1, hi: 40, unit: 'kg' } }, target: { field: 'resolution', values: ['refund', 'reship', 'hold', 'cancel'], none: 'open' } },
  ticket: { noun: 'ticket', plural: 'tickets', prefix: 'TCK', place: 'as a helpdesk dispatcher', cats: { category: ['billing', 'login', 'hardware', 'network'], priority: ['low', 'normal', 'high', 'urgent'], site: ['lisbon', 'osaka', 'austin', 'berlin'] }, nums: { age_hours: { lo: 1, hi: 300, unit: 'hours' }, users_affected: { lo: 1, hi: 500, unit: 'users' } }, target: { field: 'queue', values: ['escalations', 'backlog', 'field-service', 'vendor'], none: 'triage' } },
  invoice: { noun: 'invoice', plural: 'invoices', prefix: 'INV', place: 'in accounts receivable', cats: { state: ['draft', 'sent', 'overdue', 'disputed'], currency: ['eur', 'usd', 'gbp', 'chf'], terms: ['net15', 'net30', 'net60', 'prepaid'] }, nums: { amount: { lo: 50, hi: 20000, unit: 'units of currency' }, days_overdue: { lo: 0, hi: 180, unit: 'days' } }, target: { field: 'action', values: ['remind', 'write-off', 'collect', 'freeze'], none: 'none' } },
  shipment: { noun: 'shipment', plural: 'shipments', prefix: 'SHP', place: 'in a freight control tower', cats: { carrier: ['dhl', 'ups', 'fedex', 'postal'], mode: ['air', 'road', 'sea', 'rail'], zone: ['domestic', 'eu', 'americas', 'asia'] }, nums: { weight_kg: { lo: 1, hi: 900, unit: 'kg' }, transit_days: { lo: 1, hi: 45, unit: 'days' } }, target: { field: 'instruction', values: ['reroute', 'insure', 'expedite', 'return'], none: 'as-booked' } },
  subscription: { noun: 'subscription', plural: 'subscriptions', prefix: 'SUB', place: 'on a software billing team', cats: { plan: ['basic', 'plus', 'pro', 'team'], billing: ['monthly', 'yearly', 'quarterly', 'trial'], market: ['emea', 'apac', 'latam', 'na'] }, nums: { seats: { lo: 1, hi: 200, unit: 'seats' }, months_active: { lo: 1, hi: 60, unit: 'months' } }, target: { field: 'change', values: ['upgrade', 'downgrade', 'renew', 'cancel'], none: 'unchanged' } },
  vehicle: { noun: 'vehicle', plural: 'vehicles', prefix: 'VEH', place: 'as a fleet manager', cats: { body: ['van', 'truck', 'sedan', 'pickup'], depot: ['harbor', 'airport', 'central', 'ring'], fuel: ['diesel', 'petrol', 'electric', 'hybrid'] }, nums: { mileage_km: { lo: 1000, hi: 250000, unit: 'km' }, days_since_service: { lo: 1, hi: 400, unit: 'days' } }, target: { field: 'assignment', values: ['service', 'retire', 'reassign', 'inspect'], none: 'in-use' } },
  badge: { noun: 'badge', plural: 'badges', prefix: 'BDG', place: 'on the building security desk', cats: { department: ['finance', 'research', 'sales', 'legal'], building: ['north-tower', 'annex', 'lab', 'depot'], clearance: ['visitor', 'staff', 'manager', 'admin'] }, nums: { days_unused: { lo: 0, hi: 365, unit: 'days' }, failed_swipes: { lo: 0, hi: 40, unit: 'failed swipes' } }, target: { field: 'access', values: ['revoke', 'renew', 'suspend', 'downgrade'], none: 'active' } },
  claim: { noun: 'claim', plural: 'claims', prefix: 'CLM', place: 'on a warranty claims team', cats: { product: ['laptop', 'phone', 'tablet', 'monitor'], source: ['online', 'retail', 'partner', 'hotline'], cause: ['drop', 'water', 'battery', 'screen'] }, nums: { claim_value: { lo: 20, hi: 3000, unit: 'dollars' }, days_owned: { lo: 1, hi: 900, unit: 'days' } }, target: { field: 'decision', values: ['approve', 'reject', 'repair', 'replace'], none: 'pending' } },
};

const PRED_KINDS = { num: ['above', 'below', 'between'], cat: ['eq', 'in', 'not'] } as const;
const RULES = ['lookup-first', 'locked', 'log', 'confirm-count'] as const;
type Rule = (typeof RULES)[number];

export interface RecordsDesign {
  family: 'records';
  domain: string;
  /** Constraint kinds and fields, the first numeric; level n uses the first `preds` of them. */
  preds: Array<{ kind: string; field: string }>;
  /** set: one value for every match; map: the value depends on a category; rank: only the top matches by a number. */
  goal: 'set' | 'map' | 'rank';
  /** The field a map goal reads (a category) or a rank goal sorts by (a number). */
  by: string;
  discover: 'list' | 'pages' | 'filter' | 'index';
  lookup: 'full' | 'field' | 'batch';
  update: 'set' | 'generic' | 'per-value';
  rules: Rule[];
  names: Record<string, string>;
  pageSize: number;
  levels: Array<{ records: number; preds: number; locked: number; targets: number }>;
}

export function drawRecords(rng: PlainRng): RecordsDesign {
  const domain = rng.pick(Object.keys(DOMAINS));
  const d = DOMAINS[domain] as Domain;
  const nums = rng.shuffle(Object.keys(d.nums));
  const cats = rng.shuffle(Object.keys(d.cats));
  const goal = rng.pick(['set', 'map', 'rank'] as const);
  const second = goal === 'rank' || rng.float() < 0.7 ? { kind: rng.pick(PRED_KINDS.cat), field: cats[0] as string } : { kind: rng.pick(PRED_KINDS.num), field: nums[1] as string };
  const preds = [{ kind: rng.pick(PRED_KINDS.num), field: nums[0] as string }, second, { kind: rng.pick(PRED_KINDS.cat), field: cats[1] as string }];
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
    levels: Array.from({ length: 6 }, (_, i) => ({ records: Math.round(6 + (i * (top - 6)) / 5), preds: Math.min(3, 1 + (i >> 1)), locked: rules.includes('locked') ? [0, 0, 1, 1, 2, 2][i] as number : 0, targets: [3, 3, 3, 4, 4, 5][i] as number })),
  };
}

export function recordsSkills(design: RecordsDesign): string[] {
  const skills = ['tool-use', 'information-gathering', 'multi-step-state-changes'];
  if (design.rules.length > 0) skills.push('policy-following');
  skills.push(design.discover === 'filter' ? 'search' : design.rules.includes('confirm-count') ? 'state-tracking' : 'constraint-satisfaction');
  return skills;
}

const js = JSON.stringify;
const label = (field: string) => field.replace(/_/g, ' ');

/** The JavaScript of one constraint: how a goal draws it, tests a record, makes a record match or miss it, and says it. */
function predicate(kind: string, field: string, i: number, d: Domain): { draw: string; test: string; fit: string; miss?: string; text: string } {
  const p = `g.p${i}`;
  const num = d.nums[field];
  const unit = num?.unit ?? '';
  switch (kind) {
    case 'above':
      return { draw: `${p} = rng.int(N.${field}.lo + Math.floor((N.${field}.hi - N.${field}.lo) / 4), N.${field}.hi - Math.floor((N.${field}.hi - N.${field}.lo) / 4));`, test: `r.${field} > ${p}`, fit: `r.${field} = rng.int(${p} + 1, N.${field}.hi);`, miss: `r.${field} = rng.int(N.${field}.lo, ${p});`, text: `\`with a ${label(field)} above \${${p}} ${unit}\`` };
    case 'below':
      return { draw: `${p} = rng.int(N.${field}.lo + Math.floor((N.${field}.hi - N.${field}.lo) / 4), N.${field}.hi - Math.floor((N.${field}.hi - N.${field}.lo) / 4));`, test: `r.${field} < ${p}`, fit: `r.${field} = rng.int(N.${field}.lo, ${p} - 1);`, miss: `r.${field} = rng.int(${p}, N.${field}.hi);`, text: `\`with a ${label(field)} below \${${p}} ${unit}\`` };
    case 'between':
      return {
        draw: `{ const w = Math.floor((N.${field}.hi - N.${field}.lo) / 3); const a = rng.int(N.${field}.lo + 1, N.${field}.hi - w - 1); ${p} = [a, a + w]; }`,
        test: `r.${field} >= ${p}[0] && r.${field} <= ${p}[1]`,
        fit: `r.${field} = rng.int(${p}[0], ${p}[1]);`,
        miss: `r.${field} = rng.float() < 0.5 ? rng.int(N.${field}.lo, ${p}[0] - 1) : rng.int(${p}[1] + 1, N.${field}.hi);`,
        text: `\`with a ${label(field)} from \${${p}[0]} to \${${p}[1]} ${unit}\``,
      };
    case 'eq':
      return { draw: `${p} = rng.pick(C.${field});`, test: `r.${field} === ${p}`, fit: `r.${field} = ${p};`, text: `\`whose ${label(field)} is \${${p}}\`` };
    case 'in':
      return { draw: `${p} = rng.shuffle(C.${field}).slice(0, 2);`, test: `${p}.includes(r.${field})`, fit: `r.${field} = rng.pick(${p});`, text: `\`whose ${label(field)} is \${${p}.join(' or ')}\`` };
    default:
      return { draw: `${p} = rng.pick(C.${field});`, test: `r.${field} !== ${p}`, fit: `r.${field} = rng.pick(C.${field}.filter((v) => v !== ${p}));`, text: `\`whose ${label(field)} is not \${${p}}\`` };
  }
}

function tools(x: RecordsDesign, d: Domain): { blocks: ToolBlock[]; discoverAct: string; lookupAct: string; updateAct: string } {
  const N = x.names as Record<string, string>;
  const blocks: ToolBlock[] = [];
  const id = { type: 'string', minLength: 1, maxLength: 16, description: `a ${d.noun} id such as ${d.prefix}-1234` };
  let discoverAct: string;
  if (x.discover === 'list') {
    blocks.push(tool(N.list as string, `List the ids of every ${d.noun} on file.`, {}, `(s) => { mark(s, 'list'); return \`${d.plural} on file: \${s.world.records.map((r) => r.id).join(', ')}.\`; }`));
    discoverAct = `if (!has(s, 'list')) return { tool: ${js(N.list)}, args: {} };`;
  } else if (x.discover === 'pages') {
    blocks.push(tool(N.page as string, `List one page of ${d.plural} (${x.pageSize} ids per page, pages from 1).`, { page: { type: 'integer', minimum: 1, maximum: 50 } }, `(s, a) => { const pages = Math.ceil(s.world.records.length / ${x.pageSize}); if (a.page > pages) return \`There are only \${pages} pages.\`; mark(s, 'page:' + a.page); return \`Page \${a.page} of \${pages}: \${s.world.records.slice((a.page - 1) * ${x.pageSize}, a.page * ${x.pageSize}).map((r) => r.id).join(', ')}.\`; }`));
    discoverAct = `for (let p = 1; p <= Math.ceil(s.world.records.length / ${x.pageSize}); p++) if (!has(s, 'page:' + p)) return { tool: ${js(N.page)}, args: { page: p } };`;
  } else if (x.discover === 'filter') {
    const cats = Object.keys(d.cats);
    blocks.push(tool(N.filter as string, `Find the ids of the ${d.plural} whose field has a value (${cats.map((c) => `${c}: ${(d.cats[c] as string[]).join(', ')}`).join('; ')}).`, { field: { type: 'string', enum: cats }, value: { type: 'string', minLength: 1, maxLength: 40 } }, `(s, a) => { const v = a.value.trim().toLowerCase(); mark(s, 'filter:' + a.field + '=' + v); const ids = s.world.records.filter((r) => String(r[a.field]) === v).map((r) => r.id); return ids.length ? \`${d.plural} with \${a.field} \${v}: \${ids.join(', ')}.\` : \`No ${d.noun} has \${a.field} \${v}.\`; }`));
    discoverAct = `for (const v of C.${cats[0]}) if (!has(s, 'filter:${cats[0]}=' + v)) return { tool: ${js(N.filter)}, args: { field: ${js(cats[0])}, value: v } };`;
  } else {
    blocks.push(tool(N.count as string, `Count the ${d.plural} on file.`, {}, `(s) => { mark(s, 'count'); return \`\${s.world.records.length} ${d.plural} on file.\`; }`));
    blocks.push(tool(N.at as string, `Show the id of the ${d.noun} at a position of the file (from 1).`, { position: { type: 'integer', minimum: 1, maximum: 50 } }, `(s, a) => { const r = s.world.records[a.position - 1]; if (!r) return \`No ${d.noun} at position \${a.position}.\`; mark(s, 'at:' + a.position); return \`Position \${a.position}: \${r.id}.\`; }`));
    discoverAct = `if (!has(s, 'count')) return { tool: ${js(N.count)}, args: {} };\n  for (let i = 1; i <= s.world.records.length; i++) if (!has(s, 'at:' + i)) return { tool: ${js(N.at)}, args: { position: i } };`;
  }
  const locked = x.rules.includes('locked');
  let lookupAct: string;
  if (x.lookup === 'full') {
    blocks.push(tool(N.get as string, `Show every field of one ${d.noun}.`, { id }, `(s, a) => { const r = find(s, a.id); if (!r) return \`No ${d.noun} "\${a.id}".\`; mark(s, 'look:' + r.id); return show(s, r); }`));
    lookupAct = `for (const r of s.world.records) if (!has(s, 'look:' + r.id)) return { tool: ${js(N.get)}, args: { id: r.id } };`;
  } else if (x.lookup === 'batch') {
    blocks.push(tool(N.batch as string, `Show every field of up to three ${d.plural} at once.`, { ids: { type: 'array', items: id, minItems: 1, maxItems: 3 } }, `(s, a) => a.ids.map((x) => { const r = find(s, x); if (!r) return \`No ${d.noun} "\${x}".\`; mark(s, 'look:' + r.id); return show(s, r); }).join('\\n')`));
    lookupAct = `{ const todo = s.world.records.filter((r) => !has(s, 'look:' + r.id)).map((r) => r.id); if (todo.length) return { tool: ${js(N.batch)}, args: { ids: todo.slice(0, 3) } }; }`;
  } else {
    const fields = [...Object.keys(d.cats), ...Object.keys(d.nums), d.target.field, ...(locked ? ['locked'] : [])];
    blocks.push(tool(N.field as string, `Read one field of one ${d.noun} (fields: ${fields.join(', ')}).`, { id, field: { type: 'string', enum: fields } }, `(s, a) => { const r = find(s, a.id); if (!r) return \`No ${d.noun} "\${a.id}".\`; mark(s, 'look:' + r.id); mark(s, 'field:' + r.id + ':' + a.field); return \`\${r.id} \${a.field}: \${current(s, r, a.field)}.\`; }`));
    lookupAct = `{ const need = [...PREDS.slice(0, s.world.goal.n)${x.by ? `, ${js(x.by)}` : ''}${locked ? ", 'locked'" : ''}]; for (const r of s.world.records) for (const f of need) if (!has(s, 'field:' + r.id + ':' + f)) return { tool: ${js(N.field)}, args: { id: r.id, field: f } }; }`;
  }
  let updateAct: string;
  if (x.update === 'set') {
    blocks.push(tool(N.set as string, `Set the ${label(d.target.field)} of one ${d.noun}.`, { id, value: { type: 'string', enum: d.target.values } }, `(s, a) => change(s, a.id, TARGET.field, a.value)`));
    updateAct = `{ tool: ${js(N.set)}, args: { id: r.id, value: e } }`;
  } else if (x.update === 'generic') {
    const editable = [d.target.field, ...Object.keys(d.cats)];
    blocks.push(tool(N.generic as string, `Change one field of one ${d.noun} (${editable.join(', ')}).`, { id, field: { type: 'string', enum: editable }, value: { type: 'string', minLength: 1, maxLength: 40 } }, `(s, a) => change(s, a.id, a.field, a.value.trim().toLowerCase())`));
    updateAct = `{ tool: ${js(N.generic)}, args: { id: r.id, field: TARGET.field, value: e } }`;
  } else {
    const verbs: Record<string, string> = {};
    for (const v of d.target.values) {
      const name = `${v.replace(/-/g, '_')}_${d.noun}`;
      verbs[v] = name;
      blocks.push(tool(name, `Set the ${label(d.target.field)} of one ${d.noun} to ${v}.`, { id }, `(s, a) => change(s, a.id, TARGET.field, ${js(v)})`));
    }
    updateAct = `{ tool: ${js(verbs)}[e], args: { id: r.id } }`;
  }
  return { blocks, discoverAct, lookupAct, updateAct };
}

const RULE_TEXT: Record<Rule, (d: Domain, n: Record<string, string>, lookup: string) => string> = {
  'lookup-first': (d, _n, lookup) => `Look a ${d.noun} up with ${lookup} before you change it: a change to a ${d.noun} you have not looked up is refused and recorded as a policy violation, which fails the task.`,
  locked: (d, n) => `A locked ${d.noun} must not be changed even when it matches: escalate it with ${n.escalate} instead (a change to it is refused and recorded as a violation). Escalate nothing else.`,
  log: (d, n) => `After changing a ${d.noun}, record the reason with ${n.note} on it: one note on every ${d.noun} you changed and on no other.`,
  'confirm-count': (d, n) => `Pass ${n.finish} the number of ${d.plural} you changed.`,
};

/** Per goal: \`expected(r, g, records)\` (the value a record must end with, or null) and \`taskText(g)\`. */
const GOAL_CODE: Record<RecordsDesign['goal'], (x: RecordsDesign, d: Domain) => string> = {
  set: (_x, d) => `const expected = (r, g) => (wanted(r, g) ? g.value : null);
const taskText = (g) => \`Task: set the ${label(d.target.field)} of every \${D.noun} \${goalText(g)} to "\${g.value}".\`;`,
  map: (x, d) => `const expected = (r, g) => (wanted(r, g) ? g.map[r.${x.by}] : null);
const taskText = (g) => \`Task: for every \${D.noun} \${goalText(g)}, set its ${label(d.target.field)} by its ${label(x.by)}: \${Object.entries(g.map).map(([v, t]) => \`\${v} -> "\${t}"\`).join(', ')}.\`;`,
  rank: (x, d) => `function expected(r, g, records) {
  const ranked = records.filter((o) => wanted(o, g)).sort((a, b) => b.${x.by} - a.${x.by});
  return ranked.indexOf(r) >= 0 && ranked.indexOf(r) < g.top ? g.value : null;
}
const taskText = (g) => \`Task: among the \${D.plural} \${goalText(g)}, set the ${label(d.target.field)} of the \${g.top} with the highest ${label(x.by)} to "\${g.value}" (no two \${D.plural} share a ${label(x.by)}).\`;`,
};

export function recordsCode(x: RecordsDesign): FamilyCode {
  const d = DOMAINS[x.domain] as Domain;
  const N = x.names as Record<string, string>;
  const { blocks, discoverAct, lookupAct, updateAct } = tools(x, d);
  const has = (r: Rule) => x.rules.includes(r);
  if (has('locked')) blocks.push(tool(N.escalate as string, `Escalate one ${d.noun} to a supervisor.`, { id: { type: 'string', minLength: 1, maxLength: 16 } }, `(s, a) => { const r = find(s, a.id); if (!r) return \`No ${d.noun} "\${a.id}".\`; mark(s, 'esc:' + r.id); return \`\${r.id} escalated.\`; }`));
  if (has('log')) blocks.push(tool(N.note as string, `Add a note to one ${d.noun}.`, { id: { type: 'string', minLength: 1, maxLength: 16 }, text: { type: 'string', minLength: 1, maxLength: 200 } }, `(s, a) => { const r = find(s, a.id); if (!r) return \`No ${d.noun} "\${a.id}".\`; mark(s, 'note:' + r.id); return \`Note added to \${r.id}.\`; }`));
  const confirm = has('confirm-count');
  blocks.push(tool(N.finish as string, `End the session; the ${d.plural} are then checked.${confirm ? ` Give the number of ${d.plural} you changed.` : ''}`, confirm ? { changed: { type: 'integer', minimum: 0, maximum: 99 } } : {}, `(s, a) => { s.done = true;${confirm ? ' s.reported = a.changed;' : ''} return 'Session ended.'; }`));
  const preds = x.preds.map((p, i) => predicate(p.kind, p.field, i, d));
  const lookupTool = x.lookup === 'full' ? N.get : x.lookup === 'batch' ? N.batch : N.field;
  const rules = [
    `Change nothing but the ${label(d.target.field)} of the ${d.plural} that match, and leave every other ${d.noun} as it is.`,
    ...x.rules.map((r) => RULE_TEXT[r](d, N, lookupTool as string)),
  ];
  const world = `
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
  const g = { n: k.preds, value: rng.pick(TARGET.values)${x.goal === 'map' ? `, map: Object.fromEntries(C.${x.by}.map((v) => [v, rng.pick(TARGET.values)]))` : x.goal === 'rank' ? ', top: k.targets - 1' : ''} };
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
  order.slice(k.targets + 2, k.targets + 2 + k.locked).forEach((i) => { fit(rng, records[i], goal); records[i].locked = true; });${x.goal === 'rank' ? `
  // Distinct values of the ranked field, so the top matches are well defined.
  for (const r of records) while (records.some((o) => o !== r && o.${x.by} === r.${x.by})) r.${x.by} = rng.int(N.${x.by}.lo, N.${x.by}.hi);` : ''}
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
    \`When you are done, call ${N.finish}: that ends the session, and only then is every \${D.noun} checked, all or nothing. The session also ends after \${meta.maxTurns} tool calls.\`,
  ].join('\\n');
}

const has = (s, key) => s.progress.includes(key);
const mark = (s, key) => { if (!s.progress.includes(key)) s.progress.push(key); };
const find = (s, id) => s.world.records.find((r) => r.id.toLowerCase() === String(id).trim().toLowerCase());
const original = (r, f) => (f === TARGET.field ? TARGET.none : String(r[f]));
const current = (s, r, f) => (s.changes[r.id] && f in s.changes[r.id] ? s.changes[r.id][f] : original(r, f));
const show = (s, r) => \`\${r.id}: \${[...Object.keys(C), ...Object.keys(N), TARGET.field].map((f) => \`\${f} \${current(s, r, f)}\`).join(', ')}${has('locked') ? "${r.locked ? ', LOCKED' : ''}" : ''}.\`;

function change(s, id, field, value) {
  const r = find(s, id);
  if (!r) return \`No \${D.noun} "\${String(id).slice(0, 40)}".\`;
${has('lookup-first') ? "  if (!has(s, 'look:' + r.id)) { s.violations.push(r.id); return `Refused: ${r.id} was not looked up first. The policy violation is recorded.`; }\n" : ''}${has('locked') ? '  if (r.locked) { s.violations.push(r.id); return `Refused: ${r.id} is locked. The policy violation is recorded.`; }\n' : ''}  s.changes[r.id] = { ...(s.changes[r.id] || {}), [field]: value };
  return \`\${r.id}: \${field} set to \${value}.\`;
}`;
  const score = `
  const g = state.world.goal;
  if (!state.done) return { score: 0, feedback: 'the session was never ended' };
  if (state.violations.length > 0) return { score: 0, feedback: \`policy violated on \${state.violations[0]}\` };
  let changed = 0;
  for (const r of state.world.records) {
    const e = expected(r, g, state.world.records);
    const want = e !== null${has('locked') ? ' && !r.locked' : ''} ? [[TARGET.field, e]] : [];
    const got = Object.entries(state.changes[r.id] || {}).filter(([f, v]) => v !== original(r, f)).sort();
    if (JSON.stringify(got) !== JSON.stringify(want)) return { score: 0, feedback: \`\${r.id} is not as the task requires\` };
    if (got.length > 0) changed++;
${has('locked') ? "    if (has(state, 'esc:' + r.id) !== (e !== null && r.locked)) return { score: 0, feedback: `${r.id} is escalated wrongly` };\n" : ''}${has('log') ? "    if (has(state, 'note:' + r.id) !== got.length > 0) return { score: 0, feedback: `${r.id} has the wrong notes` };\n" : ''}  }
${confirm ? "  if (state.reported !== changed) return { score: 0, feedback: `reported ${state.reported} changes, made ${changed}` };\n" : ''}  return { score: 1, feedback: 'every record is as the task requires' };`;
  const act = `
  const s = state;
  const g = s.world.goal;
  ${discoverAct}
  ${lookupAct}
  let changes = 0;
  for (const r of s.world.records) {
    const e = expected(r, g, s.world.records);
    if (e === null) continue;
${has('locked') ? `    if (r.locked) { if (!has(s, 'esc:' + r.id)) return { tool: ${js(N.escalate)}, args: { id: r.id } }; continue; }\n` : ''}    changes++;
    if (current(s, r, TARGET.field) !== e) return ${updateAct};
${has('log') ? `    if (!has(s, 'note:' + r.id)) return { tool: ${js(N.note)}, args: { id: r.id, text: \`matches the task: \${e}\` } };\n` : ''}  }
  return { tool: ${js(N.finish)}, args: { ${confirm ? 'changed: changes' : ''} } };`;
  const top = x.levels[x.levels.length - 1] as { records: number };
  const perRecord = (x.lookup === 'field' ? 4 : 1) + 1 + (has('log') ? 1 : 0) + (x.discover === 'index' || x.discover === 'filter' ? 1 : 0);
  return { maxTurns: Math.min(100, Math.ceil(1.5 * ((top.records + 2) * perRecord + 6))), levels: x.levels.length, tools: blocks, world, state: 'changes: {}, violations: []' + (confirm ? ', reported: null' : ''), score, act, knobs: x.levels };
}

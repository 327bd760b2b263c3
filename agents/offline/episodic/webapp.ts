// The finite-state web application family (after AutoWebWorld): a generated site is a chain of page kinds
// (sign-in, catalogue or search, options, a form, a confirmation step), each a small state machine driven
// by click / type / read tools. The goal is a committed transaction with the item, option and form values
// the prompt asks for; levels grow the catalogue and the form. The score checks the committed state only.
import type { PlainRng } from '../../../sandbox/runtime.js';
import { pickName, sample, tool, type FamilyCode } from './skeleton.js';

const THEMES: Record<
  string,
  {
    site: string;
    item: string;
    adjectives: string[];
    nouns: string[];
    option: string;
    options: string[];
    commit: string;
  }
> = {
  shop: {
    site: 'an online hardware shop',
    item: 'product',
    adjectives: ['steel', 'compact', 'cordless', 'heavy', 'folding', 'mini', 'pro', 'classic'],
    nouns: ['drill', 'ladder', 'kettle', 'lamp', 'saw', 'clamp', 'toolbox', 'fan'],
    option: 'delivery',
    options: ['standard', 'express', 'pickup', 'locker'],
    commit: 'place order',
  },
  clinic: {
    site: 'a clinic booking portal',
    item: 'appointment',
    adjectives: ['morning', 'evening', 'early', 'late', 'weekend', 'midday', 'remote', 'follow-up'],
    nouns: ['checkup', 'dental', 'physio', 'vaccine', 'eye-test', 'bloodwork', 'xray', 'consult'],
    option: 'visit type',
    options: ['in-person', 'video', 'phone', 'home-visit'],
    commit: 'book now',
  },
  travel: {
    site: 'a rail ticket site',
    item: 'train',
    adjectives: ['night', 'express', 'regional', 'coastal', 'alpine', 'direct', 'sleeper', 'early'],
    nouns: ['lisbon', 'porto', 'madrid', 'seville', 'valencia', 'bilbao', 'malaga', 'girona'],
    option: 'class',
    options: ['first', 'second', 'quiet', 'family'],
    commit: 'buy ticket',
  },
  events: {
    site: 'an event ticket office',
    item: 'event',
    adjectives: ['jazz', 'opera', 'indie', 'comedy', 'ballet', 'folk', 'choral', 'electronic'],
    nouns: ['night', 'matinee', 'festival', 'gala', 'premiere', 'session', 'showcase', 'tour'],
    option: 'seat area',
    options: ['stalls', 'balcony', 'box', 'standing'],
    commit: 'confirm purchase',
  },
  rentals: {
    site: 'a car rental site',
    item: 'car',
    adjectives: ['compact', 'family', 'electric', 'luxury', 'economy', 'sport', 'hybrid', 'cargo'],
    nouns: ['hatchback', 'sedan', 'estate', 'suv', 'van', 'coupe', 'roadster', 'minivan'],
    option: 'insurance',
    options: ['basic', 'full', 'none', 'premium'],
    commit: 'reserve car',
  },
  library: {
    site: 'a public library website',
    item: 'title',
    adjectives: ['illustrated', 'annotated', 'abridged', 'large-print', 'revised', 'pocket', 'collected', 'bilingual'],
    nouns: ['atlas', 'cookbook', 'memoir', 'almanac', 'novel', 'anthology', 'primer', 'field-guide'],
    option: 'pickup branch',
    options: ['central', 'harbor', 'westgate', 'university'],
    commit: 'place hold',
  },
};
const FIELDS: Record<string, string[]> = {
  full_name: [
    'ana berg',
    'ben costa',
    'chloe dahl',
    'dev eze',
    'elif ito',
    'farid lopez',
    'grace novak',
    'hugo okafor',
  ],
  city: ['lisbon', 'osaka', 'austin', 'berlin', 'quito', 'tunis', 'perth', 'oslo'],
  email_user: ['rosa', 'sam', 'maya', 'nils', 'omar', 'priya', 'liam', 'keiko'],
  postcode: ['ab12', 'cd34', 'ef56', 'gh78', 'jk90', 'lm13', 'np57', 'qr24'],
  phone_suffix: ['4821', '7730', '1196', '5402', '3388', '9051', '6627', '2814'],
  reference: ['alpha', 'bravo', 'delta', 'echo', 'kilo', 'lima', 'oscar', 'tango'],
};
const STAGE_KINDS = ['login', 'find', 'options', 'form', 'confirm'] as const;

export interface WebappDesign {
  family: 'webapp';
  theme: string;
  /** The pages in order; 'find' is a paged catalogue or a search page, 'form' always comes. */
  stages: string[];
  find: 'catalog' | 'search';
  fields: string[];
  names: Record<string, string>;
  levels: Array<{ items: number; fields: number; pageSize: number }>;
}

export function drawWebapp(rng: PlainRng): WebappDesign {
  const find = rng.pick(['catalog', 'search'] as const);
  const stages = STAGE_KINDS.filter((k) => k === 'find' || k === 'form' || rng.float() < 0.5);
  return {
    family: 'webapp',
    theme: rng.pick(Object.keys(THEMES)),
    stages,
    find,
    fields: sample(rng, Object.keys(FIELDS), 5),
    names: {
      click: pickName(rng, ['click', 'press', 'tap', 'activate']),
      type: pickName(rng, ['type', 'fill_in', 'enter_text', 'input']),
      read: pickName(rng, ['read_page', 'view_page', 'look_at_screen', 'show_page']),
    },
    levels: Array.from({ length: 6 }, (_, i) => ({
      items: [6, 8, 10, 14, 18, 24][i] as number,
      fields: [1, 2, 2, 3, 4, 5][i] as number,
      pageSize: find === 'catalog' ? 3 : 4,
    })),
  };
}

export const webappSkills = (x: WebappDesign): string[] => [
  'web-navigation',
  'tool-use',
  'multi-step-state-changes',
  x.find === 'search' ? 'search' : 'information-gathering',
  ...(x.stages.includes('login') ? ['policy-following'] : []),
];

const js = JSON.stringify;

/** Each page kind: what it shows (`show`), its fields, what a click does, and the reference's next action on it. */
const PAGE_CODE: Record<string, (x: WebappDesign, t: (typeof THEMES)[string]) => string> = {
  login: () =>
    `  login: {
    show: () => 'Sign in. Fields: username, password. Buttons: sign in.',
    fields: () => ['username', 'password'],
    click(s, label) {
      if (label !== 'sign in') return null;
      if (s.form.username !== s.world.user || s.form.password !== s.world.pass) return 'Wrong username or password.';
      return advance(s);
    },
    plan: (s) => (s.form.username !== s.world.user ? typing('username', s.world.user) : s.form.password !== ` +
    `s.world.pass ? typing('password', s.world.pass) : clicking('sign in')),
  },`,
  catalog: (x) =>
    `  find: {
    show(s) {
      const pages = Math.ceil(s.world.items.length / ${x.levels[0]?.pageSize});
      const shown = s.world.items.slice(s.page * ${x.levels[0]?.pageSize}, (s.page + 1) * ${x.levels[0]?.pageSize});
      return \`Catalogue, page \${s.page + 1} of \${pages}:\\n\${shown.map((i) => \`- \${i.name}: \${i.price} ` +
    `[button: open \${i.code}]\`).join('\\n')}\\nButtons: next page, previous page.\`;
    },
    fields: () => [],
    click(s, label) {
      const pages = Math.ceil(s.world.items.length / ${x.levels[0]?.pageSize});
      if (label === 'next page') { s.page = Math.min(pages - 1, s.page + 1); return this.show(s); }
      if (label === 'previous page') { s.page = Math.max(0, s.page - 1); return this.show(s); }
      const it = s.world.items.slice(s.page * ${x.levels[0]?.pageSize}, (s.page + 1) * ${x.levels[0]?.pageSize}` +
    `).find((i) => label === 'open ' + i.code.toLowerCase());
      if (!it) return null;
      s.order.item = it.code;
      return advance(s);
    },
    plan(s) {
      const at = s.world.items.findIndex((i) => i.name === s.world.goal.item);
      return Math.floor(at / ${x.levels[0]?.pageSize}) > s.page ? clicking('next page') : clicking('open ' + ` +
    `s.world.items[at].code.toLowerCase());
    },
  },`,
  search: () =>
    `  find: {
    show: (s) => \`Search. Field: query. Buttons: search\${s.results.length ? '.\\nResults:\\n' + s.results.map((c) ` +
    `=> { const i = s.world.items.find((x) => x.code === c); return \`- \${i.name}: \${i.price} [button: open ` +
    `\${i.code}]\`; }).join('\\n') : ' (no results yet).'}\`,
    fields: () => ['query'],
    click(s, label) {
      if (label === 'search') {
        const words = String(s.form.query || '').split(/\\s+/).filter(Boolean);
        s.results = s.world.items.filter((i) => words.length && words.every((w) => ` +
    `i.name.includes(w))).slice(0, 6).map((i) => i.code);
        return this.show(s);
      }
      const code = s.results.find((c) => label === 'open ' + c.toLowerCase());
      if (!code) return null;
      s.order.item = code;
      return advance(s);
    },
    plan(s) {
      const it = s.world.items.find((i) => i.name === s.world.goal.item);
      if (s.results.includes(it.code)) return clicking('open ' + it.code.toLowerCase());
      return s.form.query !== it.name ? typing('query', it.name) : clicking('search');
    },
  },`,
  options: (_x, t) =>
    `  options: {
    show: (s) => \`Choose the ${t.option}: \${OPTIONS.join(', ')}\${s.form.choice ? ' (chosen: ' + s.form.choice + ` +
    `')' : ''}. Buttons: \${OPTIONS.join(', ')}, continue.\`,
    fields: () => [],
    click(s, label) {
      if (OPTIONS.includes(label)) { s.form.choice = label; return this.show(s); }
      if (label !== 'continue') return null;
      if (!s.form.choice) return 'Choose an option first.';
      s.order.option = s.form.choice;
      return advance(s);
    },
    plan: (s) => (s.form.choice !== s.world.goal.option ? clicking(s.world.goal.option) : clicking('continue')),
  },`,
  form: () =>
    `  form: {
    show: (s) => \`Your details. Fields: \${s.world.fields.join(', ')}. Buttons: submit.\`,
    fields: (s) => s.world.fields,
    click(s, label) {
      if (label !== 'submit') return null;
      const empty = s.world.fields.find((f) => !s.form[f]);
      if (empty) return \`The field \${empty} is required.\`;
      s.order.details = Object.fromEntries(s.world.fields.map((f) => [f, s.form[f]]));
      return advance(s);
    },
    plan: (s) => { const f = s.world.fields.find((x) => s.form[x] !== s.world.goal.details[x]); return f ? typing(f, ` +
    `s.world.goal.details[f]) : clicking('submit'); },
  },`,
  confirm: (_x, t) =>
    `  confirm: {
    show: (s) => \`Check your ${t.item}: \${JSON.stringify(s.order)}. To confirm, type the code \${s.world.code} ` +
    `into the field code. Buttons: ${t.commit}, start over.\`,
    fields: () => ['code'],
    click(s, label) {
      if (label === 'start over') { s.stage = 0; s.form = {}; s.order = {}; s.page = 0; s.results = []; ` +
    `return 'Back to the start.'; }
      if (label !== ${js(t.commit)}) return null;
      if (s.form.code !== s.world.code) return 'The confirmation code does not match.';
      return advance(s);
    },
    plan: (s) => (s.form.code !== s.world.code ? typing('code', s.world.code) : clicking(${js(t.commit)})),
  },`,
};

export function webappCode(x: WebappDesign): FamilyCode {
  const t = THEMES[x.theme] as (typeof THEMES)[string];
  const N = x.names as Record<string, string>;
  const pages = x.stages.map((k) => PAGE_CODE[k === 'find' ? x.find : k]?.(x, t) ?? '').join('\n');
  const world =
    `
const SITE = ${js({ site: t.site, item: t.item })};
const ADJECTIVES = ${js(t.adjectives)};
const NOUNS = ${js(t.nouns)};
const OPTIONS = ${js(t.options)};
const VALUES = ${js(Object.fromEntries(x.fields.map((f) => [f, FIELDS[f]])))};
const STAGES = ${js(x.stages)};
const typing = (field, text) => ({ tool: ${js(N.type)}, args: { field, text } });
const clicking = (label) => ({ tool: ${js(N.click)}, args: { label } });

function makeWorld(rng, k) {
  const items = [];
  while (items.length < k.items) {
    const name = rng.pick(ADJECTIVES) + ' ' + rng.pick(NOUNS);
    if (!items.some((i) => i.name === name)) items.push({ name, code: String.fromCharCode(65 + rng.int(0, 25)) + '-' ` +
    `+ rng.int(1000, 9999), price: rng.int(5, 400) + ' dollars' });
  }
  const fields = Object.keys(VALUES).slice(0, k.fields);
  const goal = { item: rng.pick(items.slice(1)).name, option: rng.pick(OPTIONS), details: ` +
    `Object.fromEntries(fields.map((f) => [f, rng.pick(VALUES[f])])) };
  return { items, fields, goal, user: 'user' + rng.int(100, 999), pass: rng.pick(NOUNS) + rng.int(10, 99), code: 'c' ` +
    `+ rng.int(1000, 9999) };
}

function promptOf(w) {
  return [
    \`You use \${SITE.site} through a text browser. \${w.items.length} \${SITE.item}s are listed on it.\`,
    '',
    \`Task: get the \${SITE.item} "\${w.goal.item}"` +
    `${x.stages.includes('options') ? ` with ${t.option} "\${w.goal.option}"` : ''}, giving these details: ` +
    `\${Object.entries(w.goal.details).map(([f, v]) => f + ' = "' + v + '"').join(', ')}.\`,
    ${x.stages.includes('login') ? '`Sign in first as ${w.user} with the password ${w.pass}.`,' : ''}
    \`Read each page with ${N.read}, type into its fields with ${N.type} and press its buttons with ${N.click}. The ` +
    `task is done when the site commits it (${x.stages.includes('confirm') ? t.commit : 'submit'}), and only ` +
    `what it commits is checked, all or nothing. The session ends after \${meta.maxTurns} tool calls.\`,
  ].join('\\n');
}

const PAGES = {
${pages}
};
const page = (s) => PAGES[STAGES[s.stage]];
function advance(s) {
  s.stage++;
  s.form = {};
  if (s.stage >= STAGES.length) { s.done = true; s.committed = s.order; return 'Done: the site committed it.'; }
  return page(s).show(s);
}`;
  const tools = [
    tool(N.read as string, 'Show the current page: its text, fields and buttons.', {}, `(s) => page(s).show(s)`),
    tool(
      N.type as string,
      'Type text into a field of the current page (replacing what it held).',
      { field: { type: 'string', minLength: 1, maxLength: 30 }, text: { type: 'string', minLength: 1, maxLength: 60 } },
      `(s, a) => { if (!page(s).fields(s).includes(a.field)) return \`This page has no field ` +
        `"\${a.field}".\`; s.form[a.field] = a.text.trim().toLowerCase(); return ` +
        `\`Typed into \${a.field}.\`; }`,
    ),
    tool(
      N.click as string,
      'Press a button of the current page, by its label.',
      { label: { type: 'string', minLength: 1, maxLength: 40 } },
      `(s, a) => page(s).click(s, a.label.trim().toLowerCase()) ?? \`This page has no button "\${a.label}".\``,
    ),
  ];
  // score's body: each check a line of its own, the option's only when the site has an options page.
  const score = [
    '',
    '  const w = state.world;',
    "  if (!state.done || !state.committed) return { score: 0, feedback: 'nothing was committed' };",
    '  const c = state.committed;',
    '  if (c.item !== w.items.find((i) => i.name === w.goal.item).code) ' +
      "return { score: 0, feedback: 'the wrong ' + SITE.item + ' was committed' };",
    ...(x.stages.includes('options')
      ? ["  if (c.option !== w.goal.option) return { score: 0, feedback: 'the wrong option was committed' };"]
      : []),
    '  if (w.fields.some((f) => c.details[f] !== w.goal.details[f])) ' +
      "return { score: 0, feedback: 'the details differ from the task' };",
    "  return { score: 1, feedback: 'the site committed exactly what the task asks' };",
  ].join('\n');
  const act = `
  return page(state).plan(state);`;
  return {
    maxTurns: 60,
    levels: x.levels.length,
    tools,
    world,
    state: 'stage: 0, form: {}, order: {}, page: 0, results: [], committed: null',
    score,
    act,
    knobs: x.levels,
  };
}

// Buys the cheapest train to a city on a small text web site (sign in, a paged timetable, a passenger form,
// a typed confirmation code), training web navigation with a rule that needs every timetable page read.
// Difficulty: more departures (more pages to read) and more form fields.

export const meta = {
  name: 'rail-ticket-site',
  title: 'Buy the cheapest train on a ticket site',
  description: 'Sign in, find the cheapest departure to the asked city in the paged timetable, fill the passenger form and confirm. All or nothing.',
  skills: ['web-navigation', 'tool-use', 'information-gathering', 'policy-following'],
  levels: 5,
  kind: 'episodic',
  maxTurns: 45,
  tools: [
    { name: 'view_page', description: 'Show the current page: its text, its fields and its buttons.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
    { name: 'type_text', description: 'Type text into a field of the current page, replacing what it held.',
      parameters: { type: 'object', properties: { field: { type: 'string', minLength: 1, maxLength: 30 }, text: { type: 'string', minLength: 1, maxLength: 60 } },
        required: ['field', 'text'], additionalProperties: false } },
    { name: 'click', description: 'Press a button of the current page, by its label.',
      parameters: { type: 'object', properties: { label: { type: 'string', minLength: 1, maxLength: 40 } }, required: ['label'], additionalProperties: false } },
  ],
};

const CITIES = ['porto', 'lisbon', 'faro', 'braga', 'coimbra', 'evora', 'aveiro', 'viseu'];
const DETAILS = { full_name: ['ana berg', 'ben costa', 'chloe dahl', 'dev eze'], seat: ['window', 'aisle', 'table'], postcode: ['ab12', 'cd34', 'ef56'], phone_suffix: ['4821', '7730', '1196'] };
const PAGE_SIZE = 4;
const STAGES = ['login', 'timetable', 'form', 'confirm'];

function knobs(level) {
  return { departures: [6, 9, 12, 16, 20][level - 1], toCity: [2, 3, 3, 4, 5][level - 1], fields: [1, 2, 2, 3, 4][level - 1] };
}

export function reset(rng, level) {
  const k = knobs(level);
  const city = rng.pick(CITIES);
  const others = CITIES.filter((c) => c !== city);
  const prices = rng.shuffle(Array.from({ length: 60 }, (_, i) => 12 + i)).slice(0, k.departures);
  const departures = prices.map((price, i) => ({
    code: `T-${rng.int(1000, 9999)}${String.fromCharCode(65 + i)}`,
    to: i < k.toCity ? city : rng.pick(others),
    time: `${String(rng.int(5, 22)).padStart(2, '0')}:${rng.pick(['05', '20', '35', '50'])}`,
    price,
  }));
  const world = {
    departures: rng.shuffle(departures), city, user: `user${rng.int(100, 999)}`, pass: `${rng.pick(CITIES)}${rng.int(10, 99)}`, code: `c${rng.int(1000, 9999)}`,
    details: Object.fromEntries(Object.keys(DETAILS).slice(0, k.fields).map((f) => [f, rng.pick(DETAILS[f])])),
  };
  const prompt = [
    `You buy a train ticket on a rail site through a text browser. Sign in as ${world.user} with the password ${world.pass}.`,
    `Buy the cheapest departure to ${city} listed in the timetable, for the passenger ${Object.entries(world.details).map(([f, v]) => `${f} "${v}"`).join(', ')}.`,
    `Use view_page, type_text and click. Only what the site commits is checked, all or nothing. The session ends after ${meta.maxTurns} tool calls.`,
  ].join('\n');
  return { state: { world, stage: 0, page: 0, form: {}, order: {}, committed: null, done: false }, prompt };
}

const cheapest = (w) => w.departures.filter((d) => d.to === w.city).reduce((a, b) => (b.price < a.price ? b : a));
const pages = (s) => Math.ceil(s.world.departures.length / PAGE_SIZE);
const shown = (s) => s.world.departures.slice(s.page * PAGE_SIZE, (s.page + 1) * PAGE_SIZE);

// Each page: what it shows, its fields, what its buttons do (null: no such button), and the reference's next action.
const PAGES = {
  login: {
    show: () => 'Sign in. Fields: username, password. Buttons: sign in.',
    fields: ['username', 'password'],
    click: (s, label) => (label !== 'sign in' ? null : s.form.username === s.world.user && s.form.password === s.world.pass ? advance(s) : 'Wrong username or password.'),
    plan: (s) => (s.form.username !== s.world.user ? type('username', s.world.user) : s.form.password !== s.world.pass ? type('password', s.world.pass) : click('sign in')),
  },
  timetable: {
    show: (s) => `Timetable, page ${s.page + 1} of ${pages(s)}:\n${shown(s).map((d) => `- ${d.time} to ${d.to}, ${d.price} euros [button: open ${d.code.toLowerCase()}]`).join('\n')}\nButtons: next page, previous page.`,
    fields: [],
    click(s, label) {
      if (label === 'next page' || label === 'previous page') {
        s.page = Math.min(pages(s) - 1, Math.max(0, s.page + (label === 'next page' ? 1 : -1)));
        return PAGES.timetable.show(s);
      }
      const d = shown(s).find((x) => label === `open ${x.code.toLowerCase()}`);
      if (!d) return null;
      s.order.departure = d.code;
      return advance(s);
    },
    plan(s) {
      const at = s.world.departures.indexOf(s.world.departures.find((d) => d.code === cheapest(s.world).code));
      return Math.floor(at / PAGE_SIZE) > s.page ? click('next page') : click(`open ${cheapest(s.world).code.toLowerCase()}`);
    },
  },
  form: {
    show: (s) => `Passenger details. Fields: ${Object.keys(s.world.details).join(', ')}. Buttons: continue.`,
    fields: null,
    click(s, label) {
      if (label !== 'continue') return null;
      const empty = Object.keys(s.world.details).find((f) => !s.form[f]);
      if (empty) return `The field ${empty} is required.`;
      s.order.passenger = Object.fromEntries(Object.keys(s.world.details).map((f) => [f, s.form[f]]));
      return advance(s);
    },
    plan: (s) => {
      const f = Object.keys(s.world.details).find((x) => s.form[x] !== s.world.details[x]);
      return f ? type(f, s.world.details[f]) : click('continue');
    },
  },
  confirm: {
    show: (s) => `Check your ticket: departure ${s.order.departure}, passenger ${JSON.stringify(s.order.passenger)}. To buy it, type the code ${s.world.code} into the field code. Buttons: buy, start over.`,
    fields: ['code'],
    click(s, label) {
      if (label === 'start over') {
        Object.assign(s, { stage: 0, page: 0, form: {}, order: {} });
        return 'Back to the sign-in page.';
      }
      if (label !== 'buy') return null;
      if (s.form.code !== s.world.code) return 'The confirmation code does not match.';
      return advance(s);
    },
    plan: (s) => (s.form.code !== s.world.code ? type('code', s.world.code) : click('buy')),
  },
};
const type = (field, text) => ({ tool: 'type_text', args: { field, text } });
const click = (label) => ({ tool: 'click', args: { label } });
const pageOf = (s) => PAGES[STAGES[s.stage]];

function advance(s) {
  s.stage++;
  s.form = {};
  if (s.stage < STAGES.length) return pageOf(s).show(s);
  s.committed = s.order;
  s.done = true;
  return 'Your ticket is bought.';
}

const TOOLS = {
  view_page: (s) => pageOf(s).show(s),
  type_text(s, { field, text }) {
    const fields = pageOf(s).fields ?? Object.keys(s.world.details);
    if (!fields.includes(field)) return `This page has no field "${field}".`;
    s.form[field] = text.trim().toLowerCase();
    return `Typed into ${field}.`;
  },
  click: (s, { label }) => pageOf(s).click(s, label.trim().toLowerCase()) ?? `This page has no button "${label}".`,
};

export function step(state, action) {
  const s = JSON.parse(JSON.stringify(state));
  const observation = TOOLS[action.tool](s, action.args);
  return { state: s, observation, done: s.done };
}

export function score(state) {
  const c = state.committed;
  if (!state.done || !c) return { score: 0, feedback: 'nothing was bought' };
  if (c.departure !== cheapest(state.world).code) return { score: 0, feedback: 'not the cheapest departure to the asked city' };
  if (Object.entries(state.world.details).some(([f, v]) => c.passenger[f] !== v)) return { score: 0, feedback: 'the passenger details differ from the task' };
  return { score: 1, feedback: 'the cheapest departure, for the right passenger' };
}

export function act(state) {
  return pageOf(state).plan(state);
}

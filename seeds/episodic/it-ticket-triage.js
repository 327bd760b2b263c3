// The morning triage of an IT helpdesk inbox: read each open ticket, route it to a queue by keyword, set
// its priority from the number of people affected and the reporter's title, and merge duplicates, by a
// written triage policy, training reading comprehension inside tool use. Difficulty: more tickets; from
// level 2 VIP reporters, from level 3 duplicates of earlier tickets, from level 4 tickets already assigned
// (to be left alone), from level 5 security incidents that override everything.

export const meta = {
  name: 'it-ticket-triage',
  title: 'Triage an IT helpdesk inbox',
  description: 'Read the open tickets and their reporters through tools, then route each to a queue with a priority, or ' +
    'merge it into an earlier ticket about the same asset, as the triage policy says, and finish. All or nothing on the ' +
    'final triage.',
  skills: ['tool-use', 'classification', 'policy-following', 'reading-comprehension'],
  levels: 8,
  kind: 'episodic',
  maxTurns: 70,
  tools: [
    { name: 'list_tickets', description: 'List one page of the inbox (10 per page): ticket id, subject line and status.',
      parameters: { type: 'object', properties: { page: { type: 'integer', minimum: 1, maximum: 5 } }, required: ['page'], additionalProperties: false } },
    { name: 'read_ticket', description: 'Read a ticket: reporter id and the full message.',
      parameters: { type: 'object', properties: { ticket_id: { type: 'string', minLength: 1, maxLength: 10 } }, required: ['ticket_id'], additionalProperties: false } },
    { name: 'lookup_user', description: 'Look up a user in the staff directory: name, title, department.',
      parameters: { type: 'object', properties: { user_id: { type: 'string', minLength: 1, maxLength: 10 } }, required: ['user_id'], additionalProperties: false } },
    { name: 'triage', description: 'Route an open ticket to a queue with a priority (replaces an earlier triage of it).',
      parameters: { type: 'object', properties: {
        ticket_id: { type: 'string', minLength: 1, maxLength: 10 },
        queue: { type: 'string', enum: ['identity', 'hardware', 'network', 'software', 'security'] },
        priority: { type: 'string', enum: ['P1', 'P2', 'P3', 'P4'] },
      }, required: ['ticket_id', 'queue', 'priority'], additionalProperties: false } },
    { name: 'merge', description: 'Close an open ticket as a duplicate of an earlier ticket (replaces an earlier triage of it).',
      parameters: { type: 'object', properties: { ticket_id: { type: 'string', minLength: 1, maxLength: 10 }, into_id: { type: 'string', minLength: 1, maxLength: 10 } },
        required: ['ticket_id', 'into_id'], additionalProperties: false } },
    { name: 'finish_triage', description: 'End the triage session. Call it once, when every open ticket is triaged or merged.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
  ],
};

const PAGE = 10;
const ISSUES = {
  identity: ['I am locked out after the password reset', 'MFA codes are not arriving on my phone', 'My password expired and the reset link fails', 'My account is disabled since this morning'],
  hardware: ['The printer jams on every page', 'My laptop will not boot past the logo', 'The second monitor flickers constantly', 'The keyboard on the front desk stopped typing'],
  network: ['The VPN drops every few minutes', 'The wifi in the meeting room is down', 'Cannot reach the shared drive over the network', 'The VPN refuses to connect from home'],
  software: ['Excel crashes when opening large files', 'I need a license for the diagram editor', 'The install of the reporting tool fails', 'The expense app crashes on start'],
  security: ['I clicked a link in a phishing email', 'The scanner reports malware on my machine', 'A phishing message asked for my login', 'Possible malware: files renamed overnight'],
};
const KEYWORDS = { security: 'phishing, malware', identity: 'password, MFA, locked out, account', hardware: 'printer, laptop, monitor, keyboard',
  network: 'VPN, wifi, network', software: 'Excel, license, install, crashes' };
const TITLES = ['Analyst', 'Engineer', 'Designer', 'Coordinator', 'Accountant', 'Recruiter', 'Technician'];
const VIP_TITLES = ['Director of Finance', 'VP Sales', 'Chief of Staff', 'Director of Operations', 'VP Engineering'];
const NAMES = ['Ada', 'Bruno', 'Cleo', 'Dario', 'Esme', 'Felix', 'Gita', 'Hamid', 'Iris', 'Jules', 'Kofi', 'Lena', 'Marek', 'Noor', 'Otto', 'Pia'];
const DEPTS = ['Finance', 'Sales', 'Legal', 'Design', 'Support', 'Logistics', 'HR'];
const COMPANIES = ['Altamira Foods', 'Brightwave Media', 'Corvid Logistics', 'Dunmore Legal', 'Everfield Energy'];

// Difficulty knobs per level: inbox size and which policy cases appear.
function knobs(level) {
  return {
    tickets: [2, 3, 4, 6, 8, 10, 12, 14][level - 1],
    vip: level >= 2,
    duplicates: level >= 3 ? Math.min(3, level - 2) : 0,
    assigned: level >= 4 ? Math.min(3, level - 3) : 0,
    security: level >= 5,
  };
}

// ---------------------------------------------------------------- world generation
function uniqueIds(rng, count, make) {
  const ids = [];
  while (ids.length < count) {
    const id = make();
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}
const affectedText = (n) => (n === 1 ? 'Only I am affected.' : `${n} people are affected.`);

function makeWorld(rng, level) {
  const k = knobs(level);
  const categories = Object.keys(ISSUES).filter((c) => k.security || c !== 'security');
  const users = {};
  const userIds = uniqueIds(rng, k.tickets, () => `u${rng.int(1000, 9999)}`);
  for (const id of userIds) {
    users[id] = { name: `${rng.pick(NAMES)} ${String.fromCharCode(65 + rng.int(0, 25))}.`, title: k.vip && rng.int(0, 3) === 0 ? rng.pick(VIP_TITLES) : rng.pick(TITLES), dept: rng.pick(DEPTS) };
  }
  let number = rng.int(4000, 9000);
  const tickets = [];
  for (let i = 0; i < k.tickets; i++) {
    const id = `INC${(number += rng.int(1, 30))}`;
    const dupOf = i > 0 && i >= k.tickets - k.duplicates ? rng.pick(tickets.filter((t) => !t.dupOf)) : null;
    const category = dupOf ? dupOf.category : rng.pick(categories);
    const asset = dupOf ? dupOf.asset : `${String.fromCharCode(65 + rng.int(0, 25))}${String.fromCharCode(65 + rng.int(0, 25))}-${rng.int(1000, 9999)}`;
    const users1 = rng.pick([1, 1, 2, 3, 4, 5, 6, 8, 12, 15, 19, 20, 25, 30, 40]);
    tickets.push({ id, reporter: rng.pick(userIds), category, asset, affected: users1, text: rng.pick(ISSUES[category]), status: 'open', dupOf: dupOf ? dupOf.id : null });
  }
  // Some earlier tickets are already assigned: they stay as they are (and are never the target of a duplicate).
  const assignable = tickets.filter((t) => !t.dupOf && !tickets.some((d) => d.dupOf === t.id));
  rng.shuffle(assignable).slice(0, k.assigned).forEach((t) => { t.status = 'assigned'; });
  const date = `${rng.pick(['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'])} ${rng.int(1, 28)} ${rng.pick(['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'])}`;
  return { company: rng.pick(COMPANIES), date, p1: rng.pick([15, 20, 25, 30]), p2: rng.pick([4, 5, 6, 8]), users, tickets };
}

// ---------------------------------------------------------------- the policy, as code
const isVip = (title) => /^(Director|VP|Chief)\b/.test(title);
function expected(world) {
  const out = {};
  for (const t of world.tickets) {
    if (t.status !== 'open') continue;
    if (t.dupOf) { out[t.id] = { into: t.dupOf }; continue; }
    if (t.category === 'security') { out[t.id] = { queue: 'security', priority: 'P1' }; continue; }
    let p = t.affected >= world.p1 ? 1 : t.affected >= world.p2 ? 2 : t.affected >= 2 ? 3 : 4;
    if (isVip(world.users[t.reporter].title)) p = Math.max(1, p - 1);
    out[t.id] = { queue: t.category, priority: `P${p}` };
  }
  return out;
}

export function reset(rng, level) {
  const world = makeWorld(rng, level);
  const pages = Math.ceil(world.tickets.length / PAGE);
  const prompt = [
    `You run the morning triage of the ${world.company} IT helpdesk on ${world.date}. The inbox holds ${world.tickets.length} ticket(s) on ${pages} page(s).`,
    '',
    'Triage policy (for open tickets only; never change an assigned ticket):',
    '1. A ticket about the same asset as an earlier ticket (lower number) is a duplicate: merge it into the earliest ticket about that asset.',
    `2. Otherwise route it by the keywords in its message: security (${KEYWORDS.security}) wins over everything, then identity`,
    `   (${KEYWORDS.identity}), hardware (${KEYWORDS.hardware}), network (${KEYWORDS.network}), software (${KEYWORDS.software}).`,
    `3. Priority by people affected: ${world.p1} or more P1, ${world.p2} to ${world.p1 - 1} P2, 2 to ${world.p2 - 1} P3, one person P4. If the reporter's title starts with`,
    '   Director, VP or Chief, raise the priority one step (P4 -> P3 ... P2 -> P1). Security tickets are always P1.',
    '',
    `When every open ticket is triaged or merged, call finish_triage: the inbox is checked then, all or nothing. The session also`,
    `ends after ${meta.maxTurns} tool calls.`,
  ].join('\n');
  return { state: { level, world, outcome: {}, seen: { pages: [], tickets: [], users: [] }, finished: false }, prompt };
}

// ---------------------------------------------------------------- tools
const find = (s, id) => s.world.tickets.find((t) => t.id === String(id).trim().toUpperCase());

const TOOLS = {
  list_tickets(s, { page }) {
    const rows = s.world.tickets.slice((page - 1) * PAGE, page * PAGE);
    if (rows.length === 0) return `Page ${page} is empty.`;
    if (!s.seen.pages.includes(page)) s.seen.pages.push(page);
    return [`Inbox page ${page}:`, ...rows.map((t) => `${t.id}  "${t.text}"  ${t.status}`)].join('\n');
  },
  read_ticket(s, { ticket_id }) {
    const t = find(s, ticket_id);
    if (!t) return `No ticket "${ticket_id}".`;
    if (!s.seen.tickets.includes(t.id)) s.seen.tickets.push(t.id);
    return `${t.id} (${t.status}) from user ${t.reporter}: "${t.text}. It concerns asset ${t.asset}. ${affectedText(t.affected)}"`;
  },
  lookup_user(s, { user_id }) {
    const id = String(user_id).trim().toLowerCase();
    const u = s.world.users[id];
    if (!u) return `No user "${user_id}" in the directory.`;
    if (!s.seen.users.includes(id)) s.seen.users.push(id);
    return `${id}: ${u.name}, ${u.title}, ${u.dept}.`;
  },
  triage(s, { ticket_id, queue, priority }) {
    const t = find(s, ticket_id);
    if (!t) return `No ticket "${ticket_id}".`;
    s.outcome[t.id] = { queue, priority };
    return `${t.id} routed to ${queue} as ${priority}.`;
  },
  merge(s, { ticket_id, into_id }) {
    const t = find(s, ticket_id);
    const into = find(s, into_id);
    if (!t || !into || t === into) return `Refused: ${!t ? `no ticket "${ticket_id}"` : !into ? `no ticket "${into_id}"` : 'a ticket cannot be merged into itself'}.`;
    s.outcome[t.id] = { into: into.id };
    return `${t.id} merged into ${into.id}.`;
  },
  finish_triage(s) {
    s.finished = true;
    return `Triage finished: ${Object.keys(s.outcome).length} ticket(s) handled.`;
  },
};

export function step(state, action) {
  const s = JSON.parse(JSON.stringify(state));
  const observation = TOOLS[action.tool](s, action.args);
  return { state: s, observation, done: s.finished };
}

// ---------------------------------------------------------------- score
export function score(state) {
  if (!state.finished) return { score: 0, feedback: 'the triage was never finished' };
  const want = expected(state.world);
  for (const t of state.world.tickets) {
    const w = want[t.id];
    const o = state.outcome[t.id];
    if (!w) { if (o) return { score: 0, feedback: `${t.id} was already assigned and must not be changed` }; continue; }
    const ok = o && (w.into ? o.into === w.into : o.queue === w.queue && o.priority === w.priority);
    if (!ok) return { score: 0, feedback: `${t.id} is not triaged as the policy requires` };
  }
  return { score: 1, feedback: 'every open ticket is triaged as the policy requires' };
}

// ---------------------------------------------------------------- reference policy
// Lists every page, reads every open ticket, looks up the reporters that need a priority, then triages and finishes.
export function act(state) {
  const { world, seen } = state;
  const pages = Math.ceil(world.tickets.length / PAGE);
  for (let p = 1; p <= pages; p++) if (!seen.pages.includes(p)) return { tool: 'list_tickets', args: { page: p } };
  const open = world.tickets.filter((t) => t.status === 'open');
  for (const t of open) if (!seen.tickets.includes(t.id)) return { tool: 'read_ticket', args: { ticket_id: t.id } };
  for (const t of open) if (!t.dupOf && t.category !== 'security' && !seen.users.includes(t.reporter)) return { tool: 'lookup_user', args: { user_id: t.reporter } };
  const want = expected(world);
  for (const t of open) {
    if (state.outcome[t.id]) continue;
    const w = want[t.id];
    return w.into ? { tool: 'merge', args: { ticket_id: t.id, into_id: w.into } } : { tool: 'triage', args: { ticket_id: t.id, queue: w.queue, priority: w.priority } };
  }
  return { tool: 'finish_triage', args: {} };
}

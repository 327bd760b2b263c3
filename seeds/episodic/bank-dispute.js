// A card-dispute call at a bank: verify the caller, find the charges they dispute on their statement and
// resolve each one by a written dispute policy (credit, merchant contact then chargeback, or denial),
// training gated tool use and branching on tool results. Merchant replies are drawn from the step rng,
// so the reference adapts to what happens. Difficulty: longer statements and more disputed charges;
// from level 2 double charges, from level 3 large charges that need the merchant, from level 4 pending and
// out-of-window charges that must be denied.

export const meta = {
  name: 'bank-dispute',
  title: 'Resolve a card dispute call',
  description: 'Verify the customer, find the disputed charges on the statement through tools, and resolve each one as ' +
    'the dispute policy says (credit, deny with a reason, or contact the merchant and open a chargeback if it refuses), ' +
    'then close the case. All or nothing on the final resolutions.',
  skills: ['tool-use', 'policy-following', 'branching', 'customer-service'],
  levels: 8,
  kind: 'episodic',
  maxTurns: 60,
  tools: [
    { name: 'verify_customer', description: 'Verify the caller with their account id and the last four digits of their card.',
      parameters: { type: 'object', properties: { account_id: { type: 'string', minLength: 1, maxLength: 16 }, card_last4: { type: 'string', minLength: 4, maxLength: 4 } },
        required: ['account_id', 'card_last4'], additionalProperties: false } },
    { name: 'list_transactions', description: 'List one page (8 per page) of the statement: id, date, merchant, amount. Needs a verified caller.',
      parameters: { type: 'object', properties: { page: { type: 'integer', minimum: 1, maximum: 10 } }, required: ['page'], additionalProperties: false } },
    { name: 'get_transaction', description: 'Show one transaction in full, including whether it is posted or pending.',
      parameters: { type: 'object', properties: { txn_id: { type: 'string', minLength: 1, maxLength: 12 } }, required: ['txn_id'], additionalProperties: false } },
    { name: 'contact_merchant', description: 'Ask the merchant of a transaction to refund it; returns whether it accepts.',
      parameters: { type: 'object', properties: { txn_id: { type: 'string', minLength: 1, maxLength: 12 } }, required: ['txn_id'], additionalProperties: false } },
    { name: 'issue_credit', description: 'Credit an amount in dollars back to the card for one transaction.',
      parameters: { type: 'object', properties: { txn_id: { type: 'string', minLength: 1, maxLength: 12 }, amount: { type: 'number', minimum: 0.01, maximum: 10000 } },
        required: ['txn_id', 'amount'], additionalProperties: false } },
    { name: 'open_chargeback', description: 'Open a chargeback against the merchant for one transaction.',
      parameters: { type: 'object', properties: { txn_id: { type: 'string', minLength: 1, maxLength: 12 } }, required: ['txn_id'], additionalProperties: false } },
    { name: 'deny_dispute', description: 'Deny the dispute of one transaction with a reason.',
      parameters: { type: 'object', properties: { txn_id: { type: 'string', minLength: 1, maxLength: 12 }, reason: { type: 'string', enum: ['pending', 'outside_window'] } },
        required: ['txn_id', 'reason'], additionalProperties: false } },
    { name: 'close_case', description: 'Close the dispute case and end the call. Call it once, when every disputed charge is resolved.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
  ],
};

const PAGE = 8;
const WINDOW = 60;
const MERCHANTS = ['Blue Fern Cafe', 'Metro Parking', 'Quickfuel 24', 'Lumen Books', 'Harbor Fitness', 'Pixel Arcade', 'Greenleaf Market', 'Atlas Travel',
  'Cobalt Streaming', 'Nimbus Cloud', 'Sunrise Bakery', 'Orbit Electronics', 'Maple Pharmacy', 'Tidal Wash', 'Copperpot Kitchen', 'Velvet Cinema',
  'Rapid Rides', 'Summit Outdoor', 'Bright Dental', 'Crescent Hotel', 'Willow Florist', 'Keystone Hardware', 'Nova Telecom', 'Saffron Grill',
  'Polar Ice Rink', 'Ember Pizza', 'Granite Gym', 'Ivory Salon', 'Jade Garden', 'Kite Toys', 'Lark Music', 'Mosaic Tiles'];
const FIRST = ['Jordan', 'Avery', 'Morgan', 'Riley', 'Casey', 'Quinn', 'Harper', 'Rowan', 'Emerson', 'Sasha'];
const LAST = ['Ellis', 'Nakamura', 'Okoye', 'Marchetti', 'Lindqvist', 'Adeyemi', 'Castillo', 'Novak', 'Sorensen', 'Bhatt'];
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// Difficulty knobs per level: statement length, disputed charges, and which dispute kinds can appear.
function knobs(level) {
  return {
    statement: [4, 6, 8, 10, 14, 18, 22, 26][level - 1],
    disputed: [1, 2, 2, 3, 4, 5, 6, 7][level - 1],
    kinds: [['small'], ['small', 'double'], ['small', 'double', 'large'], ['small', 'double', 'large', 'pending', 'old']][Math.min(level, 4) - 1],
  };
}

// ---------------------------------------------------------------- world generation
function dateText(day) {
  let m = 0;
  while (day > MONTH_DAYS[m]) { day -= MONTH_DAYS[m]; m++; }
  return `2025-${String(m + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
const cents = (rng, lo, hi) => rng.int(lo * 100, hi * 100) / 100;

function makeWorld(rng, level) {
  const k = knobs(level);
  const today = rng.int(140, 360);
  const threshold = rng.pick([40, 60, 75, 100]);
  const merchants = rng.shuffle(MERCHANTS);
  // Every dispute kind present at this level appears at least once, the rest are drawn.
  const kinds = rng.shuffle(k.kinds).slice(0, k.disputed);
  while (kinds.length < k.disputed) kinds.push(rng.pick(k.kinds));
  const rows = [];
  kinds.forEach((kind, i) => {
    const merchant = merchants[i];
    const day = kind === 'old' ? today - rng.int(65, 110) : kind === 'pending' ? today : today - rng.int(0, 55);
    const amount = kind === 'large' ? cents(rng, threshold + 5, threshold * 6) : kind === 'small' || kind === 'pending' ? cents(rng, 3, threshold - 1) : cents(rng, 8, 250);
    rows.push({ merchant, day, amount, pending: kind === 'pending', kind });
    if (kind === 'double') rows.push({ merchant, day, amount, pending: false, kind: 'double-second' });
  });
  const others = merchants.slice(k.disputed);
  while (rows.length < k.statement + kinds.filter((x) => x === 'double').length) {
    rows.push({ merchant: rng.pick(others.slice(0, 8)), day: today - rng.int(0, 110), amount: cents(rng, 3, 300), pending: false, kind: 'fine' });
  }
  rows.sort((a, b) => a.day - b.day || (a.kind === 'double-second' ? 1 : 0) - (b.kind === 'double-second' ? 1 : 0));
  // Pending charges are the most recent ones; ids grow with time, so the second of a double charge has the higher id.
  let id = rng.int(100000, 800000);
  const txns = rows.map((r) => ({ id: `T${(id += rng.int(1, 40))}`, merchant: r.merchant, date: r.day, amount: r.amount, pending: r.pending, kind: r.kind }));
  const name = `${rng.pick(FIRST)} ${rng.pick(LAST)}`;
  return { today, threshold, name, account: `AC-${rng.int(10000, 99999)}`, last4: String(rng.int(0, 9999)).padStart(4, '0'), txns };
}

// ---------------------------------------------------------------- the policy, as code
// What the policy requires per transaction id, given the merchant replies recorded so far.
function required(world, contacts) {
  const out = {};
  for (const t of world.txns) {
    if (t.kind === 'pending') out[t.id] = { deny: 'pending' };
    else if (t.kind === 'old') out[t.id] = { deny: 'outside_window' };
    else if (t.kind === 'double-second' || t.kind === 'small') out[t.id] = { credit: t.amount };
    else if (t.kind === 'large') out[t.id] = contacts[t.id] === 'accepted' ? { merchant: true } : contacts[t.id] === 'refused' ? { chargeback: true } : { contact: true };
    else out[t.id] = {};
  }
  return out;
}

export function reset(rng, level) {
  const world = makeWorld(rng, level);
  const disputed = world.txns.filter((t) => t.kind !== 'fine' && t.kind !== 'double-second');
  const complaint = disputed.map((t) => (t.kind === 'double' ? `I was charged twice at ${t.merchant} on ${dateText(t.date)}` : `I don't recognise the charge from ${t.merchant}`));
  const prompt = [
    `Today is ${dateText(world.today)}. A caller says: "Hi, I'm ${world.name}, account ${world.account}, card ending ${world.last4}. ${complaint.join('. ')}."`,
    '',
    'Dispute policy:',
    '1. Verify the caller with verify_customer before anything else; the statement is only available after that.',
    '2. Resolve exactly the charges the caller disputes and touch nothing else. get_transaction shows whether a charge is still pending.',
    '3. A pending charge cannot be disputed yet: deny it with reason "pending". A charge posted more than 60 days before today',
    '   cannot be disputed: deny it with reason "outside_window".',
    '4. A double charge: credit the full amount of the second of the two identical charges (the one with the higher id) and nothing else.',
    `5. An unrecognised charge under $${world.threshold}: credit its full amount. An unrecognised charge of $${world.threshold} or more: contact`,
    '   the merchant first; if the merchant accepts, it refunds the customer itself (do nothing more); if it refuses, open a chargeback.',
    '',
    `When every disputed charge is resolved, call close_case: the case is checked then, all or nothing. It also ends after ${meta.maxTurns} tool calls.`,
  ].join('\n');
  return { state: { level, world, verified: false, contacts: {}, credits: [], chargebacks: [], denials: [], seen: { pages: [], txns: [] }, closed: false }, prompt };
}

// ---------------------------------------------------------------- tools
const findTxn = (s, id) => s.world.txns.find((t) => t.id === String(id).trim().toUpperCase());

const TOOLS = {
  verify_customer(s, { account_id, card_last4 }) {
    if (String(account_id).trim().toUpperCase() !== s.world.account || card_last4 !== s.world.last4) return 'Verification failed: account id and card digits do not match.';
    s.verified = true;
    return `Verified ${s.world.name}, account ${s.world.account}. The statement has ${Math.ceil(s.world.txns.length / PAGE)} page(s).`;
  },
  list_transactions(s, { page }) {
    if (!s.verified) return 'Refused: verify the customer first.';
    const rows = s.world.txns.slice((page - 1) * PAGE, page * PAGE);
    if (rows.length === 0) return `Page ${page} is empty.`;
    if (!s.seen.pages.includes(page)) s.seen.pages.push(page);
    return [`Statement page ${page}:`, ...rows.map((t) => `${t.id}  ${dateText(t.date)}  ${t.merchant}  $${t.amount.toFixed(2)}`)].join('\n');
  },
  get_transaction(s, { txn_id }) {
    const t = s.verified ? findTxn(s, txn_id) : null;
    if (!t) return s.verified ? `No transaction "${txn_id}" on this account.` : 'Refused: verify the customer first.';
    if (!s.seen.txns.includes(t.id)) s.seen.txns.push(t.id);
    return `${t.id}: ${t.merchant}, $${t.amount.toFixed(2)}, ${t.pending ? 'PENDING (authorised today, not posted)' : `posted ${dateText(t.date)}`}.`;
  },
  contact_merchant(s, { txn_id }, rng) {
    const t = s.verified ? findTxn(s, txn_id) : null;
    if (!t) return s.verified ? `No transaction "${txn_id}" on this account.` : 'Refused: verify the customer first.';
    s.contacts[t.id] ??= rng.int(0, 1) === 0 ? 'accepted' : 'refused';
    return s.contacts[t.id] === 'accepted' ? `${t.merchant} accepts and will refund $${t.amount.toFixed(2)} itself.` : `${t.merchant} refuses to refund ${t.id}.`;
  },
  issue_credit(s, { txn_id, amount }) {
    const t = s.verified ? findTxn(s, txn_id) : null;
    if (!t) return s.verified ? `No transaction "${txn_id}" on this account.` : 'Refused: verify the customer first.';
    s.credits.push({ txn: t.id, amount });
    return `Credited $${amount.toFixed(2)} for ${t.id}.`;
  },
  open_chargeback(s, { txn_id }) {
    const t = s.verified ? findTxn(s, txn_id) : null;
    if (!t) return s.verified ? `No transaction "${txn_id}" on this account.` : 'Refused: verify the customer first.';
    // The policy's order: a chargeback only once the merchant has refused (contacting it comes first).
    if (s.contacts[t.id] !== 'refused') return `Refused: a chargeback on ${t.id} needs the merchant to have refused a refund first.`;
    s.chargebacks.push(t.id);
    return `Chargeback opened for ${t.id}.`;
  },
  deny_dispute(s, { txn_id, reason }) {
    const t = s.verified ? findTxn(s, txn_id) : null;
    if (!t) return s.verified ? `No transaction "${txn_id}" on this account.` : 'Refused: verify the customer first.';
    s.denials.push({ txn: t.id, reason });
    return `Dispute of ${t.id} denied (${reason}).`;
  },
  close_case(s) {
    s.closed = true;
    return 'Case closed. Thank you for calling.';
  },
};

export function step(state, action, rng) {
  const s = JSON.parse(JSON.stringify(state));
  const observation = TOOLS[action.tool](s, action.args, rng);
  return { state: s, observation, done: s.closed };
}

// ---------------------------------------------------------------- score
export function score(state) {
  if (!state.closed) return { score: 0, feedback: 'the case was never closed' };
  const want = required(state.world, state.contacts);
  for (const t of state.world.txns) {
    const w = want[t.id];
    const credits = state.credits.filter((c) => c.txn === t.id);
    const denials = state.denials.filter((d) => d.txn === t.id);
    const chargebacks = state.chargebacks.filter((c) => c === t.id).length;
    const creditOk = w.credit === undefined ? credits.length === 0 : credits.length === 1 && Math.abs(credits[0].amount - w.credit) < 0.005;
    const denyOk = w.deny === undefined ? denials.length === 0 : denials.length === 1 && denials[0].reason === w.deny;
    const chargebackOk = chargebacks === (w.chargeback ? 1 : 0);
    if (w.contact || !creditOk || !denyOk || !chargebackOk) return { score: 0, feedback: `transaction ${t.id} is not resolved as the policy requires` };
  }
  return { score: 1, feedback: 'every disputed charge is resolved as the policy requires' };
}

// ---------------------------------------------------------------- reference policy
// Verifies, reads the statement and each disputed charge, then resolves them one by one and closes.
export function act(state) {
  const { world } = state;
  if (!state.verified) return { tool: 'verify_customer', args: { account_id: world.account, card_last4: world.last4 } };
  const pages = Math.ceil(world.txns.length / PAGE);
  for (let p = 1; p <= pages; p++) if (!state.seen.pages.includes(p)) return { tool: 'list_transactions', args: { page: p } };
  const disputed = world.txns.filter((t) => t.kind !== 'fine');
  for (const t of disputed) if (!state.seen.txns.includes(t.id)) return { tool: 'get_transaction', args: { txn_id: t.id } };
  const want = required(world, state.contacts);
  for (const t of disputed) {
    const w = want[t.id];
    if (w.contact) return { tool: 'contact_merchant', args: { txn_id: t.id } };
    if (w.credit !== undefined && !state.credits.some((c) => c.txn === t.id)) return { tool: 'issue_credit', args: { txn_id: t.id, amount: w.credit } };
    if (w.deny && !state.denials.some((d) => d.txn === t.id)) return { tool: 'deny_dispute', args: { txn_id: t.id, reason: w.deny } };
    if (w.chargeback && !state.chargebacks.includes(t.id)) return { tool: 'open_chargeback', args: { txn_id: t.id } };
  }
  return { tool: 'close_case', args: {} };
}

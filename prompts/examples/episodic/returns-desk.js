// Settles a shop's return requests by a written returns policy (refund, store credit or refusal), looked up
// one by one through the desk's tools, training policy-following over hidden records.
// Difficulty: more requests, on more pages, and from level 3 a gift-receipt exception in play.

export const meta = {
  name: 'returns-desk',
  title: 'Settle return requests by the returns policy',
  description: 'List the open return requests, look each one up, decide refund, credit or refuse by the stated policy, then close the desk. All or nothing.',
  skills: ['tool-use', 'policy-following', 'information-gathering'],
  levels: 5,
  kind: 'episodic',
  maxTurns: 70,
  tools: [
    { name: 'list_requests', description: 'List one page (from 1) of open return request ids, five per page.',
      parameters: { type: 'object', properties: { page: { type: 'integer', minimum: 1, maximum: 9 } }, required: ['page'], additionalProperties: false } },
    { name: 'get_request', description: 'Show a return request: the item, days since purchase, whether it was opened, and the receipt.',
      parameters: { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 12 } }, required: ['id'], additionalProperties: false } },
    { name: 'decide', description: 'Settle a request you have looked up: refund, credit (store credit) or refuse.',
      parameters: { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 12 }, decision: { type: 'string', enum: ['refund', 'credit', 'refuse'] } },
        required: ['id', 'decision'], additionalProperties: false } },
    { name: 'close_desk', description: 'Close the desk for the day. Call it once, when every request is settled.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
  ],
};

const ITEMS = ['kettle', 'headphones', 'desk lamp', 'rain jacket', 'blender', 'backpack', 'board game', 'toaster', 'monitor', 'teapot'];
const PER_PAGE = 5;

function knobs(level) {
  return { requests: [3, 5, 7, 9, 11][level - 1], gifts: level >= 3 };
}

/** The policy, as the prompt states it. */
function decisionFor(r, window) {
  if (r.days > window) return 'refuse';
  if (r.receipt === 'gift') return 'credit';
  return r.opened ? 'credit' : 'refund';
}

export function reset(rng, level) {
  const k = knobs(level);
  const window = rng.pick([14, 21, 30]);
  const drawn = Array.from({ length: k.requests }, () => ({
    item: rng.pick(ITEMS),
    days: rng.int(1, window + 15),
    opened: rng.int(0, 1) === 1,
    receipt: k.gifts && rng.int(0, 3) === 0 ? 'gift' : 'sale',
    decision: null,
  }));
  // Every decision the policy can make occurs, so no rule can be skipped and no constant decision pays.
  Object.assign(drawn[0], { days: window + rng.int(1, 10) });
  Object.assign(drawn[1], { days: rng.int(1, window), opened: false, receipt: 'sale' });
  Object.assign(drawn[2], { days: rng.int(1, window), opened: true });
  // Ids are given after the shuffle: nothing in an id (its letter is its place in the listing) tells the decision.
  const requests = rng.shuffle(drawn).map((r, i) => ({ id: `R-${rng.int(1000, 9999)}${String.fromCharCode(65 + i)}`, ...r }));
  const prompt = [
    `You staff the returns desk of ${rng.pick(['Harbour Home', 'Kettle & Co', 'Northside Goods'])} on ${rng.pick(['Monday', 'Tuesday', 'Thursday', 'Saturday'])} ${rng.int(1, 28)} ${rng.pick(['March', 'June', 'October'])}. Settle every open return request, then close the desk.`,
    `Policy: a request more than ${window} days after purchase is refused. Otherwise a gift receipt gets store credit, an opened item gets store credit, and an unopened item with a sale receipt gets a refund.`,
    'Look up each request before you settle it: a request settled without being looked up counts as settled wrongly.',
    `Close the desk with close_desk when every request is settled; the desk is checked then, all or nothing. The day also ends after ${meta.maxTurns} tool calls.`,
  ].join('\n');
  return { state: { window, requests, looked: [], closed: false }, prompt };
}

const find = (s, id) => s.requests.find((r) => r.id.toLowerCase() === id.trim().toLowerCase());

const TOOLS = {
  list_requests(s, { page }) {
    const ids = s.requests.slice((page - 1) * PER_PAGE, page * PER_PAGE).map((r) => r.id);
    const pages = Math.ceil(s.requests.length / PER_PAGE);
    return ids.length === 0 ? `There is no page ${page}; there are ${pages}.` : `Page ${page} of ${pages}: ${ids.join(', ')}.`;
  },
  get_request(s, { id }) {
    const r = find(s, id);
    if (!r) return `No open request ${id}.`;
    if (!s.looked.includes(r.id)) s.looked.push(r.id);
    return `${r.id}: ${r.item}, bought ${r.days} days ago, ${r.opened ? 'opened' : 'unopened'}, ${r.receipt} receipt.`;
  },
  decide(s, { id, decision }) {
    const r = find(s, id);
    if (!r) return `No open request ${id}.`;
    r.decision = s.looked.includes(r.id) ? decision : 'unread';
    return `${r.id} is settled: ${decision}.`;
  },
  close_desk(s) {
    s.closed = true;
    return 'The desk is closed.';
  },
};

export function step(state, action) {
  const s = JSON.parse(JSON.stringify(state));
  const observation = TOOLS[action.tool](s, action.args);
  return { state: s, observation, done: s.closed };
}

export function score(state) {
  if (!state.closed) return { score: 0, feedback: 'the desk was never closed' };
  const wrong = state.requests.filter((r) => r.decision !== decisionFor(r, state.window));
  return wrong.length === 0 ? { score: 1, feedback: 'every request settled by the policy' } : { score: 0, feedback: `${wrong.length} request(s) settled wrongly or not at all` };
}

export function act(state) {
  for (const r of state.requests) if (!state.looked.includes(r.id)) return { tool: 'get_request', args: { id: r.id } };
  for (const r of state.requests) if (r.decision !== decisionFor(r, state.window)) return { tool: 'decide', args: { id: r.id, decision: decisionFor(r, state.window) } };
  return { tool: 'close_desk', args: {} };
}

// A library circulation desk at closing time: check in every book in the return bin, route each to the
// shelf, the hold shelf of the right patron or repair, and charge late fines by a stated policy, training
// multi-record tool use, queue rules and date arithmetic. Difficulty: more returned books, and from level 3
// suspended holds, from level 4 damaged copies, from level 5 fine-exempt patrons, from level 6 several
// copies of one title competing for its hold queue.

export const meta = {
  name: 'library-loans',
  title: 'Close the circulation desk of a library',
  description: 'Check in the returned books through the library tools, routing each by hold queue and condition, charge ' +
    'late fines (days late times the daily rate, capped per book, none for exempt patrons) and close the desk. All or ' +
    'nothing: every routing and every fine must match the policy.',
  skills: ['tool-use', 'policy-following', 'date-arithmetic', 'queues'],
  levels: 8,
  kind: 'episodic',
  maxTurns: 90,
  tools: [
    { name: 'list_return_bin', description: 'List the barcodes of the books in the return bin.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
    { name: 'get_copy', description: 'Show a copy: title, ISBN, borrower card, due date and condition.',
      parameters: { type: 'object', properties: { barcode: { type: 'string', minLength: 1, maxLength: 16 } }, required: ['barcode'], additionalProperties: false } },
    { name: 'get_holds', description: 'Show the hold queue of a title, oldest first, with each hold\'s status.',
      parameters: { type: 'object', properties: { isbn: { type: 'string', minLength: 1, maxLength: 20 } }, required: ['isbn'], additionalProperties: false } },
    { name: 'get_patron', description: 'Show a patron: name, card type and fine status.',
      parameters: { type: 'object', properties: { card: { type: 'string', minLength: 1, maxLength: 16 } }, required: ['card'], additionalProperties: false } },
    { name: 'check_in', description: 'Check in a returned copy and send it to the shelf, to repair, or to the hold shelf for one patron (give hold_card).',
      parameters: { type: 'object', properties: {
        barcode: { type: 'string', minLength: 1, maxLength: 16 },
        destination: { type: 'string', enum: ['shelf', 'hold_shelf', 'repair'] },
        hold_card: { type: 'string', minLength: 1, maxLength: 16 },
      }, required: ['barcode', 'destination'], additionalProperties: false } },
    { name: 'charge_fine', description: 'Charge a late fine, in cents, to a patron card. Returns the fine id.',
      parameters: { type: 'object', properties: { card: { type: 'string', minLength: 1, maxLength: 16 }, cents: { type: 'integer', minimum: 1, maximum: 5000 } },
        required: ['card', 'cents'], additionalProperties: false } },
    { name: 'void_fine', description: 'Void a fine charged during this shift.',
      parameters: { type: 'object', properties: { fine_id: { type: 'string', minLength: 1, maxLength: 16 } }, required: ['fine_id'], additionalProperties: false } },
    { name: 'close_desk', description: 'Close the desk and end the shift. Call it once, when every book is checked in and every fine charged.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
  ],
};

const TITLES = ['The Salt Road', 'Winter Orchard', 'A Map of Small Things', 'The Glass Engineer', 'Northern Lights Atlas', 'Quiet Harbors',
  'The Last Cartographer', 'Bread and Stone', 'Tidewater', 'The Clockmaker\'s Daughter', 'Field Guide to Moths', 'Copper Sky', 'Long Division',
  'The River Pilot', 'Paper Lanterns', 'An Ordinary Comet', 'Ironwood', 'The Hollow Year', 'Learning Python Slowly', 'Garden of Numbers'];
const FIRST = ['Ana', 'Ben', 'Chloe', 'Dev', 'Elif', 'Farid', 'Grace', 'Hugo', 'Ines', 'Jonas', 'Keiko', 'Liam', 'Maya', 'Nils', 'Omar', 'Priya', 'Rosa', 'Sam'];
const LAST = ['Abbott', 'Berg', 'Costa', 'Dahl', 'Eze', 'Fischer', 'Gupta', 'Horvat', 'Ito', 'Jensen', 'Kowal', 'Lopez', 'Moreau', 'Novak', 'Okafor'];
const BRANCHES = ['Elm Street branch', 'Central Library', 'Harbor branch', 'Westgate branch', 'University annex'];
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

// Difficulty knobs per level: returned books, titles they share, and which rules have cases to apply.
function knobs(level) {
  return {
    books: [2, 3, 4, 5, 7, 8, 10, 12][level - 1],
    holds: level >= 2,
    suspended: level >= 3,
    damaged: level >= 4 ? 1 : 0,
    exempt: level >= 5,
    sharedTitles: level >= 6 ? 2 : 0,
  };
}

// ---------------------------------------------------------------- world generation
// Days are numbered within 2025; dates are shown as "12 Mar 2025".
function dateText(day) {
  let m = 0;
  while (day > MONTH_DAYS[m]) { day -= MONTH_DAYS[m]; m++; }
  return `${day} ${MONTHS[m]} 2025`;
}

function uniqueIds(rng, count, make) {
  const ids = [];
  while (ids.length < count) {
    const id = make();
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

function makeWorld(rng, level) {
  const k = knobs(level);
  const today = rng.int(60, 330);
  const titleCount = k.books - k.sharedTitles;
  const titles = rng.shuffle(TITLES).slice(0, titleCount).map((title) => ({ title, isbn: `978-${rng.int(100000, 999999)}` }));
  const patronCount = k.books + 6;
  const cards = uniqueIds(rng, patronCount, () => `P${rng.int(10000, 99999)}`);
  const patrons = {};
  for (const card of cards) {
    const type = k.exempt && rng.int(0, 4) === 0 ? rng.pick(['staff', 'senior']) : 'adult';
    patrons[card] = { name: `${rng.pick(FIRST)} ${rng.pick(LAST)}`, type };
  }
  const barcodes = uniqueIds(rng, k.books, () => `3${rng.int(1000000, 9999999)}`);
  const copies = barcodes.map((barcode, i) => {
    const t = titles[i < titleCount ? i : rng.int(0, titleCount - 1)];
    const late = rng.int(0, 2) > 0;
    return {
      barcode, title: t.title, isbn: t.isbn, borrower: cards[i],
      due: late ? today - rng.int(1, 40) : today + rng.int(0, 20),
      damaged: false,
    };
  });
  rng.shuffle(copies).slice(0, k.damaged).forEach((c) => { c.damaged = true; });
  // Hold queues come from patrons who are not returning that title; some holds are suspended.
  const holds = {};
  if (k.holds) {
    for (const t of titles) {
      if (rng.int(0, 2) === 0) continue;
      const queue = rng.shuffle(cards.slice(k.books)).slice(0, rng.int(1, 3));
      holds[t.isbn] = queue.map((card) => ({ card, status: k.suspended && rng.int(0, 2) === 0 ? 'suspended' : 'active' }));
    }
  }
  const rate = rng.pick([10, 15, 20, 25, 30]);
  return { branch: rng.pick(BRANCHES), today, rate, cap: rate * rng.pick([10, 15, 20]), copies, patrons, holds };
}

// ---------------------------------------------------------------- the policy, as code
function daysLate(world, copy) {
  return Math.max(0, world.today - copy.due);
}
function expectedFines(world) {
  return world.copies
    .filter((c) => daysLate(world, c) > 0 && world.patrons[c.borrower].type === 'adult')
    .map((c) => ({ card: c.borrower, cents: Math.min(world.cap, daysLate(world, c) * world.rate) }));
}
// Expected routing per copy: damaged -> repair; else the next active hold of its title not yet filled (bin order); else shelf.
function expectedRouting(world) {
  const filled = {};
  const out = {};
  for (const c of world.copies) {
    if (c.damaged) { out[c.barcode] = { dest: 'repair', card: null }; continue; }
    const queue = (world.holds[c.isbn] ?? []).filter((h) => h.status === 'active');
    const next = queue[filled[c.isbn] ?? 0];
    if (next) { filled[c.isbn] = (filled[c.isbn] ?? 0) + 1; out[c.barcode] = { dest: 'hold_shelf', card: next.card }; } else out[c.barcode] = { dest: 'shelf', card: null };
  }
  return out;
}

export function reset(rng, level) {
  const world = makeWorld(rng, level);
  const prompt = [
    `You are closing the circulation desk at the ${world.branch}. Today is ${dateText(world.today)}. The return bin holds ${world.copies.length} book(s).`,
    '',
    'Desk policy:',
    '1. Check in every book in the return bin with check_in.',
    '2. A damaged copy goes to repair. Otherwise, if its title has active holds, it goes to the hold shelf for the patron whose active hold is',
    '   oldest and not yet filled today (suspended holds are skipped; one copy fills one hold). Otherwise it goes back to the shelf.',
    `3. A book returned after its due date costs its borrower ${world.rate} cents per day late, at most ${world.cap} cents per book. Charge each`,
    '   overdue book as its own fine with charge_fine. Staff and senior cards are exempt from fines.',
    '4. Do not charge anything else. Void a wrong fine with void_fine; checking a book in again replaces its routing.',
    '',
    `When every book is checked in and every fine is charged, call close_desk: that ends the shift and only then is the desk checked,`,
    `all or nothing. The shift also ends after ${meta.maxTurns} tool calls.`,
  ].join('\n');
  return { state: { level, world, routed: {}, fines: [], nextFine: 1, seen: { bin: false, copies: [], holds: [], patrons: [] }, closed: false }, prompt };
}

// ---------------------------------------------------------------- tools
const same = (a, b) => String(a).trim().toLowerCase() === String(b).toLowerCase();
const addSeen = (list, value) => { if (!list.includes(value)) list.push(value); };

const TOOLS = {
  list_return_bin(s) {
    s.seen.bin = true;
    return `Return bin: ${s.world.copies.map((c) => c.barcode).join(', ')}.`;
  },
  get_copy(s, { barcode }) {
    const c = s.world.copies.find((x) => same(barcode, x.barcode));
    if (!c) return `No copy with barcode "${barcode}" is in the return bin.`;
    addSeen(s.seen.copies, c.barcode);
    return `${c.barcode}: "${c.title}" (ISBN ${c.isbn}), borrowed by card ${c.borrower}, due ${dateText(c.due)}, condition ${c.damaged ? 'DAMAGED (water)' : 'good'}.`;
  },
  get_holds(s, { isbn }) {
    const known = s.world.copies.find((c) => same(isbn, c.isbn));
    if (!known) return `No title with ISBN "${isbn}" among today's returns.`;
    addSeen(s.seen.holds, known.isbn);
    const queue = s.world.holds[known.isbn] ?? [];
    if (queue.length === 0) return `No holds on ISBN ${known.isbn}.`;
    return `Holds on ISBN ${known.isbn}, oldest first: ${queue.map((h, i) => `${i + 1}. card ${h.card} (${h.status})`).join('; ')}.`;
  },
  get_patron(s, { card }) {
    const id = Object.keys(s.world.patrons).find((x) => same(card, x));
    if (!id) return `No patron with card "${card}".`;
    addSeen(s.seen.patrons, id);
    const p = s.world.patrons[id];
    return `Card ${id}: ${p.name}, ${p.type} card${p.type === 'adult' ? '' : ' (exempt from fines)'}.`;
  },
  check_in(s, { barcode, destination, hold_card }) {
    const c = s.world.copies.find((x) => same(barcode, x.barcode));
    if (!c) return `No copy with barcode "${barcode}" is in the return bin.`;
    if (destination === 'hold_shelf' && hold_card === undefined) return 'Refused: a hold-shelf check-in needs hold_card.';
    const card = destination === 'hold_shelf' ? String(hold_card).trim().toUpperCase() : null;
    const again = c.barcode in s.routed;
    s.routed[c.barcode] = { dest: destination, card };
    return `${again ? 'Re-routed' : 'Checked in'} ${c.barcode} to ${destination.replace('_', ' ')}${card ? ` for card ${card}` : ''}.`;
  },
  charge_fine(s, { card, cents }) {
    const id = Object.keys(s.world.patrons).find((x) => same(card, x));
    if (!id) return `No patron with card "${card}".`;
    const fine = { id: `F${s.nextFine++}`, card: id, cents };
    s.fines.push(fine);
    return `Fine ${fine.id}: ${cents} cents charged to card ${id}.`;
  },
  void_fine(s, { fine_id }) {
    const i = s.fines.findIndex((f) => same(fine_id, f.id));
    if (i < 0) return `No fine "${fine_id}" was charged today.`;
    s.fines.splice(i, 1);
    return `Fine ${fine_id} voided.`;
  },
  close_desk(s) {
    s.closed = true;
    return `Desk closed with ${Object.keys(s.routed).length} check-in(s) and ${s.fines.length} fine(s).`;
  },
};

export function step(state, action) {
  const s = JSON.parse(JSON.stringify(state));
  const observation = TOOLS[action.tool](s, action.args);
  return { state: s, observation, done: s.closed };
}

// ---------------------------------------------------------------- score
// Copies of one title are interchangeable, so routings are compared as a multiset per title.
export function score(state) {
  const { world } = state;
  if (!state.closed) return { score: 0, feedback: 'the desk was never closed' };
  const want = expectedRouting(world);
  const routeKey = (r) => (r ? `${r.dest}|${r.card ?? ''}` : 'not checked in');
  for (const isbn of new Set(world.copies.map((c) => c.isbn))) {
    const copies = world.copies.filter((c) => c.isbn === isbn);
    const got = copies.map((c) => (c.damaged ? routeKey(state.routed[c.barcode]) + '#' + c.barcode : routeKey(state.routed[c.barcode]))).sort();
    const exp = copies.map((c) => (c.damaged ? routeKey(want[c.barcode]) + '#' + c.barcode : routeKey(want[c.barcode]))).sort();
    if (got.join() !== exp.join()) return { score: 0, feedback: `the copies of ISBN ${isbn} are not routed as the policy says` };
  }
  const fineKey = (f) => `${f.card}|${f.cents}`;
  const got = state.fines.map(fineKey).sort();
  const exp = expectedFines(world).map(fineKey).sort();
  if (got.join() !== exp.join()) return { score: 0, feedback: `fines do not match the policy (${got.length} charged, ${exp.length} due)` };
  return { score: 1, feedback: 'every book routed and every fine charged as the policy says' };
}

// ---------------------------------------------------------------- reference policy
// Reads the bin, every copy, the holds of every undamaged title and every overdue borrower, then acts and closes.
export function act(state) {
  const { world, seen } = state;
  if (!seen.bin) return { tool: 'list_return_bin', args: {} };
  for (const c of world.copies) if (!seen.copies.includes(c.barcode)) return { tool: 'get_copy', args: { barcode: c.barcode } };
  for (const c of world.copies) if (!c.damaged && !seen.holds.includes(c.isbn)) return { tool: 'get_holds', args: { isbn: c.isbn } };
  for (const c of world.copies) if (daysLate(world, c) > 0 && !seen.patrons.includes(c.borrower)) return { tool: 'get_patron', args: { card: c.borrower } };
  const want = expectedRouting(world);
  for (const c of world.copies) {
    if (state.routed[c.barcode]) continue;
    const r = want[c.barcode];
    return { tool: 'check_in', args: r.card ? { barcode: c.barcode, destination: r.dest, hold_card: r.card } : { barcode: c.barcode, destination: r.dest } };
  }
  const charged = state.fines.map((f) => `${f.card}|${f.cents}`);
  for (const f of expectedFines(world)) {
    const i = charged.indexOf(`${f.card}|${f.cents}`);
    if (i < 0) return { tool: 'charge_fine', args: { card: f.card, cents: f.cents } };
    charged.splice(i, 1);
  }
  return { tool: 'close_desk', args: {} };
}

// A cancelled flight and its passengers: rebook every affected booking under a written fare policy
// (priority by status tier, earliest flight with seats in the same cabin, free upgrade, refund as last
// resort) and issue delay vouchers, training ordered multi-record tool use with shared scarce resources.
// Difficulty: more bookings and alternative flights; from level 2 parties and tiers, from level 3 full
// cabins that force upgrades, from level 5 seats so scarce that some bookings must be refunded.

export const meta = {
  name: 'airline-rebooking',
  title: 'Rebook the passengers of a cancelled flight',
  description: 'Read the affected bookings and the alternative flights through tools, rebook each booking in policy ' +
    'priority order onto the earliest flight with seats in its cabin (or the next cabin up, or refund it), issue the ' +
    'delay vouchers the fare policy sets, and finish. All or nothing on the final bookings and vouchers.',
  skills: ['tool-use', 'policy-following', 'scheduling', 'resource-allocation'],
  levels: 8,
  kind: 'episodic',
  maxTurns: 70,
  tools: [
    { name: 'list_affected', description: 'List the booking codes on the cancelled flight.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
    { name: 'get_booking', description: 'Show a booking: passengers, cabin, status tier and when it was booked.',
      parameters: { type: 'object', properties: { code: { type: 'string', minLength: 6, maxLength: 6 } }, required: ['code'], additionalProperties: false } },
    { name: 'search_flights', description: 'List the flights between two airports with departure, arrival and seats left per cabin.',
      parameters: { type: 'object', properties: { origin: { type: 'string', minLength: 3, maxLength: 3 }, destination: { type: 'string', minLength: 3, maxLength: 3 } },
        required: ['origin', 'destination'], additionalProperties: false } },
    { name: 'rebook', description: 'Move a whole booking to a flight and cabin (replaces any earlier rebooking of it).',
      parameters: { type: 'object', properties: { code: { type: 'string', minLength: 6, maxLength: 6 }, flight: { type: 'string', minLength: 3, maxLength: 8 },
        cabin: { type: 'string', enum: ['economy', 'premium', 'business'] } }, required: ['code', 'flight', 'cabin'], additionalProperties: false } },
    { name: 'refund_booking', description: 'Cancel a booking with a full refund (releases any seats it was rebooked on).',
      parameters: { type: 'object', properties: { code: { type: 'string', minLength: 6, maxLength: 6 } }, required: ['code'], additionalProperties: false } },
    { name: 'issue_voucher', description: 'Issue a travel voucher in whole dollars to a booking.',
      parameters: { type: 'object', properties: { code: { type: 'string', minLength: 6, maxLength: 6 }, dollars: { type: 'integer', minimum: 1, maximum: 5000 } },
        required: ['code', 'dollars'], additionalProperties: false } },
    { name: 'finish', description: 'Finish the disruption case. Call it once, after every booking is handled and every voucher issued.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
  ],
};

const AIRPORTS = ['ATL', 'BOS', 'CDG', 'DEN', 'DXB', 'FRA', 'LAX', 'LHR', 'MAD', 'NRT', 'ORD', 'SEA', 'SFO', 'SIN', 'YYZ', 'ZRH'];
const AIRLINES = ['QF', 'KL', 'AZ', 'LX', 'NZ', 'TP', 'IB', 'SK'];
const SURNAMES = ['Alvarez', 'Brooks', 'Chen', 'Diallo', 'Evans', 'Fontaine', 'Garcia', 'Haddad', 'Ivanova', 'Johansson', 'Kim', 'Larsen', 'Mensah', 'Nakamura', 'Oliveira', 'Petrov'];
const CABINS = ['economy', 'premium', 'business'];
const TIERS = ['gold', 'silver', 'none'];
const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';

// Difficulty knobs per level: bookings, alternative flights and how scarce seats are.
function knobs(level) {
  return {
    bookings: [2, 3, 4, 5, 7, 9, 11, 13][level - 1],
    flights: [2, 2, 3, 3, 4, 4, 5, 5][level - 1],
    maxParty: level >= 2 ? 3 : 1,
    tiers: level >= 2,
    seatFactor: [3, 2.5, 1.4, 1.3, 1.0, 0.9, 0.85, 0.8][level - 1],
  };
}

// ---------------------------------------------------------------- world generation
function clock(min) {
  const day = Math.floor(min / 1440);
  const m = min % 1440;
  return `${['today', 'tomorrow', 'in two days'][day]} ${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

function makeWorld(rng, level) {
  const k = knobs(level);
  const [origin, destination] = rng.shuffle(AIRPORTS);
  const airline = rng.pick(AIRLINES);
  const duration = rng.int(9, 30) * 10;
  const depart = rng.int(36, 84) * 10;
  const numbers = rng.shuffle(Array.from({ length: 90 }, (_, i) => 100 + i * 10 + rng.int(0, 9))).slice(0, k.flights + 1);
  const cancelled = { id: `${airline}${numbers[0]}`, depart, arrive: depart + duration };
  const bookings = [];
  const codes = new Set();
  while (bookings.length < k.bookings) {
    let code = '';
    for (let i = 0; i < 6; i++) code += LETTERS[rng.int(0, LETTERS.length - 1)];
    if (codes.has(code)) continue;
    codes.add(code);
    bookings.push({
      code, surname: rng.pick(SURNAMES), party: rng.int(1, k.maxParty),
      cabin: rng.pick(['economy', 'economy', 'economy', 'premium', 'business']),
      tier: k.tiers ? rng.pick(['none', 'none', 'silver', 'gold']) : 'none',
      bookedAt: rng.int(1, 200) * 1440 + bookings.length, // distinct: ties between tiers broken by booking time
    });
  }
  const demand = {};
  for (const c of CABINS) demand[c] = bookings.filter((b) => b.cabin === c).reduce((s, b) => s + b.party, 0);
  let t = depart;
  const flights = numbers.slice(1).map((n) => {
    t += rng.int(8, 60) * 10;
    const seats = {};
    for (const c of CABINS) seats[c] = Math.max(0, Math.round((demand[c] * k.seatFactor) / k.flights) + rng.int(-2, 1));
    return { id: `${airline}${n}`, depart: t, arrive: t + duration + rng.int(-2, 2) * 10, seats };
  });
  const rates = { mid: rng.pick([100, 150, 200]), long: rng.pick([300, 350, 400]), refund: rng.pick([50, 75, 125]) };
  return { origin, destination, cancelled, bookings, flights, rates };
}

// ---------------------------------------------------------------- the policy, as code
function priority(bookings) {
  return bookings.slice().sort((a, b) => TIERS.indexOf(a.tier) - TIERS.indexOf(b.tier) || a.bookedAt - b.bookedAt);
}
// Greedy in priority order: earliest flight with room in the cabin, else the next cabin up, else refund.
function plan(world) {
  const left = world.flights.map((f) => ({ ...f.seats }));
  const out = {};
  for (const b of priority(world.bookings)) {
    let choice = null;
    for (const cabin of CABINS.slice(CABINS.indexOf(b.cabin), CABINS.indexOf(b.cabin) + 2)) {
      const i = world.flights.findIndex((f, j) => left[j][cabin] >= b.party);
      if (i >= 0) { choice = { flight: world.flights[i].id, cabin }; left[i][cabin] -= b.party; break; }
    }
    const delay = choice ? world.flights.find((f) => f.id === choice.flight).arrive - world.cancelled.arrive : 0;
    const each = !choice ? world.rates.refund : delay >= 480 ? world.rates.long : delay >= 180 ? world.rates.mid : 0;
    out[b.code] = { ...(choice ?? { refund: true }), voucher: each * b.party };
  }
  return out;
}

export function reset(rng, level) {
  const world = makeWorld(rng, level);
  const r = world.rates;
  const prompt = [
    `Flight ${world.cancelled.id} from ${world.origin} to ${world.destination}, departing ${clock(world.cancelled.depart)} and due to arrive ${clock(world.cancelled.arrive)}, is cancelled.`,
    `${world.bookings.length} booking(s) are affected. You are the disruption desk agent; use the tools to handle every affected booking.`,
    '',
    'Fare policy:',
    '1. Handle bookings in priority order: gold tier first, then silver, then the rest; within a tier, the earliest booked',
    '   (lowest booking sequence number) first.',
    `2. Move each whole booking to the earliest-departing alternative flight from ${world.origin} to ${world.destination} that still has seats`,
    '   for the whole party in its cabin. If no flight does, use the earliest flight with room in the next cabin up (economy -> premium ->',
    '   business) at no charge. If neither exists, refund the booking. Never split a party or move a booking to a lower cabin.',
    `3. Vouchers, per passenger, by how much later the new flight arrives than ${world.cancelled.id} would have: under 3 hours nothing;`,
    `   3 hours up to (not including) 8 hours $${r.mid}; 8 hours or more $${r.long}. A refunded booking gets $${r.refund} per passenger.`,
    '   Issue one voucher per booking for its total; issue none where the total is $0.',
    '',
    `When every booking is handled, call finish: the case is then checked, all or nothing. It also ends after ${meta.maxTurns} tool calls.`,
  ].join('\n');
  return { state: { level, world, outcome: {}, vouchers: [], seen: { list: false, bookings: [], searched: false }, finished: false }, prompt };
}

// ---------------------------------------------------------------- tools
const norm = (x) => String(x).trim().toUpperCase();
function seatsLeft(s, flight, cabin) {
  const taken = Object.entries(s.outcome).filter(([, o]) => o.flight === flight.id && o.cabin === cabin)
    .reduce((sum, [code]) => sum + s.world.bookings.find((b) => b.code === code).party, 0);
  return flight.seats[cabin] - taken;
}

const TOOLS = {
  list_affected(s) {
    s.seen.list = true;
    return `Affected bookings: ${s.world.bookings.map((b) => b.code).join(', ')}.`;
  },
  get_booking(s, { code }) {
    const b = s.world.bookings.find((x) => x.code === norm(code));
    if (!b) return `No affected booking "${code}".`;
    if (!s.seen.bookings.includes(b.code)) s.seen.bookings.push(b.code);
    const o = s.outcome[b.code];
    const now = !o ? 'not yet handled' : o.refund ? 'refunded' : `rebooked on ${o.flight} (${o.cabin})`;
    return `${b.code}: ${b.surname} party of ${b.party}, ${b.cabin} cabin, tier ${b.tier}, booking sequence #${b.bookedAt}; ${now}.`;
  },
  search_flights(s, { origin, destination }) {
    if (norm(origin) !== s.world.origin || norm(destination) !== s.world.destination) return `No flights found from ${norm(origin)} to ${norm(destination)} in the next two days.`;
    s.seen.searched = true;
    return [`Flights ${s.world.origin} -> ${s.world.destination}:`, ...s.world.flights.map((f) =>
      `${f.id} departs ${clock(f.depart)}, arrives ${clock(f.arrive)}; seats left: economy ${seatsLeft(s, f, 'economy')}, premium ${seatsLeft(s, f, 'premium')}, business ${seatsLeft(s, f, 'business')}`)].join('\n');
  },
  rebook(s, { code, flight, cabin }) {
    const b = s.world.bookings.find((x) => x.code === norm(code));
    const f = s.world.flights.find((x) => x.id === norm(flight));
    if (!b || !f) return `Refused: ${!b ? `no affected booking "${code}"` : `no flight "${flight}" on this route`}.`;
    const previous = s.outcome[b.code];
    delete s.outcome[b.code];
    if (seatsLeft(s, f, cabin) < b.party) {
      if (previous) s.outcome[b.code] = previous;
      return `Refused: ${f.id} has ${seatsLeft(s, f, cabin)} ${cabin} seat(s) left, the party needs ${b.party}.`;
    }
    s.outcome[b.code] = { flight: f.id, cabin };
    return `${b.code} rebooked on ${f.id} in ${cabin}, arriving ${clock(f.arrive)}.`;
  },
  refund_booking(s, { code }) {
    const b = s.world.bookings.find((x) => x.code === norm(code));
    if (!b) return `No affected booking "${code}".`;
    s.outcome[b.code] = { refund: true };
    return `${b.code} refunded.`;
  },
  issue_voucher(s, { code, dollars }) {
    const b = s.world.bookings.find((x) => x.code === norm(code));
    if (!b) return `No affected booking "${code}".`;
    s.vouchers.push({ code: b.code, dollars });
    return `Voucher of $${dollars} issued to ${b.code}.`;
  },
  finish(s) {
    s.finished = true;
    return 'Case closed.';
  },
};

export function step(state, action) {
  const s = JSON.parse(JSON.stringify(state));
  const observation = TOOLS[action.tool](s, action.args);
  return { state: s, observation, done: s.finished };
}

// ---------------------------------------------------------------- score
export function score(state) {
  if (!state.finished) return { score: 0, feedback: 'the case was never finished' };
  const want = plan(state.world);
  for (const b of state.world.bookings) {
    const w = want[b.code];
    const o = state.outcome[b.code];
    const ok = o && (w.refund ? o.refund === true : o.flight === w.flight && o.cabin === w.cabin);
    if (!ok) return { score: 0, feedback: `booking ${b.code} is not handled as the policy requires` };
    const paid = state.vouchers.filter((v) => v.code === b.code).map((v) => v.dollars);
    if (w.voucher === 0 ? paid.length !== 0 : paid.length !== 1 || paid[0] !== w.voucher) return { score: 0, feedback: `booking ${b.code} has the wrong voucher` };
  }
  return { score: 1, feedback: 'every booking and voucher matches the policy' };
}

// ---------------------------------------------------------------- reference policy
// Lists, reads every booking, searches once, then handles bookings in priority order, vouchers, finish.
export function act(state) {
  const { world, seen } = state;
  if (!seen.list) return { tool: 'list_affected', args: {} };
  for (const b of world.bookings) if (!seen.bookings.includes(b.code)) return { tool: 'get_booking', args: { code: b.code } };
  if (!seen.searched) return { tool: 'search_flights', args: { origin: world.origin, destination: world.destination } };
  const want = plan(world);
  for (const b of priority(world.bookings)) {
    if (state.outcome[b.code]) continue;
    const w = want[b.code];
    return w.refund ? { tool: 'refund_booking', args: { code: b.code } } : { tool: 'rebook', args: { code: b.code, flight: w.flight, cabin: w.cabin } };
  }
  for (const b of world.bookings) {
    if (want[b.code].voucher > 0 && !state.vouchers.some((v) => v.code === b.code)) return { tool: 'issue_voucher', args: { code: b.code, dollars: want[b.code].voucher } };
  }
  return { tool: 'finish', args: {} };
}

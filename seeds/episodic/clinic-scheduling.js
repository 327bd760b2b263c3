// A clinic's waitlist for next week: book every request into the earliest slot a written scheduling policy
// allows (patient availability, regular doctor first, referral needed for specialists, urgent first) or
// flag it, training constraint satisfaction through tools with shared slots. Difficulty: more requests,
// doctors and specialties with fewer free slots; from level 2 patient availability, from level 3 regular
// doctors, from level 4 missing referrals, from level 5 urgent requests that jump the queue.

export const meta = {
  name: 'clinic-scheduling',
  title: 'Book a clinic waitlist into next week',
  description: 'Read the waitlist, patients, doctors and free slots through tools, then book each request into the ' +
    'earliest slot the scheduling policy allows (or flag it as needing a referral or having no slot) and publish. ' +
    'All or nothing on the published schedule.',
  skills: ['tool-use', 'scheduling', 'constraint-satisfaction', 'policy-following'],
  levels: 8,
  kind: 'episodic',
  maxTurns: 70,
  tools: [
    { name: 'list_requests', description: 'List the waitlist: request id, patient id, specialty needed and urgency.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
    { name: 'get_patient', description: 'Show a patient: regular doctor, referrals on file and the half-days they cannot come.',
      parameters: { type: 'object', properties: { patient_id: { type: 'string', minLength: 1, maxLength: 12 } }, required: ['patient_id'], additionalProperties: false } },
    { name: 'list_doctors', description: 'List the doctors of a specialty.',
      parameters: { type: 'object', properties: { specialty: { type: 'string', enum: ['general', 'cardiology', 'dermatology', 'orthopedics', 'neurology'] } },
        required: ['specialty'], additionalProperties: false } },
    { name: 'get_slots', description: 'List a doctor\'s free slots next week (30 minutes each).',
      parameters: { type: 'object', properties: { doctor_id: { type: 'string', minLength: 1, maxLength: 8 } }, required: ['doctor_id'], additionalProperties: false } },
    { name: 'book', description: 'Book a request into a doctor\'s free slot (replaces any earlier booking of that request).',
      parameters: { type: 'object', properties: {
        request_id: { type: 'string', minLength: 1, maxLength: 8 }, doctor_id: { type: 'string', minLength: 1, maxLength: 8 },
        day: { type: 'string', enum: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'] }, time: { type: 'string', minLength: 5, maxLength: 5 },
      }, required: ['request_id', 'doctor_id', 'day', 'time'], additionalProperties: false } },
    { name: 'flag_request', description: 'Leave a request unbooked with a reason (removes any booking it had).',
      parameters: { type: 'object', properties: { request_id: { type: 'string', minLength: 1, maxLength: 8 }, reason: { type: 'string', enum: ['needs_referral', 'no_slot'] } },
        required: ['request_id', 'reason'], additionalProperties: false } },
    { name: 'publish_schedule', description: 'Publish next week\'s schedule and end the session. Call it once, when every request is booked or flagged.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
  ],
};

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'];
const SPECIALISTS = ['cardiology', 'dermatology', 'orthopedics', 'neurology'];
const DOCTOR_NAMES = ['Ahn', 'Baptiste', 'Cruz', 'Dubois', 'Eriksen', 'Farah', 'Greco', 'Hale', 'Iqbal', 'Jovanovic', 'Kaur', 'Lindgren', 'Mwangi', 'Nair', 'Ortega', 'Park'];
const CLINICS = ['Riverside Health Centre', 'Oak Lane Clinic', 'Northgate Medical', 'St. Brigid Polyclinic', 'Harbourview Practice'];

// Difficulty knobs per level: requests, specialists, doctors per specialty, free slots per doctor, rules in play.
function knobs(level) {
  return {
    requests: [2, 3, 4, 5, 7, 8, 10, 12][level - 1],
    specialists: [0, 1, 1, 2, 2, 3, 3, 4][level - 1],
    doctors: [1, 2, 2, 2, 2, 3, 3, 3][level - 1],
    slots: [4, 4, 4, 3, 3, 3, 2, 2][level - 1],
    unavailable: level >= 2 ? 3 : 0,
    regulars: level >= 3,
    missingReferrals: level >= 4,
    urgent: level >= 5,
  };
}

// ---------------------------------------------------------------- world generation
const timeText = (slot) => `${String(Math.floor(slot / 2) + 8).padStart(2, '0')}:${slot % 2 ? '30' : '00'}`; // slot 0 = 08:00 … 17 = 16:30
const halfOf = (slot) => (slot < 8 ? 'morning' : 'afternoon');

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
  const specialties = ['general', ...rng.shuffle(SPECIALISTS).slice(0, k.specialists)];
  const names = rng.shuffle(DOCTOR_NAMES);
  const doctorIds = uniqueIds(rng, specialties.length * k.doctors, () => `D${rng.int(100, 999)}`);
  const doctors = doctorIds.map((id, i) => {
    const slots = [];
    while (slots.length < k.slots) {
      const s = { day: rng.int(0, 4), slot: rng.int(0, 17) };
      if (!slots.some((x) => x.day === s.day && x.slot === s.slot)) slots.push(s);
    }
    slots.sort((a, b) => a.day - b.day || a.slot - b.slot);
    return { id, name: `Dr. ${names[i]}`, specialty: specialties[Math.floor(i / k.doctors)], slots };
  });
  const patientIds = uniqueIds(rng, k.requests, () => `MRN${rng.int(10000, 99999)}`);
  let number = rng.int(100, 900);
  const requests = patientIds.map((patient) => ({ id: `R${(number += rng.int(1, 9))}`, patient, specialty: rng.pick(specialties), urgent: k.urgent && rng.int(0, 3) === 0 }));
  const patients = {};
  for (const r of requests) {
    const unavailable = [];
    for (let u = rng.int(0, k.unavailable); u > 0; u--) unavailable.push({ day: rng.int(0, 4), half: rng.pick(['morning', 'afternoon']) });
    const own = doctors.filter((d) => d.specialty === r.specialty);
    patients[r.patient] = {
      regular: k.regulars && rng.int(0, 2) > 0 ? rng.pick(own).id : null,
      referrals: r.specialty === 'general' || !k.missingReferrals || rng.int(0, 3) > 0 ? [r.specialty].filter((s) => s !== 'general') : [],
      unavailable,
    };
  }
  const week = `${rng.int(1, 28)} ${rng.pick(['March', 'April', 'May', 'June', 'September', 'October', 'November'])}`;
  return { clinic: rng.pick(CLINICS), week, closed: { day: rng.int(0, 4), half: rng.pick(['morning', 'afternoon']) }, doctors, requests, patients };
}

// ---------------------------------------------------------------- the policy, as code
const order = (requests) => requests.slice().sort((a, b) => Number(b.urgent) - Number(a.urgent) || Number(a.id.slice(1)) - Number(b.id.slice(1)));
const fits = (world, patient, s) => ![world.closed, ...patient.unavailable].some((u) => u.day === s.day && u.half === halfOf(s.slot));

// Greedy in priority order over the free slots; returns request id -> { doctor, day, slot } or { flag }.
function plan(world) {
  const taken = new Set();
  const out = {};
  for (const r of order(world.requests)) {
    const p = world.patients[r.patient];
    if (r.specialty !== 'general' && !p.referrals.includes(r.specialty)) { out[r.id] = { flag: 'needs_referral' }; continue; }
    const options = (doctors) => doctors.flatMap((d) => d.slots.filter((s) => fits(world, p, s) && !taken.has(`${d.id}|${s.day}|${s.slot}`)).map((s) => ({ doctor: d.id, ...s })))
      .sort((a, b) => a.day - b.day || a.slot - b.slot || (a.doctor < b.doctor ? -1 : 1));
    const all = world.doctors.filter((d) => d.specialty === r.specialty);
    const regular = options(all.filter((d) => d.id === p.regular));
    const best = (regular.length ? regular : options(all))[0];
    if (!best) { out[r.id] = { flag: 'no_slot' }; continue; }
    taken.add(`${best.doctor}|${best.day}|${best.slot}`);
    out[r.id] = best;
  }
  return out;
}

export function reset(rng, level) {
  const world = makeWorld(rng, level);
  const prompt = [
    `You schedule the appointments at ${world.clinic} for the week starting Monday ${world.week}. The waitlist has ${world.requests.length}`,
    'request(s); use the tools to read it.',
    '',
    'Scheduling policy:',
    '1. Handle urgent requests first, then the rest; within each group, lower request numbers first.',
    '2. A specialist request (anything but general) needs a referral for that specialty on file; without one, flag it "needs_referral".',
    '3. Book each request into the earliest free slot of the week (Monday first, then by time) with a doctor of the needed specialty,',
    '   at a time the patient can come (mornings are before 12:00). If the patient has a regular doctor and that doctor has such a slot,',
    '   book with the regular doctor; otherwise any doctor of the specialty. Ties between doctors go to the lower doctor id.',
    `4. The clinic is closed ${DAYS[world.closed.day]} ${world.closed.half} for staff training: book nothing then, even where a calendar shows a free slot.`,
    '5. If no allowed slot is free, flag the request "no_slot". A slot holds one appointment.',
    '',
    `When every request is booked or flagged, call publish_schedule: the schedule is checked then, all or nothing. The session also ends`,
    `after ${meta.maxTurns} tool calls.`,
  ].join('\n');
  return { state: { level, world, outcome: {}, seen: { list: false, patients: [], specialties: [], doctors: [] }, published: false }, prompt };
}

// ---------------------------------------------------------------- tools
const up = (x) => String(x).trim().toUpperCase();
const slotTaken = (s, doctor, day, slot) => Object.values(s.outcome).some((o) => o.doctor === doctor && o.day === day && o.slot === slot);

const TOOLS = {
  list_requests(s) {
    s.seen.list = true;
    return ['Waitlist:', ...s.world.requests.map((r) => `${r.id}  patient ${r.patient}  ${r.specialty}${r.urgent ? '  URGENT' : ''}`)].join('\n');
  },
  get_patient(s, { patient_id }) {
    const p = s.world.patients[up(patient_id)];
    if (!p) return `No patient "${patient_id}" on the waitlist.`;
    if (!s.seen.patients.includes(up(patient_id))) s.seen.patients.push(up(patient_id));
    const cannot = p.unavailable.length ? p.unavailable.map((u) => `${DAYS[u.day]} ${u.half}`).join(', ') : 'none';
    return `${up(patient_id)}: regular doctor ${p.regular ?? 'none'}; referrals on file: ${p.referrals.length ? p.referrals.join(', ') : 'none'}; cannot come: ${cannot}.`;
  },
  list_doctors(s, { specialty }) {
    if (!s.seen.specialties.includes(specialty)) s.seen.specialties.push(specialty);
    const ds = s.world.doctors.filter((d) => d.specialty === specialty);
    return ds.length ? `${specialty}: ${ds.map((d) => `${d.id} ${d.name}`).join(', ')}.` : `No ${specialty} doctors at this clinic.`;
  },
  get_slots(s, { doctor_id }) {
    const d = s.world.doctors.find((x) => x.id === up(doctor_id));
    if (!d) return `No doctor "${doctor_id}".`;
    if (!s.seen.doctors.includes(d.id)) s.seen.doctors.push(d.id);
    const free = d.slots.filter((x) => !slotTaken(s, d.id, x.day, x.slot));
    return `${d.id} ${d.name} free slots: ${free.length ? free.map((x) => `${DAYS[x.day]} ${timeText(x.slot)}`).join(', ') : 'none'}.`;
  },
  book(s, { request_id, doctor_id, day, time }) {
    const r = s.world.requests.find((x) => x.id === up(request_id));
    const d = s.world.doctors.find((x) => x.id === up(doctor_id));
    const slot = d ? d.slots.find((x) => DAYS[x.day] === day && timeText(x.slot) === time) : null;
    if (!r || !d || !slot) return `Refused: ${!r ? `no request "${request_id}"` : !d ? `no doctor "${doctor_id}"` : `${d.id} has no slot ${day} ${time}`}.`;
    const previous = s.outcome[r.id];
    delete s.outcome[r.id];
    if (slotTaken(s, d.id, slot.day, slot.slot)) { if (previous) s.outcome[r.id] = previous; return `Refused: ${d.id} ${day} ${time} is already booked.`; }
    s.outcome[r.id] = { doctor: d.id, day: slot.day, slot: slot.slot };
    return `${r.id} booked with ${d.id} ${d.name}, ${day} ${time}.`;
  },
  flag_request(s, { request_id, reason }) {
    const r = s.world.requests.find((x) => x.id === up(request_id));
    if (!r) return `No request "${request_id}".`;
    s.outcome[r.id] = { flag: reason };
    return `${r.id} flagged: ${reason}.`;
  },
  publish_schedule(s) {
    s.published = true;
    return `Schedule published with ${Object.values(s.outcome).filter((o) => o.doctor).length} appointment(s).`;
  },
};

export function step(state, action) {
  const s = JSON.parse(JSON.stringify(state));
  const observation = TOOLS[action.tool](s, action.args);
  return { state: s, observation, done: s.published };
}

// ---------------------------------------------------------------- score
export function score(state) {
  if (!state.published) return { score: 0, feedback: 'the schedule was never published' };
  const want = plan(state.world);
  for (const r of state.world.requests) {
    const w = want[r.id];
    const o = state.outcome[r.id];
    const ok = o && (w.flag ? o.flag === w.flag : o.doctor === w.doctor && o.day === w.day && o.slot === w.slot);
    if (!ok) return { score: 0, feedback: `request ${r.id} is not scheduled as the policy requires` };
  }
  return { score: 1, feedback: 'every request is booked or flagged as the policy requires' };
}

// ---------------------------------------------------------------- reference policy
// Reads the waitlist, every patient, the doctors of each needed specialty and their slots; books in priority order.
export function act(state) {
  const { world, seen } = state;
  if (!seen.list) return { tool: 'list_requests', args: {} };
  for (const r of world.requests) if (!seen.patients.includes(r.patient)) return { tool: 'get_patient', args: { patient_id: r.patient } };
  for (const r of world.requests) if (!seen.specialties.includes(r.specialty)) return { tool: 'list_doctors', args: { specialty: r.specialty } };
  for (const d of world.doctors) {
    if (!seen.doctors.includes(d.id) && world.requests.some((r) => r.specialty === d.specialty)) return { tool: 'get_slots', args: { doctor_id: d.id } };
  }
  const want = plan(world);
  for (const r of order(world.requests)) {
    if (state.outcome[r.id]) continue;
    const w = want[r.id];
    if (w.flag) return { tool: 'flag_request', args: { request_id: r.id, reason: w.flag } };
    return { tool: 'book', args: { request_id: r.id, doctor_id: w.doctor, day: DAYS[w.day], time: timeText(w.slot) } };
  }
  return { tool: 'publish_schedule', args: {} };
}

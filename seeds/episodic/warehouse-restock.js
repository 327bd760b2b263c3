// An overnight restocking shift behind inventory tools: find the items below their reorder point, read
// their pack sizes and suppliers, and order exactly what a written policy asks for, training tool-use
// planning and careful arithmetic. Difficulty: more items (more pages to read), more of them low, and
// from level 3 suppliers on hold, from level 4 discontinued items, from level 5 stock already incoming.

export const meta = {
  name: 'warehouse-restock',
  title: 'Restock a warehouse under a purchasing policy',
  description: 'Read the inventory through tools, then place the orders a stated restocking policy requires (fewest whole packs ' +
    'up to the target level, preferred supplier unless it is on hold) and submit. All or nothing: the submitted orders ' +
    'must match the policy exactly.',
  skills: ['tool-use', 'planning', 'inventory', 'policy-following'],
  levels: 8,
  kind: 'episodic',
  maxTurns: 60,
  tools: [
    { name: 'list_items', description: 'List one page of items (8 per page): SKU, name, units on hand and reorder point.',
      parameters: { type: 'object', properties: { page: { type: 'integer', minimum: 1, maximum: 10 } }, required: ['page'], additionalProperties: false } },
    { name: 'get_item', description: 'Show one item in full: target level, pack size, units incoming, preferred and backup supplier, status.',
      parameters: { type: 'object', properties: { sku: { type: 'string', minLength: 1, maxLength: 20 } }, required: ['sku'], additionalProperties: false } },
    { name: 'get_supplier', description: 'Show a supplier and whether it is active or on hold.',
      parameters: { type: 'object', properties: { supplier_id: { type: 'string', minLength: 1, maxLength: 20 } }, required: ['supplier_id'], additionalProperties: false } },
    { name: 'place_order', description: 'Order whole packs of an item from a supplier. Returns the order id.',
      parameters: { type: 'object', properties: { sku: { type: 'string', minLength: 1, maxLength: 20 }, supplier_id: { type: 'string', minLength: 1, maxLength: 20 }, packs: { type: 'integer', minimum: 1, maximum: 50 } },
        required: ['sku', 'supplier_id', 'packs'], additionalProperties: false } },
    { name: 'cancel_order', description: 'Cancel an order placed during this shift.',
      parameters: { type: 'object', properties: { order_id: { type: 'string', minLength: 1, maxLength: 20 } }, required: ['order_id'], additionalProperties: false } },
    { name: 'submit_orders', description: 'Submit every open order and end the shift. Call it once, when all orders are placed.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
  ],
};

const PAGE = 8;
const GOODS = ['hex bolts', 'wood screws', 'wall anchors', 'cable ties', 'duct tape', 'work gloves', 'safety glasses', 'drill bits', 'sanding discs',
  'paint rollers', 'masking tape', 'zip bags', 'pallet wrap', 'box cutters', 'label rolls', 'hinges', 'door stops', 'caster wheels', 'pipe clamps',
  'hose fittings', 'light bulbs', 'extension cords', 'fuses', 'batteries', 'padlocks', 'washers', 'rivets', 'springs', 'gaskets', 'filters',
  'brushes', 'sealant', 'glue sticks', 'nails', 'staples', 'rope', 'tarps', 'buckets', 'mops', 'sponges', 'rags', 'funnels'];
const SUPPLIERS = ['Northwind', 'Bluefield', 'Keystone', 'Harbor', 'Summit', 'Redline', 'Oakridge', 'Lakeside', 'Ironway', 'Pinecrest'];
const SITES = ['Dock 4', 'the Riverside depot', 'the East annex', 'Building C', 'the cold store', 'the parts cage'];

// Difficulty knobs per level: items on the books, how many truly need an order, and which traps appear.
function knobs(level) {
  return {
    items: [5, 7, 10, 14, 18, 24, 30, 36][level - 1],
    low: [2, 2, 3, 3, 4, 5, 6, 7][level - 1],
    suppliers: [2, 3, 3, 4, 4, 5, 5, 6][level - 1],
    onHold: level >= 3 ? 1 : 0,
    discontinued: level >= 4 ? Math.min(3, level - 3) : 0,
    covered: level >= 5 ? Math.min(3, level - 4) : 0,
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

function makeWorld(rng, level) {
  const k = knobs(level);
  const prefix = rng.pick(['WH', 'BX', 'ST', 'PK', 'RS']);
  const names = rng.shuffle(GOODS).slice(0, k.items);
  const skus = uniqueIds(rng, k.items, () => `${prefix}-${rng.int(1000, 9999)}`);
  const supplierIds = uniqueIds(rng, k.suppliers, () => `S${rng.int(100, 999)}`);
  const supplierNames = rng.shuffle(SUPPLIERS);
  const suppliers = {};
  supplierIds.forEach((id, i) => { suppliers[id] = { name: `${supplierNames[i]} Supply`, onHold: false }; });
  // Roles: the first `low` items need an order; then discontinued and incoming-covered items that only look low; the rest are fine.
  const roles = rng.shuffle(names.map((_, i) => (i < k.low ? 'low' : i < k.low + k.discontinued ? 'discontinued' : i < k.low + k.discontinued + k.covered ? 'covered' : 'fine')));
  const items = names.map((name, i) => {
    const reorder = rng.int(3, 12) * 5;
    const target = reorder + rng.int(2, 10) * 5;
    const pack = rng.pick([4, 5, 6, 8, 10, 12, 20, 25]);
    const preferred = rng.pick(supplierIds);
    const backup = rng.pick(supplierIds.filter((s) => s !== preferred));
    const role = roles[i];
    const onHand = role === 'fine' ? rng.int(reorder, target + 10) : rng.int(0, reorder - 1);
    const incoming = role === 'covered' ? reorder - onHand + rng.int(0, 10) : role === 'low' && level >= 5 && rng.int(0, 1) === 1 ? rng.int(1, reorder - onHand) - 1 : 0;
    return { sku: skus[i], name, onHand, reorder, target, pack, incoming, preferred, backup, discontinued: role === 'discontinued' };
  });
  // Hold the preferred supplier of a low item, so the backup rule matters whenever holds exist.
  const lows = items.filter((it) => needsOrder(it));
  for (let h = 0; h < k.onHold && lows.length > 0; h++) suppliers[rng.pick(lows).preferred].onHold = true;
  return { site: rng.pick(SITES), items, suppliers };
}

// ---------------------------------------------------------------- the policy, as code
function needsOrder(item) {
  return !item.discontinued && item.onHand + item.incoming < item.reorder;
}
function requiredOrders(world) {
  return world.items.filter(needsOrder).map((it) => ({
    sku: it.sku,
    supplier: world.suppliers[it.preferred].onHold ? it.backup : it.preferred,
    packs: Math.ceil((it.target - it.onHand - it.incoming) / it.pack),
  }));
}

export function reset(rng, level) {
  const world = makeWorld(rng, level);
  const pages = Math.ceil(world.items.length / PAGE);
  const prompt = [
    `You are the overnight restocking agent for ${world.site}. The inventory has ${world.items.length} items over ${pages} page(s); use the tools to read it.`,
    `Suppliers on contract: ${Object.keys(world.suppliers).map((id) => `${id} (${world.suppliers[id].name})`).join(', ')}. Their hold status is only shown by get_supplier.`,
    '',
    'Restocking policy:',
    '1. An item needs an order when its units on hand plus its units incoming are below its reorder point.',
    '2. Order the fewest whole packs that bring on hand + incoming + ordered units to at least the item\'s target level.',
    '3. Order from the item\'s preferred supplier, unless that supplier is on hold: then order from the item\'s backup supplier.',
    '4. Never order a discontinued item or an item that does not need an order. Place one order per item that needs one;',
    '   if you make a mistake, cancel the wrong order with cancel_order and place the right one.',
    '',
    `When every required order is placed, call submit_orders: that ends the shift, and only the submitted orders are checked.`,
    `The shift is graded all or nothing, and it also ends after ${meta.maxTurns} tool calls.`,
  ].join('\n');
  return { state: { level, world, orders: [], nextOrder: 1, seen: { pages: [], items: [], suppliers: [] }, submitted: false }, prompt };
}

// ---------------------------------------------------------------- tools
const findItem = (world, sku) => world.items.find((it) => it.sku.toLowerCase() === String(sku).trim().toLowerCase());
const findSupplier = (world, id) => Object.keys(world.suppliers).find((s) => s.toLowerCase() === String(id).trim().toLowerCase());
const addSeen = (list, value) => { if (!list.includes(value)) list.push(value); };

const TOOLS = {
  list_items(s, { page }) {
    const rows = s.world.items.slice((page - 1) * PAGE, page * PAGE);
    if (rows.length === 0) return `Page ${page} is empty; there are ${Math.ceil(s.world.items.length / PAGE)} page(s).`;
    addSeen(s.seen.pages, page);
    return [`Page ${page}:`, ...rows.map((it) => `${it.sku}  ${it.name}  on hand ${it.onHand}  reorder point ${it.reorder}`)].join('\n');
  },
  get_item(s, { sku }) {
    const it = findItem(s.world, sku);
    if (!it) return `No item with SKU "${sku}".`;
    addSeen(s.seen.items, it.sku);
    return `${it.sku} ${it.name}: on hand ${it.onHand}, incoming ${it.incoming}, reorder point ${it.reorder}, target level ${it.target}, ` +
      `pack size ${it.pack}, preferred supplier ${it.preferred}, backup supplier ${it.backup}, status ${it.discontinued ? 'DISCONTINUED' : 'active'}.`;
  },
  get_supplier(s, { supplier_id }) {
    const id = findSupplier(s.world, supplier_id);
    if (!id) return `No supplier "${supplier_id}".`;
    addSeen(s.seen.suppliers, id);
    return `${id} ${s.world.suppliers[id].name}: ${s.world.suppliers[id].onHold ? 'ON HOLD (do not order)' : 'active'}.`;
  },
  place_order(s, { sku, supplier_id, packs }) {
    const it = findItem(s.world, sku);
    const sup = findSupplier(s.world, supplier_id);
    if (!it || !sup) return `Order refused: ${!it ? `no item "${sku}"` : `no supplier "${supplier_id}"`}.`;
    const id = `PO-${s.nextOrder++}`;
    s.orders.push({ id, sku: it.sku, supplier: sup, packs });
    return `Order ${id} placed: ${packs} pack(s) of ${it.sku} from ${sup} (${packs * it.pack} units).`;
  },
  cancel_order(s, { order_id }) {
    const i = s.orders.findIndex((o) => o.id.toLowerCase() === String(order_id).trim().toLowerCase());
    if (i < 0) return `No open order "${order_id}".`;
    s.orders.splice(i, 1);
    return `Order ${order_id} cancelled.`;
  },
  submit_orders(s) {
    s.submitted = true;
    return `Submitted ${s.orders.length} order(s). Shift over.`;
  },
};

export function step(state, action) {
  const s = JSON.parse(JSON.stringify(state));
  const observation = TOOLS[action.tool](s, action.args);
  return { state: s, observation, done: s.submitted };
}

// ---------------------------------------------------------------- score
export function score(state) {
  if (!state.submitted) return { score: 0, feedback: 'the orders were never submitted' };
  const want = requiredOrders(state.world);
  const key = (o) => `${o.sku}|${o.supplier}|${o.packs}`;
  const placed = state.orders.map(key).sort();
  const expected = want.map(key).sort();
  if (placed.length !== expected.length || placed.some((k, i) => k !== expected[i])) {
    const missing = expected.filter((k) => !placed.includes(k)).length;
    const extra = placed.filter((k) => !expected.includes(k)).length;
    return { score: 0, feedback: `${missing} required order(s) missing or wrong, ${extra} order(s) not allowed by the policy` };
  }
  return { score: 1, feedback: 'every order matches the policy' };
}

// ---------------------------------------------------------------- reference policy
// Reads every page, inspects each item that looks low, checks the preferred suppliers it needs, orders, submits.
export function act(state) {
  const { world, seen } = state;
  const pages = Math.ceil(world.items.length / PAGE);
  for (let p = 1; p <= pages; p++) if (!seen.pages.includes(p)) return { tool: 'list_items', args: { page: p } };
  const looksLow = world.items.filter((it) => it.onHand < it.reorder);
  for (const it of looksLow) if (!seen.items.includes(it.sku)) return { tool: 'get_item', args: { sku: it.sku } };
  const lows = world.items.filter(needsOrder);
  for (const it of lows) if (!seen.suppliers.includes(it.preferred)) return { tool: 'get_supplier', args: { supplier_id: it.preferred } };
  for (const o of requiredOrders(world)) {
    if (!state.orders.some((p) => p.sku === o.sku)) return { tool: 'place_order', args: { sku: o.sku, supplier_id: o.supplier, packs: o.packs } };
  }
  return { tool: 'submit_orders', args: {} };
}

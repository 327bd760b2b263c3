// A household's weekly grocery run: scale the planned recipes, subtract what the pantry holds and buy the
// shortfall in the cheapest whole packs from open stores, by a written shopping policy, training unit
// arithmetic and cost comparison through tools. Difficulty: more planned meals sharing more ingredients and
// more stores; from level 3 closed stores, from level 4 expired pantry stock, from level 5 an ingredient the
// household avoids, replaced by each recipe's substitute.

export const meta = {
  name: 'recipe-shopping',
  title: 'Shop for a week of planned meals',
  description: 'Read the planned recipes, the pantry and the store offers through tools, then buy exactly the shortfall ' +
    'of every ingredient in the cheapest whole packs from open stores, as the shopping policy says, and check out. All ' +
    'or nothing on the final cart.',
  skills: ['tool-use', 'unit-arithmetic', 'cost-optimization', 'policy-following'],
  levels: 8,
  kind: 'episodic',
  maxTurns: 90,
  tools: [
    { name: 'get_recipe', description: 'Show a recipe: how many servings it makes and its ingredients, with substitutes where the recipe allows one.',
      parameters: { type: 'object', properties: { recipe: { type: 'string', minLength: 1, maxLength: 40 } }, required: ['recipe'], additionalProperties: false } },
    { name: 'check_pantry', description: 'Show how much of an ingredient the pantry holds, with use-by dates.',
      parameters: { type: 'object', properties: { ingredient: { type: 'string', minLength: 1, maxLength: 30 } }, required: ['ingredient'], additionalProperties: false } },
    { name: 'list_stores', description: 'List the stores and whether each is open today.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
    { name: 'get_offers', description: 'Show every store\'s pack size and price for an ingredient.',
      parameters: { type: 'object', properties: { ingredient: { type: 'string', minLength: 1, maxLength: 30 } }, required: ['ingredient'], additionalProperties: false } },
    { name: 'add_to_cart', description: 'Add whole packs of an ingredient from one store to the cart. Returns the cart line id.',
      parameters: { type: 'object', properties: { store: { type: 'string', minLength: 1, maxLength: 30 }, ingredient: { type: 'string', minLength: 1, maxLength: 30 },
        packs: { type: 'integer', minimum: 1, maximum: 99 } }, required: ['store', 'ingredient', 'packs'], additionalProperties: false } },
    { name: 'remove_from_cart', description: 'Remove one cart line.',
      parameters: { type: 'object', properties: { line_id: { type: 'string', minLength: 1, maxLength: 8 } }, required: ['line_id'], additionalProperties: false } },
    { name: 'checkout', description: 'Pay for the cart and end the session. Call it once, when the cart is complete.',
      parameters: { type: 'object', properties: {}, additionalProperties: false } },
  ],
};

// Per-serving amounts in each ingredient's unit; `alt` is the substitute a recipe allows.
const RECIPES = [
  { name: 'Spinach lentil curry', items: [['lentils', 60], ['spinach', 50], ['coconut milk', 100, 'oat cream'], ['onions', 1]] },
  { name: 'Mushroom risotto', items: [['rice', 80], ['mushrooms', 90], ['butter', 15, 'olive oil'], ['cheese', 20, 'nutritional yeast'], ['onions', 1]] },
  { name: 'Tomato pasta bake', items: [['pasta', 100], ['tomatoes', 2], ['cheese', 40, 'nutritional yeast'], ['garlic', 1]] },
  { name: 'Chicken stir fry', items: [['chicken', 120, 'tofu'], ['peppers', 1], ['rice', 70], ['garlic', 1]] },
  { name: 'Bean chili', items: [['beans', 120], ['tomatoes', 2], ['peppers', 1], ['onions', 1]] },
  { name: 'Salmon with potatoes', items: [['salmon', 140, 'tofu'], ['potatoes', 200], ['butter', 10, 'olive oil']] },
  { name: 'Vegetable omelette', items: [['eggs', 2], ['peppers', 1], ['cheese', 25, 'nutritional yeast'], ['milk', 30, 'oat milk']] },
  { name: 'Pancakes', items: [['flour', 60], ['milk', 120, 'oat milk'], ['eggs', 1], ['butter', 10, 'olive oil']] },
  { name: 'Creamy mushroom soup', items: [['mushrooms', 120], ['milk', 150, 'oat milk'], ['onions', 1], ['garlic', 1]] },
  { name: 'Potato gratin', items: [['potatoes', 250], ['milk', 100, 'oat milk'], ['cheese', 30, 'nutritional yeast'], ['garlic', 1]] },
];
const UNITS = { lentils: 'g', spinach: 'g', 'coconut milk': 'ml', 'oat cream': 'ml', onions: 'pcs', rice: 'g', mushrooms: 'g', butter: 'g', 'olive oil': 'ml',
  cheese: 'g', 'nutritional yeast': 'g', pasta: 'g', tomatoes: 'pcs', garlic: 'cloves', chicken: 'g', tofu: 'g', peppers: 'pcs', beans: 'g', salmon: 'g',
  potatoes: 'g', eggs: 'pcs', milk: 'ml', 'oat milk': 'ml', flour: 'g' };
const PACKS = { g: [100, 200, 250, 400, 500, 1000], ml: [200, 250, 400, 500, 1000], pcs: [1, 3, 4, 6, 10, 12], cloves: [5, 10, 12] };
const STORES = ['Corner Grocer', 'FreshMart', 'GreenBasket', 'Harvest Hall', 'Market Lane', 'ValueFoods'];
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// Difficulty knobs per level: planned meals, stores, and which rules have cases to apply.
function knobs(level) {
  return {
    meals: [1, 2, 2, 3, 3, 4, 4, 5][level - 1],
    stores: [2, 2, 3, 3, 3, 4, 4, 4][level - 1],
    closed: level >= 3 ? 1 : 0,
    expired: level >= 4,
    avoid: level >= 5,
  };
}

// ---------------------------------------------------------------- world generation
function dateText(day) {
  let m = 0;
  while (day > MONTH_DAYS[m]) { day -= MONTH_DAYS[m]; m++; }
  return `2025-${String(m + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function makeWorld(rng, level) {
  const k = knobs(level);
  const today = rng.int(20, 340);
  const meals = rng.shuffle(RECIPES).slice(0, k.meals).map((r) => ({ recipe: r.name, serves: rng.pick([2, 4, 6]), servings: rng.int(1, 4) * 2 }));
  const recipes = {};
  for (const m of meals) {
    const r = RECIPES.find((x) => x.name === m.recipe);
    recipes[r.name] = { serves: m.serves, items: r.items.map(([name, per, alt]) => ({ name, amount: per * m.serves, alt: alt ?? null })) };
  }
  const withAlt = [...new Set(Object.values(recipes).flatMap((r) => r.items.filter((i) => i.alt).map((i) => i.name)))];
  const avoid = k.avoid && withAlt.length ? rng.pick(withAlt) : null;
  const names = [...new Set(Object.values(recipes).flatMap((r) => r.items.flatMap((i) => (i.alt ? [i.name, i.alt] : [i.name]))))].sort();
  // Pantry lots: some fresh, some (from level 4) past their use-by date.
  const pantry = {};
  for (const n of names) {
    const lots = [];
    for (let c = rng.int(0, 2); c > 0; c--) {
      const unit = UNITS[n];
      lots.push({ amount: unit === 'pcs' || unit === 'cloves' ? rng.int(1, 4) : rng.int(1, 6) * 50, useBy: k.expired && rng.int(0, 2) === 0 ? today - rng.int(1, 20) : today + rng.int(1, 30) });
    }
    pantry[n] = lots;
  }
  // The first ingredient of the first meal is always missing, so no week is solved by buying nothing.
  const first = recipes[meals[0].recipe].items[0];
  pantry[first.name === avoid ? first.alt : first.name] = [];
  const stores = rng.shuffle(STORES).slice(0, k.stores).sort().map((name) => ({ name, open: true, offers: {} }));
  rng.shuffle(stores).slice(0, k.closed).forEach((s) => { s.open = false; });
  for (const s of stores) for (const n of names) s.offers[n] = { pack: rng.pick(PACKS[UNITS[n]]), cents: rng.int(60, 900) };
  return { today, household: rng.pick(['the Okafor family', 'the Lindqvists', 'the Moreau household', 'the Tanakas', 'the Alvarez family', 'the Nowak household']), meals, recipes, avoid, pantry, stores };
}

// ---------------------------------------------------------------- the policy, as code
// Ingredient -> amount needed for the planned servings (substitutes replace the avoided ingredient).
function needs(world) {
  const out = {};
  for (const m of world.meals) {
    for (const i of world.recipes[m.recipe].items) {
      const name = i.name === world.avoid ? i.alt : i.name;
      out[name] = (out[name] ?? 0) + (i.amount * m.servings) / world.recipes[m.recipe].serves;
    }
  }
  return out;
}
function shoppingList(world) {
  const list = [];
  for (const [name, amount] of Object.entries(needs(world)).sort()) {
    const onHand = world.pantry[name].filter((l) => l.useBy >= world.today).reduce((s, l) => s + l.amount, 0);
    const short = amount - onHand;
    if (short <= 0) continue;
    const best = world.stores.filter((s) => s.open).map((s) => ({ store: s.name, packs: Math.ceil(short / s.offers[name].pack), cost: Math.ceil(short / s.offers[name].pack) * s.offers[name].cents }))
      .sort((a, b) => a.cost - b.cost || (a.store < b.store ? -1 : 1))[0];
    list.push({ ingredient: name, store: best.store, packs: best.packs });
  }
  return list;
}

export function reset(rng, level) {
  const world = makeWorld(rng, level);
  const plan = world.meals.map((m) => `${m.recipe} for ${m.servings}`).join('; ');
  const prompt = [
    `You do the grocery shopping for ${world.household}. Today is ${dateText(world.today)}. This week's meal plan: ${plan}.`,
    '',
    'Shopping policy:',
    '1. For each ingredient, add up what the planned meals need: recipe amounts are for the servings the recipe makes, so scale them',
    '   to the planned servings.',
    '2. Subtract what the pantry holds, counting only pantry lots whose use-by date is today or later. Buy only the shortfall.',
    world.avoid ? `3. Nobody in the household eats ${world.avoid}: wherever a recipe uses it, use the recipe's substitute in the same amount instead.`
      : '3. Use the recipes\' main ingredients, not their substitutes.',
    '4. For each ingredient to buy, pick the one open store where the whole packs covering the shortfall cost least in total',
    '   (ties: the store whose name comes first alphabetically), and buy it all there in one cart line. Buy nothing else.',
    '',
    `When the cart is complete, call checkout: the cart is checked then, all or nothing. The session also ends after ${meta.maxTurns} tool calls.`,
  ].join('\n');
  return { state: { level, world, cart: [], nextLine: 1, seen: { recipes: [], pantry: [], stores: false, offers: [] }, paid: false }, prompt };
}

// ---------------------------------------------------------------- tools
const low = (x) => String(x).trim().toLowerCase();
const money = (cents) => `$${(cents / 100).toFixed(2)}`;
const known = (s, ingredient) => Object.keys(s.world.pantry).find((n) => n === low(ingredient));

const TOOLS = {
  get_recipe(s, { recipe }) {
    const name = Object.keys(s.world.recipes).find((n) => low(n) === low(recipe));
    if (!name) return `"${recipe}" is not on this week's plan.`;
    if (!s.seen.recipes.includes(name)) s.seen.recipes.push(name);
    const r = s.world.recipes[name];
    return `${name} (makes ${r.serves} servings): ${r.items.map((i) => `${i.amount} ${UNITS[i.name]} ${i.name}${i.alt ? ` (substitute: ${i.alt})` : ''}`).join(', ')}.`;
  },
  check_pantry(s, { ingredient }) {
    const n = known(s, ingredient);
    if (!n) return `The pantry has no "${ingredient}".`;
    if (!s.seen.pantry.includes(n)) s.seen.pantry.push(n);
    const lots = s.world.pantry[n];
    return lots.length ? `Pantry ${n}: ${lots.map((l) => `${l.amount} ${UNITS[n]} (use by ${dateText(l.useBy)})`).join('; ')}.` : `Pantry ${n}: none.`;
  },
  list_stores(s) {
    s.seen.stores = true;
    return `Stores: ${s.world.stores.map((x) => `${x.name} (${x.open ? 'open' : 'CLOSED today'})`).join(', ')}.`;
  },
  get_offers(s, { ingredient }) {
    const n = known(s, ingredient);
    if (!n) return `No store sells "${ingredient}".`;
    if (!s.seen.offers.includes(n)) s.seen.offers.push(n);
    return `Offers for ${n}: ${s.world.stores.map((x) => `${x.name} ${x.offers[n].pack} ${UNITS[n]} pack ${money(x.offers[n].cents)}`).join('; ')}.`;
  },
  add_to_cart(s, { store, ingredient, packs }) {
    const st = s.world.stores.find((x) => low(x.name) === low(store));
    const n = known(s, ingredient);
    if (!st || !n) return `Refused: ${!st ? `no store "${store}"` : `no ingredient "${ingredient}"`}.`;
    if (!st.open) return `Refused: ${st.name} is closed today.`;
    const line = { id: `L${s.nextLine++}`, store: st.name, ingredient: n, packs };
    s.cart.push(line);
    return `Cart line ${line.id}: ${packs} x ${st.offers[n].pack} ${UNITS[n]} ${n} from ${st.name}, ${money(packs * st.offers[n].cents)}.`;
  },
  remove_from_cart(s, { line_id }) {
    const i = s.cart.findIndex((l) => low(l.id) === low(line_id));
    if (i < 0) return `No cart line "${line_id}".`;
    s.cart.splice(i, 1);
    return `Cart line ${line_id} removed.`;
  },
  checkout(s) {
    s.paid = true;
    return `Paid for ${s.cart.length} cart line(s).`;
  },
};

export function step(state, action) {
  const s = JSON.parse(JSON.stringify(state));
  const observation = TOOLS[action.tool](s, action.args);
  return { state: s, observation, done: s.paid };
}

// ---------------------------------------------------------------- score
export function score(state) {
  if (!state.paid) return { score: 0, feedback: 'the cart was never checked out' };
  const key = (l) => `${l.ingredient}|${l.store}|${l.packs}`;
  const got = state.cart.map(key).sort();
  const want = shoppingList(state.world).map(key).sort();
  if (got.join() !== want.join()) {
    const missing = want.filter((k) => !got.includes(k)).length;
    return { score: 0, feedback: `${missing} required line(s) missing or wrong, ${got.length - (want.length - missing)} line(s) not allowed` };
  }
  return { score: 1, feedback: 'the cart matches the policy' };
}

// ---------------------------------------------------------------- reference policy
// Reads every recipe, the pantry for every needed ingredient, the stores and the offers for the shortfalls; buys; pays.
export function act(state) {
  const { world, seen } = state;
  for (const m of world.meals) if (!seen.recipes.includes(m.recipe)) return { tool: 'get_recipe', args: { recipe: m.recipe } };
  for (const name of Object.keys(needs(world)).sort()) if (!seen.pantry.includes(name)) return { tool: 'check_pantry', args: { ingredient: name } };
  if (!seen.stores) return { tool: 'list_stores', args: {} };
  const list = shoppingList(world);
  for (const l of list) if (!seen.offers.includes(l.ingredient)) return { tool: 'get_offers', args: { ingredient: l.ingredient } };
  for (const l of list) if (!state.cart.some((c) => c.ingredient === l.ingredient)) return { tool: 'add_to_cart', args: { store: l.store, ingredient: l.ingredient, packs: l.packs } };
  return { tool: 'checkout', args: {} };
}

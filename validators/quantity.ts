// One reader of a number with its unit, for every validator that reads quantities: the number as written (sign,
// currency, thousands separators, decimals, exponent, fraction, ordinal suffix, "No."/"#" before), the unit as written,
// and where the unit is one the tables know, its dimension and the value in that dimension's base unit.

/** A unit's dimension (named by its base unit) and its size in that base; a rate unit reads as a quotient of two. */
interface Unit {
  dim: string;
  scale: number;
  /** Added before scaling (temperatures: °F to °C); such a unit has a zero of its own, so is never summed. */
  offset?: number;
}

/** Unit words (case-folded, plural "s" optional) and symbols (as written), by dimension: SI, US customary, money. */
const WORDS: Record<string, Record<string, number>> = {
  litre: {
    litre: 1,
    liter: 1,
    millilitre: 1e-3,
    milliliter: 1e-3,
    centilitre: 1e-2,
    centiliter: 1e-2,
    decilitre: 0.1,
    deciliter: 0.1,
    kilolitre: 1e3,
    kiloliter: 1e3,
    'cubic metre': 1e3,
    'cubic meter': 1e3,
    'cubic centimetre': 1e-3,
    'cubic centimeter': 1e-3,
    gallon: 3.785411784,
    quart: 0.946352946,
    pint: 0.473176473,
    'fluid ounce': 0.0295735295625,
  },
  // "pound" is money below: "5 pounds" is £5 (a mass in pounds is written "lb").
  gram: {
    milligram: 1e-3,
    gram: 1,
    gramme: 1,
    kilogram: 1e3,
    kilogramme: 1e3,
    kilo: 1e3,
    tonne: 1e6,
    ounce: 28.349523125,
  },
  metre: {
    millimetre: 1e-3,
    millimeter: 1e-3,
    centimetre: 1e-2,
    centimeter: 1e-2,
    metre: 1,
    meter: 1,
    kilometre: 1e3,
    kilometer: 1e3,
    inch: 0.0254,
    foot: 0.3048,
    yard: 0.9144,
    mile: 1609.344,
  },
  second: { millisecond: 1e-3, second: 1, sec: 1, minute: 60, min: 60, hour: 3600, hr: 3600, day: 86400, week: 604800 },
  money: { penny: 0.01, pence: 0.01, cent: 0.01, pound: 1, dollar: 1, euro: 1 },
};
const SYMBOLS: Record<string, Record<string, number>> = {
  litre: { l: 1, L: 1, ml: 1e-3, mL: 1e-3, cl: 1e-2, cL: 1e-2, dl: 0.1, dL: 0.1, kl: 1e3, kL: 1e3 },
  gram: { mg: 1e-3, g: 1, kg: 1e3, t: 1e6, oz: 28.349523125, lb: 453.59237, lbs: 453.59237 },
  // Not "in" ("5 in the box"): inches are read in words.
  metre: { mm: 1e-3, cm: 1e-2, m: 1, km: 1e3, ft: 0.3048, yd: 0.9144, mi: 1609.344 },
  'metre per second': { mph: 0.44704 },
  second: { ms: 1e-3, s: 1, h: 3600 },
  money: { p: 0.01, '\u00a2': 0.01 },
};
/** Cubic lengths are volumes (m³, m3, cm³, cc), read before the lengths they begin with; US fluid measures. */
const VOLUMES: Record<string, number> = {
  'm\u00b3': 1e3,
  m3: 1e3,
  'cm\u00b3': 1e-3,
  cm3: 1e-3,
  cc: 1e-3,
  gal: 3.785411784,
  qt: 0.946352946,
  'fl oz': 0.0295735295625,
};
/** Temperatures in degrees Celsius: a scale and an offset (°F: (F - 32) × 5/9), as words and as symbols. */
const TEMPERATURES: Record<string, Unit> = {
  celsius: { dim: 'celsius', scale: 1, offset: 0 },
  fahrenheit: { dim: 'celsius', scale: 5 / 9, offset: -32 },
};
const TEMPERATURE_SYMBOLS: Record<string, Unit> = {
  '\u00b0C': TEMPERATURES.celsius as Unit,
  '\u2103': TEMPERATURES.celsius as Unit,
  '\u00b0F': TEMPERATURES.fahrenheit as Unit,
  '\u2109': TEMPERATURES.fahrenheit as Unit,
};
/** Plurals not made by adding "s". */
const PLURALS: Record<string, string> = { penny: 'pennies', inch: 'inches', foot: 'feet' };

const byName = new Map<string, Unit>();
const bySymbol = new Map<string, Unit>();
for (const [dim, names] of Object.entries(WORDS))
  for (const [name, scale] of Object.entries(names)) {
    byName.set(name, { dim, scale });
    byName.set(PLURALS[name] ?? `${name}s`, { dim, scale });
  }
for (const [name, unit] of Object.entries(TEMPERATURES))
  for (const words of [name, `degree ${name}`, `degrees ${name}`]) byName.set(words, unit);
for (const [name, unit] of Object.entries(TEMPERATURE_SYMBOLS)) bySymbol.set(name, unit);
for (const [dim, names] of Object.entries(SYMBOLS))
  for (const [name, scale] of Object.entries(names)) bySymbol.set(name, { dim, scale });
for (const [name, scale] of Object.entries(VOLUMES)) bySymbol.set(name, { dim: 'litre', scale });

/** A unit as written: a word (any case) or a symbol (its own case); undefined where it is none. */
function unitOf(text: string): Unit | undefined {
  const spaced = text.replace(/\s+/g, ' ');
  return bySymbol.get(spaced) ?? byName.get(spaced.toLowerCase());
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/**
 * Every unit name, the longest first (so "cubic metres" is read before "metres", "min" before "m"): a word in any
 * case, a symbol in its own ("mL", not "ML").
 */
const NAMES = [
  ...[...byName.keys()].map((n) => [n, `(?i:${escape(n).replace(/ /g, '\\s+')})`] as const),
  ...[...bySymbol.keys()].map((n) => [n, escape(n).replace(/ /g, '\\s+')] as const),
]
  .sort((a, b) => b[0].length - a[0].length)
  .map(([, source]) => source)
  .join('|');
/** A unit ends where no letter, digit or "." and a letter follow ("5 p.m." is a time of day, not 5 pence). */
const END = String.raw`(?![\p{L}\p{N}]|\.\p{L})`;
/** A unit the tables know, right after the number (one space at most). */
const KNOWN = new RegExp(String.raw`\s?(${NAMES})${END}`, 'uy');
/** A rate's "per": "/", "per", "a", "an", "each", "every", then a unit the tables know. */
const PER = new RegExp(String.raw`\s*(?:\/|\b(?i:per|an?|each|every)\b)\s*(${NAMES})${END}`, 'uy');
/** What any unit or "per" begins with, after the spaces before it. */
const AHEAD = /\s*[\p{L}\p{S}/]/uy;
/** Any other unit as written: a percent sign or a word of letters and signs ("pm", "°N", "items/box", "p.m"). */
const WORD = /\s?(%|[\p{L}°µ](?:[\p{L}°µ²³]|[/.](?=\p{L}))*)(?![\p{L}\p{N}])/uy;
/**
 * The number: "No."/"#"/"number" before, a sign and a currency sign (either order), digits with or without
 * thousands separators, a decimal part, an exponent, a denominator, an ordinal suffix ("$-1,200.50", "1.5e3", "3/4",
 * "No. 8", "21st").
 */
const NUMBER = new RegExp(
  String.raw`(?:(#|no\.?|number)\s*(?=[+-]?\d))?([+-](?=[$\u00a3\u20ac]))?(?:([$\u00a3\u20ac])\s?)?` +
    String.raw`(([+-])?(\d{1,3}(?:,\d{3})+(?!\d)|\d+)(\.\d+)?(?:e([+-]?\d+)(?![\p{L}\p{N}]))?(?:\/([1-9]\d*))?)` +
    String.raw`((?:st|nd|rd|th)(?![\p{L}\p{N}]))?`,
  'iuy',
);

/** A number with its unit, as one reader reads it (readQuantity). */
export interface Quantity {
  /** The span read: from the marker, sign or currency sign to the unit's end (the number's where it has none). */
  start: number;
  end: number;
  /** "#", "No." or "number" before the number, as written. */
  marker?: string;
  /** "$", "£" or "€" before the number. */
  currency?: string;
  /** The number as written, its sign in, its currency and ordinal suffix out ("-8,812", "1.5e3", "3/4"). */
  numeral: string;
  /** The numeral with its thousands separators set aside and a sign before the currency put in ("-1200.50"). */
  digits: string;
  /** Where the number ends (after an ordinal suffix) and where its unit begins. */
  numberEnd: number;
  /** The number's value: its sign, exponent and denominator applied. */
  value: number;
  /** The ordinal suffix ("st", "nd", "rd", "th"), as written. */
  ordinal?: string;
  /** The unit as written ("kg", "km/h", "litres a minute", "%", "pm"), a rate's "per" included. */
  unit?: string;
  /** Where the unit begins (after the one space allowed). */
  unitStart?: number;
  /** The unit's dimension, by its base unit ("litre", "metre per second", "money"), where the tables know it. */
  family?: string;
  /** The value in that base unit ("1.2 kL": 1200). */
  base?: number;
  /** The unit's size in its base, for a unit whose parts may be summed ("1 h 30 min"); none for a rate. */
  size?: number;
}

/** The known unit (and rate) at `at`, read as the tables read it; null where neither is. */
function knownUnit(text: string, at: number): { end: number; unit?: Unit; per?: Unit } | null {
  // Every unit and "per" begins with a letter, a sign or "/": a cheap test before the long alternations.
  AHEAD.lastIndex = at;
  if (!AHEAD.test(text)) return null;
  KNOWN.lastIndex = at;
  const m = KNOWN.exec(text);
  PER.lastIndex = m ? KNOWN.lastIndex : at;
  const p = PER.exec(text);
  if (!m && !p) return null;
  const unit = m ? unitOf(m[1] as string) : undefined;
  const per = p ? unitOf(p[1] as string) : undefined;
  return { end: p ? PER.lastIndex : KNOWN.lastIndex, ...(unit ? { unit } : {}), ...(per ? { per } : {}) };
}

/** The unit's reading: dimension, base value and (for a unit whose parts add up) its size. */
function measured(value: number, unit: Unit, per?: Unit): Pick<Quantity, 'family' | 'base' | 'size'> {
  if (per) return { family: `${unit.dim} per ${per.dim}`, base: (value * unit.scale) / per.scale };
  if (unit.offset !== undefined) return { family: unit.dim, base: (value + unit.offset) * unit.scale };
  // A rate's parts are never summed ("5 mph").
  return { family: unit.dim, base: value * unit.scale, ...(unit.dim.includes(' per ') ? {} : { size: unit.scale }) };
}

const MONEY: Unit = { dim: 'money', scale: 1 };

/**
 * The quantity that begins at `at` in the text, or null where no number does: the number (see NUMBER), then its unit:
 * one the tables know (a word, a symbol, a rate "per" another: "30 L/min", "£4.5 an hour"), else any word after it.
 */
export function readQuantity(text: string, at = 0): Quantity | null {
  NUMBER.lastIndex = at;
  const n = NUMBER.exec(text);
  if (!n) return null;
  const [, marker, outer, currency, numeral, sign, whole, fraction, exponent, denominator, suffix] = n as unknown as [
    string,
    ...Array<string | undefined>,
  ];
  // An ordinal suffix follows a whole number only ("12.5th" is 12.5 and a word).
  const ordinal = fraction || exponent || denominator ? undefined : suffix;
  const numberEnd = NUMBER.lastIndex - (suffix && !ordinal ? suffix.length : 0);
  const magnitude = Number(`${(whole as string).replaceAll(',', '')}${fraction ?? ''}e${exponent ?? 0}`);
  const q: Quantity = {
    start: at,
    end: numberEnd,
    numeral: numeral as string,
    digits: `${outer ?? ''}${(numeral as string).replaceAll(',', '')}`,
    numberEnd,
    value: ((outer ?? sign) === '-' ? -1 : 1) * (denominator ? magnitude / Number(denominator) : magnitude),
  };
  if (marker) q.marker = marker;
  if (currency) q.currency = currency;
  if (ordinal) {
    q.ordinal = ordinal;
    return q;
  }
  const known = knownUnit(text, numberEnd);
  const word = wordAt(text, numberEnd);
  // A word that runs on past the unit the tables know is another unit ("5 kg/bag", "20s/day": rates they do not know).
  if ((known?.unit || (currency && known?.per)) && !(word && word.end > known.end)) {
    const written = text.slice(numberEnd, known.end);
    const unitStart = numberEnd + written.length - written.trimStart().length;
    Object.assign(q, { end: known.end, unit: written.trimStart(), unitStart });
    // A currency sign is the unit: a unit after it is none this knows ("$5 kg"), a rate after it is ("£4.5 an hour").
    if (currency && known.unit) return q;
    return Object.assign(q, measured(q.value, known.unit ?? MONEY, known.per));
  }
  if (currency) return Object.assign(q, measured(q.value, MONEY));
  return word === null ? q : Object.assign(q, word);
}

/**
 * The word after a number at `at` (one space at most before it), as a unit as written reads it ("pm", "°N",
 * "items/box", "p.m"), or null: what follows a currency amount ("$15 each") is this, no unit of it.
 */
export function wordAt(text: string, at: number): { unit: string; unitStart: number; end: number } | null {
  WORD.lastIndex = at;
  const w = WORD.exec(text);
  if (!w) return null;
  return { unit: w[1] as string, unitStart: WORD.lastIndex - (w[1] as string).length, end: WORD.lastIndex };
}

/** Where a quantity may begin in running text: a currency sign or a digit after no letter, digit or point. */
const START = /(?<![\p{L}\d.])(?=[$\u00a3\u20ac]\s?\d|\d)/gu;

/** Every quantity of a text, in order, each read from where the last ended (a sign before a number is left out). */
export function quantitiesIn(text: string): Quantity[] {
  const out: Quantity[] = [];
  START.lastIndex = 0;
  for (let m = START.exec(text); m !== null; m = START.exec(text)) {
    const q = readQuantity(text, m.index);
    if (q === null) {
      START.lastIndex = m.index + 1;
      continue;
    }
    out.push(q);
    START.lastIndex = Math.max(q.end, m.index + 1);
  }
  return out;
}

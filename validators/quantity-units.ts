// Quantities as values in their dimension's base unit, for readers that key on what a prompt states rather than on
// its numerals: "1.2 cubic metres" and "1200 litres" are one volume, "30 litres a minute" and "500 mL/s" one rate,
// "1 h 30 min" and "90 minutes" one duration (redteam-s22s N5: a pool whose units are drawn per instance).

/** A unit's dimension (named by its base unit) and its size in that base. */
interface Unit {
  dim: string;
  scale: number;
}

/** Unit words (case-folded, plural "s" optional) and symbols (as written), by dimension: common SI and money. */
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
  },
  gram: { milligram: 1e-3, gram: 1, gramme: 1, kilogram: 1e3, kilogramme: 1e3, kilo: 1e3, tonne: 1e6 },
  metre: {
    millimetre: 1e-3,
    millimeter: 1e-3,
    centimetre: 1e-2,
    centimeter: 1e-2,
    metre: 1,
    meter: 1,
    kilometre: 1e3,
    kilometer: 1e3,
  },
  second: { millisecond: 1e-3, second: 1, sec: 1, minute: 60, min: 60, hour: 3600, hr: 3600, day: 86400, week: 604800 },
  money: { penny: 0.01, pence: 0.01, cent: 0.01, pound: 1, dollar: 1, euro: 1 },
};
const SYMBOLS: Record<string, Record<string, number>> = {
  litre: { l: 1, L: 1, ml: 1e-3, mL: 1e-3, cl: 1e-2, cL: 1e-2, dl: 0.1, dL: 0.1, kl: 1e3, kL: 1e3 },
  gram: { mg: 1e-3, g: 1, kg: 1e3, t: 1e6 },
  metre: { mm: 1e-3, cm: 1e-2, m: 1, km: 1e3 },
  second: { ms: 1e-3, s: 1, h: 3600 },
  money: { p: 0.01, '\u00a2': 0.01 },
};
/** Cubic lengths are volumes (m³, m3, cm³, cc), read before the lengths they begin with. */
const VOLUMES: Record<string, number> = { 'm\u00b3': 1e3, m3: 1e3, 'cm\u00b3': 1e-3, cm3: 1e-3, cc: 1e-3 };

const byName = new Map<string, Unit>();
for (const [dim, names] of Object.entries(WORDS))
  for (const [name, scale] of Object.entries(names)) {
    byName.set(name, { dim, scale });
    byName.set(name === 'penny' ? 'pennies' : `${name}s`, { dim, scale });
  }
const bySymbol = new Map<string, Unit>();
for (const [dim, names] of Object.entries(SYMBOLS))
  for (const [name, scale] of Object.entries(names)) bySymbol.set(name, { dim, scale });
for (const [name, scale] of Object.entries(VOLUMES)) bySymbol.set(name, { dim: 'litre', scale });

/** A unit as written: a word (any case) or a symbol (its own case); undefined where it is none. */
function unitOf(text: string): Unit | undefined {
  return bySymbol.get(text) ?? byName.get(text.toLowerCase().replace(/\s+/g, ' '));
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Every unit name, the longest first (so "cubic metres" is read before "metres", "min" before "m"). */
const NAMES = [...new Set([...byName.keys(), ...bySymbol.keys()].map((n) => n.toLowerCase()))]
  .sort((a, b) => b.length - a.length)
  .map((n) => escape(n).replace(/ /g, '\\s+'))
  .join('|');
/** A unit ends where no letter, digit or "." and a letter follow ("5 p.m." is a time of day, not 5 pence). */
const END = String.raw`(?![\p{L}\p{N}]|\.\p{L})`;
/** A rate's "per": "/", "per", "a", "an", "each", "every", then its unit. */
const PER = String.raw`(?:\s*(?:\/|\bper\b|\ban?\b|\beach\b|\bevery\b)\s*(${NAMES})${END})?`;
/**
 * A quantity: a currency sign and a plain numeral (numbersAsValues' output), or a numeral and a unit; then optionally
 * "a", "per" or "/" another unit ("£4.5 an hour", "30 litres a minute", "20 L/min").
 */
const QUANTITY = new RegExp(
  String.raw`(?<![\p{L}\d.])(?:([$\u00a3\u20ac])\s?)?(\d+(?:\.\d+)?)(?:\s?(${NAMES})${END})?${PER}`,
  'giu',
);
const MONEY: Unit = { dim: 'money', scale: 1 };
/** What may stand between the parts of one compound quantity ("1 h 30 min", "2 m, 15 cm", "3 hours and 5 minutes"). */
const JOINED = /^\s*(?:,\s*|and\s+)?$/i;

interface Read {
  start: number;
  end: number;
  value: number;
  dim: string;
  /** The smallest unit read (a compound's next part must be smaller); undefined for a rate. */
  scale?: number;
}

const written = (v: number) => String(Number(v.toPrecision(12)));

/**
 * The text with each quantity written as its value in its dimension's base unit ("1.2 cubic metres": "1200 litre";
 * "30 litres a minute": "0.5 litre per second"; "1 h 30 min": "5400 second"), the rest as it is. Run it after
 * numbersAsValues (number-words.ts), which makes every numeral plain digits.
 */
export function quantitiesAsValues(text: string): string {
  const reads: Read[] = [];
  for (const m of text.matchAll(QUANTITY)) {
    const [, sign, numeral, name, perName] = m;
    // A sign with a unit after ("$5 kg") or neither ("5 per hour") is no quantity this reads.
    const unit = sign ? (name ? undefined : MONEY) : name === undefined ? undefined : unitOf(name);
    const per = perName === undefined ? undefined : unitOf(perName);
    if (!unit || (perName !== undefined && !per)) continue;
    const start = m.index as number;
    const end = start + m[0].length;
    const value = (Number(numeral) * unit.scale) / (per?.scale ?? 1);
    const dim = per ? `${unit.dim} per ${per.dim}` : unit.dim;
    const prev = reads.at(-1);
    const compound = !per && prev?.scale !== undefined && prev.dim === dim && unit.scale < prev.scale;
    if (compound && JOINED.test(text.slice(prev.end, start))) {
      Object.assign(prev, { end, value: prev.value + value, scale: unit.scale });
      continue;
    }
    reads.push({ start, end, value, dim, ...(per ? {} : { scale: unit.scale }) });
  }
  let out = '';
  let at = 0;
  for (const r of reads) {
    out += `${text.slice(at, r.start)}${written(r.value)} ${r.dim}`;
    at = r.end;
  }
  return out + text.slice(at);
}

// Quantities as values in their dimension's base unit, for readers that key on what a prompt states rather than on
// its numerals: "1.2 cubic metres" and "1200 litres" are one volume, "30 litres a minute" and "500 mL/s" one rate,
// "1 h 30 min" and "90 minutes" one duration (redteam-s22s N5: a pool whose units are drawn per instance).
import { quantitiesIn } from './quantity.js';

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
  for (const q of quantitiesIn(text)) {
    if (q.family === undefined || q.base === undefined) continue;
    const { start, end, base: value, family: dim, size } = q;
    const prev = reads.at(-1);
    const compound = size !== undefined && prev?.scale !== undefined && prev.dim === dim && size < prev.scale;
    if (compound && JOINED.test(text.slice(prev.end, start))) {
      Object.assign(prev, { end, value: prev.value + value, scale: size });
      continue;
    }
    reads.push({ start, end, value, dim, ...(size === undefined ? {} : { scale: size }) });
  }
  let out = '';
  let at = 0;
  for (const r of reads) {
    out += `${text.slice(at, r.start)}${written(r.value)} ${r.dim}`;
    at = r.end;
  }
  return out + text.slice(at);
}

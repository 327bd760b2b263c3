// Coarse renderings of a numeric answer and their controls, for the acceptance region: the truth rounded to
// fewer decimals, up, down, to one or two significant figures, in scientific notation or as a small fraction,
// and wrong values written short (0, 1e6). Each value also comes written at the reference's own precision
// (the same value) and moved to the other side of the truth at 0.9 of its distance (a value as close):
// a verifier whose tolerance belongs to the value pays those whenever it pays the coarse one, while one that
// reads its tolerance off the response (its decimals, its length, its notation) pays only the short form.
import { shapeOf } from './answers.js';

export interface Rendering {
  /** How the value was made ("rounded to 1 decimal", "1 significant figure", "the constant 0"). */
  form: string;
  /** The value written short, as the template writes it. */
  coarse: string;
  /** The same value at the reference's precision, and a value as close on the other side. */
  controls: string[];
}

/** Decimals of a plain decimal numeral ("12.350" → 3), or null when the text is no such numeral. */
function decimalsOf(text: string): number | null {
  if (!/^[+-]?\d+(\.\d+)?$/.test(text)) return null;
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** `v` to `s` significant figures. */
function significant(v: number, s: number): number {
  if (v === 0) return 0;
  const scale = 10 ** (Math.floor(Math.log10(Math.abs(v))) - s + 1);
  return Math.round(v / scale) * scale;
}

/** The shortest plain numeral of `v` (no exponent), e.g. 0.030000000000000002 → "0.03". */
function plain(v: number): string {
  const text = String(Number(v.toPrecision(12)));
  return /e/i.test(text) ? v.toFixed(Math.min(20, Math.max(0, -Math.floor(Math.log10(Math.abs(v))) + 2))) : text;
}

/** The closest fraction p/q with q ≤ 12 (a continued-fraction search over small denominators). */
function smallFraction(v: number): [number, number] {
  let best: [number, number] = [Math.round(v), 1];
  for (let q = 2; q <= 12; q++) {
    const p = Math.round(v * q);
    if (Math.abs(p / q - v) < Math.abs(best[0] / best[1] - v)) best = [p, q];
  }
  return best;
}

/** Coarse renderings of `content` (a plain decimal or integer answer) with their controls; none for other answers. */
export function coarseRenderings(content: string): Rendering[] {
  const text = content.trim();
  const d = decimalsOf(text);
  const kind = shapeOf(text).kind;
  if (d === null || (kind !== 'integer' && kind !== 'number') || text.length > 17) return [];
  const truth = Number(text);
  if (!Number.isFinite(truth)) return [];
  const unit = 10 ** -d;
  const fine = (v: number) => v.toFixed(d);
  const values: Array<[string, number, string]> = [];
  if (d > 0) {
    for (const k of [0, d - 1, d - 2].filter((k, i, all) => k >= 0 && k < d && all.indexOf(k) === i))
      values.push([`rounded to ${k} decimal${k === 1 ? '' : 's'}`, Number(truth.toFixed(k)), truth.toFixed(k)]);
    values.push(
      ['rounded up to an integer', Math.ceil(truth), String(Math.ceil(truth))],
      ['rounded down to an integer', Math.floor(truth), String(Math.floor(truth))],
    );
    const [p, q] = smallFraction(truth);
    if (q > 1) values.push([`a fraction with a small denominator`, p / q, `${p}/${q}`]);
  }
  for (const s of [1, 2]) {
    const v = significant(truth, s);
    values.push([`${s} significant figure${s === 1 ? '' : 's'}`, v, plain(v)]);
    if (Math.abs(truth) >= 100 || (Math.abs(truth) < 0.01 && truth !== 0))
      values.push([
        `${s} significant figure${s === 1 ? '' : 's'}, scientific`,
        v,
        v.toExponential(s - 1).replace('e+', 'e'),
      ]);
  }
  values.push(['the constant 0', 0, '0'], ['the constant 1e6', 1e6, '1e6']);
  const out: Rendering[] = [];
  const seen = new Set<string>([text]);
  for (const [form, v, coarse] of values) {
    // A move within two units of the last place is rounding, which a verifier may allow.
    if (!Number.isFinite(v) || Math.abs(v - truth) < 2 * unit - 1e-12 || seen.has(coarse)) continue;
    seen.add(coarse);
    // A coarse value that is itself a plain value at the reference's precision (145 → 150) is a value move, not a
    // notation (no control tells it apart): the perturbed family judges it by rate (value-moves.ts).
    if (coarse === fine(v)) continue;
    const mirror = fine(truth + 0.9 * (truth - v));
    const controls = [fine(v), mirror].filter((c, i, all) => c !== coarse && c !== fine(truth) && all.indexOf(c) === i);
    out.push({ form, coarse, controls });
  }
  return out;
}

// The form dimensions of a numeric answer that the coarse renderings do not write, for the acceptance region:
// a wrong value (0, and one far from the truth) written in other digit scripts (Arabic-Indic, Devanagari,
// full-width), with scale and unit suffixes (k, M, G, B, %), in e-notation and with thousands separators, each
// with its control (the same value in plain ASCII digits); and the truth in another script or grouped,
// measured only. A verifier that reads values pays a form exactly as it pays its control; one whose
// acceptance depends on the notation (a script Number() reads as NaN, a tolerance taken from a suffix) does not.
import { shapeOf } from './answers.js';

export interface NotationForm {
  /** The dimension and the value ("digit script Arabic-Indic, a wrong value"). */
  form: string;
  /** The value written in that notation. */
  text: string;
  /** The same value in plain ASCII digits (judged beyond it); empty for the truth, which is measured only. */
  controls: string[];
  /** The truth in another notation: measured, never judged. */
  truth: boolean;
}

/** Digit scripts by the code point of their zero. */
const SCRIPTS: Array<[string, number]> = [
  ['Arabic-Indic', 0x660],
  ['Devanagari', 0x966],
  ['full-width', 0xff10],
];
/** Suffixes that scale the number before them or name a unit. */
const SUFFIXES = ['k', 'M', 'G', 'B', '%'];

const inScript = (text: string, zero: number) => text.replace(/[0-9]/g, (d) => String.fromCodePoint(zero + Number(d)));
const grouped = (text: string) => text.replace(/^(-?\d+)/, (int) => int.replace(/\B(?=(\d{3})+(?!\d))/g, ','));

/** The notation forms of `content` (a plain integer or decimal answer); none for other answers. */
export function notationForms(content: string): NotationForm[] {
  const text = content.trim();
  const kind = shapeOf(text).kind;
  if (!/^[+-]?\d+(\.\d+)?$/.test(text) || (kind !== 'integer' && kind !== 'number') || text.length > 15) return [];
  const truth = Number(text);
  if (!Number.isFinite(truth)) return [];
  // Wrong values a verifier that reads values refuses: 0 (where the truth is not near it) and one far off.
  const far = String(Math.round(2 * Math.abs(truth)) + 7);
  const zero = Math.abs(truth) >= 1;
  const out: NotationForm[] = [];
  const wrong = (form: string, written: string, plain: string) =>
    out.push({ form, text: written, controls: [plain], truth: false });
  for (const [name, z] of SCRIPTS) wrong(`digit script ${name}, a wrong value`, inScript(far, z), far);
  if (zero) for (const s of SUFFIXES) wrong(`suffix ${s}, the value 0`, `0${s}`, '0');
  wrong('e-notation, a wrong value', Number(far).toExponential().replace('e+', 'e'), far);
  if (far.length > 3) wrong('thousands separators, a wrong value', grouped(far), far);
  out.push({ form: 'the truth in digit script Arabic-Indic', text: inScript(text, 0x660), controls: [], truth: true });
  if (grouped(text) !== text)
    out.push({ form: 'the truth with thousands separators', text: grouped(text), controls: [], truth: true });
  return out;
}

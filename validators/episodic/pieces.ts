// Entities whatever their characters (redteam-s18e E3): a value the reference sent that is no single token ("Ines
// Moreau", "Locker 47", "Mon 09:00") is itself the evidence that the world's entities hold spaces or signs; the texts
// that show it are cut where they cut around it (a list's commas, a table's cells, a line each), and each piece of
// its form is a candidate entity, not the tokens a token grammar makes of it.
import { escape } from './adversaries-values.js';
import { tokensOf } from './probes.js';

/** Whether a value is no single token of tokensOf's grammar. */
export const spaced = (v: string): boolean => {
  const t = tokensOf(v);
  return v.trim().length > 0 && !(t.length === 1 && t[0] === v);
};

/** A value's coarse form: each word by its letter case (any script), each digit run as 9, whitespace one space. */
export const formOf = (v: string): string =>
  (v.trim().match(/\p{N}+|\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\s+|./gu) ?? [])
    .map((r) =>
      /^\p{N}/u.test(r)
        ? '9'
        : /^\s/.test(r)
          ? ' '
          : /^\p{Lu}\p{Ll}/u.test(r)
            ? 'Aa'
            : /^\p{Lu}/u.test(r)
              ? 'A'
              : /^\p{Ll}/u.test(r)
                ? 'a'
                : r,
    )
    .join('');

const inClass = (s: string) => s.replace(/[\]\\^-]/g, '\\$&');
/** The signs (no letter, digit or space) of the runs just before and after each place `text` holds `v` whole. */
function separatorsAround(text: string, v: string): string[] {
  const out: string[] = [];
  const at = new RegExp(`(?<![\\p{L}\\p{N}])${escape(v)}(?![\\p{L}\\p{N}])`, 'giu');
  for (const m of text.matchAll(at)) {
    const before = /[^\p{L}\p{N}]*$/u.exec(text.slice(Math.max(0, m.index - 8), m.index))?.[0] ?? '';
    const after = /^[^\p{L}\p{N}]*/u.exec(text.slice(m.index + v.length, m.index + v.length + 8))?.[0] ?? '';
    out.push(...`${before}${after}`.replace(/\s/g, ''));
  }
  return out;
}

/**
 * The pieces of `text` with the form of a sent value that is no single token (`sent`), the sent values among them:
 * the text cut at its lines, at "label: ", and at the signs it puts around the sent values it holds (none they hold
 * inside). None where every sent value is a single token (the token readers see those).
 */
export function piecesOf(text: string, sent: readonly string[]): string[] {
  const mine = [...new Set(sent.filter(spaced))];
  if (mine.length === 0) return [];
  const t = text.slice(0, 20_000);
  // A sign a sent value holds inside ("09:00") cuts no entity.
  const inside = new Set(mine.flatMap((v) => [...v]));
  const signs = new Set(mine.flatMap((v) => separatorsAround(t, v)).filter((c) => !inside.has(c)));
  if (signs.size === 0 && !mine.some((v) => t.toLowerCase().includes(v.toLowerCase()))) return [];
  const cut = new RegExp(`\\n|:\\s${signs.size > 0 ? `|[${[...signs].map(inClass).join('')}]` : ''}`);
  const forms = new Set(mine.map(formOf));
  return [
    ...new Set(
      t
        .split(cut)
        .map((p) => p.trim().replace(/[.;,!?]+$/, ''))
        .filter((p) => p.length > 0 && p.length <= 64 && forms.has(formOf(p))),
    ),
  ].slice(0, 400);
}

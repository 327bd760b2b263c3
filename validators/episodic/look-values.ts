// The values a look gives a free string argument (redteam-trust17 R6): what the episode shows that fits it by shape (a
// listing by day takes the prompt's date, a listing by desk the desk the prompt names, else the prompt's codes), each
// value once, a few an argument; an argument nothing shown fits leaves its tool no look.
import { INNER_WRITTEN, writtenDate } from './dates.js';
import { tokensOf } from './probes.js';
import { idValue } from './structure.js';
import { escape } from './adversaries-values.js';

/** Shown values tried an argument at most (the looks' budget bounds them all). */
export const SHOWN_VALUES = 4;

/** A string argument's schema as far as fitting a value goes. */
export interface StringSchema {
  description?: string;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
}

/** Words that ask for a date: in the argument's name, format or description (or its tool's, for its only one). */
const DATE_WORDS = /date|day|yyyy/i;
/** Words of a name too generic to find the value written after them. */
const GENERIC = new Set(['id', 'ids', 'the', 'and', 'for', 'name', 'value', 'text', 'query']);

const patternOf = (p: string | undefined): RegExp | null => {
  if (p === undefined) return null;
  try {
    return new RegExp(p, 'u');
  } catch {
    return null;
  }
};

/** The dates a text writes, single tokens ("2026-03-14", "day 73" aside) and spaced ones ("March 14, 2026"). */
const datesIn = (text: string): string[] => [
  ...tokensOf(text).filter((t) => writtenDate(t)?.form === 'date'),
  ...[...text.slice(0, 20_000).matchAll(new RegExp(INNER_WRITTEN.source, 'g'))].map((m) => m[0]),
];

/** The tokens a text writes right after a word of the argument's name ("desk 412" for `desk_code`). */
function namedIn(text: string, name: string): string[] {
  const words = name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((w) => w.length >= 3 && !GENERIC.has(w));
  return words.flatMap((w) =>
    [...text.slice(0, 20_000).matchAll(new RegExp(`\\b${escape(w)}s?\\b[ \\t:#=]*([A-Za-z0-9][\\w./-]*)`, 'gi'))]
      .map((m) => (m[1] as string).replace(/[./-]+$/, ''))
      .filter((t) => t.length > 0),
  );
}

/**
 * The values the shown texts (`shown`, in order) write that fit string argument `name` (schema `s`; `context`, its
 * tool's description where it is the tool's only free argument): its pattern's matches where it has one, else the
 * dates where it asks for one, then what the texts write after its name; where none, the codes the prompt (the first
 * text) gives; each once, its lengths kept, at most `n`.
 */
export function shownValues(
  name: string,
  s: StringSchema,
  shown: readonly string[],
  context = '',
  n = SHOWN_VALUES,
): string[] {
  const pattern = patternOf(s.pattern);
  const dated = DATE_WORDS.test(`${name} ${s.format ?? ''} ${s.description ?? ''} ${context}`);
  const fits = (v: string) =>
    v.length >= (s.minLength ?? 1) &&
    v.length <= (s.maxLength ?? Number.POSITIVE_INFINITY) &&
    (pattern?.test(v) ?? true);
  const found = shown
    .flatMap((text) =>
      pattern ? [...tokensOf(text), ...datesIn(text)] : [...(dated ? datesIn(text) : []), ...namedIn(text, name)],
    )
    .filter(fits);
  // Nothing fits by shape: the codes the prompt gives (a desk, a shift, a batch), in its order.
  const given = found.length > 0 ? [] : tokensOf(shown[0] ?? '').filter((t) => idValue(t) && fits(t));
  return [...new Set([...found, ...given])].slice(0, n);
}

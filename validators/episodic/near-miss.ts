// Near misses of a real entity's id, as a family: the slips a user makes (another case, a space, a look-alike or
// full-width letter, punctuation dropped, swapped or added, a zero added or dropped, two characters swapped, one
// appended or dropped) and the id's image under each normalisation a world may key a fuzzy path on (case folded,
// punctuation stripped, digits or letters only, leading zeros stripped) and under pairs of them. Each reply is an
// observation a reader fits like any other, so a world that answers a near miss with the decision is read.
import type { Action } from './adversaries.js';
import { escape } from './adversaries-values.js';
import { idValue } from './structure.js';
import { caseFlipped, lookAlike } from './variants.js';

/** The near-miss kinds sent for every id in the readers' opening (a short opening keeps the first kinds). */
export const NEAR_MISS_KINDS = [
  'in another case',
  'with a trailing space',
  'with a look-alike letter',
  'less its last character',
] as const;

const PUNCT = /[-_. ]/g;
const SWAP: Record<string, string> = { '-': '_', _: '.', '.': '-', ' ': '-' };
/** ASCII printable characters to their full-width twins (which NFKC folds back). */
const fullWidth = (v: string) => v.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
/** The last digit run of `v` rewritten by `f`. */
const lastNumber = (v: string, f: (digits: string) => string) => v.replace(/\d+(?!.*\d)/, f);

/** A user's slips: edits of the id a world that forgives them maps back to it. */
const SLIPS: Record<string, (v: string) => string | null> = {
  'in another case': caseFlipped,
  'with a trailing space': (v) => `${v} `,
  'with a look-alike letter': lookAlike,
  'less its last character': (v) => v.slice(0, -1),
  'with a leading space': (v) => ` ${v}`,
  'with its punctuation swapped': (v) => v.replace(/[-_.]/g, (c) => SWAP[c] as string),
  'with a mark between letters and digits': (v) => v.replace(/(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])/, '-'),
  'with a zero before its number': (v) => lastNumber(v, (d) => `0${d}`),
  'in full-width characters': fullWidth,
  'with its last two characters swapped': (v) => (v.length < 2 ? null : `${v.slice(0, -2)}${v.at(-1)}${v.at(-2)}`),
  'with its last character doubled': (v) => `${v}${v.at(-1) ?? ''}`,
};

/** Normalisations a world may key a fuzzy path on; the id's image under each (and under pairs) is a near miss. */
const NORMALISATIONS: Record<string, (v: string) => string> = {
  'in lower case': (v) => v.toLowerCase(),
  'in upper case': (v) => v.toUpperCase(),
  'without its punctuation': (v) => v.replace(PUNCT, ''),
  'without the zeros before its number': (v) => lastNumber(v, (d) => d.replace(/^0+(?=\d)/, '')),
  'with its digits only': (v) => v.replace(/\D/g, ''),
  'with its letters only': (v) => v.replace(/[^A-Za-z]/g, ''),
};

/** Every kind of the family by name: the slips, each normalisation, and each pair of normalisations. */
const FAMILY: ReadonlyMap<string, (v: string) => string | null> = new Map([
  ...Object.entries(SLIPS),
  ...Object.entries(NORMALISATIONS),
  ...Object.entries(NORMALISATIONS).flatMap(([a, f], i) =>
    Object.entries(NORMALISATIONS)
      .slice(i + 1)
      .map(([b, g]) => [`${a}, ${b}`, (v: string) => g(f(v))] as [string, (v: string) => string]),
  ),
]);
export type NearMissKind = string;
/** The family's kinds, the opening's own first. */
export const NEAR_MISS_FAMILY: readonly string[] = [...FAMILY.keys()];

/** The near miss of `id` of one kind, or null where it would equal the id, be empty or not fit `maxLength`. */
export function nearMiss(id: string, kind: NearMissKind, maxLength?: number): string | null {
  const out = FAMILY.get(kind)?.(id) ?? id;
  return out === id || out.trim().length === 0 || (maxLength !== undefined && out.length > maxLength) ? null : out;
}

/**
 * The reference's calls whose arguments are all ids (a read, a hold, a flag: never one carrying a decision's value),
 * each once.
 */
export function idCalls(calls: readonly Action[]): Action[] {
  const seen = new Set<string>();
  return calls.filter((a) => {
    const key = a.tool + JSON.stringify(a.args);
    const ok = Object.keys(a.args).length > 0 && Object.values(a.args).every(idValue) && !seen.has(key);
    return ok && seen.add(key) !== undefined;
  });
}

type MaxLength = (tool: string, arg: string) => number | undefined;
/** `a` with every id replaced by its near miss of `kind`, or null where none differs. */
function missOf(a: Action, kind: NearMissKind, maxLength: MaxLength): Action | null {
  const args = Object.fromEntries(
    Object.entries(a.args).map(([name, v]) => [name, nearMiss(v as string, kind, maxLength(a.tool, name)) ?? v]),
  );
  return JSON.stringify(args) === JSON.stringify(a.args) ? null : { tool: a.tool, args };
}

/**
 * The near-miss calls of `calls` (the reference's): each call that names only ids sent with every id replaced by
 * its near miss, kind by kind (`kinds`: the opening's own by default), each call `times` times in a row (once).
 */
export function nearMissCalls(
  calls: readonly Action[],
  maxLength: MaxLength,
  kinds: readonly NearMissKind[] = NEAR_MISS_KINDS,
  times = 1,
): Action[] {
  const reads = idCalls(calls);
  return kinds.flatMap((kind) =>
    reads.flatMap((a) => {
      const miss = missOf(a, kind, maxLength);
      return miss ? Array.from({ length: times }, () => miss) : [];
    }),
  );
}

/** A control for the screen: an unknown id of the id's shape (each digit and letter rotated), no near miss of it. */
const unrelated = (v: string) =>
  v
    .replace(/\d/g, (d) => String((Number(d) + 5) % 10))
    .replace(/[a-z]/gi, (c) => {
      const base = c <= 'Z' ? 65 : 97;
      return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
    });

/** A screen: its calls, the kind of each (null for a control or a call as sent), the calls each reply is judged by. */
export interface Screen {
  log: Action[];
  kinds: Array<string | null>;
  /** Per call, the calls whose replies a reply equal to is no fuzzy path (the control, the id as itself). */
  same: number[][];
}

/** The screen's control of id call `a`: an unknown id of its shape. */
const controlOf = (a: Action): Action => ({
  tool: a.tool,
  args: Object.fromEntries(Object.entries(a.args).map(([n, v]) => [n, unrelated(v as string)])),
});

/**
 * The screen of a world's fuzzy paths once the entity was touched: once per kind of the family beyond the opening's
 * own, the first of `calls` naming only ids that the kind changes, sent as that near miss; each call screened is first
 * sent as an unknown id of its shape (the control) and as itself.
 */
export function screenCalls(calls: readonly Action[], maxLength: MaxLength): Screen {
  const reads = idCalls(calls);
  const screen: Screen = { log: [], kinds: [], same: [] };
  const controls = new Map<Action, number>();
  const seen = new Set(reads.flatMap((a) => NEAR_MISS_KINDS.map((k) => JSON.stringify(missOf(a, k, maxLength)))));
  const push = (a: Action, kind: string | null, same: number[]) => {
    screen.log.push(a), screen.kinds.push(kind), screen.same.push(same);
  };
  for (const kind of NEAR_MISS_FAMILY.filter((k) => !(NEAR_MISS_KINDS as readonly string[]).includes(k))) {
    // The kind's near miss of the first call it changes; a kind that sends what an earlier kind sent is none.
    const at = reads.findIndex((a) => missOf(a, kind, maxLength) !== null);
    const a = reads[at];
    const miss = a && missOf(a, kind, maxLength);
    if (!a || !miss || seen.has(JSON.stringify(miss))) continue;
    seen.add(JSON.stringify(miss));
    if (!controls.has(a)) {
      controls.set(a, screen.log.length);
      push(controlOf(a), null, []), push(a, null, []);
    }
    const c = controls.get(a) as number;
    push(miss, kind, [c, c + 1]);
  }
  return screen;
}

/**
 * A screen with every call sent `times` times in a row (redteam-trust7 I2: a probe's own history is state, so a world
 * may answer a near miss only when it is asked again): the k-th send of each near miss judged against the k-th send of
 * its controls, each answered as often; cut to `limit` calls (a cut near miss is not judged).
 */
export function repeatedScreen(screen: Screen, times: number, limit: number): Screen {
  const n = Math.max(1, times);
  const out: Screen = { log: [], kinds: [], same: [] };
  screen.log.forEach((a, i) => {
    for (let k = 0; k < n; k++) {
      out.log.push(a), out.kinds.push(screen.kinds[i] ?? null);
      out.same.push((screen.same[i] ?? []).map((j) => n * j + k));
    }
  });
  const cut = Math.max(0, limit);
  return { log: out.log.slice(0, cut), kinds: out.kinds.slice(0, cut), same: out.same.slice(0, cut) };
}

/** The part of `screen` judging the near misses `keep` picks, with the controls they are judged by. */
export function subScreen(screen: Screen, keep: (i: number) => boolean): Screen {
  const kept = screen.log.flatMap((_, i) => (screen.kinds[i] !== null && keep(i) ? [i] : []));
  const all = [...new Set([...kept, ...kept.flatMap((i) => screen.same[i] ?? [])])].sort((a, b) => a - b);
  const at = new Map(all.map((i, k) => [i, k]));
  return {
    log: all.map((i) => screen.log[i] as Action),
    kinds: all.map((i) => screen.kinds[i] ?? null),
    same: all.map((i) => (screen.same[i] ?? []).map((j) => at.get(j) as number)),
  };
}

/** The reference's calls naming nothing (its listings), each tool once, at most three. */
export const listingsOf = (calls: readonly Action[]): Action[] =>
  [...new Map(calls.filter((a) => Object.keys(a.args).length === 0).map((a) => [a.tool, a])).values()].slice(0, 3);

/**
 * The screen of a world's fuzzy paths before the entity is touched (redteam-trust6 H3: a reply is a function of
 * state, so a path is screened from each state a policy can choose): where `listed`, the reference's listings first
 * (none sent otherwise: the state before any listing), an unknown id of each call screened (at most `entities` of
 * `calls` naming only ids), then every kind of the family, the opening's own too (the opening sends them after the
 * reads), each as the near miss of one of those calls in turn (the first near miss of each is its entity's first touch)
 * beside the same near miss of an unknown id, then each call as itself. The kinds start
 * at `offset` (another episode, other kinds first and other kinds left out); at most `limit` calls.
 */
export function freshScreenCalls(
  calls: readonly Action[],
  maxLength: MaxLength,
  opts: { limit: number; offset: number; entities: number; listed: boolean },
): Screen {
  const reads = idCalls(calls).slice(0, opts.entities);
  const listings = opts.listed ? listingsOf(calls) : [];
  const screen: Screen = { log: [], kinds: [], same: [] };
  if (reads.length === 0 || (opts.listed && listings.length === 0)) return screen;
  const start = opts.offset % NEAR_MISS_FAMILY.length;
  const kinds = [...NEAR_MISS_FAMILY.slice(start), ...NEAR_MISS_FAMILY.slice(0, start)];
  // Each near miss beside the same edit of an unknown id (a reply about the id's form, not the entity, is no path).
  const room = Math.floor((opts.limit - listings.length - 2 * reads.length) / 2);
  const sent = new Set(reads.map((a) => JSON.stringify(a)));
  const misses: Array<{ at: number; miss: Action; kind: string }> = [];
  kinds.forEach((kind, k) => {
    // The kind's near miss of the next call in turn that it changes, unless an earlier kind sent it.
    for (let step = 0; step < reads.length && misses.length < room; step++) {
      const at = (k + step) % reads.length;
      const miss = missOf(reads[at] as Action, kind, maxLength);
      if (!miss) continue;
      if (!sent.has(JSON.stringify(miss))) sent.add(JSON.stringify(miss)), misses.push({ at, miss, kind });
      return;
    }
  });
  if (misses.length === 0) return screen;
  const push = (a: Action, kind: string | null, same: number[]) => {
    screen.log.push(a), screen.kinds.push(kind), screen.same.push(same);
  };
  for (const a of listings) push(a, null, []);
  const control = screen.log.length;
  for (const a of reads) push(controlOf(a), null, []);
  const exact = control + reads.length + 2 * misses.length;
  for (const m of misses) {
    const other = missOf(controlOf(reads[m.at] as Action), m.kind, maxLength);
    const at = screen.log.length;
    push(other ?? controlOf(reads[m.at] as Action), null, []);
    push(m.miss, m.kind, [control + m.at, at, exact + m.at]);
  }
  for (const a of reads) push(a, null, []);
  return screen;
}

/** Each value's pattern (a whole word of the reply), compiled once for every screen and validation; held to 4,096. */
const PATTERNS = new Map<string, RegExp>();
function pattern(v: string): RegExp {
  const known = PATTERNS.get(v);
  if (known) return known;
  if (PATTERNS.size >= 4096) PATTERNS.clear();
  const escaped = escape(v);
  // Global: String.replace starts each use at 0 and leaves lastIndex at 0, so one object serves every reply.
  const made = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'gu');
  PATTERNS.set(v, made);
  return made;
}

/** Distinct trimmed non-empty values, the longest first (stable: equal lengths keep their order). */
const longestFirst = (values: readonly string[]): string[] =>
  [...new Set(values.map((x) => x.trim()).filter((x) => x.length > 0))].sort((a, b) => b.length - a.length);

/**
 * A reply with the value sent and every id the reference sends (`real`) masked, and its numbers: what the world said,
 * not to whom. A value is masked trimmed where it stands as a word, and spaces are folded (a near miss "TK-4821 " takes
 * no space of the reply, a near miss "s" no letter of "supplier").
 */
function masker(real: readonly string[]): (reply: string, sent: string[]) => string {
  // The reference's ids sorted once per screen; a reply's own sent values merged in, before equal lengths of them.
  const ids = longestFirst(real);
  return (reply, sent) => {
    let out = reply;
    const own = longestFirst(sent);
    const mine = new Set(own);
    const values: string[] = [];
    let k = 0;
    for (const v of ids) {
      if (mine.has(v)) continue;
      while (k < own.length && (own[k] as string).length >= v.length) values.push(own[k++] as string);
      values.push(v);
    }
    values.push(...own.slice(k));
    // A value the reply does not hold as a substring cannot match: its pattern is not run.
    for (const v of values) if (out.includes(v)) out = out.replace(pattern(v), '\u00a7');
    return out.replace(/\d+/g, '#').replace(/\s+/g, ' ');
  };
}

/**
 * The kinds a screen shows the world answers otherwise than it answers an unknown id and the id itself (a fuzzy
 * path: "did you mean", a suggestion, a hint; a world that takes the near miss for the id tells nothing the
 * opening's own reads do not), from the screen and its replies.
 */
export function responsiveKinds(screen: Screen, replies: readonly string[], real: readonly string[]): string[] {
  const masked = masker(real);
  const memo = new Map<number, string | null>();
  const said = (i: number) => {
    if (!memo.has(i))
      memo.set(
        i,
        replies[i] === undefined
          ? null
          : masked(replies[i] as string, Object.values((screen.log[i] as Action).args).map(String)),
      );
    return memo.get(i) as string | null;
  };
  return screen.kinds.flatMap((kind, j) => {
    const reply = said(j);
    const same = (screen.same[j] ?? []).map(said);
    return kind === null || reply === null || same.length === 0 || same.includes(null) || same.includes(reply)
      ? []
      : [kind];
  });
}

/** The string values a log `sent` (the reference's) sends, in any argument. */
export const sentStrings = (sent: readonly Action[]): Set<string> =>
  new Set(sent.flatMap((a) => Object.values(a.args).filter((v): v is string => typeof v === 'string')));

/**
 * Where each reply of an opening `log` is printed, as a reader's place names it: the tool's reply, or its reply to
 * an id of a kind (a call whose string argument is no value the reference sends, `real`: `sentStrings`, but a near
 * miss of one), so a near miss's reply is a place of its own.
 */
export function openingSources(log: readonly Action[], real: ReadonlySet<string>): string[] {
  const misses = new Map<string, NearMissKind>();
  for (const v of real)
    for (const kind of NEAR_MISS_FAMILY) {
      const w = nearMiss(v, kind);
      if (w !== null && !real.has(w) && !misses.has(w)) misses.set(w, kind);
    }
  return log.map((a) => {
    const kind = Object.values(a.args)
      .map((v) => (typeof v === 'string' ? misses.get(v) : undefined))
      .find((k) => k !== undefined);
    return kind === undefined ? `${a.tool}'s reply` : `${a.tool}'s reply to an id ${kind}`;
  });
}

// Values the text names but nobody sends (redteam-trust4 F6, redteam-trust5 G4): any text the agent can see (the
// prompt, the tools' text, every reply of a survey that lists, reads, misses and sends an unknown value) is a source
// of candidate values for a free-string decision argument. Words are ranked (quoted, described, beside the argument's
// name or its values, then the rest) and by rarity, screened by one blanket each on one episode, and the words the
// world treats unlike an unknown value are applied as a blanket over every entity, then the finish, on every episode.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, blanketLogs, finished, propsOf, type Action } from './adversaries.js';
import type { Axis } from './adversaries-values.js';
import { errorPathCalls } from './adversaries-undo.js';
import { openingLog } from './opening.js';
import type { SurfaceLog, Used } from './surface.js';

// Function words: never left out (a world may take "any" or "done" as a value), only ranked later (suggestedWords).
const COMMON = new Set(
  (
    'a an the and or nor but if then else of to in on at by for from with without into onto over under as is ' +
    'are was were be been being it its this that these those there here not no yes do does did done can cannot ' +
    'may might must should would will shall each every any all some one two per via than too very only also ' +
    'just so such who whom which what when where why how your you our we they them their his her he she ' +
    'i me my off out up down'
  ).split(' '),
);
/** An unknown value: what a world does with a word is compared with what it does with this. */
export const PLACEHOLDER = 'zqxwv';

/** A free-string decision argument: a tool the references call (not to finish) with a few short values in it. */
export interface FreeArg {
  tool: string;
  arg: string;
  description: string;
  sent: string[];
  maxLength?: number;
}

/**
 * An entity's argument, not a decision's: a value another tool also sends, or a new value in each call of every
 * episode.
 */
function entityArg(refs: readonly Rollout[], tool: string, arg: string): boolean {
  const per = refs.map((r) => {
    const acts = actionsOf(r);
    const own = acts.filter((a) => a.tool === tool && typeof a.args[arg] === 'string').map((a) => a.args[arg]);
    const elsewhere = new Set(acts.filter((a) => a.tool !== tool).flatMap((a) => Object.values(a.args)));
    return { shared: own.some((v) => elsewhere.has(v)), distinct: new Set(own).size === own.length, n: own.length };
  });
  const several = per.filter((p) => p.n >= 2);
  return per.some((p) => p.shared) || (several.length > 0 && several.every((p) => p.distinct));
}

/** The strings the references send in an entity's argument (the ids of this world), each once. */
export function entityValues(refs: readonly Rollout[]): string[] {
  const keys = new Set(
    refs.flatMap((r) => actionsOf(r).flatMap((a) => Object.keys(a.args).map((k) => `${a.tool}.${k}`))),
  );
  const entities = new Set(
    [...keys].filter((k) => entityArg(refs, k.split('.')[0] as string, k.slice(k.indexOf('.') + 1))),
  );
  return [
    ...new Set(
      refs.flatMap((r) =>
        actionsOf(r).flatMap((a) =>
          Object.entries(a.args).flatMap(([k, v]) =>
            typeof v === 'string' && entities.has(`${a.tool}.${k}`) ? [v] : [],
          ),
        ),
      ),
    ),
  ];
}

export function freeArgs(meta: EpisodicMeta, refs: readonly Rollout[], used: Used): FreeArg[] {
  const finishing = new Set(refs.filter(finished).map((r) => actionsOf(r).at(-1)?.tool));
  const entity = (tool: string, arg: string) => entityArg(refs, tool, arg);
  const out: FreeArg[] = [];
  for (const tool of meta.tools) {
    if (!used.tools.has(tool.name) || finishing.has(tool.name)) continue;
    for (const [arg, schema] of Object.entries(propsOf(meta, tool.name))) {
      const sent = (used.values.get(`${tool.name}.${arg}`) ?? []).filter((v): v is string => typeof v === 'string');
      const short = sent.length > 0 && sent.length <= 8 && sent.every((v) => v.length <= 32);
      if (schema.type !== 'string' || schema.enum || !short || entity(tool.name, arg)) continue;
      const description = String((schema as { description?: unknown }).description ?? '');
      out.push({
        tool: tool.name,
        arg,
        description,
        sent,
        ...(schema.maxLength ? { maxLength: schema.maxLength } : {}),
      });
    }
  }
  return out;
}

/** The reference's first call of `a`'s tool, with `value` in the argument (null where it never calls it so). */
export function callWith(r: Rollout, a: FreeArg, value: string): { prefix: Action[]; call: Action } | null {
  const acts = actionsOf(r).slice(0, -1);
  const i = acts.findIndex((x) => x.tool === a.tool && a.arg in x.args);
  if (i < 0) return null;
  const at = acts[i] as Action;
  return { prefix: acts.slice(0, i), call: { tool: at.tool, args: { ...at.args, [a.arg]: value } } };
}

/**
 * The survey of reference `r`'s episode: the opening a reader plays (every listing, every read of an entity decided
 * about, near misses of its ids), the calls naming no entity, then each decision argument sent an unknown value
 * (the error message a world answers it with). At most `limit` calls.
 */
export function surveyLog(
  meta: EpisodicMeta,
  r: Rollout,
  args: readonly FreeArg[],
  axes: Axis[],
  limit: number,
): Action[] {
  const unknown = args.flatMap((a) => callWith(r, a, PLACEHOLDER)?.call ?? []);
  const errors = errorPathCalls(meta, r, { valid: true, limit: 4 });
  const room = Math.max(0, Math.min(limit, meta.maxTurns - 1) - unknown.length - errors.length);
  return [...openingLog(meta, r, axes, room), ...errors, ...unknown];
}

/**
 * Tokens of a text in order, as the text writes them (any character, a digit or sign first: "2nd-line", "@night", "Q"),
 * split at spaces, quotes and brackets, the sentence's punctuation trimmed; and each form with its inner punctuation
 * removed ("sort-er": "sorter").
 */
const tokensOf = (text: string): string[] =>
  (text.slice(0, 4_000).match(/[^\s"'`,;()[\]{}<>\u201c\u201d\u2018\u2019]+/g) ?? [])
    .map((w) => w.replace(/^[.:!?*]+|[.:!?*]+$/g, ''))
    .filter((w) => w.length > 0);
const formsOf = (w: string): string[] =>
  [...new Set([w.replace(/['.]$/, ''), w.replace(/[-_'.]/g, '')])].filter(Boolean);
/** A word's shape: each capital `A`, each small letter `a`, each digit `9` ("TK-4821": "AA-9999"). */
const shapeOf = (w: string) => w.replace(/[A-Z]/g, 'A').replace(/[a-z]/g, 'a').replace(/\d/g, '9');

/**
 * The test of an id in this world, by what a word is in it, never by its letters (redteam-trust6 H1): a value the
 * references send in an entity's argument (`ids`, any episode); or a word only one episode's group of texts shows
 * (`groups`: the first the shared text, every episode shows it) whose shape is such a value's or a shape whose words
 * are new in each episode (two or more show the shape, none the same word). A shape of letters alone names no id (it is
 * only a length). A word two groups or the shared text show ("tier2", "v1", even "TK0000" where ids are "TK4821") is a
 * candidate like any other.
 */
export function idTest(groups: readonly (readonly string[])[], ids: readonly string[]): (w: string) => boolean {
  const sent = new Set(ids.flatMap(formsOf).map((v) => v.toLowerCase()));
  const telling = (shape: string) => /[^Aa]/.test(shape);
  const shapes = new Set(ids.flatMap(formsOf).map(shapeOf).filter(telling));
  const seen = new Map<string, Set<number>>();
  groups.forEach((group, g) => {
    for (const w of new Set(group.flatMap((t) => tokensOf(t).flatMap(formsOf))))
      if (telling(shapeOf(w))) seen.set(w, (seen.get(w) ?? new Set()).add(g));
  });
  const byShape = new Map<string, Array<Set<number>>>();
  for (const [w, at] of seen) byShape.set(shapeOf(w), [...(byShape.get(shapeOf(w)) ?? []), at]);
  for (const [shape, ats] of byShape) {
    const episodes = new Set(ats.flatMap((at) => [...at]));
    if (episodes.size >= 2 && !episodes.has(0) && ats.every((at) => at.size === 1)) shapes.add(shape);
  }
  // A word two groups show is no id but where the references send it (a shape is a guess; recurrence is seen).
  const recurs = (w: string) => (seen.get(w)?.size ?? 0) >= 2 || seen.get(w)?.has(0) === true;
  return (w) => sent.has(w.toLowerCase()) || (shapes.has(shapeOf(w)) && !recurs(w));
}

/**
 * The words `groups` of texts (the first the shared text, then one an episode: its prompt and replies) suggest for
 * argument `name` whose references send `values`, best first, at most `cap`: quoted words anywhere, then the argument's
 * own description's words, then the words within two of the argument's name ("the sorter queue is closed"), then of a
 * reference value (an enumeration), then every other word, then two adjacent words joined. Within each, the rarest
 * first: in the fewest texts for the episodes that show it (a notice or an error message each episode shows once before
 * the words of every reply, and before an entity's own text, shown in one episode of a few). The references' values,
 * the names in `exclude` (tools, arguments), the placeholder and the ids (`idTest` of `ids`, the values the references
 * send in an entity's argument, and of `groups`, the first the shared text) are not suggested.
 */
export function suggestedWords(
  name: string,
  description: string,
  groups: readonly (readonly string[])[],
  values: readonly string[],
  cap: number,
  exclude: readonly string[] = [],
  ids: readonly string[] = [],
): string[] {
  const isId = idTest([[description, ...(groups[0] ?? [])], ...groups.slice(1)], ids);
  const named = new Set([name, `${name}s`].map((v) => v.toLowerCase()));
  const known = new Set([...values, ...exclude.flatMap(formsOf), ...named, PLACEHOLDER].map((v) => v.toLowerCase()));
  const all = [description, ...groups.flat()];
  const texts = new Map<string, number>();
  const shown = new Map<string, number>();
  for (const group of [[description], ...groups]) {
    const seen = new Set<string>();
    for (const t of group)
      for (const w of new Set(
        tokensOf(t)
          .flatMap(formsOf)
          .map((x) => x.toLowerCase()),
      )) {
        texts.set(w, (texts.get(w) ?? 0) + 1);
        seen.add(w);
      }
    for (const w of seen) shown.set(w, (shown.get(w) ?? 0) + 1);
  }
  const rarity = (k: string) => (texts.get(k) ?? 0) / Math.max(1, shown.get(k) ?? 0) ** 2;
  const quoted = all.flatMap((t) =>
    [...t.slice(0, 4_000).matchAll(/["'`\u201c\u2018]([^\s"'`\u201c\u201d\u2018\u2019]{1,32})["'`\u201d\u2019]/g)].map(
      (m) => m[1] as string,
    ),
  );
  const beside = (near: ReadonlySet<string>) =>
    all.flatMap((t) => {
      const words = tokensOf(t);
      return words.flatMap((w, i) =>
        near.has(w.toLowerCase()) ? [...words.slice(Math.max(0, i - 2), i), ...words.slice(i + 1, i + 3)] : [],
      );
    });
  // Last, two adjacent words joined (a value split by a space: "the sort er desk"), a function word's joins the last.
  const common = (w: string) => COMMON.has(w.toLowerCase().replace(/['.]$/, ''));
  const plain = (w: string) => !known.has(w.toLowerCase()) && !isId(w);
  const joins = (withCommon: boolean) =>
    all.flatMap((t) =>
      tokensOf(t).flatMap((w, i, ws) => {
        const before = ws[i - 1] as string;
        const fit = i > 0 && plain(w) && plain(before) && (common(w) || common(before)) === withCommon;
        return fit ? [`${before}${w}`] : [];
      }),
    );
  const sent = new Set(values.map((v) => v.toLowerCase()));
  const anywhere = all.flatMap(tokensOf);
  const tiers = [quoted, tokensOf(description), beside(named), beside(sent), anywhere, joins(false), joins(true)];
  // Every token is a candidate (no lexical filter, redteam-trust7 I6): a function word ranks after its tier's other
  // words where quoted or beside the name or a value, else after every other word (before its joins); the cap bounds
  // the cost.
  const out = new Map<string, { word: string; tier: number; rare: number; at: number }>();
  tiers.forEach((words, tier) => {
    for (const w of words.flatMap(formsOf)) {
      const k = w.toLowerCase();
      const rank = common(w) && tier < 6 ? ([0, 2, 3].includes(tier) ? tier + 0.5 : 5.5) : tier;
      const had = out.get(k);
      if (had) had.tier = Math.min(had.tier, rank);
      else if (!known.has(k) && !isId(w)) out.set(k, { word: w, tier: rank, rare: rarity(k), at: out.size });
    }
  });
  return [...out.values()]
    .sort((a, b) => a.tier - b.tier || a.rare - b.rare || a.at - b.at)
    .slice(0, cap)
    .map((x) => x.word);
}

/**
 * Whether the world treats `word` unlike an unknown value: the state after the word's calls differs from the state
 * after the same calls with the placeholder, that value written as the word (as sent, in lower or upper case). A
 * refused word, or one stored as sent, leaves the unknown value's state; a word read as a decision does not.
 */
export function treatedApart(word: string, withWord: string | undefined, withPlaceholder: string | undefined): boolean {
  if (withWord === undefined || withPlaceholder === undefined) return false;
  return ![word, word.toLowerCase(), word.toUpperCase()].some(
    (w) =>
      withPlaceholder.replaceAll(PLACEHOLDER, w).replaceAll(PLACEHOLDER.toUpperCase(), w.toUpperCase()) === withWord,
  );
}

/**
 * The blanket of `word` in argument `a` on reference `r`: every entity, the tool's other arguments as the blanket sends
 * them, then the finish.
 */
export function suggestedLog(
  meta: EpisodicMeta,
  r: Rollout,
  a: FreeArg,
  word: string,
  values: Map<string, unknown[]>,
): SurfaceLog | null {
  if (!finished(r)) return null;
  const log = blanketLogs(meta, r, a.tool, new Map([...values, [`${a.tool}.${a.arg}`, [word]]]))[0];
  // The argument is the entity the blanket spans (not a decision): no log of its own.
  if (!log || log[0]?.args[a.arg] !== word) return null;
  return {
    policy: `${a.tool} {"${a.arg}":${JSON.stringify(word)}} (a value the text names) on every entity`,
    actions: log,
  };
}

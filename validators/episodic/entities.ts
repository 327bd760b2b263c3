// Entities of every shape (redteam-trust14 Y4): an entity is what the world accepts as the tool's entity argument, not
// what looks like the ids the reference sent. Shown tokens of each other shape are screened several a shape, after the
// plan, by the decision's own call and by a read where the world has one: a token any of them answers otherwise than
// an id nobody has, in words or in the paths it changes, is one the world knows (redteam-trust17 R5: a read may not
// know what the decision takes); a token none answers is dropped, never its shape (redteam-trust16 Q3); which of them
// are tried, withheld-choice.ts decides.
import type { EpisodicMeta } from '../../contract/episodic.js';
import { propsOf, spread, type Action } from './adversaries.js';
import { escape } from './adversaries-values.js';
import { nobodyFor } from './gates.js';
import { tokensOf } from './probes.js';
import { idValue, shapeOf } from './structure.js';

/** Shapes screened per entity argument and episode, tokens screened a shape, entities tried where shapes differ. */
export const SCREENED_SHAPES = 8;
export const SCREENED_PER_SHAPE = 3;
export const WITHHELD_SHAPES = 4;

const lower = (v: string) => v.toLowerCase();
/** Id-like tokens of a text, with the separators an id may hold inside (`GC:4829`, `S/12`) as well as without. */
const idTokensOf = (text: string): string[] => [
  ...tokensOf(text),
  ...(text.slice(0, 20_000).match(/[A-Za-z0-9](?:[\w.:/#-]*[A-Za-z0-9])?/g) ?? []).slice(0, 4_000),
];

/**
 * The tokens of shapes no sent value has, that the shown texts hold and that fit the argument (`fits`), grouped by
 * shape: texts that name a sent value first, then the others, each in the order shown.
 */
export function otherShapes(shown: readonly string[], sent: readonly string[], fits: (t: string) => boolean) {
  const mine = new Set(sent.map(lower));
  const shapes = new Set(sent.map(shapeOf));
  const names = (text: string) => tokensOf(text).some((t) => mine.has(lower(t)));
  const groups = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const text of [...shown.filter(names), ...shown.filter((t) => !names(t))])
    for (const t of idTokensOf(text)) {
      const s = shapeOf(t);
      if (shapes.has(s) || seen.has(lower(t)) || mine.has(lower(t)) || !idValue(t.replace(/[/#]/g, '-')) || !fits(t))
        continue;
      seen.add(lower(t));
      groups.set(s, [...(groups.get(s) ?? []), t]);
    }
  return [...groups.values()];
}

/** Whether a string fits the length the entity argument `arg` of `tool` allows. */
export const fitsArg = (meta: EpisodicMeta, tool: string, arg: string) => (t: string) => {
  const s = propsOf(meta, tool)[arg] as { minLength?: number; maxLength?: number } | undefined;
  return t.length >= (s?.minLength ?? 0) && t.length <= (s?.maxLength ?? Number.POSITIVE_INFINITY);
};

/** One screening: the calls that ask the world about an id nobody has and about a few tokens of each shape. */
export interface Screen {
  nobody: string;
  tokens: string[];
  calls: Action[];
}

/**
 * The screening of `groups` (at most SCREENED_SHAPES shapes) by `ask`, a call of one tool whose entity argument `arg`
 * names the token (a read of it where the world has one, else the decision's own call): up to SCREENED_PER_SHAPE
 * tokens a shape spread over it (the first, the last, then between), every shape's first before any shape's second,
 * `room` calls at most; each call as `call` fills it (the template's other arguments, or fillings.ts's).
 */
export function screenOf(
  meta: EpisodicMeta,
  ask: Action,
  arg: string,
  groups: readonly string[][],
  room = Number.POSITIVE_INFINITY,
  call: (t: string) => Action = (t) => ({ tool: ask.tool, args: { ...ask.args, [arg]: t } }),
): Screen {
  const nobody = nobodyFor(meta, ask.tool, arg);
  const picks = groups.slice(0, SCREENED_SHAPES).map((g) => {
    const s = spread([...g], SCREENED_PER_SHAPE);
    return s.length > 2 ? [s[0], s.at(-1), ...s.slice(1, -1)] : s;
  });
  const tokens: string[] = [];
  for (let k = 0; k < SCREENED_PER_SHAPE; k++)
    for (const p of picks) if (k < p.length && tokens.length < room - 1) tokens.push(p[k] as string);
  return { nobody, tokens, calls: [call(nobody), ...tokens.map(call)] };
}

const masked = (reply: string, token: string) => reply.replace(new RegExp(escape(token), 'gi'), '\u00b7').trim();

/**
 * The screened groups without the tokens the screening asked about and the world did not answer (`answered`): a
 * token, never a shape, is dropped (a group none of whose tokens was asked about is not screened, and goes).
 */
export const keptTokens = (groups: readonly string[][], screen: Screen, answered: ReadonlySet<string>): string[][] =>
  groups
    .filter((g) => g.some((t) => screen.tokens.includes(t)))
    .map((g) => g.filter((t) => answered.has(t) || !screen.tokens.includes(t)))
    .filter((g) => g.length > 0);

/** The paths a call changed, its token masked, in one text (sorted): what it did to the state. */
const did = (paths: readonly string[] | undefined, token: string) =>
  paths === undefined
    ? undefined
    : paths
        .map((p) => masked(p, token))
        .sort()
        .join('\n');

/**
 * The tokens of a screening the world answers as entities: `replies` (and `changes`, the paths each call changed)
 * answer `screen.calls` in order (undefined for a call not played or refused by the host); a token whose reply, its own
 * spelling masked, differs from the reply to the id nobody has, or whose call changed other paths than that one's.
 */
export function answeredTokens(
  screen: Screen,
  replies: ReadonlyArray<string | undefined>,
  changes: ReadonlyArray<readonly string[] | undefined> = [],
): Set<string> {
  const none = replies[0];
  if (none === undefined) return new Set();
  const base = masked(none, screen.nobody);
  const baseDid = did(changes[0], screen.nobody);
  return new Set(
    screen.tokens.filter((t, k) => {
      const r = replies[k + 1];
      const d = did(changes[k + 1], t);
      return r !== undefined && (masked(r, t) !== base || (d !== undefined && baseDid !== undefined && d !== baseDid));
    }),
  );
}

/** A screening log's replay as the screening reads it (a failed one: `ok` false). */
export interface ScreenLog {
  ok: boolean;
  turns?: number;
  rejected?: readonly number[];
  observations?: readonly string[];
  changes?: readonly (readonly string[])[];
}

/**
 * The tokens each of `screens` heard (answeredTokens), where `log` replays their calls one after another after
 * `from` turns (the plan).
 */
export function heardIn(log: ScreenLog | undefined, from: number, screens: readonly Screen[]): Set<string>[] {
  const run = log?.ok ? log : undefined;
  const played = (j: number) => run !== undefined && j < (run.turns ?? 0) && !run.rejected?.includes(j + 1);
  let at = from;
  return screens.map((screen) => {
    const turns = screen.calls.map((_, m) => at + m);
    at += screen.calls.length;
    return answeredTokens(
      screen,
      turns.map((j) => (played(j) ? run?.observations?.[j] : undefined)),
      turns.map((j) => (played(j) ? run?.changes?.[j] : undefined)),
    );
  });
}

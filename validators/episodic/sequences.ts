// A quantity spread over a sequence of calls (redteam-trust7 I4: a stay opened by check_in {date} and closed by
// check_out {date} or {nights}, a shift clocked in and out, an amount held then captured) is cut where a call of one
// tool and a later call of another on one entity (an argument value the two share, or an id the first was answered)
// hold points of one form that grow, a point and a length of time from it, or equal amounts: the pair reshaped into
// back-to-back pairs that cover it, the ends' convention searched (redteam-trust9 R1-R3); a count of turns between
// them cut by a closing and a re-opening inside (validators/episodic/runs.ts, R4; a repeated block of calls, H1).
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Bind } from '../../sandbox/protocol.js';
import { DEFAULT_EPISODIC_OPTIONS, type EpisodicOptions } from '../options-episodic.js';
import { propsOf, type Action } from './adversaries.js';
import { dayFirstIn } from './dates.js';
import { bindsOf, givenText, type Issue, issuesOf } from './issued.js';
import { type Place, slotsOf, stepOf, written } from './points.js';
import { splitAmount } from './quantities.js';
import { type Placed, runCuts } from './runs.js';

/** How many reshapings of a shared quantity are tried (defaults: validators/options-episodic.ts). */
export interface SequenceOptions {
  /** The most back-to-back pairs one pair is cut into. */
  most: number;
  /** Kinds of pairs cut (the two tools and the ends' places), the most frequent first. */
  kinds: number;
  /** Units a unitless closing integer is read in (first: a day for a date; a minute, an hour for a time; a count). */
  readings: number;
  /** Whether a pair of points is also cut with its end counted in it (the next opening one step on). */
  bothEnds: boolean;
  /** Kinds of runs of calls of one tool between a pair cut by a closing and a re-opening inside. */
  runs: number;
}

/** A value a call sits at: a point, or an amount (a numeric argument), with the key naming its place. */
interface End extends Place {
  key: string;
  form: string;
  at: number;
  /** The value written back in the call's notation. */
  write(at: number): string | number;
  integer: boolean;
  min: number;
  /** For an amount, the minutes one of it lasts where its name or description says (nights, hours…), else 0. */
  lasts: number;
  /** 1 where `lasts` is a unit tried for an integer that names none (a count: one of the opening number's units). */
  guess?: number;
}
const LASTS = /(?:^|[^a-z])(night|day|week|hour|hr|minute|min)s?(?:[^a-z]|$)/;
const MINUTES: Record<string, number> = { n: 1440, d: 1440, w: 10_080, h: 60, m: 1 };

function endsOf(meta: EpisodicMeta, a: Action, dayFirst: boolean): End[] {
  const props = propsOf(meta, a.tool);
  const points = slotsOf(meta, a, dayFirst)
    .filter((s) => s.p.form !== 'number')
    .map((s): End => ({ ...s, form: s.p.form, at: s.p.at, write: s.p.write, integer: true, min: 0, lasts: 0 }));
  const amounts = Object.entries(a.args).flatMap(([arg, v]): End[] => {
    const s = props[arg] ?? {};
    if (typeof v !== 'number' || s.enum || (s.type !== 'number' && s.type !== 'integer')) return [];
    const integer = s.type === 'integer' || Number.isInteger(v);
    const said = (s as { description?: unknown }).description;
    const unit = LASTS.exec(`${arg} ${typeof said === 'string' ? said : ''}`.toLowerCase())?.[1]?.[0] ?? '';
    const [min, lasts] = [s.minimum ?? 0, MINUTES[unit] ?? 0];
    return [{ arg, from: -1, to: -1, key: arg, form: 'amount', at: v, write: (x) => x, integer, min, lasts }];
  });
  return [...points, ...amounts];
}

/** The argument values a call names its entity by (strings, not the ends themselves). */
const namesOf = (a: Action, ends: readonly End[]) =>
  Object.entries(a.args).flatMap(([k, v]) =>
    typeof v === 'string' && !ends.some((e) => e.arg === k) ? [`${k}=${v}`] : [],
  );

/** The bounds an episodic validation's options set (`most`: the parts one call or pair is cut into). */
export const sequenceOptions = (
  o: Pick<EpisodicOptions, 'reshapeSequences' | 'reshapeReadings' | 'reshapeBothEnds' | 'reshapeRuns'>,
  most: number,
): SequenceOptions => ({
  most,
  kinds: o.reshapeSequences,
  readings: o.reshapeReadings,
  bothEnds: o.reshapeBothEnds,
  runs: o.reshapeRuns,
});

/** A reshaped log, how it was made, and its uses of ids the environment issued, bound as a model reads them. */
export interface Reshaped {
  how: string;
  actions: Action[];
  binds?: Bind[];
}

interface Pair {
  i: number;
  j: number;
  x: End;
  y: End;
}

/**
 * The reshapings of `log` (its last call the finish; `observations` what each call was answered, for the ids it
 * issued; `prompt` what the episode was given, no id issued that it names) that cut a quantity two calls share: for
 * each kind of pair (at most `o.kinds`, the most frequent first), every such pair cut into as many back-to-back
 * pairs as `maxTurns - 1` calls allow (at most `o.most`): the opening call, the calls between, the closing call at the
 * first cut, then an opening and a closing call for each later part (a pair of points also with its ends counted in
 * its parts); then a block of calls repeated between such a pair (runs.ts; `changed`: whether each call changed the
 * reference's state, where known).
 */
export function sequenceReshapings(
  meta: EpisodicMeta,
  log: readonly Action[],
  maxTurns: number,
  o: SequenceOptions = sequenceOptions(DEFAULT_EPISODIC_OPTIONS, 8),
  observations?: readonly (string | undefined)[],
  prompt?: string,
  changed?: readonly boolean[],
): Reshaped[] {
  const body = log.slice(0, -1);
  const issues = issuesOf(log, observations, givenText(meta, prompt));
  // Slash dates read in the order the log's own dates show (a first number over 12: the day first).
  const dayFirst = dayFirstIn(body.flatMap((a) => Object.values(a.args).filter((v) => typeof v === 'string')));
  const ends = body.map((a) => endsOf(meta, a, dayFirst));
  const names = body.map((a, i) => namesOf(a, ends[i] ?? []));
  // One entity: an argument value the two calls share, or an id the first call was answered and the second sends.
  const entity = (i: number, j: number) =>
    names[j]?.some((n) => names[i]?.includes(n)) || (issues[j] ?? []).some((u: Issue) => u.by === i);
  const kinds = new Map<string, Pair[]>();
  for (const [i, a] of body.entries()) {
    for (const x of ends[i] ?? []) {
      // The nearest later call of another tool on the same entity, with no other opening of the same kind between.
      for (let j = i + 1; j < body.length; j++) {
        const b = body[j] as Action;
        if (!entity(i, j)) continue;
        if (b.tool === a.tool) break;
        const ys = (ends[j] ?? []).flatMap((e) => readingsOf(x, e, o.readings)).filter((e) => follows(x, e));
        for (const y of ys) {
          const key = `${a.tool}.${x.key} → ${b.tool}.${y.key}`;
          const pairs = kinds.get(key) ?? kinds.set(key, []).get(key);
          if (!pairs?.some((p) => p.i === i || p.j === j)) pairs?.push({ i, j, x, y });
        }
        if (ys.length > 0) break;
      }
    }
  }
  // The most frequent kinds first, a unit read where none is named after one named.
  const guessed = (pairs: Pair[]) => pairs[0]?.y.guess ?? 0;
  const chosen = [...kinds].sort(([, p], [, q]) => q.length - p.length || guessed(p) - guessed(q)).slice(0, o.kinds);
  const cuts = chosen.flatMap(([key, pairs]) => {
    const k = Math.min(o.most, 1 + Math.floor((maxTurns - 1 - log.length) / (2 * pairs.length)));
    const points = pairs.every(({ x, y }) => x.form !== 'amount' && y.form === x.form);
    return k < 2
      ? []
      : [false, ...(points && o.bothEnds ? [true] : [])].flatMap((closed) => cutPairs(key, pairs, k, closed));
  });
  const room = maxTurns - 1 - log.length;
  const runs = runCuts(body, entity, room, o.most, o.runs, changed);
  return [...cuts, ...runs].map(({ how, placed }) => assembled(how, placed, log, issues));

  /** Every pair of one kind cut into `k` back-to-back pairs (`closed`: each part's closing point counted in it). */
  function cutPairs(key: string, pairs: Pair[], k: number, closed: boolean): Array<{ how: string; placed: Placed }> {
    const placed: Placed = body.map((a, i) => [[i, a]]);
    let cut = false;
    for (const { i, j, x, y } of pairs) {
      const [a, b] = [body[i] as Action, body[j] as Action];
      const parts = partsOf(x, y, k, closed);
      if (!parts) continue;
      cut = true;
      const open = (r: number): [number, Action] => [i, written(a, [[x, x.write(parts[r]?.[0] as number)]])];
      const close = (r: number): [number, Action] => [j, written(b, [[y, y.write(parts[r]?.[1] as number)]])];
      placed[i] = [open(0)];
      placed[j] = [close(0), ...parts.slice(1).flatMap((_, r) => [open(r + 1), close(r + 1)])];
    }
    const how = `each ${key} pair split into ${k} back-to-back pairs${closed ? ', its end counted in it' : ''}`;
    return cut ? [{ how, placed }] : [];
  }
}

/** A reshaped log from each call's replacements (tagged with the call they came from), its issued ids bound. */
function assembled(how: string, placed: Placed, log: readonly Action[], issues: readonly Issue[][]): Reshaped {
  const flat: Array<[number, Action]> = [...placed.flat(), [log.length - 1, log.at(-1) as Action]];
  const binds = bindsOf(
    flat.map(([i]) => i),
    issues,
  );
  return { how, actions: flat.map(([, a]) => a), ...(binds.length > 0 ? { binds } : {}) };
}

/** The closing end `y` as a length from `x`'s point: in its own unit, or where it names none, in each unit tried. */
function readingsOf(x: End, y: End, readings: number): End[] {
  const whole = y.form === 'amount' && y.lasts === 0 && Number.isInteger(y.at) && y.at >= 1;
  if (!whole) return [y];
  // From a whole number (a meter, a counter): a plain count of its units, beside the equal amount it may also be.
  if (x.form === 'amount')
    return x.integer && y.at !== x.at && readings > 0
      ? [y, { ...y, key: `${y.key} (count)`, lasts: 1, guess: 1 }]
      : [y];
  const units: Array<[string, number]> =
    x.form === 'date'
      ? [['days', 1440]]
      : [
          ['minutes', 1],
          ['hours', 60],
        ];
  return units.slice(0, readings).map(([name, lasts]) => ({ ...y, key: `${y.key} (${name})`, lasts, guess: 1 }));
}

/** One day of a date, one minute of a time, one of a count: how many of a point's units one of a length lasts. */
const stepIn = (x: End, y: End) => {
  if (x.form === 'amount') return y.guess && y.lasts === 1 ? 1 : 0;
  const step = x.form === 'date' ? y.lasts / 1440 : y.lasts;
  return y.form === 'amount' && Number.isInteger(step) && Number.isInteger(y.at) ? step : 0;
};
/** Whether `y` closes what `x` opens: a later point of its form, a length from it, or an equal amount. */
const follows = (x: End, y: End) =>
  stepIn(x, y) > 0 ||
  (x.form === 'amount' ? y.form === 'amount' && !y.guess && y.at === x.at : y.form === x.form && y.at > x.at);

/** Each part's two values: [x, y) ([x, y] `closed`) cut at its step (y a point or a length), or an amount split. */
function partsOf(x: End, y: End, k: number, closed: boolean): Array<[number, number]> | null {
  if (x.form === 'amount' && !stepIn(x, y)) return splitAmount(x.at, k, x.integer, x.min)?.map((p) => [p, p]) ?? null;
  // A length closing the pair (check_out {nights}): the opening's point moves on, each closing holds its part's length.
  const length = stepIn(x, y);
  const g = length || stepOf({ ...x, unit: 1 }, { ...y, unit: 1 });
  const units = length ? y.at : Math.round((y.at - x.at) / g);
  const n = Math.min(k, units);
  if (n < 2) return null;
  const at = (r: number) => x.at + Math.floor((r * units) / n) * g;
  const end = (r: number) => (r === n - 1 ? x.at + units * g : at(r + 1) - (closed ? g : 0));
  return Array.from({ length: n }, (_, r) => [at(r), length ? (end(r) - at(r)) / g : r === n - 1 ? y.at : end(r)]);
}

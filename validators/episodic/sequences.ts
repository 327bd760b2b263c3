// A quantity spread over a sequence of calls (redteam-trust7 I4: a stay opened by check_in {date} and closed by
// check_out {date} or {nights}, a shift clocked in and out, an amount held then captured) is cut where a call of one
// tool and a later call of another on one entity (an argument value the two share) hold points of one form that grow,
// a point and a length of time from it, or equal amounts: the pair reshaped into back-to-back pairs that cover it.
import type { EpisodicMeta } from '../../contract/episodic.js';
import { propsOf, type Action } from './adversaries.js';
import { type Place, slotsOf, stepOf, written } from './points.js';
import { splitAmount } from './quantities.js';

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
}
const LASTS = /(?:^|[^a-z])(night|day|week|hour|hr|minute|min)s?(?:[^a-z]|$)/;
const MINUTES: Record<string, number> = { n: 1440, d: 1440, w: 10_080, h: 60, m: 1 };

function endsOf(meta: EpisodicMeta, a: Action): End[] {
  const props = propsOf(meta, a.tool);
  const points = slotsOf(meta, a)
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

/** A reshaped log and how it was made (as validators/episodic/reshape.ts names its reshapings). */
interface Reshaped {
  how: string;
  actions: Action[];
}

interface Pair {
  i: number;
  j: number;
  x: End;
  y: End;
}

/**
 * The reshapings of `log` (its last call the finish) that cut a quantity two calls share: for each kind of pair (the
 * two tools and the ends' places; at most `candidates`, the most frequent first), every such pair cut into as many
 * back-to-back pairs as `maxTurns - 1` calls allow (at most `most`): the opening call, the calls between, the closing
 * call at the first cut, then an opening and a closing call for each later part.
 */
export function sequenceReshapings(
  meta: EpisodicMeta,
  log: readonly Action[],
  maxTurns: number,
  most = 8,
  candidates = 2,
): Reshaped[] {
  const body = log.slice(0, -1);
  const finish = log.at(-1) as Action;
  const ends = body.map((a) => endsOf(meta, a));
  const names = body.map((a, i) => namesOf(a, ends[i] ?? []));
  const kinds = new Map<string, Pair[]>();
  for (const [i, a] of body.entries()) {
    for (const x of ends[i] ?? []) {
      // The nearest later call of another tool on the same entity, with no other opening of the same kind between.
      for (let j = i + 1; j < body.length; j++) {
        const b = body[j] as Action;
        if (!names[j]?.some((n) => names[i]?.includes(n))) continue;
        if (b.tool === a.tool) break;
        const y = (ends[j] ?? []).find((e) => follows(x, e));
        if (!y) continue;
        const key = `${a.tool}.${x.key} → ${b.tool}.${y.key}`;
        const pairs = kinds.get(key) ?? kinds.set(key, []).get(key);
        if (!pairs?.some((p) => p.i === i || p.j === j)) pairs?.push({ i, j, x, y });
        break;
      }
    }
  }
  const chosen = [...kinds].sort(([, p], [, q]) => q.length - p.length).slice(0, candidates);
  return chosen.flatMap(([key, pairs]): Reshaped[] => {
    const k = Math.min(most, 1 + Math.floor((maxTurns - 1 - log.length) / (2 * pairs.length)));
    if (k < 2) return [];
    const out: Action[][] = body.map((a) => [a]);
    let cut = false;
    for (const { i, j, x, y } of pairs) {
      const [a, b] = [body[i] as Action, body[j] as Action];
      const cuts = partsOf(x, y, k);
      if (!cuts) continue;
      cut = true;
      const open = (r: number) => written(a, [[x, x.write(cuts[r]?.[0] as number)]]);
      const close = (r: number) => written(b, [[y, y.write(cuts[r]?.[1] as number)]]);
      out[i] = [open(0)];
      out[j] = [close(0), ...cuts.slice(1).flatMap((_, r) => [open(r + 1), close(r + 1)])];
    }
    const how = `each ${key} pair split into ${k} back-to-back pairs`;
    return cut ? [{ how, actions: [...out.flat(), finish] }] : [];
  });
}

/** One day of a date, one minute of a time: how many of a point's units one of a length lasts (0: not whole). */
const stepIn = (x: End, y: End) => {
  const step = x.form === 'date' ? y.lasts / 1440 : y.lasts;
  return x.form !== 'amount' && y.form === 'amount' && Number.isInteger(step) && Number.isInteger(y.at) ? step : 0;
};
/** Whether `y` closes what `x` opens: a later point of its form, a length from it, or an equal amount. */
const follows = (x: End, y: End) =>
  x.form === 'amount' ? y.form === 'amount' && y.at === x.at : y.form === x.form ? y.at > x.at : stepIn(x, y) > 0;

/** Each part's two values: an interval [x, y) cut at its step (y a point or a length), or an amount split. */
function partsOf(x: End, y: End, k: number): Array<[number, number]> | null {
  if (x.form === 'amount') return splitAmount(x.at, k, x.integer, x.min)?.map((p) => [p, p]) ?? null;
  // A length closing the pair (check_out {nights}): the opening's point moves on, each closing holds its part's length.
  const length = stepIn(x, y);
  const g = length || stepOf({ ...x, unit: 1 }, { ...y, unit: 1 });
  const units = length ? y.at : Math.round((y.at - x.at) / g);
  const n = Math.min(k, units);
  if (n < 2) return null;
  const at = (r: number) => x.at + Math.floor((r * units) / n) * g;
  const end = (r: number) => (r === n - 1 ? x.at + units * g : at(r + 1));
  return Array.from({ length: n }, (_, r) => [at(r), length ? (end(r) - at(r)) / g : r === n - 1 ? y.at : end(r)]);
}

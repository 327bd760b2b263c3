// The random policy's passes that the world's information decided: a log rewritten so that it no longer knows
// what the world showed (each argument value first shown by an observation, not by the prompt or the tools,
// becomes another value of its shape), and the scores of such blind replays for the random-policy rate.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { tokensOf } from './probes.js';

type Schema = {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
};

/** What a text lets a policy copy: its tokens, two adjacent tokens joined by a space, and the numbers among them. */
interface Copyable {
  strings: Set<string>;
  numbers: Set<number>;
  /** Tokens in the order shown (first occurrence), the candidates for another value of a shape. */
  order: string[];
}

const empty = (): Copyable => ({ strings: new Set(), numbers: new Set(), order: [] });

function add(into: Copyable, text: string): void {
  const tokens = tokensOf(text);
  tokens.forEach((t, i) => {
    if (!into.strings.has(t)) into.order.push(t);
    into.strings.add(t);
    if (i + 1 < tokens.length) into.strings.add(`${t} ${tokens[i + 1]}`);
    const n = Number(t);
    if (t !== '' && Number.isFinite(n)) into.numbers.add(n);
  });
}

/** Letter case, digits and punctuation of a value: "M994" and "M123" share a shape, "M994" and "billing" do not. */
const shapeOf = (s: string): string => s.replace(/[A-Z]/g, 'A').replace(/[a-z]/g, 'a').replace(/[0-9]/g, '#');

/**
 * Whether a string was copied from `c` (as the random policy copies: a token or two, cut to the schema's maxLength).
 */
const copiedFrom = (c: Copyable, v: string, maxLength: number | undefined): boolean =>
  c.strings.has(v) ||
  (maxLength !== undefined && v.length === maxLength && [...c.strings].some((w) => w.startsWith(v)));

/** The next value of the same shape, changed from the end (digit +1, letter +1): a value nothing showed. */
function unshown(v: string, shown: (s: string) => boolean): string {
  let out = v;
  for (let k = 0; k < 40; k++) {
    const i = out.length - 1 - (k % Math.max(1, out.length));
    const c = out.charAt(i);
    const next = /[0-9]/.test(c)
      ? String((Number(c) + 1) % 10)
      : /[a-y]|[A-Y]/.test(c)
        ? String.fromCharCode(c.charCodeAt(0) + 1)
        : c === 'z'
          ? 'a'
          : c === 'Z'
            ? 'A'
            : c;
    out = out.slice(0, i) + next + out.slice(i + 1);
    if (out !== v && !shown(out)) return out;
  }
  return `${v}~`.slice(-Math.max(1, v.length));
}

/**
 * `r`'s log (a rollout replayed with its observations) with every argument value the world showed first
 * replaced, consistently across the log: by another value of its shape the world showed before that call where
 * there is one, else by one nothing showed. Enum values and values the prompt or the tools' text show stay:
 * the policy knew them without the world. Null where no value was copied from the world.
 */
export function blindLog(meta: EpisodicMeta, r: Rollout): unknown[] | null {
  const observations = r.observations ?? [];
  const given = empty();
  add(given, `${r.prompt ?? ''} ${JSON.stringify(meta.tools)}`);
  const world = empty();
  const rejected = new Set(r.rejected);
  const swapped = new Map<string, unknown>();
  const copied = new Set<string>();
  let changed = false;
  const replace = (v: string | number, schema: Schema): string | number => {
    const key = `${typeof v}:${v}`;
    if (swapped.has(key)) return swapped.get(key) as string | number;
    let out: string | number;
    if (typeof v === 'number') {
      const lo = schema.minimum ?? -Infinity;
      const hi = schema.maximum ?? Infinity;
      const fits = (n: number) =>
        n !== v &&
        n >= lo &&
        n <= hi &&
        (schema.type !== 'integer' || Number.isInteger(n)) &&
        !copied.has(`number:${n}`);
      const other = [...world.numbers].find((n) => fits(n) && !given.numbers.has(n));
      const step = schema.type === 'integer' || Number.isInteger(v) ? 1 : 0.01;
      const near = [1, -1, 2, -2, 3, -3]
        .map((k) => Math.round((v + k * step) * 100) / 100)
        .find((n) => fits(n) && !world.numbers.has(n));
      out = other ?? near ?? v;
    } else {
      const other = world.order.find(
        (w) => w !== v && shapeOf(w) === shapeOf(v) && !given.strings.has(w) && !copied.has(`string:${w}`),
      );
      out = other ?? unshown(v, (s) => world.strings.has(s) || given.strings.has(s));
    }
    swapped.set(key, out);
    return out;
  };
  const rewrite = (value: unknown, schema: Schema | undefined): unknown => {
    if (schema === undefined || Array.isArray(schema.enum)) return value;
    if (Array.isArray(value)) return value.map((x) => rewrite(x, schema.items));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, rewrite(x, schema.properties?.[k])]));
    const fromWorld =
      typeof value === 'string'
        ? copiedFrom(world, value, schema.maxLength) && !copiedFrom(given, value, schema.maxLength)
        : typeof value === 'number' && world.numbers.has(value) && !given.numbers.has(value);
    if (!fromWorld) return value;
    changed = true;
    copied.add(`${typeof value}:${value}`);
    return replace(value as string | number, schema);
  };
  const log = r.actions.map((a, i) => {
    const action = a as { tool?: unknown; args?: unknown };
    const tool = meta.tools.find((t) => t.name === action.tool);
    const out =
      rejected.has(i + 1) || tool === undefined
        ? a
        : { tool: action.tool, args: rewrite(action.args ?? {}, tool.parameters as Schema) };
    if (!rejected.has(i + 1)) add(world, observations[i] ?? '');
    return out;
  });
  return changed ? log : null;
}

/** A probe of the random policy and its outcome (the baselines' ScoredProbe, as far as this module reads it). */
interface RandomProbe {
  probe: { request: RolloutRequest };
  result: RolloutResult;
}

/**
 * What each scoring random rollout earns without the world's information: its log replayed with observations,
 * made blind (blindLog) and replayed again; the lesser of the two scores. A rollout that copied nothing keeps
 * its own. Two small batches, only of the rollouts that scored.
 */
export async function blindScores(
  meta: EpisodicMeta,
  list: readonly RandomProbe[],
  run: (requests: readonly RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<Map<RandomProbe, number>> {
  const scored = list.filter((s): s is RandomProbe & { result: Rollout } => s.result.ok && s.result.score > 0);
  const out = new Map<RandomProbe, number>(scored.map((s) => [s, s.result.score]));
  const replays = await run(
    scored.map((s) => ({
      seed: s.result.seed,
      level: s.result.level,
      policy: { type: 'replay', actions: s.result.actions },
      observations: true,
    })),
  );
  const blind = scored.flatMap((s, i) => {
    const again = replays[i];
    // A replay that does not reproduce the rollout (a module that reads something else) leaves its score as it was.
    if (!again?.ok || again.score !== s.result.score) return [];
    const log = blindLog(meta, again);
    return log === null ? [] : [{ s, log }];
  });
  const results = await run(
    blind.map(({ s, log }) => ({
      seed: s.result.seed,
      level: s.result.level,
      policy: { type: 'replay', actions: log },
    })),
  );
  blind.forEach(({ s }, i) => {
    const r = results[i];
    out.set(s, Math.min(s.result.score, r?.ok ? r.score : 0));
  });
  return out;
}

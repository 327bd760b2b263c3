// "Type the reference" (FINDINGS-rt3 R15): the reference episode replayed with its numbers written as a model
// would type them (at the precision the prompt or the tool states, else at most 4 decimals; a value the
// agent was shown is copied as shown) and its strings trimmed must keep its score: an environment that pays
// only its own unrounded doubles punishes correct work.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import type { Finding } from '../checks/rules.js';
import { actionsOf, numbersOf, type Action } from './adversaries.js';

const WORDS: Record<string, number> = { zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };
const PLACES: Array<[RegExp, (m: RegExpMatchArray) => number]> = [
  [
    new RegExp(
      String.raw`\b(\d|zero|one|two|three|four|five|six)[\s-]+(?:decimal(?:s| places?| digits?)?|digits? after ` +
        String.raw`the (?:decimal )?point|fractional digits?)\b`,
      'gi',
    ),
    (m) => WORDS[(m[1] as string).toLowerCase()] ?? Number(m[1]),
  ],
  [/\bdollars and cents\b|\b(?:to the|nearest) cent\b|\bcents? precision\b/gi, () => 2],
  [
    /\bnearest (tenth|hundredth|thousandth|ten-thousandth)\b/gi,
    (m) => ['tenth', 'hundredth', 'thousandth', 'ten-thousandth'].indexOf((m[1] as string).toLowerCase()) + 1,
  ],
  [/\b(?:nearest|a) (?:whole number|integer)\b|\bwhole (?:dollars|units)\b/gi, () => 0],
];

/**
 * The fraction digits a text asks numbers in ("in dollars and cents", "to 3 decimal places"), the most any phrase
 * allows; null when none.
 */
export function statedPlaces(text: string): number | null {
  let most: number | null = null;
  for (const [re, places] of PLACES)
    for (const m of text.slice(0, 20_000).matchAll(re)) most = Math.max(most ?? 0, places(m));
  return most;
}

/**
 * A number as a model types it: an integer, or a value it was shown, as it is; else at the stated places, or at most 4.
 */
export function typedNumber(v: number, places: number | null, shown: ReadonlySet<number>): number {
  if (Number.isInteger(v) || shown.has(v)) return v;
  return Number(v.toFixed(places ?? 4));
}

/**
 * The reference's actions as a model would type them; null when typing changes nothing (nothing to learn from a
 * replay).
 */
export function typedActions(meta: EpisodicMeta, r: Rollout): Action[] | null {
  const acts = actionsOf(r);
  if (acts.length !== r.actions.length) return null;
  const base = `${meta.description}\n${r.prompt ?? ''}`;
  // What the agent was shown before each call (the prompt, the replies so far): such a value is copied as shown.
  const shown = new Set(numbersOf(r.prompt ?? ''));
  let changed = false;
  const type = (v: unknown, places: number | null): unknown => {
    const w =
      typeof v === 'number'
        ? typedNumber(v, places, shown)
        : typeof v === 'string'
          ? v.trim()
          : Array.isArray(v)
            ? v.map((x) => type(x, places))
            : v;
    if (w !== v && !Array.isArray(v)) changed = true;
    return w;
  };
  const typed = acts.map((a, i) => {
    if (i > 0) for (const n of numbersOf(r.observations?.[i - 1] ?? '')) shown.add(n);
    const tool = meta.tools.find((t) => t.name === a.tool);
    const props = (tool?.parameters.properties ?? {}) as Record<string, { description?: string }>;
    const args = Object.fromEntries(
      Object.entries(a.args).map(([k, v]) => [
        k,
        type(v, statedPlaces(`${base}\n${tool?.description ?? ''}\n${props[k]?.description ?? ''}`)),
      ]),
    );
    return { tool: a.tool, args };
  });
  return changed ? typed : null;
}

/**
 * The typed replays judged as a rate: their own reference's score lost in a share of the episodes above
 * `maxLost` (a quarter unpayable for correct work is a broken environment; fewer may be rounding at a
 * tolerance's edge), and in at least two episodes.
 */
export function judgeTyped(
  pairs: Array<{ ref: Rollout; score: number; actions: unknown[] }>,
  maxLost: number,
): { findings: Finding[]; metrics: Record<string, number> } {
  const lost = pairs.filter((p) => p.score < p.ref.score - 0.01);
  const metrics = { typedReference: pairs.length, typedLost: pairs.length === 0 ? 0 : lost.length / pairs.length };
  const top = lost[0];
  if (!top || lost.length < 2) return { findings: [], metrics };
  const evidence = () => ({
    seed: top.ref.seed,
    level: top.ref.level,
    score: top.score,
    reference: JSON.stringify(top.ref.actions.slice(0, 4)).slice(0, 300),
    typed: JSON.stringify(top.actions.slice(0, 4)).slice(0, 300),
  });
  const policy =
    'the reference replayed with its numbers as a model types them (at the precision the prompt or the tool ' +
    'states, else at most 4 decimals) and its strings trimmed, losing its score,';
  return {
    metrics,
    findings: [
      {
        rule: 'rate',
        code: 'E_UNTYPEABLE_REFERENCE',
        check: 'episodic-typed',
        policy,
        trials: pairs.map((p) => ({ level: p.ref.level, win: p.score < p.ref.score - 0.01 ? 1 : 0, chance: 0 })),
        tolerance: { pooled: maxLost - 1e-9 },
        z: 0,
        minTrials: 1,
        evidence,
      },
    ],
  };
}

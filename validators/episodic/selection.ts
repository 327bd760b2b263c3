// The learned reader of a selection: which of the entities a listing names the reference acts on (the two
// servers it shuts down), read off the structure of the listings a policy sees before acting (the replies of
// tools without arguments; the prompt states the task and names entities for it): a rank, a layout, a mention
// count, the id's parity. Fitted on half the episodes as a set of marking values at one place, judged on the
// other half as the exact chosen set, against a random pick of as many.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import type { Trial } from '../checks/rules.js';
import { actionsOf, propsOf } from './adversaries.js';
import { sourceOf, split, STATED, twoFold, type Replies } from './readers.js';
import { idFields, parser, shapeOf, structuralFields } from './structure.js';
import { AFTER_A_CALL } from './differential.js';

const words = (text: string): string[] => text.toLowerCase().match(/[a-z]+/g) ?? [];

/**
 * One episode's selection by one (tool, argument): the entities its texts name, those the reference chose, each one's
 * fields.
 */
export interface PickSample {
  level: number;
  value: string;
  candidates: string[];
  chosen: Set<string>;
  fields: Map<string, string[]>;
  /** The reference episode (its index), the tool and argument of the pick, and each candidate as first printed. */
  of: number;
  tool: string;
  arg: string;
  printed: Map<string, string>;
  /** The texts (listings) that name each candidate. */
  listed: Map<string, Set<string>>;
  /**
   * Each candidate's cell in the first text that names it, the values the tool's other arguments allow (an enum's, a
   * flag's), the world's turns and tools (their schemas): pick-universe.ts probes the candidates with them.
   */
  cells?: Map<string, string>;
  options?: Map<string, unknown[]>;
  turns?: number;
  tools?: EpisodicMeta['tools'];
}

/**
 * The selection samples, per (tool, argument) with a free string the reference sends (the finish aside): for
 * each episode, the entities of the sent ids' shapes that the listings name (the opening's replies, its survey's
 * included, and the reference's own before its first call of the tool: replies of calls without arguments, or naming
 * two entities where no argument is one; a reply about one entity is asked because of the choice), and the
 * structural fields of each, with the words of the rules (the prompt's and the tools' vocabulary) in its cell: a
 * choice they explain is a stated rule.
 * Episodes where the reference chooses every entity named, or none, select nothing.
 */
export function pickSamples(
  meta: EpisodicMeta,
  refs: readonly Rollout[],
  openings: ReadonlyArray<Replies | undefined>,
): Map<string, PickSample[]> {
  const out = new Map<string, PickSample[]>();
  const finishes = new Set(refs.map((r) => actionsOf(r).at(-1)?.tool));
  const vocabulary = new Set(words(`${meta.description} ${JSON.stringify(meta.tools)}`));
  for (const tool of meta.tools) {
    if (finishes.has(tool.name)) continue;
    for (const [arg, schema] of Object.entries(propsOf(meta, tool.name))) {
      if (schema.type !== 'string' || schema.enum) continue;
      const sent = refs.map(
        (r) =>
          new Set(
            actionsOf(r)
              .slice(0, -1)
              .flatMap((a) =>
                a.tool === tool.name && typeof a.args[arg] === 'string' ? [(a.args[arg] as string).toLowerCase()] : [],
              ),
          ),
      );
      const shapes = new Set(sent.flatMap((s) => [...s].map(shapeOf)));
      const parsed = parser(shapes);
      const options = new Map(
        Object.entries(propsOf(meta, tool.name)).flatMap(
          ([k, v]): Array<[string, unknown[]]> =>
            k === arg ? [] : v.enum ? [[k, v.enum.slice(0, 4)]] : v.type === 'boolean' ? [[k, [true, false]]] : [],
        ),
      );
      // A reply the reference read before its pick is a listing where its call took no arguments, or where it names
      // two entities or more and no argument of the call is one (a dated, paged or filtered listing, rt28e U3; a read
      // of one entity is asked because of the choice).
      const listing = (call: { args: Record<string, unknown> } | undefined, reply: string) =>
        call !== undefined &&
        (Object.keys(call.args).length === 0 ||
          (Object.values(call.args).every((v) => !shapes.has(shapeOf(String(v)))) && parsed(reply).order.length >= 2));
      const samples = refs.flatMap((r, i): PickSample[] => {
        const chosen = sent[i] as Set<string>;
        if (chosen.size === 0) return [];
        const acts = actionsOf(r);
        const first = acts.findIndex((a) => a.tool === tool.name);
        const opened = openings[i];
        const texts: Array<[string, string]> = [
          ...(opened?.observations ?? []).flatMap(
            (o, j): Array<[string, string]> =>
              (opened?.calls?.[j]
                ? listing(opened.calls[j], o)
                : Object.keys(propsOf(meta, opened?.tools[j] ?? '')).length === 0) &&
              !opened?.sources?.[j]?.includes(AFTER_A_CALL)
                ? [[`${opened?.tools[j]}'s reply`, o]]
                : [],
          ),
          ...(r.observations ?? [])
            .slice(0, first)
            .flatMap((o, j): Array<[string, string]> => (listing(acts[j], o) ? [[`${acts[j]?.tool}'s reply`, o]] : [])),
        ];
        const rules = new Set([...vocabulary, ...words(r.prompt ?? '')]);
        const fields = new Map<string, string[]>();
        const printed = new Map<string, string>();
        const listed = new Map<string, Set<string>>();
        const cells = new Map<string, string>();
        const legends = `${r.prompt ?? ''}\n${meta.description}\n${meta.tools.map((t) => t.description).join('\n')}`;
        for (const [source, shown] of texts) {
          const { text, stated } = legendMarks(shown, parsed(shown), legends);
          const p = parsed(text);
          for (const id of p.order) {
            if (!printed.has(id)) printed.set(id, (p.cells.get(id) as { printed: string }).printed);
            if (!cells.has(id)) cells.set(id, (p.cells.get(id) as { cell: string }).cell);
            listed.set(id, (listed.get(id) ?? new Set<string>()).add(source));
            const own = fields.get(id) ?? [...idFields(id)];
            own.push(
              ...structuralFields(source, p, id),
              ...(stated ? [`in ${source}, ${STATED} the mark its legend explains: ${stated.get(id) || 'none'}`] : []),
              ...words((p.cells.get(id) as { cell: string }).cell)
                .filter((w) => rules.has(w))
                .map((w) => `in ${source}, ${STATED} in its cell: ${w}`),
            );
            fields.set(id, own);
          }
        }
        const candidates = [...fields.keys()].slice(0, 200);
        const named = candidates.filter((c) => chosen.has(c)).length;
        return named === 0 || named === candidates.length
          ? []
          : [
              {
                ...{ level: r.level, value: '', candidates, chosen, fields, of: i, tool: tool.name, arg },
                ...{ printed, listed, cells, options, turns: meta.maxTurns, tools: meta.tools },
              },
            ];
      });
      if (samples.length > 0) out.set(`${tool.name}.${arg}`, samples);
    }
  }
  return out;
}

/** Names of marks a text may spell out ("marked with a star"). */
const MARK_NAMES: Record<string, string> = {
  star: '*',
  asterisk: '*',
  dagger: '\u2020',
  hash: '#',
  plus: '+',
  caret: '^',
  tilde: '~',
  bullet: '\u2022',
};
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The marks a listing's legend (a line of it naming no entity) or the prompt and tools explain (rt28e U7: '(* a gift
 * card)', 'marks each gift card with a star'): each entity's explained marks beside its id, and the text with those
 * marks taken out of its layout (they are a stated field, as the legend's words in the cell would be); none where no
 * entity carries one.
 */
function legendMarks(
  text: string,
  p: { order: string[]; cells: Map<string, { cell: string; printed: string; at: number }> },
  legends: string,
): { text: string; stated?: Map<string, string> } {
  const printed = p.order.map((id) => (p.cells.get(id) as { printed: string }).printed);
  const own = text
    .split('\n')
    .filter((line) => !printed.some((x) => line.includes(x)))
    .join('\n');
  const explains = `${own}\n${legends}`;
  const spelled = explains
    .toLowerCase()
    .split(/[.!?\n]/)
    .filter((s) => /\b(mark|flag|denot|indicat|stand|mean|show)/.test(s))
    .flatMap((s) =>
      Object.entries(MARK_NAMES).flatMap(([name, m]) => (new RegExp(`\\b${name}s?\\b`).test(s) ? [m] : [])),
    );
  const near = (c: { cell: string; printed: string; at: number }) =>
    `${c.cell.slice(0, c.at).split(/[,;]/).at(-1)}${c.cell.slice(c.at + c.printed.length).split(/[,;]/)[0]}`;
  const symbols = [...new Set(p.order.flatMap((id) => [...near(p.cells.get(id) as never)]))].filter(
    (m) =>
      /[^\p{L}\p{N}\s()$%.,:;'"/-]/u.test(m) &&
      (spelled.includes(m) ||
        new RegExp(`(?:^|[\\s(\\[])${esc(m)}(?!${esc(m)})\\s*[=:-]?\\s*\\p{L}`, 'mu').test(explains)),
  );
  if (symbols.length === 0) return { text };
  const stated = new Map(
    p.order.map((id) => [id, symbols.filter((m) => near(p.cells.get(id) as never).includes(m)).join('')]),
  );
  return { text: symbols.reduce((t, m) => t.split(m).join(''), text), stated };
}

/** A fitted selection: the place read and the values there that mark a chosen entity. */
export interface Marks {
  place: string;
  marks: Set<string>;
}

/**
 * The place whose marking values (each seen twice or more, 90% chosen) cover the most of the half's chosen
 * entities, at least 80% of them, where the place also describes entities not chosen (a listing of the chosen
 * alone is its subject, not a code). Null where none does, or where the rules' words in the same text mark
 * as many: the choice then follows a stated rule the text shows.
 */
function fitMarks(samples: readonly PickSample[], fit: number[]): Marks | null {
  const stats = new Map<string, Map<string, [number, number]>>();
  let want = 0;
  for (const i of fit) {
    const s = samples[i] as PickSample;
    for (const c of s.candidates) {
      const hit = s.chosen.has(c) ? 1 : 0;
      want += hit;
      for (const f of new Set(s.fields.get(c))) {
        const [place, value] = split(f);
        const byValue = stats.get(place) ?? new Map<string, [number, number]>();
        const [n, total] = byValue.get(value) ?? [0, 0];
        stats.set(place, byValue.set(value, [n + hit, total + 1]));
      }
    }
  }
  let best: (Marks & { covered: number }) | null = null;
  const stated = new Map<string, number>();
  for (const [place, byValue] of stats) {
    const marks = [...byValue].filter(([, [n, total]]) => total >= 2 && n >= 0.9 * total);
    const covered = marks.reduce((a, [, [n]]) => a + n, 0);
    const others = [...byValue.values()].reduce((a, [n, total]) => a + total - n, 0);
    if (covered < 0.8 * want || want === 0) continue;
    if (place.includes(STATED)) stated.set(sourceOf(place), Math.max(stated.get(sourceOf(place)) ?? 0, covered));
    else if (others > 0 && (!best || covered > best.covered))
      best = { place, marks: new Set(marks.map(([v]) => v)), covered };
  }
  return best && best.covered > (stated.get(sourceOf(best.place)) ?? 0)
    ? { place: best.place, marks: best.marks }
    : null;
}

/** The entities a fitted selection picks on a sample: those with a marking value at its place. */
const picked = (m: Marks, s: PickSample) =>
  s.candidates.filter((c) => (s.fields.get(c) ?? []).some((f) => split(f)[0] === m.place && m.marks.has(split(f)[1])));

/** The number of ways to pick `k` of `n` (0 outside 0..n). */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  const m = Math.min(k, n - k);
  let c = 1;
  for (let i = 1; i <= m; i++) c = (c * (n - m + i)) / i;
  return Math.round(c);
}

/**
 * A pick scored as the score judges the decision, the episode's chosen set exactly (redteam-s20e S4): 1 where the
 * pick is the listed chosen set, against the chance that a policy seeing how many entities the episode lists (N, those
 * the tool knows: pick-universe.ts) and how many the reference picks (k) picks that set at random, 1 / C(N, k): 'all'
 * or 'none' is sure, never a leak. An overlap's chance grows toward 1 as the chosen set grows toward the whole listing
 * ('all but the gift card'), hiding a perfect reader inside the tolerance.
 */
function judgePick(m: Marks, s: PickSample): { win: number; chance: number } {
  const p = picked(m, s);
  const listed = s.candidates.filter((c) => s.chosen.has(c)).length;
  const exact = p.length === listed && p.every((c) => s.chosen.has(c));
  return { win: exact ? 1 : 0, chance: 1 / choose(s.candidates.length, listed) };
}

/** Two-fold trials of the selection reader. */
export function pickTrials(samples: readonly PickSample[]): { level: Trial[]; pooled: Trial[]; rules: string[] } {
  const t = twoFold(
    samples,
    (members) => fitMarks(samples, members),
    () => null,
    judgePick,
  );
  return { ...t, rules: t.rules.map((m) => `${m.place}: ${[...m.marks].slice(0, 6).join(' | ')}`) };
}

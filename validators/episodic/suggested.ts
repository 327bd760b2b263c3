// Values the text names but nobody sends (redteam-trust4 F6): the words the prompt and the tools' text offer for a
// free-string decision argument — quoted words, its description's words, the words listed beside the references'
// values — each applied as a blanket over every entity, then the finish (judged with the unused call surface).
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, blanketLogs, finished, propsOf } from './adversaries.js';
import type { SurfaceLog } from './surface.js';

const STOP = new Set(
  (
    'a an the and or nor but if then else of to in on at by for from with without into onto over under as is ' +
    'are was were be been being it its this that these those there here not no yes do does did done can cannot ' +
    'may might must should would will shall each every any all some one two per via than too very only also ' +
    'just so such who whom which what when where why how your you our we they them their his her he she ' +
    'i me my off out up down'
  ).split(' '),
);
const WORD = /^[A-Za-z][\w-]{1,30}$/;

/** Words of a text in order, as written (letters first, at most 31 characters), stop words left out. */
const wordsOf = (text: string): string[] =>
  (text.slice(0, 4_000).match(/[A-Za-z][\w-]*/g) ?? []).filter((w) => WORD.test(w) && !STOP.has(w.toLowerCase()));

/**
 * The words `texts` suggest for an argument whose references send `values`, best first, at most `cap`: quoted
 * words anywhere, then the argument's own description's words, then the words within two of a reference value in
 * the other texts (an enumeration: "billing, shipping or technical"). The references' values themselves are not
 * suggested.
 */
export function suggestedWords(
  description: string,
  texts: readonly string[],
  values: readonly string[],
  cap: number,
): string[] {
  const known = new Set(values.map((v) => v.toLowerCase()));
  const quoted = [description, ...texts].flatMap((t) =>
    [...t.slice(0, 4_000).matchAll(/["'`\u201c\u2018]([A-Za-z][\w-]{1,30})["'`\u201d\u2019]/g)].map(
      (m) => m[1] as string,
    ),
  );
  const beside = texts.flatMap((t) => {
    const words = (t.slice(0, 4_000).match(/[A-Za-z][\w-]*/g) ?? []) as string[];
    return words.flatMap((w, i) =>
      known.has(w.toLowerCase()) ? [...words.slice(Math.max(0, i - 2), i), ...words.slice(i + 1, i + 3)] : [],
    );
  });
  const out = new Map<string, string>();
  for (const w of [...quoted, ...wordsOf(description), ...beside]) {
    const k = w.toLowerCase();
    if (WORD.test(w) && !STOP.has(k) && !known.has(k) && !out.has(k)) out.set(k, w);
  }
  return [...out.values()].slice(0, cap);
}

/**
 * The suggested-value logs of reference `r`: for each free-string argument (no enum) of a tool the reference calls
 * with at most a few short values over every reference (a decision, not free text), each suggested word applied to
 * every entity the episode names with the tool's other arguments as the blanket sends them, then the finish.
 */
export function suggestedLogs(
  meta: EpisodicMeta,
  r: Rollout,
  values: Map<string, unknown[]>,
  cap: number,
): SurfaceLog[] {
  if (!finished(r)) return [];
  const acts = actionsOf(r);
  const prompts = [r.prompt ?? '', meta.description];
  const out: SurfaceLog[] = [];
  for (const tool of [...new Set(acts.slice(0, -1).map((a) => a.tool))]) {
    const def = meta.tools.find((t) => t.name === tool);
    for (const [arg, schema] of Object.entries(propsOf(meta, tool))) {
      const sent = (values.get(`${tool}.${arg}`) ?? []).filter((v): v is string => typeof v === 'string');
      if (
        schema.type !== 'string' ||
        schema.enum ||
        sent.length === 0 ||
        sent.length > 8 ||
        sent.some((v) => v.length > 32)
      )
        continue;
      const description = String((schema as { description?: unknown }).description ?? '');
      for (const word of suggestedWords(description, [def?.description ?? '', ...prompts], sent, cap)) {
        if (schema.maxLength !== undefined && word.length > schema.maxLength) continue;
        const log = blanketLogs(meta, r, tool, new Map([...values, [`${tool}.${arg}`, [word]]]))[0];
        // The argument is the entity the blanket spans (not a decision): no log of its own.
        if (log && log[0]?.args[arg] === word)
          out.push({
            policy: `${tool} {"${arg}":${JSON.stringify(word)}} (a value the text names) on every entity`,
            actions: log,
          });
      }
    }
  }
  return out;
}

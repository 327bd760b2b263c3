// Template and source residue in the text an agent reads (prompts, observations): code that leaked into a
// string (`" + THEME.cell + "`, `function (`, `=>`), placeholders never filled (`${x}`, `{{x}}`, `{name}`),
// and values JavaScript prints for a bug (`undefined`, `NaN`, `[object Object]`). Judged against the
// module's own source, over every sampled text: what the source writes as string content is the author's
// words (a task about JavaScript may show `x => x + 1`); what it holds only as code is residue.
import { sourceParts, type SourceParts } from '../sandbox/source-parts.js';
import type { Problem } from './report.js';

export interface SampledText {
  seed: number;
  level: number;
  /** 'prompt', or 'observation N' (turn N of the reference rollout). */
  where: string;
  text: string;
}

interface Finding {
  kind: string;
  fragment: string;
}

const BUG_VALUES = /\[object (?:Object|Array|Function)\]|\b(?:undefined|NaN)\b/g;
const DOLLAR = /\$\{[^{}\n]{1,60}\}/g;
const DOUBLE = /\{\{\s*[A-Za-z_$][\w$.]*\s*\}\}/g;
const SINGLE = /(?<![$\w{])\{\s*([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\}(?!\})/g;
const CONCAT = /["'`]\s*\+\s*[A-Za-z_$][\w$.[\]()]*\s*\+\s*["'`]|["'`]\s*\+\s*[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+/g;
const CODE = /\bfunction\s*[A-Za-z_$]?[\w$]*\s*\(|=>|\breturn\s+[A-Za-z_$][\w$]*\s*[;.(]/g;
const PATH = /(?<![\w$.])[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?![\w$])/g;

/** Whether the module writes this fragment as string content (then the text is the author's own words). */
const written = (parts: SourceParts, fragment: string) => parts.strings.some((s) => s.includes(fragment));

/** The residue in one text, judged against the module's parts. */
export function residueIn(text: string, parts: SourceParts): Finding[] {
  const found: Finding[] = [];
  // Written as string content, a fragment is the author's words, unless it names the module's own code
  // (a name it declares): `" + THEME.cell + "` inside a template's text is still code that never ran.
  const ownCode = (fragment: string) =>
    [...fragment.matchAll(/[A-Za-z_$][\w$]*/g)].some(([name]) => parts.declared.has(name));
  const add = (kind: string, fragment: string, code = false) => {
    if (written(parts, fragment) && !(code && ownCode(fragment))) return;
    if (!found.some((f) => f.fragment === fragment)) found.push({ kind, fragment });
  };
  for (const [m] of text.matchAll(BUG_VALUES)) add('a value JavaScript prints for a bug', m);
  for (const [m] of text.matchAll(DOLLAR)) add('an unfilled template placeholder', m);
  for (const [m] of text.matchAll(DOUBLE)) add('an unfilled template placeholder', m);
  // `{name}` is a placeholder only when name is one of the module's identifiers (else it may be a set, `{x}`).
  for (const m of text.matchAll(SINGLE))
    if (parts.identifiers.has((m[1] as string).split('.')[0] as string) || parts.paths.has(m[1] as string))
      add('an unfilled placeholder', m[0]);
  for (const [m] of text.matchAll(CONCAT)) add('string concatenation code', m, true);
  for (const [m] of text.matchAll(CODE)) add('code', m);
  // A member path the module uses as code (`THEME.cell`) read as words: source leaked into the text.
  for (const [m] of text.matchAll(PATH)) if (parts.paths.has(m)) add("a member path of the module's code", m, true);
  return found;
}

/** One E_TEXT_RESIDUE problem for the sampled texts that carry residue (zero tolerance), with examples. */
export function residueProblems(source: string, texts: readonly SampledText[]): Problem[] {
  const parts = sourceParts(source);
  const hits = texts.flatMap((t) => {
    const findings = residueIn(t.text, parts);
    return findings.length > 0 ? [{ ...t, findings }] : [];
  });
  if (hits.length === 0) return [];
  const first = hits[0] as (typeof hits)[number];
  const finding = first.findings[0] as Finding;
  const around = (h: (typeof hits)[number]) => {
    const at = Math.max(0, h.text.indexOf((h.findings[0] as Finding).fragment));
    return h.text.slice(Math.max(0, at - 40), at + 80);
  };
  return [
    {
      code: 'E_TEXT_RESIDUE',
      message:
        `${hits.length} of ${texts.length} sampled texts the agent reads carry template or source residue: the ` +
        `${first.where} of seed ${first.seed} level ${first.level} shows ${finding.kind} (` +
        `${JSON.stringify(finding.fragment)}); build the text from values, not from code`,
      evidence: hits.slice(0, 5).map((h) => ({
        seed: h.seed,
        level: h.level,
        where: h.where,
        findings: h.findings.slice(0, 4),
        around: around(h),
      })),
    },
  ];
}

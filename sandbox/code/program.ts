// The policy's program inside its response (contract v3): the last fenced code block, and its language
// from the fence's info string. Pure string work on hostile text, bounded; no code runs here.

export const ANSWER_LANGUAGES = ['javascript', 'typescript', 'python'] as const;
export type AnswerLanguage = (typeof ANSWER_LANGUAGES)[number];
/** The languages the host runs today; a Python program is a clear error (E_LANGUAGE), never a silent 0. */
export const RUNNABLE_LANGUAGES: ReadonlySet<AnswerLanguage> = new Set(['javascript', 'typescript']);

export const MAX_PROGRAM_CHARS = 64 * 1024;

const ALIASES: Record<string, AnswerLanguage> = {
  '': 'javascript',
  js: 'javascript',
  javascript: 'javascript',
  mjs: 'javascript',
  node: 'javascript',
  ecmascript: 'javascript',
  ts: 'typescript',
  typescript: 'typescript',
  py: 'python',
  python: 'python',
  python3: 'python',
  py3: 'python',
};

export type ExtractedProgram =
  | { ok: true; language: AnswerLanguage; program: string }
  | { ok: false; reason: 'none' | 'too-long' | 'language'; message: string };

// An opening fence at a line start: 3+ backticks or tildes, then an optional info string.
const OPEN = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\n`]*)$/;

/** The last fenced block of the response (an unclosed last fence runs to the end, as CommonMark reads it). */
export function extractProgram(response: string): ExtractedProgram {
  const lines = response.split('\n');
  let last: { info: string; body: string[] } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const open = OPEN.exec(lines[i] as string);
    if (!open) continue;
    const fence = open[1] as string;
    const body: string[] = [];
    let j = i + 1;
    const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`);
    while (j < lines.length && !close.test(lines[j] as string)) body.push(lines[j++] as string);
    last = { info: (open[2] as string).trim().split(/\s+/)[0]?.toLowerCase() ?? '', body };
    i = j;
  }
  if (!last)
    return { ok: false, reason: 'none', message: 'the response holds no fenced code block (```javascript … ```)' };
  const program = last.body.join('\n');
  if (program.length > MAX_PROGRAM_CHARS)
    return {
      ok: false,
      reason: 'too-long',
      message: `the program has ${program.length} characters, over the limit of ${MAX_PROGRAM_CHARS}`,
    };
  const language = ALIASES[last.info.replace(/[^a-z0-9]/g, '')];
  if (!language)
    return {
      ok: false,
      reason: 'language',
      message: `the code block is marked "${last.info.slice(0, 40)}": answers are JavaScript or TypeScript`,
    };
  return { ok: true, language, program };
}

/** A program as a response: one fenced block. */
export function fenceProgram(program: string, language: AnswerLanguage = 'javascript'): string {
  const ticks = program.includes('```') ? '~~~~' : '```';
  return `${ticks}${language}\n${program}\n${ticks}`;
}

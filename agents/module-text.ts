// The JavaScript module in a model's reply: the generator and repair agents ask for exactly one fenced
// ```js block; this finds it, or says why there is none (a PromptError the agent records as data).
import { PromptError } from './prompts.js';

/**
 * The JavaScript module in a model's reply: the one ```js / ```javascript / ```mjs block; else a single
 * unlabelled block that holds an export; else the whole reply when it (after leading comments) starts
 * with `export`. Two or more js blocks are an error, not a guess: the prompt asks for exactly one.
 */
export function extractModule(text: string): string {
  const blocks = fencedBlocks(text);
  const unterminated = blocks.find((b) => !b.closed);
  const js = blocks.filter((b) => /^(js|javascript|mjs)$/i.test(b.lang));
  if (js.length > 1)
    throw new PromptError(
      `the reply has ${js.length} \`\`\`js blocks; reply with exactly one block holding the complete module`,
    );
  const only = js[0];
  if (only) {
    if (!only.closed)
      throw new PromptError('the ```js block is not closed: the reply looks truncated; reply with the complete module');
    return only.body;
  }
  // [ \t]*, not \s*: under /m, \s* would rescan every following blank line from every line start.
  const bare = blocks.filter((b) => b.lang === '' && b.closed && /^[ \t]*export\s/m.test(b.body));
  if (bare.length === 1 && blocks.length === 1) return (bare[0] as { body: string }).body;
  if (blocks.length === 0 && startsWithExport(text)) return `${text.trim()}\n`;
  if (unterminated)
    throw new PromptError(
      'a code block is not closed: the reply looks truncated; reply with the complete module in one ```js block',
    );
  throw new PromptError(
    'the reply holds no JavaScript module: reply with the complete module in one ```js fenced block and nothing else',
  );
}

interface Block {
  lang: string;
  body: string;
  closed: boolean;
}

/** Fenced blocks by lines, so backticks inside a line of code never open or close a block. */
function fencedBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let open: { fence: string; lang: string; lines: string[] } | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (open) {
      const close = /^\s*(`{3,})\s*$/.exec(line);
      if (close && (close[1] as string).length >= open.fence.length) {
        blocks.push({ lang: open.lang, body: joinLines(open.lines), closed: true });
        open = null;
      } else {
        open.lines.push(line);
      }
      continue;
    }
    const start = /^\s*(`{3,})\s*([\w+-]*)\s*$/.exec(line);
    if (start) open = { fence: start[1] as string, lang: (start[2] as string).toLowerCase(), lines: [] };
  }
  if (open) blocks.push({ lang: open.lang, body: joinLines(open.lines), closed: false });
  return blocks;
}

function joinLines(lines: string[]): string {
  return `${lines.join('\n').trim()}\n`;
}

function startsWithExport(text: string): boolean {
  const withoutComments = text.trimStart().replace(/^(?:\/\/[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*/, '');
  return /^export\s/.test(withoutComments);
}

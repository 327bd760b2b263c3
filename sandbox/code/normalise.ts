// Turns a policy's program into the script the answer realm wraps (answer worker only, never the main
// process): TypeScript types stripped by Node's own stripper, `export` keywords dropped, imports refused,
// and the result checked to parse as a whole script, so no text can close the realm's wrapper early.
import { stripTypeScriptTypes } from 'node:module';
import { parse, type Node } from 'acorn';
import type { AnswerLanguage } from './program.js';

export type Normalised =
  | { ok: true; script: string }
  | { ok: false; code: 'E_SYNTAX' | 'E_IMPORT' | 'E_LANGUAGE'; message: string };

const message = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 300);

/**
 * Drops `export` / `export default` before declarations and whole `export { … }` lists (a module's exports read as
 * plain bindings).
 */
function dropExports(source: string, body: Node[]): string | { importing: string } {
  const edits: Array<{ start: number; end: number; text: string }> = [];
  for (const node of body) {
    if (node.type === 'ImportDeclaration')
      return { importing: source.slice(node.start, Math.min(node.end, node.start + 80)) };
    if (
      node.type === 'ExportAllDeclaration' ||
      (node.type === 'ExportNamedDeclaration' && (node as { source?: unknown }).source)
    )
      return { importing: source.slice(node.start, Math.min(node.end, node.start + 80)) };
    if (node.type === 'ExportNamedDeclaration' || node.type === 'ExportDefaultDeclaration') {
      const declaration = (node as { declaration?: Node | null }).declaration;
      const named =
        declaration &&
        (declaration.type !== 'FunctionDeclaration' && declaration.type !== 'ClassDeclaration'
          ? node.type === 'ExportNamedDeclaration'
          : (declaration as { id?: unknown }).id);
      if (declaration && named) edits.push({ start: node.start, end: declaration.start, text: '' });
      else if (!declaration) edits.push({ start: node.start, end: node.end, text: ';' });
      else edits.push({ start: node.start, end: declaration.start, text: 'const __default = ' });
    }
  }
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += source.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + source.slice(at);
}

export function normaliseProgram(program: string, language: AnswerLanguage): Normalised {
  if (language === 'python')
    return {
      ok: false,
      code: 'E_LANGUAGE',
      message:
        'Python answers are not run by this host (docs/environment-contract.md, contract v3): answer in ' +
        'JavaScript or TypeScript',
    };
  let text = program;
  if (language === 'typescript') {
    try {
      text = stripTypeScriptTypes(program, { mode: 'strip' });
    } catch (error) {
      return {
        ok: false,
        code: 'E_SYNTAX',
        message:
          `the TypeScript program does not parse (only erasable types are supported: no enums or ` +
          `namespaces): ${message(error)}`,
      };
    }
  }
  try {
    parse(text, { ecmaVersion: 'latest', sourceType: 'script' });
    return { ok: true, script: text };
  } catch {
    // Perhaps a module: its exports become plain bindings; an import cannot be satisfied.
  }
  let body: Node[];
  try {
    body = parse(text, { ecmaVersion: 'latest', sourceType: 'module' }).body as Node[];
  } catch (error) {
    return { ok: false, code: 'E_SYNTAX', message: `the program does not parse: ${message(error)}` };
  }
  const script = dropExports(text, body);
  if (typeof script !== 'string')
    return {
      ok: false,
      code: 'E_IMPORT',
      message: `the program imports (${script.importing}); answers must be self-contained`,
    };
  try {
    parse(script, { ecmaVersion: 'latest', sourceType: 'script' });
  } catch (error) {
    return { ok: false, code: 'E_SYNTAX', message: `the program does not parse as a script: ${message(error)}` };
  }
  return { ok: true, script };
}

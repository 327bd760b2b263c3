// The CLI's lines hold module and client text only as data (redteam-v22 V22-4): every template literal with a
// substitution that reaches io.out / io.err / io.status is written with the `line` tag (cli/io.ts), which escapes each
// interpolated value's line breaks and terminal controls, so a description, a name or a message fills its place in
// the line and can never write a line the operator reads as envforge's own. JSON output (JSON.stringify) is one line.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { line } from '../cli/io.js';

const CLI = fileURLToPath(new URL('../cli/', import.meta.url));
/** Io's printers, and the progress printer's line that stays (cli/progress.ts). */
const PRINTS = new Set(['out', 'err', 'status', 'stay']);

/** Each template with a substitution printed by an Io method without the `line` tag, as `file:line: text`. */
export function untaggedLines(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  // A value already written for its place: a `line` template, or a block (cli/io.ts) whose every line is marked.
  const marked = (e: ts.Expression): boolean =>
    (ts.isTaggedTemplateExpression(e) && e.tag.getText() === 'line') ||
    (ts.isCallExpression(e) && /^block\(/.test(e.getText())) ||
    (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && marked(e.expression.expression));
  const inArgument = (node: ts.Node): void => {
    if (ts.isTaggedTemplateExpression(node) && node.tag.getText() === 'line') return; // its values are escaped
    if (ts.isCallExpression(node) && node.expression.getText() === 'JSON.stringify') return; // one JSON line
    if (ts.isTemplateExpression(node) && !node.templateSpans.every((span) => marked(span.expression)))
      found.push(
        `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText().slice(0, 60)}`,
      );
    ts.forEachChild(node, inArgument);
  };
  const visit = (node: ts.Node): void => {
    const callee = ts.isCallExpression(node)
      ? ts.isPropertyAccessExpression(node.expression)
        ? node.expression.name.text
        : node.expression.getText()
      : '';
    if (ts.isCallExpression(node) && PRINTS.has(callee)) {
      for (const argument of node.arguments) inArgument(argument);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("the CLI's lines", () => {
  it('the line tag escapes each value, and only the values', () => {
    const description = 'fine.\n  hash 0000  validator 0.0.0\u2028next\u001b[2J';
    expect(line`  title: ${description}\n  hash ${'abc'}`).toBe(
      '  title: fine.\\u000a  hash 0000  validator 0.0.0\\u2028next\\u001b[2J\n  hash abc',
    );
    expect(line`${3} of ${4}`).toBe('3 of 4');
  });

  it('the scan finds an untagged template in each form, and nothing tagged', () => {
    const probe = [
      'io.out(`a ${x}`);',
      'io.err("plain");',
      'io.out(line`a ${x}`);',
      'io.out(xs.map((e) => `retired ${e}`).join("\\n"));',
      'io.out(JSON.stringify({ a: `${x}` }));',
      'io.out(line`a ${y ? `: ${z}` : ""}`);',
      'io.status(`${n} done`);',
      'io.out(`   → ${block(o).trimStart()}`);',
      'io.out(`${line`${a}`} and ${b}`);',
    ].join('\n');
    expect(untaggedLines('x.ts', probe).map((hit) => hit.split(': ')[0])).toEqual([
      'x.ts:1',
      'x.ts:4',
      'x.ts:7',
      'x.ts:9',
    ]);
  });

  it('every template the CLI prints is tagged', () => {
    const files = readdirSync(CLI).filter((f) => f.endsWith('.ts'));
    const hits = files.flatMap((f) => untaggedLines(`cli/${f}`, readFileSync(join(CLI, f), 'utf8')));
    expect(hits).toEqual([]);
  });
});

// A module's text split as JavaScript reads it: what it holds as string content (string literals and the
// text parts of template literals) and what it holds as code (identifiers and dotted member paths), for
// the validator's residue check (text that is code in the source but shows up in a prompt).
import { tokenizer, tokTypes, type Token } from 'acorn';

export interface SourceParts {
  /** The contents of every string literal and template text part. */
  strings: string[];
  /** Every identifier used as code. */
  identifiers: Set<string>;
  /** Every dotted member path written as code (`THEME.cell`, `w.items.length`). */
  paths: Set<string>;
  /**
   * Names the module declares (`const X`, `let`, `var`, `function X`, `class X`): its own code's names, not globals.
   */
  declared: Set<string>;
}

/** Splits a module; a source acorn cannot tokenise gives empty parts (the static stage reports E_SYNTAX). */
export function sourceParts(source: string): SourceParts {
  const parts: SourceParts = { strings: [], identifiers: new Set(), paths: new Set(), declared: new Set() };
  let tokens: Token[];
  try {
    tokens = [...tokenizer(source, { ecmaVersion: 'latest', sourceType: 'module' })];
  } catch {
    return parts;
  }
  let path: string[] = [];
  let afterDot = false;
  let declaring = false;
  const endPath = () => {
    if (path.length > 1) for (let i = 2; i <= path.length; i++) parts.paths.add(path.slice(0, i).join('.'));
    path = [];
  };
  for (const t of tokens) {
    if (t.type === tokTypes.string || t.type === tokTypes.template) {
      const value = (t as Token & { value?: unknown }).value;
      if (typeof value === 'string') parts.strings.push(value);
      endPath();
    } else if (t.type === tokTypes.name || t.type.keyword !== undefined) {
      const name = source.slice(t.start, t.end);
      if (t.type === tokTypes.name) parts.identifiers.add(name);
      if (t.type === tokTypes.name && declaring) parts.declared.add(name);
      declaring = ['const', 'let', 'var', 'function', 'class'].includes(name) && t.type !== tokTypes.name;
      if (!afterDot) endPath();
      path.push(name);
    } else if (t.type === tokTypes.dot) {
      afterDot = true;
      continue;
    } else endPath();
    afterDot = false;
  }
  endPath();
  return parts;
}

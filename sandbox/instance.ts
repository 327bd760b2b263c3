// The module as a factory of fresh instances: a host-side rewrite of the guest's ES module (parsed with acorn)
// into a module exporting one function whose body is the guest's top level and which returns its exports,
// so the runtime can evaluate a new instance per episode and no state carries from one episode to the next.
import { parse, tokTypes, type Node, type Pattern, type Token } from 'acorn';

/**
 * The factory module's one export: a function that evaluates a fresh instance of the guest module and
 * returns its reader, `read(name)`, the current value of export `name` (undefined for a name not exported).
 * It is the anonymous default export, so no name in the guest's code reaches it: a named function would be
 * one object shared by every instance, on which a guest could keep state from call to call.
 */
export const FACTORY_EXPORT = 'default';
const DEFAULT_LOCAL = '__envforgeDefault';
/** import.meta of the module a guest wrote is its own, mutable object: each instance gets a fresh one. */
const META_LOCAL = '__envforgeImportMeta';

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Binding names a declaration pattern introduces (`const { a, b: [c] } = …` → a, c). */
function patternNames(pattern: Pattern, out: string[]): void {
  switch (pattern.type) {
    case 'Identifier':
      out.push(pattern.name);
      return;
    case 'ObjectPattern':
      for (const p of pattern.properties)
        patternNames(p.type === 'RestElement' ? p.argument : (p.value as Pattern), out);
      return;
    case 'ArrayPattern':
      for (const p of pattern.elements) if (p) patternNames(p, out);
      return;
    case 'RestElement':
      patternNames(pattern.argument, out);
      return;
    case 'AssignmentPattern':
      patternNames(pattern.left, out);
      return;
    default:
      return;
  }
}

function declared(node: Node): string[] {
  const names: string[] = [];
  if (node.type === 'FunctionDeclaration' || node.type === 'ClassDeclaration') {
    const id = (node as { id?: { name: string } | null }).id;
    if (id) names.push(id.name);
  } else if (node.type === 'VariableDeclaration') {
    for (const d of (node as unknown as { declarations: Array<{ id: Pattern }> }).declarations)
      patternNames(d.id, names);
  }
  return names;
}

/**
 * Each `import.meta` (the keyword import, a dot, meta: nothing else in a module) becomes the instance's own
 * object; it and each dynamic `import(…)` (the keyword, a parenthesis) are reported as reaches: capabilities
 * that exist only as syntax, so the parse (tokens, never comments or strings) finds every one of them, and
 * code made from a string at run time is refused by a tripwire of its own (tripwires.js).
 */
function importTokens(source: string, tokens: Token[], reaches: string[]): Edit[] {
  const edits: Edit[] = [];
  const line = (at: number) => source.slice(0, at).split('\n').length;
  for (let i = 0; i + 1 < tokens.length; i++) {
    const [a, next, meta] = [tokens[i], tokens[i + 1], tokens[i + 2]] as [Token, Token, Token | undefined];
    if (a.type !== tokTypes._import) continue;
    if (next.type === tokTypes.parenL) reaches.push(`dynamic import() (line ${line(a.start)})`);
    if (next.type === tokTypes.dot && meta?.type === tokTypes.name && source.slice(meta.start, meta.end) === 'meta') {
      reaches.push(`import.meta (line ${line(a.start)})`);
      edits.push({ start: a.start, end: meta.end, text: META_LOCAL });
    }
  }
  return edits;
}

const nameOf = (n: { type: string; name?: string; value?: unknown }): string =>
  n.type === 'Identifier' ? (n.name as string) : String(n.value);

/** The factory module for a guest module (see readModule). */
export function factorySource(source: string): string {
  return readModule(source).factory;
}

/**
 * The factory module for a guest module that has already compiled as a module without imports, and the
 * syntax-only capabilities it reaches for (import(), import.meta). Throws a SyntaxError when acorn cannot
 * parse it (the caller reports E_SYNTAX). Exports are read through the instance's reader, so they stay live
 * bindings as in a module namespace; their names are returned too, known before any of the module runs.
 */
export function readModule(source: string): { factory: string; reaches: string[]; exports: string[] } {
  const tokens: Token[] = [];
  const program = parse(source, { ecmaVersion: 'latest', sourceType: 'module', onToken: tokens });
  const reaches: string[] = [];
  const edits: Edit[] = importTokens(source, tokens, reaches);
  const usesMeta = edits.length > 0;
  const exported = new Map<string, string>(); // exported name -> local binding
  for (const node of program.body) {
    if (
      node.type === 'ImportDeclaration' ||
      node.type === 'ExportAllDeclaration' ||
      (node.type === 'ExportNamedDeclaration' && node.source)
    ) {
      throw new SyntaxError('the module imports or re-exports another module');
    }
    if (node.type === 'ExportNamedDeclaration') {
      if (node.declaration) {
        edits.push({ start: node.start, end: node.declaration.start, text: '' });
        for (const name of declared(node.declaration)) exported.set(name, name);
      } else {
        edits.push({ start: node.start, end: node.end, text: ';' });
        for (const s of node.specifiers) exported.set(nameOf(s.exported), nameOf(s.local));
      }
    } else if (node.type === 'ExportDefaultDeclaration') {
      const d = node.declaration;
      const named = (d.type === 'FunctionDeclaration' || d.type === 'ClassDeclaration') && d.id;
      if (named) {
        edits.push({ start: node.start, end: d.start, text: '' });
        exported.set('default', d.id.name);
      } else if (d.type === 'FunctionDeclaration' || d.type === 'ClassDeclaration') {
        // An anonymous default function or class becomes an expression bound to a name the instance returns.
        edits.push({ start: node.start, end: d.start, text: `const ${DEFAULT_LOCAL} = ` });
        exported.set('default', DEFAULT_LOCAL);
      } else {
        edits.push(
          { start: node.start, end: d.start, text: `const ${DEFAULT_LOCAL} = (` },
          { start: d.end, end: d.end, text: ');' },
        );
        exported.set('default', DEFAULT_LOCAL);
      }
    }
  }
  let body = '';
  let at = 0;
  for (const e of edits.sort((a, b) => a.start - b.start)) {
    body += source.slice(at, e.start) + e.text;
    at = e.end;
  }
  body += source.slice(at);
  // A hashbang line is valid only at the very start of a module: inside the factory it becomes a comment.
  if (body.startsWith('#!')) body = `//${body.slice(2)}`;
  // The reader is a plain function whose one switch names the bindings: an object of getters would cost a
  // runtime call per accessor (≈1.5 µs an instance in V8, three instances an episode) where this costs a
  // closure. It reads its name from `arguments`, which strict code cannot declare, so no guest binding can
  // shadow it; it has no parameters or locals of its own to shadow a guest binding.
  const cases = [...exported].map(([name, local]) => `case ${JSON.stringify(name)}: return ${local};`).join(' ');
  // A newline before the closing lines, so a trailing line comment in the guest cannot swallow them; no
  // global is named here, so a guest that shadows one cannot change what the instance returns.
  const meta = usesMeta ? `const ${META_LOCAL} = { __proto__: null };\n` : '';
  return {
    factory:
      `export default function () {\n${meta}${body}\n;return function () { switch ` +
      `(arguments[0]) { ${cases} } };\n}\n`,
    reaches,
    exports: [...exported.keys()],
  };
}

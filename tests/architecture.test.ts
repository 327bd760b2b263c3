// The architecture as a test: imports point only down the declared layers, no file imports itself back
// through a cycle, libraries with a side of their own stay in their layer, source files stay small and
// no line is over 120 characters, and only kinds/ compares kind names.
// docs/architecture.md draws the same layers.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../kinds/registry.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Bottom to top. A file may import its own folder and any folder on a lower row; folders on one row are siblings and
 * may not import each other.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['contract'], // types, codes, identity, version, paths, hashing, the answer rule
  ['sandbox'],
  ['kinds'], // what differs between single-turn and episodic environments (the kind plug)
  ['validators'],
  ['library'],
  ['agents'], // the authors: LLM client, prompts, offline author
  ['pipeline'],
  ['export', 'serve', 'dashboard'], // trainer datasets · the reward service · the web page over the library
  ['nightly'], // the night's work in one run: revalidate, retire, batch, export, report
  ['cli', 'bench', 'index.ts'],
];

/** Packages that belong to one part: importing them elsewhere means that part's job leaked. */
const PACKAGE_HOMES: Record<string, (file: string) => boolean> = {
  commander: (f) => f.startsWith('cli/'),
  'log-update': (f) => f.startsWith('cli/'),
  fastify: (f) => f.startsWith('serve/') || f.startsWith('dashboard/'),
  // The WebSocket server of OpenEnv's session endpoint, and the benchmark's client.
  ws: (f) => f.startsWith('serve/') || f.startsWith('bench/'),
  'better-sqlite3': (f) => f.startsWith('library/sqlite/'),
  // The PostgreSQL client: the store, the queue on the same database, and the throwaway server of tests and benchmarks.
  pg: (f) => f.startsWith('library/postgres/') || f === 'bench/postgres-server.ts',
  'pg-boss': (f) => f.startsWith('library/postgres/'),
  'isolated-vm': (f) => f.startsWith('sandbox/'),
  ses: (f) => f.startsWith('sandbox/'),
  acorn: (f) => f.startsWith('sandbox/'),
  openai: (f) => f.startsWith('agents/llm/') || f.startsWith('bench/'),
  '@anthropic-ai/sdk': (f) => f.startsWith('agents/llm/'),
  'hyparquet-writer': (f) => f.startsWith('export/'),
};

/** Lines a source file may have; seeds are environments (data), the guest runtime is one script by design. */
const MAX_LINES = 350;
const SIZE_EXEMPT = new Set(['sandbox/guest-runtime.js']);
/** Lines of a file's opening comment. */
const MAX_HEADER_LINES = 8;

const layerOf = new Map<string, number>(LAYERS.flatMap((row, i) => row.map((part) => [part, i] as const)));
const partOf = (file: string): string => file.split('/')[0] as string;
/** Lines as wc -l counts them. */
const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const path = dir ? `${dir}/${name}` : name;
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (/\.(ts|js)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
    }
  };
  for (const part of layerOf.keys()) {
    if (part.endsWith('.ts')) out.push(part);
    else walk(part);
  }
  return out.sort();
}

interface Edge {
  from: string;
  to: string;
  /** The specifier as written. */
  spec: string;
}

/** Every import of a file (static, re-export, dynamic, type-only), relative ones resolved to files under ROOT. */
function importsOf(file: string, text: string): { local: Edge[]; packages: string[] } {
  const info = ts.preProcessFile(text, true, true);
  const local: Edge[] = [];
  const packages: string[] = [];
  for (const { fileName: spec } of info.importedFiles) {
    if (spec.startsWith('.')) {
      const to = relative(ROOT, join(ROOT, dirname(file), spec))
        .split(sep)
        .join('/')
        .replace(/\.js$/, '.ts');
      local.push({ from: file, to, spec });
    } else if (!spec.startsWith('node:')) {
      packages.push(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string));
    }
  }
  return { local, packages };
}

/** Why an edge breaks the layering, or null when it points down or stays in its folder. */
export function layerViolation(edge: Pick<Edge, 'from' | 'to'>): string | null {
  const from = partOf(edge.from);
  const to = partOf(edge.to);
  if (from === to) return null;
  const a = layerOf.get(from);
  const b = layerOf.get(to);
  if (a === undefined || b === undefined) return `${to} is not a declared layer`;
  if (b > a) return `${from} (layer ${a}) imports ${to} (layer ${b}), which is above it`;
  if (b === a) return `${from} imports its sibling ${to}: move what they share down a layer`;
  return null;
}

function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const files = sourceFiles();
const texts = new Map(files.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));
const parsed = new Map(files.map((f) => [f, importsOf(f, texts.get(f) as string)]));

describe('the architecture', () => {
  it(
    'finds the source files and their imports (the parser sees static, type-only, ' +
      're-exported and dynamic imports)',
    () => {
      expect(files.length).toBeGreaterThan(100);
      const probe = importsOf(
        'pipeline/x.ts',
        "import a from '../cli/a.js';\nimport type { B } from '../cli/b.js';\nexport { c } from " +
          "'./c.js';\nconst d = await import('../serve/d.js');\nimport 'commander';",
      );
      expect(probe.local.map((e) => e.to)).toEqual(['cli/a.ts', 'cli/b.ts', 'pipeline/c.ts', 'serve/d.ts']);
      expect(probe.packages).toEqual(['commander']);
      expect(probe.local.map(layerViolation)).toEqual([
        expect.stringContaining('above it'),
        expect.stringContaining('above it'),
        null,
        expect.stringContaining('above it'),
      ]);
      expect(layerViolation({ from: 'export/a.ts', to: 'serve/b.ts' })).toContain('sibling');
      expect(layerViolation({ from: 'serve/a.ts', to: 'library/b.ts' })).toBeNull();
    },
  );

  it(
    'every import points down a layer: contract → sandbox → kinds → validators → library → agents → ' +
      'pipeline → export/serve → cli',
    () => {
      const bad = [...parsed.values()]
        .flatMap((p) => p.local)
        .flatMap((edge) => {
          const why = layerViolation(edge);
          return why ? [`${edge.from} imports '${edge.spec}': ${why}`] : [];
        });
      expect(bad).toEqual([]);
    },
  );

  it('every relative import names a file that exists', () => {
    const known = new Set(files);
    const missing = [...parsed.values()]
      .flatMap((p) => p.local)
      .filter((e) => !known.has(e.to) && !known.has(e.to.replace(/\.ts$/, '.js')));
    expect(missing.map((e) => `${e.from} -> ${e.spec}`)).toEqual([]);
  });

  it('no file reaches itself through its imports', () => {
    const graph = new Map(files.map((f) => [f, (parsed.get(f) as { local: Edge[] }).local.map((e) => e.to)]));
    expect(cycles(graph)).toEqual([]);
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
  });

  it('the offline author reaches the validator only through its screening API (validators/screen.ts)', () => {
    const reach = files
      .filter((f) => f.startsWith('agents/offline/'))
      .flatMap((f) =>
        (parsed.get(f) as { local: Edge[] }).local
          .filter((e) => e.to.startsWith('validators/') && e.to !== 'validators/screen.ts')
          .map((e) => `${f} imports '${e.spec}'`),
      );
    expect(reach).toEqual([]);
  });

  it('packages with a job of their own are imported only by the part doing it (commander only in cli/)', () => {
    const bad = files.flatMap((file) =>
      (parsed.get(file) as { packages: string[] }).packages
        .filter((pkg) => PACKAGE_HOMES[pkg] && !PACKAGE_HOMES[pkg](file))
        .map((pkg) => `${file} imports ${pkg}`),
    );
    expect(bad).toEqual([]);
  });

  it(`source files stay under ${MAX_LINES} lines (seeds and the guest runtime aside)`, () => {
    const big = files
      .filter((f) => !SIZE_EXEMPT.has(f))
      .map((f) => [f, lineCount(texts.get(f) as string)] as const)
      .filter(([, n]) => n > MAX_LINES);
    expect(big.map(([f, n]) => `${f}: ${n} lines`)).toEqual([]);
  });

  it('the public API (index.ts) loads, names one thing per name, and re-exports no test double', async () => {
    const api = await import('../index.js');
    expect(Object.keys(api).length).toBeGreaterThan(50);
    for (const name of [
      'validateCandidate',
      'SandboxPool',
      'openLibrary',
      'runBatch',
      'runExport',
      'startServer',
      'AUTHORS',
      'CODES',
    ])
      expect(api).toHaveProperty(name);
    for (const double of ['FakeLlm', 'reply', 'FakeScriptPlayer']) expect(api).not.toHaveProperty(double);
  });

  it('every source file opens with a short comment that says what it is for (long explanations live in docs/)', () => {
    const bare = files.filter((f) => !/^(#![^\n]*\n)?\/\/ \S/.test(texts.get(f) as string));
    expect(bare).toEqual([]);
    const headerLines = (text: string) =>
      (/^(#![^\n]*\n)?((\/\/[^\n]*\n)+)/.exec(text)?.[2] ?? '').split('\n').length - 1;
    expect(
      files
        .filter((f) => !SIZE_EXEMPT.has(f) && headerLines(texts.get(f) as string) > MAX_HEADER_LINES)
        .map((f) => `${f}: ${headerLines(texts.get(f) as string)} lines`),
    ).toEqual([]);
  });

  it(`no source line is over ${MAX_WIDTH} characters once formatted (tests/ and the Python shims too)`, () => {
    // .ci/long-lines.json: the lines each file still had when the rule came (by hand to fix); a count only goes down.
    const allowed = JSON.parse(readFileSync(join(ROOT, '.ci/long-lines.json'), 'utf8')) as Record<string, number>;
    const over: string[] = [];
    const stale: string[] = [];
    for (const file of everySourceFile()) {
      const long = readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => ([...line].length > MAX_WIDTH ? [`${file}:${i + 1} (${[...line].length})`] : []));
      if (long.length > (allowed[file] ?? 0)) over.push(...long);
      else if (long.length < (allowed[file] ?? 0)) stale.push(`${file}: ${long.length}`);
    }
    const fix = `run \`npm run wrap\` (strings, templates, comments), then break what it lists by hand`;
    expect(over, `lines over ${MAX_WIDTH} characters: ${fix}`).toEqual([]);
    expect(stale, 'fewer long lines than .ci/long-lines.json allows: lower its count for').toEqual([]);
  });
});

/** Characters a line may have once formatted (biome.jsonc's lineWidth). */
const MAX_WIDTH = 120;
/** Environment modules (hashed into ids and golden decisions) and fixtures are data, left as written. */
const DATA_FOLDERS = /^(tests\/fixtures|seeds|prompts|generated|bench\/results|node_modules|dist)\//;

/**
 * Every TypeScript, JavaScript and Python file of the repository outside the data folders and hidden folders but .ci.
 */
function everySourceFile(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const path = dir ? `${dir}/${name}` : name;
      if (DATA_FOLDERS.test(`${path}/`) || (name.startsWith('.') && path !== '.ci') || name === '__pycache__') continue;
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (/\.(ts|js|cjs|mjs|py)$/.test(name)) out.push(path);
    }
  };
  walk('');
  return out.sort();
}

/** Every name a kind goes by (its canonical name and its label, kinds/registry.ts): only kinds/ compares them. */
const KIND_NAMES = new Set(Object.values(KINDS).flatMap((kind) => [kind.name, kind.label]));

/**
 * Each place `text` compares a value to a kind name: `x === 'episodic'`, `'code' !== x`, `case 'single':`,
 * `.includes('single-turn')`.
 */
export function kindComparisons(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const isKind = (node: ts.Node | undefined): boolean =>
    node !== undefined &&
    (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
    KIND_NAMES.has(node.text);
  const equality = new Set([
    ts.SyntaxKind.EqualsEqualsEqualsToken,
    ts.SyntaxKind.ExclamationEqualsEqualsToken,
    ts.SyntaxKind.EqualsEqualsToken,
    ts.SyntaxKind.ExclamationEqualsToken,
  ]);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const compares =
      (ts.isBinaryExpression(node) &&
        equality.has(node.operatorToken.kind) &&
        (isKind(node.left) || isKind(node.right))) ||
      (ts.isCaseClause(node) && isKind(node.expression)) ||
      (ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        ['includes', 'indexOf'].includes(node.expression.name.text) &&
        isKind(node.arguments[0]));
    if (compares)
      found.push(
        `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ` +
          `${node.getText().split('\n')[0]!.slice(0, 80)}`,
      );
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * Each table keyed by kind names in `text`: an object literal or type with two or more keys that are kind
 * names (`{ single: 2, episodic: 4 }`, `Record<'single' | 'episodic', …>`). One such key alone is a field
 * (a spec's `episodic` part), not a table: a kind's own values belong in its plug (kinds/<kind>.ts).
 */
export function kindTables(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const keyName = (name: ts.PropertyName | undefined): string | undefined =>
    name && (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name))
      ? name.text
      : undefined;
  const kindKeys = (names: Array<string | undefined>) =>
    names.filter((n): n is string => n !== undefined && KIND_NAMES.has(n)).length;
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const keys = ts.isObjectLiteralExpression(node)
      ? kindKeys(node.properties.map((p) => keyName(p.name)))
      : ts.isTypeLiteralNode(node)
        ? kindKeys(node.members.map((m) => keyName(m.name)))
        : 0;
    const union =
      ts.isTypeReferenceNode(node) &&
      node.typeName.getText() === 'Record' &&
      node.typeArguments?.[0] &&
      ts.isUnionTypeNode(node.typeArguments[0])
        ? kindKeys(
            node.typeArguments[0].types.map((t) =>
              ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal) ? t.literal.text : undefined,
            ),
          )
        : 0;
    if (keys >= 2 || union >= 2)
      found.push(
        `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ` +
          `${node.getText().split('\n')[0]!.slice(0, 80)}`,
      );
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The validator's options keep a section per kind's stages: thresholds live in validators/options.ts (house rule), not
 * in plugs.
 */
const KIND_TABLE_EXEMPT = new Set(['validators/options.ts', 'validators/validate.ts']);

describe('the kind plug', () => {
  it('finds a comparison to a kind name in each of its forms, and nothing else', () => {
    const probe =
      "if (a === 'episodic' || 'single' !== b.kind) f();\nswitch (k) { case 'code': break; case 'other': " +
      "break; }\nkinds.includes('single-turn');\nconst x = { kind: 'episodic' };\nif (s === 'mixed' || " +
      "t.includes('words')) g();";
    expect(kindComparisons('x.ts', probe).map((hit) => hit.split(': ')[0])).toEqual([
      'x.ts:1',
      'x.ts:1',
      'x.ts:2',
      'x.ts:3',
    ]);
  });

  it('nothing outside kinds/ compares kind names: a kind says how it differs, the rest asks it', () => {
    const hits = files
      .filter((f) => !f.startsWith('kinds/'))
      .flatMap((f) => kindComparisons(f, texts.get(f) as string));
    expect(hits).toEqual([]);
  });

  it(
    'finds a table keyed by kind names as an object, a type or a Record of names, and not a lone ' +
      'field named after a kind',
    () => {
      const probe =
        "const a = { single: 1, episodic: 2 };\ntype B = { 'single-turn': string; code: string };\nconst c: " +
        "Record<'single' | 'code', number> = f();\nconst d = { episodic: part, name: 'x' };";
      expect(kindTables('x.ts', probe).map((hit) => hit.split(': ')[0])).toEqual(['x.ts:1', 'x.ts:2', 'x.ts:3']);
    },
  );

  it(
    'nothing outside kinds/ keeps a table keyed by kind names: each kind supplies its values through its plug, ' +
      'the rest iterates the registry',
    () => {
      const hits = files
        .filter((f) => !f.startsWith('kinds/') && !KIND_TABLE_EXEMPT.has(f))
        .flatMap((f) => kindTables(f, texts.get(f) as string));
      expect(hits).toEqual([]);
    },
  );
});

// Module text in every export field, read back by each file's real reader: strings built to break YAML, OmegaConf
// (interpolations), Python (quotes, backslashes, NUL), transformers' docstring reader, JSONL (line separators) and
// Markdown sit in tool and parameter descriptions, enum values, prompts, skills and environment names. Every format
// writes them; OmegaConf and PyYAML load the YAML to exactly what was meant (nothing resolved), every Python file
// compiles and imports, JSON and JSONL (split as Python splits lines) and parquet (hyparquet and arrow-rs) give back
// the very strings, the model-facing schemas carry them verbatim, and READMEs hold no raw control or markup character.
// Once with every string written straight to the format writers (control characters too, in case the contract one
// day lets them through), once through a library, `envforge export` and the sandbox with what the contract admits.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitEpisodic } from '../bench/episodic-library.js';
import { identityString } from '../contract/identity.js';
import type { ExportRow, ShimEnv } from '../export/contract.js';
import { OutputFiles } from '../export/files.js';
import { FORMATS, type FormatName } from '../export/registry.js';
import { runExport } from '../export/run.js';
import { parseSplit } from '../export/select.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';
import { readWithArrow } from './helpers/arrow-reader.js';
import { PYTHON } from './helpers/python.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const ADMITTED = [
  '${oc.env:HOME,x}',
  '${claim_id}',
  '${oc.decode:"{a: 1}"}',
  '"double" \'single\' """triple""" \'\'\'three\'\'\'',
  'back\\slash \\n \\u0041 \\',
  '& anchor * alias ! tag | block > folded % directive @ at ` tick',
  '- leading dash',
  'key: value # comment',
  '<script>alert(1)</script> **bold** [link](http://x) # heading',
  'line\nbreak',
  'LS\u2028PS\u2029',
  'Args: x: y Returns: z Raises: w (choices: [1])',
  '{{ jinja }} {% raw %}',
];
const CONTROLS = [
  'DEL \u007f',
  'NUL \u0000 here',
  'C0 \u0001\u001b[2J\u0007',
  'C1 \u0085 \u009b31m',
  'CR\rLF\nCRLF\r\n',
  'lone \ud800 surrogate',
];
const ALL = [...ADMITTED, ...CONTROLS];
const AGENT_LOOP = [{ name: 'envforge_agent', _target_: 'envforge_verl.EnvforgeAgentLoop' }];
const FORMAT_DIRS: FormatName[] = ['verl', 'trl', 'openrlhf', 'jsonl'];
type Json = Record<string, unknown>;
interface Read {
  compiled: string[];
  jsonl: Record<string, Json[]>;
  json: Record<string, Json>;
  omegaconf: unknown;
  yaml: unknown;
  verl_tools: Record<
    string,
    Array<{
      function: {
        name: string;
        description: string;
        parameters: { properties: Record<string, { description?: string; enum?: string[] }> };
      };
    }>
  >;
  trl_classes: Record<string, { class: string; methods: Record<string, string> }>;
}

/**
 * Enum values as TRL can offer them: transformers strips each (trlRefuses leaves out an environment with such a value).
 */
const enumValue = (s: string) => s.replace(/^[\s\x1c-\x1f\x85]+|[\s\x1c-\x1f\x85]+$/g, '');

function tools(strings: string[]) {
  const text = strings.join(' | ');
  return [
    {
      name: 'inspect',
      description: text,
      parameters: {
        type: 'object',
        additionalProperties: false,
        required: ['what'],
        properties: {
          what: { type: 'string', description: text, enum: strings.map(enumValue) },
          n: { type: 'integer', description: text, minimum: 1, maximum: 5 },
        },
      },
    },
    { name: 'finish', description: text, parameters: { type: 'object', properties: {} } },
  ];
}

async function readAll(dirs: Record<FormatName, string>): Promise<Read> {
  const { stdout } = await promisify(execFile)(
    PYTHON,
    [join(FIXTURES, 'hostile-readers.py'), dirs.verl, dirs.trl, dirs.openrlhf, dirs.jsonl],
    {
      env: { ...process.env, PYTHONPATH: join(FIXTURES, 'trainer-stand-ins'), PYTHONDONTWRITEBYTECODE: '1' },
      maxBuffer: 64 * 2 ** 20,
    },
  );
  return JSON.parse(stdout) as Read;
}

async function parquet(path: string): Promise<Json[]> {
  const bytes = readFileSync(path);
  const hy = (await parquetReadObjects({
    file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  })) as Json[];
  // parquet-wasm's stream cannot decode a file with no rows (pyarrow reads it as an empty table)
  if (hy.length === 0) return hy;
  const arrow = readWithArrow(path).rows;
  const text = (rows: Json[]) =>
    rows.map((r) => JSON.stringify(r, (_, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)));
  expect(text(arrow)).toEqual(text(hy));
  return hy;
}

/** What every export of `envs` must satisfy, whatever wrote it. */
async function checkReaders(
  dirs: Record<FormatName, string>,
  strings: string[],
  episodicNames: string[],
): Promise<void> {
  const text = strings.join(' | ');
  const read = await readAll(dirs);
  expect(read.compiled.sort()).toEqual(
    [
      'agent_func.py',
      'compute_score.py',
      'envforge_client.py',
      'envforge_client.py',
      'envforge_client.py',
      'envforge_client.py',
      'envforge_verl.py',
      'environment.py',
      'reward.py',
    ].sort(),
  );
  // YAML: what verl's OmegaConf.load resolves is exactly what was written.
  expect(read.omegaconf).toEqual(AGENT_LOOP);
  expect(read.yaml).toEqual(AGENT_LOOP);
  // JSON: the shims' config gives back every tool string as written.
  for (const format of ['verl', 'trl', 'openrlhf'] as const) {
    const config = read.json[`${format}/envforge.json`] as { envs: Record<string, { tools?: unknown }> };
    for (const name of episodicNames) expect(config.envs[name]?.tools, `${format} ${name}`).toEqual(tools(strings));
  }
  // The schemas verl's model sees: the strings verbatim, bounds added in words.
  for (const name of episodicNames) {
    const [inspect] = read.verl_tools[name] ?? [];
    expect(inspect?.function.description).toBe(`${text} (Takes only the parameters listed.)`);
    expect(inspect?.function.parameters.properties.what).toEqual({
      type: 'string',
      description: text,
      enum: strings.map(enumValue),
    });
    expect(inspect?.function.parameters.properties.n?.description).toBe(`${text} (1 to 5)`);
    // TRL: one docstring per tool whose structure transformers' reader finds intact (one Args and one Returns section).
    const doc = read.trl_classes[name]?.methods.inspect as string;
    expect(doc.split('\n').map((l) => l.replace(/:.*/s, ':'))).toEqual([
      expect.any(String),
      '',
      'Args:',
      '    what:',
      '    n:',
      '',
      'Returns:',
      expect.any(String),
    ]);
  }
  // JSONL: Python's splitlines finds exactly one line per row, each parsing back to the very prompt.
  for (const [file, rows] of Object.entries(read.jsonl)) {
    for (const row of rows) {
      const prompt = (row.prompt ?? row.input) as unknown;
      const shown = typeof prompt === 'string' ? prompt : ((prompt as Array<{ content: string }>)[0]?.content ?? '');
      if (file.endsWith('.episodic.jsonl')) expect(shown, file).toBe('');
      else expect(shown.includes(strings[0] as string) || shown === '', file).toBe(true);
    }
  }
  for (const [dir, files] of [
    [dirs.verl, ['train.parquet']],
    [dirs.trl, ['train.parquet']],
  ] as const) {
    for (const file of files)
      for (const row of await parquet(join(dir, file)))
        expect(JSON.stringify(row.prompt)).toContain(JSON.stringify(strings[0]).slice(1, -1));
  }
  // No module text in any YAML or Python file: the shims read it from JSON at run time.
  for (const format of FORMAT_DIRS) {
    for (const file of readdirSync(dirs[format]).filter((f) => /\.(py|yaml)$/.test(f)))
      expect(readFileSync(join(dirs[format], file), 'utf8'), file).not.toContain('oc.env:HOME');
  }
  // READMEs: no raw control character, no markup from a name.
  for (const format of FORMAT_DIRS) {
    const readme = readFileSync(join(dirs[format], 'README.md'), 'utf8');
    expect(readme, format).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]|<script>/);
  }
}

describe('hostile module text, straight to every format writer (control characters included)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'envforge-hostile-formats-'));
  const dirs = Object.fromEntries(FORMAT_DIRS.map((f) => [f, join(tmp, f)])) as Record<FormatName, string>;
  const text = ALL.join(' | ');
  const hostileName = `\${oc.env:HOME,x}\n"'`;
  const envs: ShimEnv[] = [
    { name: 'depot', version: 1, hash: 'h1', kind: 'episodic', episodic: { maxTurns: 5, tools: tools(ALL) } },
    // Two names that fold to one Python class name, and a tool name another environment declares differently.
    {
      name: 'x-1',
      version: 1,
      hash: 'h2',
      kind: 'episodic',
      episodic: {
        maxTurns: 5,
        tools: [
          {
            name: 'inspect',
            description: 'Another inspect.',
            parameters: { type: 'object', properties: { id: { type: 'string' } } },
          },
        ],
      },
    },
    {
      name: 'x1',
      version: 1,
      hash: 'h3',
      kind: 'episodic',
      episodic: {
        maxTurns: 5,
        tools: [{ name: 'finish', description: 'Finish.', parameters: { type: 'object', properties: {} } }],
      },
    },
    { name: hostileName, version: 1, hash: 'h4', kind: 'single-turn' },
  ];
  const rows: ExportRow[] = envs.flatMap((env, e) =>
    [0, 1].map((k) => ({
      env: env.name,
      version: 1,
      seed: k,
      level: 1,
      split: 'train',
      index: 2 * e + k,
      prompt: text,
      groundTruth: identityString({ env: env.name, version: 1, seed: k, level: 1 }),
      skills: [text],
      ...(env.episodic ? { task: text } : {}),
    })),
  );
  let read: Read;

  beforeAll(async () => {
    for (const format of FORMAT_DIRS) {
      const files = new OutputFiles(dirs[format]);
      mkdirSync(dirs[format], { recursive: true });
      const writer = await FORMATS[format].begin({
        dir: dirs[format],
        splits: ['train'],
        serviceUrl: 'http://127.0.0.1:9',
        envs,
        files,
      });
      await writer.write(rows);
      await writer.end();
      files.commit();
    }
    read = await readAll(dirs);
  }, 60_000);

  it('every reader gives back the strings as written, and nothing is resolved', async () => {
    await checkReaders(dirs, ALL, ['depot']);
  });

  it('environments that share a tool name keep their own schemas, and names that fold to one class get two', () => {
    expect(read.verl_tools['x-1']?.map((t) => t.function.parameters.properties)).toEqual([{ id: { type: 'string' } }]);
    expect(read.verl_tools.depot?.[0]?.function.parameters.properties.what?.enum).toEqual(ALL.map(enumValue));
    expect(Object.fromEntries(Object.entries(read.trl_classes).map(([env, c]) => [env, c.class]))).toEqual({
      depot: 'DepotEnv',
      'x-1': 'X1Env',
      x1: 'X1Env2',
    });
  });

  const trlPython = process.env.ENVFORGE_TRL_PYTHON;
  it.skipIf(!trlPython)(
    `transformers reads every tool schema of environment.py with the strings verbatim (optional tier: ` +
      `ENVFORGE_TRL_PYTHON, a python3 with transformers${trlPython ? '' : ', not set: skipped'})`,
    async () => {
      const script = [
        'import json, sys',
        'sys.path.insert(0, sys.argv[1])',
        'import environment',
        'from transformers.utils import get_json_schema',
        'out = {}',
        'for env, cls in environment.ENVIRONMENTS.items():',
        '    instance = cls()',
        '    out[env] = {name: get_json_schema(getattr(instance, name)) for name, m in vars(cls).items() if ' +
          'callable(m) and not name.startswith("_")}',
        'print(json.dumps({"schemas": out, "doc_text": environment.doc_text(json.loads(sys.argv[2]))}))',
      ].join('\n');
      const { stdout } = await promisify(execFile)(
        trlPython as string,
        ['-c', script, dirs.trl, JSON.stringify(text)],
        { maxBuffer: 16 * 2 ** 20 },
      );
      const { schemas, doc_text: words } = JSON.parse(stdout) as {
        schemas: Record<
          string,
          Record<
            string,
            {
              function: {
                description: string;
                parameters: {
                  properties: Record<string, { type: string; description: string; enum?: unknown[] }>;
                  required?: string[];
                };
              };
            }
          >
        >;
        doc_text: string;
      };
      const inspect = schemas.depot?.inspect?.function;
      expect(inspect?.description).toBe(words);
      expect(inspect?.parameters.properties.what).toEqual({
        type: 'string',
        description: words,
        enum: ALL.map(enumValue),
      });
      expect(inspect?.parameters.properties.n).toEqual({
        type: 'integer',
        description: `${words} (1 to 5)`,
        nullable: true,
      });
      expect(inspect?.parameters.required).toEqual(['what']);
      expect(Object.keys(schemas)).toEqual(['depot', 'x-1', 'x1']);
    },
  );

  it('parquet and JSONL give back prompts, skills and names byte for byte', async () => {
    const verl = await parquet(join(dirs.verl, 'train.parquet'));
    // Parquet strings are UTF-8, which has no lone surrogates: the one in the list arrives as U+FFFD (the contract
    // refuses them).
    const utf8 = text.toWellFormed();
    expect(verl.map((r) => [r.data_source, (r.prompt as Array<{ content: string }>)[0]?.content, r.ability])).toEqual(
      rows.map((r) => [`envforge/${r.env}`.toWellFormed(), utf8, utf8]),
    );
    expect(read.jsonl['jsonl/train.jsonl']?.map((r) => [r.env, r.prompt])).toEqual(rows.map((r) => [r.env, text]));
    expect(read.jsonl['trl/train.jsonl']?.map((r) => [r.env, r.prompt])).toEqual(
      rows.filter((r) => r.task === undefined).map((r) => [r.env, text]),
    );
    expect(read.jsonl['openrlhf/train.jsonl']?.map((r) => (r.input as string).startsWith(text))).toEqual(
      rows.map(() => true),
    );
  });
});

describe('hostile module text through a library and envforge export (what the contract admits)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'envforge-hostile-library-'));
  const dirs = Object.fromEntries(FORMAT_DIRS.map((f) => [f, join(tmp, f)])) as Record<FormatName, string>;
  let pool: SandboxPool;

  beforeAll(async () => {
    pool = new SandboxPool({ workers: 1 });
    const text = JSON.stringify(ADMITTED.join(' | '));
    const source =
      `export const meta = { name: 'hostile-desk', title: ${JSON.stringify(ADMITTED.slice(0, 3).join(' '))}, ` +
      `description: ${text}, skills: ['tool-use'], levels: 3, kind: 'episodic', maxTurns: 6, tools: ` +
      `${JSON.stringify(tools(ADMITTED))} };
const VALUES = meta.tools[0].parameters.properties.what.enum;
export function reset(rng, level) { return { state: { picked: null }, prompt: ${JSON.stringify(`${ADMITTED[0]} | `)} ` +
      `+ meta.description + ' #' + rng.int(0, 1000000) + ' Pick the first value, then finish.' }; }
export function step(state, action, rng) { return action.tool === 'inspect' ? { state: { picked: action.args.what }, ` +
      `observation: 'picked ' + action.args.what, done: false } : { state, observation: ` +
      `'finished', done: true }; }
export function score(state) { return state.picked === VALUES[0] ? 1 : 0; }
export function act(state) { return state.picked === null ? { tool: 'inspect', args: { what: VALUES[0] } } : { ` +
      `tool: 'finish', args: {} }; }
`;
    const library = SqliteLibrary.open(join(tmp, 'library'), { create: true });
    await admitEpisodic(library, pool, [{ name: 'hostile-desk', source }]);
    await library.close();
    const readonly = SqliteLibrary.open(join(tmp, 'library'), { readonly: true });
    try {
      for (const format of FORMAT_DIRS)
        await runExport(readonly, pool, {
          format: FORMATS[format],
          out: dirs[format],
          selection: {},
          counts: { perEnv: 3 },
          splits: parseSplit('train:1'),
          seed: 1,
          serviceUrl: 'http://127.0.0.1:9',
        });
    } finally {
      await readonly.close();
    }
  }, 60_000);
  afterAll(async () => {
    await pool?.close();
  });

  it('exports to every format, and every reader gives back the strings as written', async () => {
    await checkReaders(dirs, ADMITTED, ['hostile-desk']);
    const verl = await parquet(join(dirs.verl, 'train.parquet'));
    for (const row of verl)
      expect(
        (row.prompt as Array<{ content: string }>)[0]?.content.startsWith(`${ADMITTED[0]} | ${ADMITTED.join(' | ')} #`),
      ).toBe(true);
  });
});

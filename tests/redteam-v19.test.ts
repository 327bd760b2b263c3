// Red team v19 (Trust V, session 15): each open finding of tests/fixtures/redteam-v19/FINDINGS.md asserted still
// there, so the suite stays green while it is open and fails the day a fix closes it (then flip its manifest entry
// to "closed" and turn the assertion into the fix's own).
import { execFile, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitEpisodic } from '../bench/episodic-library.js';
import { printReport } from '../cli/validate.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';
import { startServer } from '../serve/server.js';
import { sentencesOf } from '../validators/episodic/stated-rules.js';
import type { ValidationReport } from '../validators/report.js';
import { validateCandidate } from '../validators/validate.js';
import { PYTHON } from './helpers/python.js';
import { send } from './helpers/send-from.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'redteam-v19');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const manifest = JSON.parse(fixture('manifest.json')) as Array<{ id: string; status: string }>;
const open = (id: string) => manifest.some((e) => e.id === id && e.status === 'open');

const root = mkdtempSync(join(tmpdir(), 'envforge-v19-'));
let pool: SandboxPool;
beforeAll(() => {
  pool = new SandboxPool({ workers: 1 });
});
afterAll(async () => {
  await pool?.close();
});

/** Runs a Python snippet on stdin text (with `interpreter`, PYTHON by default); its stdout, trimmed. */
function python(code: string, input: string, interpreter = PYTHON): string {
  const run = spawnSync(interpreter, ['-c', code], { input, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`python failed: ${run.stderr}`);
  return run.stdout.trim();
}

describe.runIf(!open('V19-1'))('V19-1 closed: text leaving the sandbox is well-formed on every call', () => {
  it('V19-1: a served step whose observation holds a lone surrogate fails E_MALFORMED_TEXT', async () => {
    const libraryDir = mkdtempSync(join(root, 'lib-'));
    const library = SqliteLibrary.open(libraryDir, { create: true });
    await admitEpisodic(library, pool, [{ name: 'parcel-hops', source: fixture('split-emoji.js') }]);
    await library.close();
    const server = await startServer({ libraryDir, port: 0, pool });
    try {
      const created = await send(server.url, 'POST', '/v1/episodes', { env: 'parcel-hops', seed: 5, level: 1 });
      expect(created.status).toBe(200);
      const id = created.body.episode as string;
      const step = await send(server.url, 'POST', `/v1/episodes/${id}/step`, { tool: 'close_manifest', args: {} });
      const text = JSON.stringify(step.body);
      expect(text, text).toContain('E_MALFORMED_TEXT');
      expect(text).not.toMatch(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/i);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe.runIf(!open('V19-1') || !open('V19-3'))('V19-1, V19-3 closed: the validator refuses such text', () => {
  it.each([
    ['V19-1', 'split-emoji.js', /lone surrogate/],
    ['V19-3', 'kelvin-ids.js', /normal form C/],
  ])(
    '%s: %s is rejected E_MALFORMED_TEXT at execution',
    async (id, file, why) => {
      if (open(id)) return;
      const report = await validateCandidate(fixture(file), { pool, validationSeed: 11 });
      const found = report.problems.find((p) => p.code === 'E_MALFORMED_TEXT');
      expect(found?.stage, JSON.stringify(report.problems.map((p) => p.code))).toBe('execution');
      expect(found?.message).toMatch(why);
    },
    120_000,
  );
});

describe.runIf(open('V19-1'))('V19-1: a lone surrogate in an episodic observation reaches the trainer', () => {
  it('V19-1: the service answers a step whose observation is not well-formed Unicode; UTF-8 readers fail', async () => {
    const libraryDir = mkdtempSync(join(root, 'lib-'));
    const library = SqliteLibrary.open(libraryDir, { create: true });
    await admitEpisodic(library, pool, [{ name: 'parcel-hops', source: fixture('split-emoji.js') }]);
    await library.close();
    const server = await startServer({ libraryDir, port: 0, pool });
    try {
      const created = await send(server.url, 'POST', '/v1/episodes', { env: 'parcel-hops', seed: 5, level: 1 });
      expect(created.status).toBe(200);
      const id = created.body.episode as string;
      const step = await send(server.url, 'POST', `/v1/episodes/${id}/step`, { tool: 'close_manifest', args: {} });
      // The hole: a 200 whose observation holds a lone high surrogate (the emoji cut in half), where a control
      // character in the same place is refused at every step (E_CONTROL_CHARS).
      expect(step.status).toBe(200);
      const observation = step.body.observation as string;
      expect(observation.isWellFormed()).toBe(false);
      // The trainer's side: the JSON text the service sends, read by Python's json (as envforge_client does), gives a
      // str that neither UTF-8 nor a Rust tokenizer nor pyarrow accepts.
      const read = python(
        [
          'import json, sys',
          'text = json.loads(sys.stdin.read())["observation"]',
          'try:',
          '    text.encode("utf-8"); print("encoded")',
          'except UnicodeEncodeError as e:',
          '    print(e.reason)',
        ].join('\n'),
        JSON.stringify(step.body),
      );
      expect(read).toBe('surrogates not allowed');
    } finally {
      await server.close();
    }
  }, 60_000);
});

/**
 * V19-2's script, started at load so that it runs beside the other tests (its own process, pool and service from
 * dist/, npm run build: 4 slots, 8 journals kept, 100 ms idle): its stdout.
 */
const leftOpen: Promise<string> = new Promise((resolve, reject) =>
  execFile(process.execPath, [join(FIXTURES, 'evicted-journals.mjs'), '4'], (error, stdout, stderr) =>
    error ? reject(new Error(`evicted-journals.mjs failed: ${stderr}`)) : resolve(stdout),
  ),
);
leftOpen.catch(() => {}); // awaited (and reported) by the V19-2 test

describe.runIf(!open('V19-2'))("V19-2 closed: every journal on disk is charged to its client's share", () => {
  it('V19-2: a client leaving its episodes open keeps at most --max-journals journals; its oldest goes', async () => {
    const r = JSON.parse((await leftOpen).trim().split('\n').at(-1) as string);
    // The fix (serve/journal-quota.ts): journals are counted when written, open or ended; past the bound the client's
    // oldest is deleted with its session (its id is then unknown), and no create within the client's share is refused.
    expect(r).toEqual({
      creates: 16,
      statuses: { 200: 16 },
      maxSessions: 4,
      maxEndedJournals: 8,
      journals: 8,
      resumed: 404,
    });
  }, 60_000);
});

describe.runIf(open('V19-2'))('V19-2: journals of episodes left open are bounded by nothing', () => {
  it('V19-2: one client within its share leaves more open journals than the slots and ended quota', async () => {
    const r = JSON.parse((await leftOpen).trim().split('\n').at(-1) as string);
    // The hole: 16 creates, none refused, 16 journals on disk (open and resumable) past 4 + 8.
    expect(r).toEqual({
      creates: 16,
      statuses: { 200: 16 },
      maxSessions: 4,
      maxEndedJournals: 8,
      journals: 16,
      resumed: 200,
    });
  }, 60_000);
});

/** A Qwen2 tokenizer (transformers' own class: NFC normalizer, byte-level BPE) over the 256 byte symbols, no merges. */
const QWEN2_BYTES = [
  'from transformers.models.qwen2.tokenization_qwen2 import Qwen2Tokenizer',
  'from transformers.convert_slow_tokenizer import bytes_to_unicode',
  'symbols = sorted(bytes_to_unicode().values())',
  'tok = Qwen2Tokenizer(vocab={"<|endoftext|>": 0, **{s: i + 1 for i, s in enumerate(symbols)}}, merges=[])',
].join('\n');

/**
 * What a Qwen2 model reads of a text (envforge_client.tokenizer_text, then the tokenizer's encode and decode) and what
 * envforge_client.module_text makes of its copy; the interpreter starts at load (transformers takes seconds to import)
 * and reads the text when the test has it. null where no python3 imports transformers.
 */
const qwenReads = ((): ((text: string) => Promise<{ shown: string; copied: string } | null>) | undefined => {
  if (!open('V19-3')) return undefined;
  const shim = mkdtempSync(join(root, 'shim-'));
  copyFileSync(
    join(import.meta.dirname, '..', 'export', 'python', 'envforge_client.py'),
    join(shim, 'envforge_client.py'),
  );
  writeFileSync(join(shim, 'envforge.json'), JSON.stringify({ service_url: 'http://127.0.0.1:9', envs: {} }));
  const code = [
    'import json, sys',
    `sys.path.insert(0, ${JSON.stringify(shim)})`,
    'import envforge_client as client',
    QWEN2_BYTES,
    'text = sys.stdin.read()',
    'shown = tok.decode(tok(client.tokenizer_text(text, tok), add_special_tokens=False)["input_ids"])',
    'print(json.dumps({"shown": shown, "copied": client.module_text(shown, tok)}))',
  ].join('\n');
  let out = '';
  let err = '';
  // PYTHON, else the python3 on PATH: the first that imports transformers runs the code; none prints null.
  const first =
    'for p in "$PY" python3; do "$p" -c "import transformers" 2>/dev/null && exec "$p" -c "$CODE"; done; echo null';
  const child = spawn('bash', ['-c', first], { env: { ...process.env, PY: PYTHON, CODE: code } });
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  return async (text) => {
    child.stdin.end(text);
    const status = await closed;
    if (status !== 0) throw new Error(`python failed: ${err}`);
    return JSON.parse(out.trim());
  };
})();

describe.runIf(open('V19-3'))("V19-3: an id the trainer tokenizer's normalizer folds cannot be copied back", () => {
  it('V19-3: the reference scores 1, the same actions as a Qwen2 model can write them score 0', async () => {
    const libraryDir = mkdtempSync(join(root, 'lib-'));
    const library = SqliteLibrary.open(libraryDir, { create: true });
    await admitEpisodic(library, pool, [{ name: 'kelvin-parcels', source: fixture('kelvin-ids.js') }]);
    await library.close();
    const operatorToken = 'v19-operator-token-0123456789abcdef';
    const server = await startServer({ libraryDir, port: 0, pool, operatorToken });
    try {
      const identity = { env: 'kelvin-parcels', seed: 5, level: 2 };
      const sampled = await send(
        server.url,
        'POST',
        '/v1/sample',
        { items: [identity], reveal: true },
        { headers: { authorization: `Bearer ${operatorToken}` } },
      );
      const turns = sampled.body.items[0].referenceTurns as Array<{ action: unknown; observation: string }>;
      const manifest = turns.find((t) => t.observation.startsWith('Manifest:'))?.observation as string;
      // What the model reads of the manifest: the observation through envforge_client.tokenizer_text and Qwen2's
      // tokenizer (encode, decode), and what module_text makes of the id it copies back.
      const seen = await qwenReads?.(manifest);
      if (!seen) process.stderr.write('V19-3: transformers is not installed: tokenizer half skipped\n');
      else {
        expect(seen.shown).toBe(manifest.normalize('NFC'));
        expect(seen.copied).not.toBe(manifest);
      }
      const actions = turns.map((t) => t.action);
      const asWritten = JSON.parse(JSON.stringify(actions).normalize('NFC'));
      const score = async (log: unknown[]) =>
        (await send(server.url, 'POST', '/v1/episodes/score', { ...identity, actions: log })).body.score;
      // The hole: the validator's reference (exact ids) scores 1; the same plan with the ids as the model saw them: 0.
      expect([await score(actions), await score(asWritten)]).toEqual([1, 0]);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe.runIf(!open('V19-4'))(
  "V19-4 closed: every sandbox job waits in its client's turn, charged by its cost",
  () => {
    it("V19-4: another client's step goes before a client's second /v1/episodes/score replay", async () => {
      const libraryDir = mkdtempSync(join(root, 'lib-'));
      const library = SqliteLibrary.open(libraryDir, { create: true });
      const nameCheck = readFileSync(join(FIXTURES, '..', 'redteam-rtv', 'name-check.js'), 'utf8');
      await admitEpisodic(library, pool, [{ name: 'name-check', source: nameCheck }]);
      await library.close();
      const tokens = { attacker: 'v19-attacker-token-0123456789abcdef', victim: 'v19-victim-token-0123456789abcdef0' };
      const as = (name: keyof typeof tokens) => ({ headers: { authorization: `Bearer ${tokens[name]}` } });
      // One worker (the test's pool), 300 ms a call: a replay of 3 actions may run (3 + 1) × 300 ms.
      const server = await startServer({ libraryDir, port: 0, pool, callTimeoutMs: 300, clientTokens: tokens });
      try {
        const victim = (
          await send(server.url, 'POST', '/v1/episodes', { env: 'name-check', seed: 1, level: 1 }, as('victim'))
        ).body.episode as string;
        const done: string[] = [];
        // The attacker: two replays whose first action never finishes (exponential backtracking), each holding the
        // worker for its whole budget (1.2 s) and the worker's restart after the kill.
        const redos = { tool: 'rename', args: { name: `${'a'.repeat(28)}!` } };
        const replays = [2, 3].map((seed) =>
          send(
            server.url,
            'POST',
            '/v1/episodes/score',
            { env: 'name-check', seed, level: 1, actions: Array.from({ length: 3 }, () => redos) },
            as('attacker'),
          ).then((r) => {
            done.push(`replay ${r.status}`);
            return r;
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        const step = send(
          server.url,
          'POST',
          `/v1/episodes/${victim}/step`,
          { tool: 'rename', args: { name: 'alpha report' }, turn: 1 },
          as('victim'),
        ).then((r) => {
          done.push(`step ${r.status}`);
          return r;
        });
        await Promise.all([...replays, step]);
        // The fix: the replays wait in the one fair scheduler, charged (3 + 1) budgets each: the victim's step, a fair
        // share's first call, goes before the attacker's second replay (the first one already held the worker).
        expect(done).toHaveLength(3);
        expect(done.at(-1)).toMatch(/^replay /);
        expect(done).toContain('step 200');
      } finally {
        await server.close();
      }
    }, 60_000);
  },
);

describe.runIf(!open('V19-5'))('V19-5 closed: a problem message is one line that lays nothing out', () => {
  it("V19-5: a rule sentence's blank run is one space in the report and in validate's human output", () => {
    const fake = '\u2713 dice-probability@1  admitted';
    const rule = `Route every urgent ticket before any ordinary ticket${' '.repeat(77)}${fake}`;
    const sentence = sentencesOf(`${rule}; read_ticket shows which tickets are urgent.`)[0] as string;
    const lines: string[] = [];
    const report = {
      verdict: 'reject',
      name: 'desk-routing-urgent-any-order',
      stages: [],
      problems: [{ code: 'E_RULE_IGNORED', stage: 'hack', message: `Worst: "route: (the prompt: "${sentence}")"` }],
      curve: [],
      ms: 1,
    } as unknown as ValidationReport;
    printReport('x.js', report, { out: (line) => lines.push(line), err: () => {} }, 'would be admitted');
    expect(lines.some((line) => line.includes(`ticket ${fake.replace('  ', ' ')}`))).toBe(true);
    expect(lines.some((line) => /\s{2,}\u2713/.test(line))).toBe(false);
  });
});

describe.runIf(open('V19-5'))(
  'V19-5: module text quoted in a problem message lays out the terminal (T8-3 hold-out)',
  () => {
    it("V19-5: a rule sentence's blank run reaches validate's human output as it is", () => {
      // The end-to-end run is wrap-rule-sentence.sh (a validation, ~15 s): these are its two links, cheap.
      const fake = '\u2713 dice-probability@1  admitted';
      const rule = `Route every urgent ticket before any ordinary ticket${' '.repeat(77)}${fake}`;
      // 1. The validator reads the rule's sentence with its blank run kept (and quotes 160 characters of it).
      const sentence = sentencesOf(`${rule}; read_ticket shows which tickets are urgent.`)[0] as string;
      expect(sentence.slice(0, 160)).toBe(`${rule};`);
      // 2. validate's human output prints a problem's message as it is: the run still decides where a terminal wraps.
      const lines: string[] = [];
      const report = {
        verdict: 'reject',
        name: 'desk-routing-urgent-any-order',
        stages: [],
        problems: [{ code: 'E_RULE_IGNORED', stage: 'hack', message: `Worst: "route: (the prompt: "${sentence}")"` }],
        curve: [],
        ms: 1,
      } as unknown as ValidationReport;
      printReport('x.js', report, { out: (line) => lines.push(line), err: () => {} }, 'would be admitted');
      expect(lines.some((line) => line.includes(`${' '.repeat(77)}${fake}`))).toBe(true);
    });
  },
);

// Red team v19 (Trust V, session 15): each finding of tests/fixtures/redteam-v19/FINDINGS.md, as the test of its fix
// once closed (all five are); an open one would be asserted still there, so the suite stays green while it is open and
// fails the day a fix closes it (then flip its manifest entry to "closed" and turn the assertion into the fix's own).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
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

// Red team rtv (around the sandbox): the reward service's clients. Each test named by an id is a finding of
// tests/fixtures/redteam-rtv/FINDINGS.md (closed: its fix is there), with variants of the same class written
// another way; each `held:` test is an attack that held.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { admitEpisodic } from '../bench/episodic-library.js';
import type { Meta } from '../contract/schema.js';
import type { EnvRecord } from '../library/contract.js';
import { IncidentLog, type Misbehaviour } from '../library/quarantine.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';
import { clientOf, credentials, incidentClient } from '../serve/clients.js';
import { confirmAndRecord, DRAWN_CONFIRMATIONS } from '../serve/defence.js';
import { Dispatcher } from '../serve/dispatcher.js';
import { startServer } from '../serve/server.js';
import { fakeAdmission, sampleMeta, sampleSource } from './helpers/library-fixtures.js';
import { send, type Json } from './helpers/send-from.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'redteam-rtv');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function eventually(check: () => Promise<boolean>, tries = 100): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return true;
    await sleep(50);
  }
  return false;
}

const LAST_NUMBER = fixture('last-number.js');
const NAME_CHECK = fixture('name-check.js');
/** A response the last-number verifier takes ~50 ms on (quadratic backtracking): harmless alone, 64 of them are not. */
const SLOW = `${'1'.repeat(2_000)}x`;
/** A name the name-check tool takes seconds on (exponential backtracking). */
const REDOS_NAME = `${'a'.repeat(28)}!`;

const root = mkdtempSync(join(tmpdir(), 'envforge-rtv-serve-'));
/**
 * Client tokens the operator issued: on one host (every loopback address is one client), tokens tell trainers apart.
 */
const TOKENS = { attacker: 'rtv-attacker-token-0123456789abcdef', victim: 'rtv-victim-token-0123456789abcdef0' };
const as = (name: keyof typeof TOKENS) => ({ authorization: `Bearer ${TOKENS[name]}` });
let pool: SandboxPool;

/** A fresh library holding the given single-turn modules and episodic modules. */
async function libraryWith(
  single: Array<{ source: string; meta: Meta }>,
  episodic: Array<{ name: string; source: string }> = [],
): Promise<string> {
  const dir = mkdtempSync(join(root, 'lib-'));
  const library = SqliteLibrary.open(dir, { create: true });
  for (const { source, meta } of single) await library.admit(fakeAdmission(source, meta));
  if (episodic.length > 0) await admitEpisodic(library, pool, episodic);
  await library.close();
  return dir;
}

const lastNumberMeta: Meta = {
  name: 'last-number',
  title: 'Add one',
  description: 'Add one to a number; the last number in the reply is the answer.',
  skills: ['arithmetic'],
  levels: 3,
};

beforeAll(() => {
  pool = new SandboxPool({ workers: 2 });
});
afterAll(async () => {
  await pool?.close();
});

describe('rtv-1: one client, one address, quarantines an honest environment through unconfirmed incidents', () => {
  it('rtv-1: 64 copies of a slow-but-valid response in three requests do not quarantine the ' +
    'environment for everyone', async () => {
    const server = await startServer({
      libraryDir: await libraryWith([{ source: LAST_NUMBER, meta: lastNumberMeta }]),
      port: 0,
      pool,
      scoreFlushIntervalMs: 60_000,
    });
    try {
      const from = '127.0.0.21';
      // Each request: one instance, 64 responses (a GRPO group's size), each ~50 ms to verify. They share one
      // episode call whose 1 s budget they overrun together (E_TIMEOUT). Before the fix: 16 were retried alone, 48
      // stayed failed, and the re-run of one alone passed: an *unconfirmed* incident, counted as the environment's
      // own (the client dropped), quarantined at the third. Now the episode runs again in its shape with a budget
      // per verify, so every response is scored (the last number is missing: 0); what fails only beside other
      // inputs is the client's, unconfirmed, and never quarantines (the variant below).
      for (let seed = 1; seed <= 3; seed++) {
        const answer = await send(
          server.url,
          'POST',
          '/v1/verify',
          { items: Array.from({ length: 64 }, () => ({ env: 'last-number', seed, level: 1, response: SLOW })) },
          { from },
        );
        expect(answer.status).toBe(200);
        expect(answer.body.results).toEqual(Array.from({ length: 64 }, () => ({ score: 0 })));
      }
      await sleep(3_000); // the defence records in the background
      const health = (await send(server.url, 'GET', '/health')).body;
      // Another client's correct answer must still be scored.
      const sampled = await send(
        server.url,
        'POST',
        '/v1/sample',
        { items: [{ env: 'last-number', seed: 9, level: 1 }] },
        { from: '127.0.0.22' },
      );
      const n = Number(/What is (\d+) \+ 1/.exec(sampled.body.items[0].prompt)?.[1]) + 1;
      const other = await send(
        server.url,
        'POST',
        '/v1/verify',
        { items: [{ env: 'last-number', seed: 9, level: 1, response: `It is ${n}` }] },
        { from: '127.0.0.22' },
      );
      expect({ quarantined: health.quarantined, other: other.body.results[0] }).toEqual({
        quarantined: 0,
        other: { score: 1 },
      });
    } finally {
      await server.close();
    }
  }, 120_000);

  it(
    "rtv-1 (the mechanism, any input): a failure a client's input reached is the client's, confirmed or not; " +
      'only failures without client input count three of any kind',
    async () => {
      const log = new IncidentLog(mkdtempSync(join(root, 'incidents-')), 'serve', true, () => {});
      const record = { hash: 'h-rtv1', name: 'slow-env', version: 1 } as EnvRecord;
      const failed = (seed: number, client: string): Misbehaviour => ({
        record,
        seed,
        level: 1,
        code: 'E_TIMEOUT',
        message: 'the call ran past its wall-clock budget',
        fn: 'verify',
        response: 'r',
        client,
      });
      // Re-runs where the reference runs and the input alone passes (it failed only beside other inputs, or on a
      // loaded host), and one where the sandbox could not re-run at all: five of them, one client each time or many.
      for (let seed = 1; seed <= 4; seed++)
        await confirmAndRecord(log, [failed(seed, `client:${seed}`)], async () => ({ reference: null, input: null }));
      await confirmAndRecord(log, [failed(5, 'client:5')], async () =>
        Promise.reject(new Error('the sandbox is down')),
      );
      expect(log.quarantined(record.hash)).toBeNull();
      // Failures the reference reaches without any client input, at a client's identities (listed or drawn from its
      // selection, V22-1) and not again at the service's own seeds: that client's votes, however many.
      const { response: _r, ...instance } = failed(6, 'client:1');
      for (let seed = 6; seed <= 8; seed++)
        await confirmAndRecord(log, [{ ...instance, seed }], async () => ({
          reference: 'E_THROWN',
          input: 'E_THROWN',
        }));
      expect(log.quarantined(record.hash)).toBeNull();
      // The environment's own (export's, or the service's re-runs'): three of any kind quarantine, unconfirmed.
      for (let seed = 9; seed <= 11; seed++) await log.record({ ...instance, seed, fn: 'generate' }, false);
      expect(log.quarantined(record.hash)).toMatch(/3 incidents in production/);
      await log.close();
    },
  );

  it(
    "V21-3 (the mechanism): the instance failing at a client's seed is that client's vote unless a re-run at a seed " +
      "the service draws fails too (V22-1: at each of the service's own draws, whatever the request drew)",
    async () => {
      const record = { hash: 'h-v21-3', name: 'rare-reset', version: 1 } as EnvRecord;
      const BAD = 2_883_304_060;
      const at = (client: string, fn = 'reset', seed = BAD): Misbehaviour => ({
        record,
        seed,
        level: 1,
        code: 'E_THROWN',
        message: 'no free desk',
        fn,
        client,
      });
      // The instance fails at the client's seed alone: re-run there it fails again, at any other seed it runs.
      const seen: number[] = [];
      const rare = async (m: Misbehaviour) => {
        seen.push(m.seed);
        return m.seed === BAD ? { reference: 'E_THROWN', input: 'E_THROWN' } : { reference: null, input: null };
      };
      const log = new IncidentLog(mkdtempSync(join(root, 'incidents-')), 'serve', true, () => {});
      // One client, many times, by every fn the instance fails in (a reset, generate, the reference of an item with a
      // response, an episode's step the reference meets too): each confirmed, none quarantines.
      for (const fn of ['reset', 'generate', 'verify']) await confirmAndRecord(log, [at('client:a', fn)], rare);
      await confirmAndRecord(log, [{ ...at('client:a', 'step'), response: '[{"tool":"x"}]' }], rare);
      expect(log.quarantined(record.hash)).toBeNull();
      // Each confirmation was re-run once at the client's seed, then once at a seed the service drew.
      expect(seen.filter((s) => s === BAD)).toHaveLength(4);
      expect(seen.filter((s) => s !== BAD)).toHaveLength(4);
      // A failure the re-run at the client's seed does not meet (a loaded host) is no vote, unconfirmed or not.
      await confirmAndRecord(log, [at('client:b', 'reset', 7)], rare);
      await confirmAndRecord(log, [at('client:c', 'reset', 8)], rare);
      expect(log.quarantined(record.hash)).toBeNull();
      // Independent clients reaching one code at their seeds vote, as responses do: the third quarantines.
      await confirmAndRecord(log, [at('client:b')], rare);
      expect(log.quarantined(record.hash)).toBeNull();
      await confirmAndRecord(log, [at('client:c')], rare);
      expect(log.quarantined(record.hash)).toMatch(/3 independent clients made it fail with E_THROWN/);
      await log.close();
      // An instance failing everywhere (a reset at every seed): the re-run at a drawn seed fails too, at once.
      const everywhere = new IncidentLog(mkdtempSync(join(root, 'incidents-')), 'serve', true, () => {});
      const always = async () => ({ reference: 'E_THROWN', input: 'E_THROWN' });
      await confirmAndRecord(everywhere, [at('client:a')], always);
      expect(everywhere.quarantined(record.hash)).toMatch(/E_THROWN in reset at seed (?!2883304060)\d+, .* re-run/);
      await everywhere.close();
      // Another code at the drawn seed is not the same failure: the client's vote.
      const other = new IncidentLog(mkdtempSync(join(root, 'incidents-')), 'serve', true, () => {});
      await confirmAndRecord(other, [at('client:a')], async (m) =>
        m.seed === BAD ? { reference: 'E_THROWN', input: 'E_THROWN' } : { reference: 'E_TIMEOUT', input: 'E_TIMEOUT' },
      );
      expect(other.quarantined(record.hash)).toBeNull();
      await other.close();
      // The service's sample is its own size (V22-1): failing at two of its three drawn seeds is still the client's.
      const mostly = new IncidentLog(mkdtempSync(join(root, 'incidents-')), 'serve', true, () => {});
      let draws = 0;
      await confirmAndRecord(mostly, [at('client:a')], async (m) =>
        m.seed === BAD || ++draws < DRAWN_CONFIRMATIONS
          ? { reference: 'E_THROWN', input: null }
          : { reference: null, input: null },
      );
      expect(draws).toBe(DRAWN_CONFIRMATIONS);
      expect(mostly.quarantined(record.hash)).toBeNull();
      await mostly.close();
    },
  );
});

describe("rtv-2: one client's slow steps end another client's episode as failed (shared sandbox jobs)", () => {
  it("rtv-2: a victim's ordinary steps, played while another client's steps time out, are all played", async () => {
    const libraryDir = await libraryWith([], [{ name: 'name-check', source: NAME_CHECK }]);
    // A call budget of 500 ms, half the default: the attacker's 42 steps each burn their budget in the sandbox (the
    // name takes seconds), and the mechanism under test (a job stops after three failed calls) is the same.
    const server = await startServer({
      libraryDir,
      port: 0,
      pool,
      quarantine: false,
      clientTokens: TOKENS,
      callTimeoutMs: 500,
    });
    try {
      const attacker = as('attacker');
      const victim = as('victim');
      const open = async (headers: Record<string, string>, seed: number) =>
        (await send(server.url, 'POST', '/v1/episodes', { env: 'name-check', seed, level: 1 }, { headers })).body
          .episode as string;
      const mine: string[] = [];
      for (let seed = 1; seed <= 5; seed++) mine.push(await open(victim, seed));
      const theirs: string[] = [];
      // 14 waves of 3: the victim's 5 steps land inside them
      for (let seed = 100; seed < 142; seed++) theirs.push(await open(attacker, seed));
      // The attacker: waves of three steps whose argument runs past the call's budget. Steps of every session of
      // one module share sandbox jobs (dispatcher.ts), and a job stops running calls after three failed
      // (maxFailuresPerJob): every call queued behind three of the attacker's fails "not run" with E_TIMEOUT.
      const flood = (async () => {
        const sent: Array<Promise<unknown>> = [];
        for (let wave = 0; wave < 14; wave++) {
          for (const id of theirs.slice(3 * wave, 3 * wave + 3))
            sent.push(
              send(
                server.url,
                'POST',
                `/v1/episodes/${id}/step`,
                { tool: 'rename', args: { name: REDOS_NAME } },
                { headers: attacker },
              ),
            );
          await sleep(100);
        }
        await Promise.all(sent);
      })();
      // The victim: one ordinary step in each of its episodes while the flood runs.
      const played: Array<Promise<Json>> = [];
      for (const id of mine) {
        await sleep(300);
        played.push(
          send(
            server.url,
            'POST',
            `/v1/episodes/${id}/step`,
            { tool: 'rename', args: { name: 'alpha report' }, turn: 1 },
            { headers: victim },
          ).then((r) => r.body),
        );
      }
      const outcomes = await Promise.all(played);
      await flood;
      expect(outcomes.filter((o) => o.end === 'failed')).toEqual([]);
      // Played, not merely spared: each step made its turn.
      expect(outcomes.map((o) => [o.turn, o.done])).toEqual(mine.map(() => [1, false]));
    } finally {
      await server.close();
    }
  }, 180_000);

  it('held: a step that runs past its budget ends only its own episode when it runs alone', async () => {
    const libraryDir = await libraryWith([], [{ name: 'name-check', source: NAME_CHECK }]);
    const server = await startServer({ libraryDir, port: 0, pool, quarantine: false, callTimeoutMs: 500 });
    try {
      const id = (
        await send(server.url, 'POST', '/v1/episodes', { env: 'name-check', seed: 3, level: 1 }, { from: '127.0.0.33' })
      ).body.episode;
      const step = await send(
        server.url,
        'POST',
        `/v1/episodes/${id}/step`,
        { tool: 'rename', args: { name: REDOS_NAME } },
        { from: '127.0.0.33' },
      );
      expect(step.body).toMatchObject({ done: true, end: 'failed', error: { code: 'E_TIMEOUT' } });
    } finally {
      await server.close();
    }
  }, 60_000);

  it(
    "rtv-2 (the mechanism, any call): in a job shared by two clients, one client's failures and the job's stop " +
      "leave the other's calls to run",
    async () => {
      // A worker as sandbox/worker.ts behaves: a call with seed 666 times out, and after three failures the job's
      // remaining calls are "not run". Every job the dispatcher sends is recorded, with whose calls it held.
      const jobs: number[][] = [];
      const run = async ({ calls }: { calls: Array<{ seed: number }> }) => {
        jobs.push(calls.map((c) => c.seed));
        let failures = 0;
        return {
          results: calls.map((c) => {
            if (failures >= 3)
              return {
                ok: false,
                code: 'E_TIMEOUT',
                fn: 'call',
                ms: 0,
                message:
                  `not run: ${failures} earlier calls of this batch already failed with ` +
                  `E_TIMEOUT (the limit is 3)`,
              };
            if (c.seed === 666)
              return (
                failures++,
                {
                  ok: false,
                  code: 'E_TIMEOUT',
                  fn: 'verify',
                  ms: 1000,
                  message: 'the call ran past its wall-clock budget',
                }
              );
            return { ok: true, value: c.seed, ms: 1 };
          }),
        };
      };
      // One worker; jobs that travel together (the dispatcher sends a slot's jobs so) each run as a job of their own.
      const fake = {
        options: { workers: 1 },
        run,
        runTogether: (requests: Array<{ calls: Array<{ seed: number }> }>) => requests.map(run),
      } as unknown as SandboxPool;
      const dispatcher = new Dispatcher(fake, 1000, 1);
      const call = (seed: number) => ({
        call: { op: 'episode' as const, seed, level: 1, responses: [], keepInstance: false },
        chars: 1,
      });
      // Submitted in one loop turn, so they share one job, their clients' calls in turn (the dispatcher's takeInTurn):
      // the attacker's third failure still stops the job before the victim's last call runs.
      const theirs = dispatcher.submit('h', 'src', [666, 666, 666, 666].map(call), 'token:attacker');
      const mine = dispatcher.submit('h', 'src', [1, 2, 3].map(call), 'token:victim');
      expect((await mine).map((r) => r.ok)).toEqual([true, true, true]);
      // The attacker's own calls keep their own failures, their own "not run" included (a job of theirs alone).
      expect((await theirs).every((r) => !r.ok && r.code === 'E_TIMEOUT')).toBe(true);
      expect(jobs[0]).toEqual([666, 1, 666, 2, 666, 3, 666]);
      // The unrun calls (the victim's last and the attacker's fourth) go back into a shared job, the attacker's
      // failures into a job of theirs alone: those travel together to the one worker, yet as jobs of their own.
      expect(jobs.slice(1)).toEqual([[3, 666], [666, 666, 666], [666]]);
    },
  );
});

describe('rtv-3: on the default host (127.0.0.1) an address is whatever the client binds', () => {
  it('rtv-3: one local process cannot count as three clients by binding three loopback addresses', async () => {
    const libraryDir = await libraryWith([], [{ name: 'name-check', source: NAME_CHECK }]);
    // Half the default call budget: each replay and its confirming re-runs burn their budget on the name.
    const server = await startServer({ libraryDir, port: 0, pool, callTimeoutMs: 500 });
    try {
      // The same process, three source addresses of 127.0.0.0/8 (every one of them is this machine).
      for (const from of ['127.3.0.1', '127.3.0.2', '127.3.0.3']) {
        const scored = await send(
          server.url,
          'POST',
          '/v1/episodes/score',
          { env: 'name-check', seed: 5, level: 1, actions: [{ tool: 'rename', args: { name: REDOS_NAME } }] },
          { from },
        );
        expect(scored.body).toMatchObject({ end: 'failed', error: { code: 'E_TIMEOUT' } });
      }
      await eventually(async () => (await send(server.url, 'GET', '/health')).body.quarantined === 1, 60);
      const refused = await send(
        server.url,
        'POST',
        '/v1/episodes',
        { env: 'name-check', seed: 1, level: 1 },
        { from: '127.0.0.1' },
      );
      expect(refused.status).toBe(200);
    } finally {
      await server.close();
    }
  }, 120_000);

  it(
    'rtv-3 (other spellings of one host): loopback in any form, an IPv4-mapped address and an IPv6 /64 are ' +
      'each one client, whatever ids it claims',
    () => {
      const principal = (ip: string, id?: string) =>
        clientOf({ headers: id ? { 'x-envforge-client': id } : {}, ip }, credentials()).principal;
      expect(
        new Set(
          [
            '127.0.0.1',
            '127.3.0.2',
            '127.255.255.254',
            '::1',
            '0:0:0:0:0:0:0:1',
            '::ffff:127.0.0.9',
            '::ffff:7f00:5',
          ].map((ip) => principal(ip)),
        ).size,
      ).toBe(1);
      expect(principal('::ffff:10.1.2.3')).toBe(principal('10.1.2.3'));
      expect(
        new Set(
          [
            '2001:db8:1:2::1',
            '2001:db8:1:2:ffff:eeee:dddd:cccc',
            '2001:DB8:1:2:0:0:0:9',
            'fe80::1%eth0'.replace('fe80::1', '2001:db8:1:2::7'),
          ].map((ip) => principal(ip)),
        ).size,
      ).toBe(1);
      expect(principal('2001:db8:1:3::1')).not.toBe(principal('2001:db8:1:2::1'));
      // Self-declared ids divide a share but never make another independent client for the quarantine.
      const incident = (ip: string, id: string) =>
        incidentClient(clientOf({ headers: { 'x-envforge-client': id }, ip }, credentials()));
      expect(incident('127.0.0.5', 'a')).toBe(incident('::1', 'b'));
      // Client tokens the operator issued are what makes clients independent on one host.
      const known = credentials(undefined, { a: TOKENS.attacker, b: TOKENS.victim });
      const token = (t: string) =>
        incidentClient(clientOf({ headers: { authorization: `Bearer ${t}` }, ip: '127.0.0.1' }, known));
      expect(token(TOKENS.attacker)).not.toBe(token(TOKENS.victim));
    },
  );
});

describe('rtv-4: an Idempotency-Key is a capability for the episode it made, for any client', () => {
  it("rtv-4: another client presenting the same key gets its own episode, not the first client's", async () => {
    const libraryDir = await libraryWith([], [{ name: 'name-check', source: NAME_CHECK }]);
    const server = await startServer({ libraryDir, port: 0, pool, clientTokens: TOKENS });
    try {
      // A careless client keys its creates by rollout index (the docs say "a fresh UUID"); so does another client.
      const key = { 'idempotency-key': 'rollout-0' };
      const first = await send(
        server.url,
        'POST',
        '/v1/episodes',
        { env: 'name-check', seed: 4, level: 1 },
        { headers: { ...key, ...as('victim') } },
      );
      const second = await send(
        server.url,
        'POST',
        '/v1/episodes',
        { env: 'name-check', seed: 4, level: 1 },
        { headers: { ...key, ...as('attacker') } },
      );
      expect(second.status).toBe(200);
      // Before the fix the second client got the first one's episode id: it could step it, read it or end it.
      expect(second.body.episode).not.toBe(first.body.episode);
      // The same client retrying with its key still gets its own episode back; another id of that client is another key
      // owner.
      const retried = await send(
        server.url,
        'POST',
        '/v1/episodes',
        { env: 'name-check', seed: 4, level: 1 },
        { headers: { ...key, ...as('victim') } },
      );
      const otherId = await send(
        server.url,
        'POST',
        '/v1/episodes',
        { env: 'name-check', seed: 4, level: 1 },
        { headers: { ...key, ...as('victim'), 'x-envforge-client': 'learner-2' } },
      );
      expect([retried.body.episode === first.body.episode, otherId.body.episode === first.body.episode]).toEqual([
        true,
        false,
      ]);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('rtv-7: requests that hold no session slot still leave a journal file each, kept 24 h', () => {
  it("rtv-7: one client's stateless OpenEnv steps and MCP calls leave no more journal files " +
    'than its share of sessions', async () => {
    const libraryDir = await libraryWith([], [{ name: 'name-check', source: NAME_CHECK }]);
    const episodesDir = mkdtempSync(join(root, 'journal-'));
    const server = await startServer({ libraryDir, port: 0, pool, maxSessions: 4, episodesDir });
    try {
      // OpenEnv's HTTP step without an episode_id and MCP's tools/call without a session play one-step episodes:
      // no slot is held, so the fair shares never bound them, and each journals a file that lives journalTtlMs.
      for (let i = 0; i < 60; i++) {
        await send(
          server.url,
          'POST',
          '/openenv/name-check/step',
          { action: { tool: 'finish', args: {} } },
          { from: '127.0.0.71' },
        );
        await send(
          server.url,
          'POST',
          '/openenv/name-check/mcp',
          { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'finish', arguments: {} } },
          { from: '127.0.0.71' },
        );
      }
      expect(readdirSync(episodesDir).length).toBeLessThanOrEqual(4);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('rtv-7 (create and DELETE, with Idempotency-Keys): ended episodes keep no more journals and ' +
    'key records than the bound', async () => {
    const libraryDir = await libraryWith([], [{ name: 'name-check', source: NAME_CHECK }]);
    const episodesDir = mkdtempSync(join(root, 'journal-'));
    const server = await startServer({ libraryDir, port: 0, pool, maxSessions: 4, maxEndedJournals: 5, episodesDir });
    try {
      for (let i = 0; i < 30; i++) {
        const made = await send(
          server.url,
          'POST',
          '/v1/episodes',
          { env: 'name-check', seed: i + 1, level: 1 },
          { headers: { 'idempotency-key': `k-${i}` } },
        );
        expect((await send(server.url, 'DELETE', `/v1/episodes/${made.body.episode}`)).status).toBe(200);
      }
      // Five ended episodes' journals, and their five key records, at most (the removals are asynchronous).
      expect(await eventually(async () => readdirSync(episodesDir).length <= 10)).toBe(true);
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe('rtv-8: the WebSocket connection cap is global, not shared fairly', () => {
  const connect = (url: string, headers: Record<string, string>) =>
    new Promise<{ opened: boolean; status?: number; socket: WebSocket }>((resolve) => {
      const socket = new WebSocket(`${url.replace('http', 'ws')}/openenv/name-check/ws`, { headers });
      socket.on('open', () => resolve({ opened: true, socket }));
      socket.on('unexpected-response', (_req, res) => resolve({ opened: false, status: res.statusCode ?? 0, socket }));
      socket.on('error', () => resolve({ opened: false, socket }));
    });

  it('rtv-8: one client holding idle WebSocket connections (no episode, no slot) cannot ' +
    'lock every other client out', async () => {
    const libraryDir = await libraryWith([], [{ name: 'name-check', source: NAME_CHECK }]);
    const server = await startServer({ libraryDir, port: 0, pool, maxSessions: 4, clientTokens: TOKENS });
    const held: WebSocket[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const c = await connect(server.url, as('attacker'));
        expect(c.opened).toBe(true);
        held.push(c.socket);
      }
      // Nothing was reset: the attacker holds no session slot, so the fair shares see nothing to evict.
      const other = await connect(server.url, as('victim'));
      held.push(other.socket);
      expect(other).toMatchObject({ opened: true });
    } finally {
      for (const s of held) s.terminate();
      await server.close();
    }
  }, 60_000);

  it('rtv-8 (one client alone, idle): a connection that sends nothing is closed after ' +
    '--session-idle, freeing its slot', async () => {
    const libraryDir = await libraryWith([], [{ name: 'name-check', source: NAME_CHECK }]);
    const server = await startServer({ libraryDir, port: 0, pool, maxSessions: 1, sessionIdleMs: 200 });
    const held: WebSocket[] = [];
    try {
      const idle = await connect(server.url, {});
      held.push(idle.socket);
      const closed = await new Promise<number>((resolve) => idle.socket.on('close', (code) => resolve(code)));
      expect(closed).toBe(1000);
      const next = await connect(server.url, {});
      held.push(next.socket);
      expect(next.opened).toBe(true);
    } finally {
      for (const s of held) s.terminate();
      await server.close();
    }
  }, 60_000);
});

describe('rtv-10: the reward service takes WebSocket upgrades from any web page (no Origin check)', () => {
  it('rtv-10: an upgrade from a browser page on another origin is refused, so a page the operator opens cannot ' +
    'play or hold connections', async () => {
    const libraryDir = await libraryWith([], [{ name: 'name-check', source: NAME_CHECK }]);
    const server = await startServer({ libraryDir, port: 0, pool });
    try {
      // WebSockets are outside CORS: a browser sends the page's Origin and lets the page talk if the server accepts.
      // Python's websockets and Node's ws send no Origin unless told to, so refusing a foreign one costs real clients
      // nothing.
      const socket = new WebSocket(`${server.url.replace('http', 'ws')}/openenv/name-check/ws`, {
        headers: { origin: 'https://attacker.example' },
      });
      const opened = await new Promise<boolean>((resolve) => {
        socket.on('open', () => resolve(true));
        socket.on('unexpected-response', () => resolve(false));
        socket.on('error', () => resolve(false));
      });
      socket.terminate();
      expect(opened).toBe(false);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('rtv-10 (plain HTTP, and an allowed origin): a cross-site text/plain POST (no preflight) is refused too, ' +
    'and an origin the operator allowed is served', async () => {
    const libraryDir = await libraryWith([], [{ name: 'name-check', source: NAME_CHECK }]);
    const server = await startServer({ libraryDir, port: 0, pool, allowOrigins: ['http://localhost:3000'] });
    try {
      // A POST as text/plain (a form, or fetch in no-cors mode) needs no CORS preflight: the page's request arrives.
      const made = (await send(server.url, 'POST', '/v1/episodes', { env: 'name-check', seed: 8, level: 1 })).body
        .episode as string;
      const simple = await send(
        server.url,
        'POST',
        '/v1/episodes',
        { env: 'name-check', seed: 9, level: 1 },
        { headers: { origin: 'https://attacker.example', 'content-type': 'text/plain' } },
      );
      expect(simple).toMatchObject({ status: 403, body: { error: { code: 'E_ORIGIN' } } });
      const allowed = await send(server.url, 'GET', `/v1/episodes/${made}`, undefined, {
        headers: { origin: 'http://localhost:3000' },
      });
      expect(allowed.status).toBe(200);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('held: identity and roles', () => {
  it('held: no client may name itself the operator, an X-Envforge-Client id only divides its own address', async () => {
    const dir = await libraryWith([{ source: sampleSource(sampleMeta('plus-one')), meta: sampleMeta('plus-one') }]);
    const server = await startServer({
      libraryDir: dir,
      port: 0,
      pool,
      operatorToken: 'rtv-operator-token-0123456789abcdef',
    });
    try {
      for (const headers of [
        { 'x-envforge-client': 'operator' },
        { 'x-forwarded-for': '10.0.0.1' },
        { 'x-envforge-client': 'a b' },
        { authorization: 'bearer rtv-operator-token-0123456789abcdef' },
        { authorization: 'Bearer  rtv-operator-token-0123456789abcdef' },
      ] as Array<Record<string, string>>) {
        const answer = await send(
          server.url,
          'POST',
          '/v1/sample',
          { items: [{ env: 'plus-one', seed: 1, level: 1 }], reveal: true },
          { headers },
        );
        expect([400, 401, 403]).toContain(answer.status);
      }
    } finally {
      await server.close();
    }
  }, 60_000);

  it('held: episode ids are not guessable and journal names are digests (no path from an id)', async () => {
    const dir = await libraryWith([], [{ name: 'name-check', source: NAME_CHECK }]);
    const server = await startServer({ libraryDir: dir, port: 0, pool });
    try {
      const made = (await send(server.url, 'POST', '/v1/episodes', { env: 'name-check', seed: 2, level: 1 })).body
        .episode as string;
      const [prefix, body, random] = made.split('.');
      const forged = [
        `${prefix}.${body}.${'0'.repeat(32)}`,
        `${prefix}.${body}.${(random as string).replace(/.$/, (c) => (c === '0' ? '1' : '0'))}`,
        `${prefix}.${body}.${random}%2F..%2F..%2Fetc%2Fpasswd`,
        '..%2F..%2Flibrary.sqlite',
      ];
      for (const id of forged) expect((await send(server.url, 'GET', `/v1/episodes/${id}`)).status).toBe(404);
    } finally {
      await server.close();
    }
  }, 60_000);
});

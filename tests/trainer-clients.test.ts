// What a real policy does to an episode, through each trainer's own way of driving the exported shims (verl's
// agent loop and reward loop, TRL's environment_factory pool and tool loop, OpenRLHF's multi-turn executor, OpenEnv's
// WebSocket protocol; tests/fixtures/trainer-clients-driver.py, run with the machine's Debian python3): rollouts that
// finish, stop without a tool call, run out of budget, make two calls in one turn, call undeclared tools, reuse
// environment instances, and many unfinished rollouts at once. Every episode holds exactly the actions the trainer
// forwarded, scores what envforge's in-process replay of them gives (ended "truncated" when the client stopped it),
// and the trainer's reward is that score; the service's open sessions are back to zero after every batch.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitEpisodicSeeds, type EpisodicSeed } from '../bench/episodic-library.js';
import { FORMATS } from '../export/registry.js';
import { runExport } from '../export/run.js';
import { parseSplit } from '../export/select.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { runRollouts } from '../sandbox/rollouts.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { RunningServer } from '../serve/options.js';
import { startServer } from '../serve/server.js';
import { PYTHON } from './helpers/python.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'envforge-trainer-clients-'));
const LIB = join(tmp, 'library');
const dirs = { verl: join(tmp, 'verl'), trl: join(tmp, 'trl'), openrlhf: join(tmp, 'openrlhf') };
const CLIENTS = ['verl', 'trl', 'openrlhf', 'openenv'] as const;
type Client = (typeof CLIENTS)[number];
type Row = Record<string, unknown>;
type Call = { name: string; arguments?: Record<string, unknown> };
type Identity = { env: string; version: number; seed: number; level: number };
interface Case {
  id: string;
  client: Client;
  batch: string;
  scenario: string;
  identity: Identity;
  row: Row;
  turns: Call[][];
  ends: 'no-call' | 'budget' | 'abandon';
}
interface Played {
  episode: string;
  reward: number | null;
  offered?: string[];
}

const UNDECLARED: Call = { name: 'no_such_tool', arguments: {} };
/** What a scripted policy does with an episode's reference actions (the act policy's). */
const SCENARIOS: Record<string, (ref: Call[]) => Pick<Case, 'turns' | 'ends'>> = {
  finishes: (ref) => ({ turns: ref.map((a) => [a]), ends: 'no-call' }),
  'stops without a tool call': (ref) => ({ turns: ref.slice(0, -1).map((a) => [a]), ends: 'no-call' }),
  'runs out of budget': (ref) => ({ turns: ref.slice(0, -1).map((a) => [a]), ends: 'budget' }),
  'makes two calls a turn': (ref) => ({
    turns: ref.flatMap((a, i) => (i % 2 === 0 ? [ref.slice(i, i + 2)] : [])),
    ends: 'no-call',
  }),
  'calls an undeclared tool three times': (ref) => ({
    turns: [[UNDECLARED, UNDECLARED, UNDECLARED], ...ref.map((a) => [a])],
    ends: 'no-call',
  }),
  'calls an undeclared tool once': (ref) => ({ turns: [[UNDECLARED], ...ref.map((a) => [a])], ends: 'no-call' }),
};
const BATCH = 24;
const BATCHES = 3;

const plain = (value: unknown): Row =>
  JSON.parse(JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))) as Row;
const jsonLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);
const key = (i: Identity) => JSON.stringify([i.env, i.version, i.seed, i.level]);
async function get(url: string): Promise<Row> {
  return (await (await fetch(url)).json()) as Row;
}

describe('trainer clients drive episodes as the trainers do, and every episode scores as replay scores', () => {
  let pool: SandboxPool;
  let seeds: EpisodicSeed[];
  let server: RunningServer;
  const cases: Case[] = [];
  const references = new Map<string, Call[]>();
  const played = new Map<string, Played>();

  beforeAll(async () => {
    pool = new SandboxPool({ workers: 2 });
    const writable = SqliteLibrary.open(LIB, { create: true });
    seeds = (await admitEpisodicSeeds(writable, pool)).slice(0, 4);
    await writable.close();
    const library = SqliteLibrary.open(LIB, { readonly: true });
    try {
      const plan = {
        selection: { envs: seeds.map((s) => ({ name: s.name })), levels: { all: { lo: 1, hi: 3 }, byEnv: new Map() } },
        counts: { perEnv: 6 },
        splits: parseSplit('train:1'),
        seed: 3,
        serviceUrl: 'http://127.0.0.1:9',
      };
      for (const [name, out] of Object.entries(dirs))
        await runExport(library, pool, { ...plan, format: FORMATS[name as keyof typeof dirs], out });
    } finally {
      await library.close();
    }
    const bytes = readFileSync(join(dirs.verl, 'train.parquet'));
    const verlRows = (
      await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) })
    ).map(plain);
    const identities = verlRows.map(
      (r) => JSON.parse((r.reward_model as { ground_truth: string }).ground_truth) as Identity,
    );
    const rows: Record<Client, Map<string, Row>> = {
      verl: new Map(),
      trl: new Map(),
      openrlhf: new Map(),
      openenv: new Map(),
    };
    identities.forEach((identity, i) => {
      rows.verl.set(key(identity), verlRows[i] as Row);
      rows.openenv.set(key(identity), identity);
    });
    for (const row of jsonLines(join(dirs.trl, 'train.episodic.jsonl')))
      rows.trl.set(key(row as unknown as Identity), row);
    for (const row of jsonLines(join(dirs.openrlhf, 'train.jsonl')))
      rows.openrlhf.set(key(JSON.parse(row.label as string) as Identity), row);
    for (const seed of seeds) {
      const mine = identities.filter((i) => i.env === seed.name);
      const acts = (
        await runRollouts(
          pool,
          seed.source,
          seed.meta,
          mine.map((i) => ({ seed: i.seed, level: i.level, policy: { type: 'act' } })),
        )
      ).rollouts;
      mine.forEach((identity, k) => {
        const r = acts[k];
        if (!r?.ok || r.score !== 1) throw new Error(`${seed.name}: the reference does not finish`);
        references.set(
          key(identity),
          (r.actions as Array<{ tool: string; args?: Record<string, unknown> }>).map((a) => ({
            name: a.tool,
            arguments: a.args ?? {},
          })),
        );
      });
    }
    for (const client of CLIENTS) {
      let n = 0;
      const add = (identity: Identity, scenario: string, batch: string, shape: Pick<Case, 'turns' | 'ends'>) =>
        cases.push({
          id: `${client}-${n++}`,
          client,
          batch,
          scenario,
          identity,
          row: rows[client].get(key(identity)) as Row,
          ...shape,
        });
      Object.entries(SCENARIOS).forEach(([scenario, make], s) => {
        for (const seed of seeds) {
          const identity = identities.filter((i) => i.env === seed.name)[s] as Identity;
          add(identity, scenario, 'scenarios', make(references.get(key(identity)) as Call[]));
        }
      });
      // Many unfinished rollouts at once, batch after batch: a slot left taken would refuse a later batch (serve holds
      // 32).
      for (let b = 0; b < BATCHES; b++) {
        for (let i = 0; i < BATCH; i++) {
          const identity = identities[(b * BATCH + i) % identities.length] as Identity;
          add(identity, 'many unfinished at once', `many-${b}`, {
            turns: (references.get(key(identity)) as Call[]).slice(0, 1).map((a) => [a]),
            ends: 'budget',
          });
        }
      }
      if (client === 'trl') {
        // TRL reuses its pooled instances: a rollout dropped before get_reward leaves its episode running until reset.
        for (const [batch, ends] of [
          ['reuse-1', 'abandon'],
          ['reuse-2', 'no-call'],
        ] as const) {
          for (const seed of seeds) {
            const identity = identities.filter((i) => i.env === seed.name)[batch === 'reuse-1' ? 0 : 1] as Identity;
            add(identity, batch === 'reuse-1' ? 'dropped, its instance reused' : 'reuses an instance', batch, {
              turns: (references.get(key(identity)) as Call[]).slice(0, 1).map((a) => [a]),
              ends,
            });
          }
        }
      }
    }
    server = await startServer({ libraryDir: LIB, port: 0, pool, maxSessions: 32 });
    const casesFile = join(tmp, 'cases.json');
    writeFileSync(casesFile, JSON.stringify(cases));
    for (const client of CLIENTS) {
      const exportDir = client === 'openenv' ? tmp : dirs[client];
      const { stdout } = await promisify(execFile)(
        PYTHON,
        [join(FIXTURES, 'trainer-clients-driver.py'), client, casesFile],
        {
          env: {
            ...process.env,
            PYTHONPATH: join(FIXTURES, 'trainer-stand-ins'),
            EXPORT_DIR: exportDir,
            OPENENV_URL: server.url,
            ENVFORGE_URL: server.url,
            ENVFORGE_RETRIES: '1',
            ENVFORGE_BACKOFF: '0.05',
          },
          maxBuffer: 64 * 2 ** 20,
        },
      );
      for (const [id, result] of Object.entries(JSON.parse(stdout) as Record<string, Played>)) played.set(id, result);
    }
  }, 300_000);

  afterAll(async () => {
    await server?.close();
    await pool?.close();
  });

  /** In-process replay of the calls a client forwards (TRL answers undeclared tools itself). */
  async function replay(c: Case) {
    const seed = seeds.find((s) => s.name === c.identity.env) as EpisodicSeed;
    const calls = c.turns
      .flat()
      .filter((call) => c.client !== 'trl' || seed.meta.tools.some((t) => t.name === call.name));
    const [r] = (
      await runRollouts(pool, seed.source, seed.meta, [
        {
          seed: c.identity.seed,
          level: c.identity.level,
          policy: { type: 'replay', actions: calls.map((a) => ({ tool: a.name, args: a.arguments ?? {} })) },
        },
      ])
    ).rollouts;
    if (!r?.ok) throw new Error(`replay failed: ${JSON.stringify(r)}`);
    return r;
  }

  it('the scenarios bite: finished rollouts score 1, unfinished, error-ended ones mostly do not', async () => {
    expect(played.size).toBe(cases.length);
    const scores = new Map<string, number[]>();
    for (const c of cases.filter((x) => x.client === 'openenv' && x.batch === 'scenarios'))
      scores.set(c.scenario, [...(scores.get(c.scenario) ?? []), (await replay(c)).score]);
    expect(scores.get('finishes')).toEqual([1, 1, 1, 1]);
    expect(scores.get('makes two calls a turn')).toEqual([1, 1, 1, 1]);
    expect(scores.get('calls an undeclared tool three times')).toEqual([0, 0, 0, 0]);
    expect((scores.get('stops without a tool call') ?? []).filter((s) => s < 1).length).toBeGreaterThanOrEqual(3);
  });

  it.each(CLIENTS)(
    '%s: each episode holds the forwarded calls, ends as replay ends ("truncated" when the client stopped ' +
      'it) and rewards the trainer with its score',
    async (client) => {
      for (const c of cases.filter((x) => x.client === client)) {
        const result = played.get(c.id) as Played;
        const expected = await replay(c);
        const episode = await get(`${server.url}/v1/episodes/${encodeURIComponent(result.episode)}`);
        const what = `${c.id} ${c.scenario} ${c.identity.env}`;
        expect(
          (episode.turns as Array<{ action: unknown }>).map((t) => t.action),
          what,
        ).toEqual(expected.actions);
        expect({ done: episode.done, end: episode.end, score: episode.score }, what).toEqual({
          done: true,
          end: expected.end === 'no-action' ? 'truncated' : expected.end,
          score: expected.score,
        });
        // The trainer's reward is the episode's score, except where the client never asks for it (a dropped TRL
        // rollout; an OpenEnv client that just leaves).
        const silent = c.ends === 'abandon' || (client === 'openenv' && c.ends === 'budget');
        expect(result.reward, what).toBe(silent ? null : expected.score);
      }
    },
  );

  it("verl and TRL offer each row its own environment's tools only", () => {
    for (const c of cases.filter((x) => x.client === 'verl' || x.client === 'trl')) {
      const seed = seeds.find((s) => s.name === c.identity.env) as EpisodicSeed;
      expect((played.get(c.id) as Played).offered?.slice().sort(), c.id).toEqual(
        seed.meta.tools.map((t) => t.name).sort(),
      );
    }
  });

  it('after every batch of unfinished rollouts, no session stays open on the service', async () => {
    for (let i = 0; i < 200 && (await get(`${server.url}/health`)).sessions !== 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await get(`${server.url}/health`)).sessions).toBe(0);
    // And the unfinished batches really ended their episodes rather than finishing them.
    const unfinished = cases.filter((c) => c.batch.startsWith('many-'));
    const ends = await Promise.all(
      unfinished.map(
        async (c) =>
          (await get(`${server.url}/v1/episodes/${encodeURIComponent((played.get(c.id) as Played).episode)}`)).end,
      ),
    );
    expect(new Set(ends)).toEqual(new Set(['truncated']));
  });
});

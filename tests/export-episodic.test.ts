// Episodic exports: the verl agent loop, TRL environment classes and OpenRLHF agent an export writes, driven by
// python3 as each trainer drives them (tests/fixtures/trainer-clients-driver.py, trainer code from
// tests/fixtures/trainer-stand-ins) against the live service through a proxy that loses answers: reference and
// random rollouts of every episodic seed score exactly what in-process replay scores, with a 503 after a step was
// taken (the answer lost), a 503 before one, and a 429, each retried without a double step. Also the rows and files
// each format writes for episodic environments, and what TRL cannot carry.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitEpisodicSeeds, type EpisodicSeed } from '../bench/episodic-library.js';
import { hashSource } from '../contract/hash.js';
import { EPISODIC_SEEDS_DIR } from '../contract/paths.js';
import type { Meta } from '../contract/schema.js';
import { episodicMeta } from '../kinds/episodic.js';
import { FORMATS } from '../export/registry.js';
import { runExport, type ExportSummary } from '../export/run.js';
import { parseSplit } from '../export/select.js';
import { trlRefuses } from '../export/shims/trl-environment.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { runRollouts, type Rollout, type RolloutRequest } from '../sandbox/rollouts.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { RunningServer } from '../serve/options.js';
import { startServer } from '../serve/server.js';
import { describeColumns, readWithArrow } from './helpers/arrow-reader.js';
import { PYTHON } from './helpers/python.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'envforge-episodic-export-'));
const LIB = join(tmp, 'library');
const dirs = {
  verl: join(tmp, 'verl'),
  trl: join(tmp, 'trl'),
  openrlhf: join(tmp, 'openrlhf'),
  jsonl: join(tmp, 'jsonl'),
};
type Row = Record<string, unknown>;

interface Case {
  env: string;
  policy: 'act' | 'random';
  identity: { env: string; version: number; seed: number; level: number };
  actions: unknown[];
  expected: { score: number; turns: number; end: string; prompt: string };
  verl: Row;
  trl: Row;
  openrlhf: Row;
}

const readParquet = async (path: string) => {
  const bytes = readFileSync(path);
  return (await parquetReadObjects({
    file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  })) as Row[];
};
const jsonLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);
const plain = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)));

describe('episodic exports: the generated Python shims against the live service', () => {
  let pool: SandboxPool;
  let seeds: EpisodicSeed[];
  let server: RunningServer;
  let proxy: Server;
  let proxyUrl = '';
  const summaries = new Map<string, ExportSummary>();
  const cases: Case[] = [];
  // Faults the proxy injects, and what it saw: which episode each lost answer belonged to.
  const seen = {
    steps: 0,
    creates: 0,
    lostAnswers: [] as string[],
    refusedSteps: 0,
    refusedCreates: 0,
    lostCreates: [] as string[],
    answeredCreates: [] as string[],
  };

  beforeAll(async () => {
    pool = new SandboxPool({ workers: 2 });
    const writable = SqliteLibrary.open(LIB, { create: true });
    seeds = await admitEpisodicSeeds(writable, pool);
    await writable.close();
    const library = SqliteLibrary.open(LIB, { readonly: true });
    try {
      // Two rows per environment at levels 3 and 4: the first is played by act, the second by a random policy.
      const selection = { levels: { all: { lo: 3, hi: 4 }, byEnv: new Map() } };
      for (const [name, out] of Object.entries(dirs)) {
        summaries.set(
          name,
          await runExport(library, pool, {
            format: FORMATS[name as keyof typeof dirs],
            out,
            selection,
            counts: { perEnv: 2 },
            splits: parseSplit('train:1'),
            seed: 5,
            serviceUrl: 'http://127.0.0.1:9',
          }),
        );
      }
    } finally {
      await library.close();
    }
    const verlRows = await readParquet(join(dirs.verl, 'train.parquet'));
    const trlRows = jsonLines(join(dirs.trl, 'train.episodic.jsonl'));
    const openrlhfRows = jsonLines(join(dirs.openrlhf, 'train.jsonl'));
    for (const seed of seeds) {
      const mine = verlRows
        .map((row, i) => ({ row, i }))
        .filter(({ row }) => (row.extra_info as Row).env === seed.name);
      const identities = mine.map(({ row }) => {
        const info = row.extra_info as Record<string, bigint>;
        return { seed: Number(info.seed), level: Number(info.level) };
      });
      const [act] = (
        await runRollouts(pool, seed.source, seed.meta, [
          { ...(identities[0] as { seed: number; level: number }), policy: { type: 'act' } },
        ])
      ).rollouts;
      // The random policy keeps the tool that ended act's episode mostly for the end, so its episodes run long.
      const finisher = act?.ok ? (act.actions.at(-1) as { tool: string }).tool : '';
      const requests: RolloutRequest[] = identities.map((id, k) => ({
        ...id,
        policy: k === 0 ? { type: 'act' } : { type: 'random', seed: 31 + id.seed, avoid: [finisher] },
      }));
      const played = (await runRollouts(pool, seed.source, seed.meta, requests)).rollouts;
      // The expected scores are in-process replays of the very action logs the shims will send.
      const replayed = (
        await runRollouts(
          pool,
          seed.source,
          seed.meta,
          played.map((r, k) => ({
            ...(requests[k] as RolloutRequest),
            policy: { type: 'replay', actions: r.ok ? r.actions : [] },
          })),
        )
      ).rollouts;
      mine.forEach(({ row, i }, k) => {
        const r = replayed[k] as Rollout;
        if (!r.ok) throw new Error(`${seed.name}: ${JSON.stringify(r)}`);
        const identity = JSON.parse((row.reward_model as { ground_truth: string }).ground_truth) as Case['identity'];
        cases.push({
          env: seed.name,
          policy: k === 0 ? 'act' : 'random',
          identity,
          actions: r.actions,
          expected: { score: r.score, turns: r.turns, end: r.end, prompt: r.prompt ?? '' },
          verl: plain(row) as Row,
          trl: trlRows[i] as Row,
          openrlhf: openrlhfRows[i] as Row,
        });
      });
    }

    server = await startServer({ libraryDir: LIB, port: 0, pool, maxSessions: 64 });
    // The proxy in front of the service: every 40th step from the 3rd is taken but its answer is lost (503), every
    // 40th from the 23rd is refused before the service sees it (503), the 2nd episode creation is refused (429),
    // the 3rd is made but its answer is lost (503); all with retry-after 0. The shims take turns per case, so each
    // meets these faults.
    proxy = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const step = /^\/v1\/episodes\/([^/]+)\/step$/.exec(request.url ?? '');
        const n = step ? ++seen.steps : request.url === '/v1/episodes' ? ++seen.creates : 0;
        const refuse = (status: number) =>
          response
            .writeHead(status, { 'retry-after': '0', 'content-type': 'application/json' })
            .end('{"error":{"code":"E_TEST","message":"injected"}}');
        if ((step && n % 40 === 23) || (!step && request.url === '/v1/episodes' && n === 2)) {
          if (step) seen.refusedSteps++;
          else seen.refusedCreates++;
          refuse(step ? 503 : 429);
          return;
        }
        const method = request.method ?? 'GET';
        const key = request.headers['idempotency-key'];
        // The client's own headers go through as sent (a body type on a bodiless DELETE included), so the service meets
        // them.
        const type = request.headers['content-type'];
        const headers = {
          ...(typeof type === 'string' ? { 'content-type': type } : {}),
          ...(typeof key === 'string' ? { 'idempotency-key': key } : {}),
        };
        fetch(`${server.url}${request.url}`, { method, headers, ...(body ? { body } : {}) }).then(
          async (answer) => {
            const text = await answer.text();
            if (!step && request.url === '/v1/episodes' && answer.ok) {
              const id = (JSON.parse(text) as { episode: string }).episode;
              if (n === 3) {
                seen.lostCreates.push(id);
                refuse(503);
                return;
              }
              seen.answeredCreates.push(id);
            }
            if (step && n % 40 === 3) {
              seen.lostAnswers.push(decodeURIComponent(step[1] as string));
              refuse(503);
              return;
            }
            response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
          },
          (error: Error) => response.writeHead(502).end(error.message),
        );
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  }, 240_000);

  afterAll(async () => {
    if (proxy) await new Promise((resolve) => proxy.close(resolve));
    await server?.close();
    await pool?.close();
  });

  it('exports every episodic seed to each format, with the tools handed over natively', async () => {
    for (const [name, summary] of summaries) {
      expect(summary.unsupported, name).toBeUndefined();
      expect(summary.envs.map((e) => e.name).sort(), name).toEqual(seeds.map((s) => s.name).sort());
      expect(summary.total, name).toBe(2 * seeds.length);
    }
    const files = (name: string) => summaries.get(name)?.files.map((f) => f.name);
    expect(files('verl')).toEqual(
      expect.arrayContaining([
        'agent_loop.yaml',
        'envforge_verl.py',
        'compute_score.py',
        'envforge_client.py',
        'envforge.json',
      ]),
    );
    expect(files('verl')).not.toContain('tool_config.yaml');
    expect(files('trl')).toEqual(
      expect.arrayContaining([
        'environment.py',
        'reward.py',
        'train.episodic.jsonl',
        'train.episodic.parquet',
        'envforge_client.py',
        'envforge.json',
      ]),
    );
    expect(files('openrlhf')).toEqual(expect.arrayContaining(['agent_func.py', 'envforge_client.py', 'envforge.json']));
    expect(readFileSync(join(dirs.jsonl, 'README.md'), 'utf8')).toMatch(
      /play\s+them as episodes: `POST \/v1\/episodes`/,
    );
    expect(jsonLines(join(dirs.jsonl, 'train.jsonl')).map((r) => r.ground_truth)).toEqual(
      cases.map((c) => JSON.stringify(c.identity)),
    );
    // TRL: no episodic row in the single-turn files, and every episodic row names its environment.
    expect(jsonLines(join(dirs.trl, 'train.jsonl'))).toEqual([]);
    const byName = new Map(seeds.map((s) => [s.name, s]));
    for (const c of cases) {
      const tools = (byName.get(c.env) as EpisodicSeed).meta.tools.map((t) => t.name);
      // verl: the row names envforge's agent loop and carries its identity; no per-tool columns (the loop reads the
      // tools from envforge.json).
      expect(c.verl).toMatchObject({
        agent_name: 'envforge_agent',
        data_source: `envforge/${c.env}`,
        reward_model: { style: 'rule', ground_truth: JSON.stringify(c.identity) },
        extra_info: { ...c.identity, split: 'train' },
      });
      // TRL: an empty user message that reset() fills, and the row's environment class.
      expect(c.trl).toMatchObject({ prompt: [{ role: 'user', content: '' }], environment: c.env, ...c.identity });
      // OpenRLHF: the task, every tool with its parameters, and how to call one.
      const input = c.openrlhf.input as string;
      expect(input.startsWith(c.expected.prompt)).toBe(true);
      for (const tool of tools) expect(input).toContain(`{"name":"${tool}"`);
      expect(input).toMatch(/<tool_call>/);
      expect(JSON.parse(c.openrlhf.label as string)).toEqual(c.identity);
    }
    // arrow-rs reads the verl rows as hyparquet does.
    const arrow = readWithArrow(join(dirs.verl, 'train.parquet'));
    const extraInfo = String.raw`extra_info:\+s\?<split:u\?,index:l\?,env:u\?,version:l\?,seed:l\?,level:l\?>`;
    expect(describeColumns(arrow.schema)).toMatch(
      new RegExp(
        String.raw`^data_source:u\?,prompt:\+l\?<.*>,ability:u\?,reward_model:\+s\?<.*>,` +
          extraInfo +
          String.raw`,agent_name:u\?$`,
      ),
    );
    expect(arrow.rows.map((r) => plain([r.extra_info, r.agent_name]))).toEqual(
      cases.map((c) => plain([c.verl.extra_info, c.verl.agent_name])),
    );
    for (const c of cases)
      expect(cases.map((x) => x.expected.prompt)).toContain((c.verl.prompt as Array<{ content: string }>)[0]?.content);
    // The YAML verl loads with OmegaConf names the loop and holds no module text.
    expect(readFileSync(join(dirs.verl, 'agent_loop.yaml'), 'utf8')).toMatch(
      /^- name: envforge_agent\n {2}_target_: envforge_verl\.EnvforgeAgentLoop\n$/m,
    );
  });

  it('the cases are not vacuous: act scores 1, random rollouts mostly do not, and they run for turns', () => {
    expect(cases).toHaveLength(2 * seeds.length);
    expect(
      cases.filter((c) => c.policy === 'act').every((c) => c.expected.score === 1 && c.expected.end === 'done'),
    ).toBe(true);
    expect(cases.filter((c) => c.policy === 'random' && c.expected.score < 1).length).toBeGreaterThan(seeds.length / 2);
    expect(cases.filter((c) => c.actions.length >= 5).length).toBeGreaterThan(cases.length / 2);
  });

  it("verl's agent loop, the TRL environment and the OpenRLHF agent score every episode as in-process replay, " +
    'retried without a double step', {
    timeout: 180_000,
  }, async () => {
    const clients = { verl: (c: Case) => c.verl, trl: (c: Case) => c.trl, openrlhf: (c: Case) => c.openrlhf };
    const driverCases = Object.entries(clients).flatMap(([client, row]) =>
      cases.map((c, i) => ({
        id: `${client}-${i}`,
        client,
        batch: 'all',
        row: row(c),
        turns: (c.actions as Array<{ tool: string; args?: object }>).map((a) => [
          { name: a.tool, arguments: a.args ?? {} },
        ]),
        ends: 'no-call',
      })),
    );
    const casesFile = join(tmp, 'cases.json');
    writeFileSync(casesFile, JSON.stringify(driverCases));
    for (const client of Object.keys(clients)) {
      const { stdout } = await promisify(execFile)(
        PYTHON,
        [join(FIXTURES, 'trainer-clients-driver.py'), client, casesFile],
        {
          env: {
            ...process.env,
            PYTHONPATH: join(FIXTURES, 'trainer-stand-ins'),
            EXPORT_DIR: dirs[client as keyof typeof clients],
            ENVFORGE_URL: proxyUrl,
            ENVFORGE_BACKOFF: '0.01',
          },
          maxBuffer: 64 * 2 ** 20,
        },
      );
      const out = JSON.parse(stdout) as Record<string, { episode: string; reward: number; prompt?: string }>;
      for (const [i, c] of cases.entries()) {
        const result = out[`${client}-${i}`] as { episode: string; reward: number; prompt?: string };
        expect(result.reward, `${client} ${c.env} ${c.policy}`).toBe(c.expected.score);
        const episode = (await (
          await fetch(`${server.url}/v1/episodes/${encodeURIComponent(result.episode)}`)
        ).json()) as { turns: Array<{ action: unknown }>; end: string };
        expect(
          episode.turns.map((t) => t.action),
          `${client} ${c.env} ${c.policy}`,
        ).toEqual(c.actions);
        expect(episode.end).toBe(c.expected.end === 'no-action' ? 'truncated' : c.expected.end);
        if (client === 'trl') expect(result.prompt).toBe(c.expected.prompt);
      }
    }
    // The faults happened, and the episode whose answer was lost holds each of its turns once.
    expect(seen.refusedCreates).toBe(1);
    // The create whose answer was lost was retried under its Idempotency-Key: the shim got that very episode.
    expect(seen.lostCreates).toHaveLength(1);
    expect(seen.answeredCreates).toContain(seen.lostCreates[0]);
    expect(new Set(seen.answeredCreates).size).toBe(seen.answeredCreates.length);
    expect(seen.refusedSteps).toBeGreaterThanOrEqual(5);
    expect(seen.lostAnswers.length).toBeGreaterThanOrEqual(5);
    for (const id of seen.lostAnswers) {
      const lost = (await (await fetch(`${server.url}/v1/episodes/${encodeURIComponent(id)}`)).json()) as {
        turns: Array<{ turn: number; action: unknown }>;
        env: string;
        seed: number;
        level: number;
      };
      const owner = cases.find(
        (c) => c.identity.env === lost.env && c.identity.seed === lost.seed && c.identity.level === lost.level,
      ) as Case;
      expect(lost.turns.map((t) => t.action)).toEqual(owner.actions);
    }
  });

  it('the generated client ends an unfinished episode on the service; it scores as replay scores', async () => {
    const c = cases.find((x) => x.policy === 'act' && x.actions.length >= 2) as Case;
    const taken = c.actions.slice(0, 1) as Array<{ tool: string; args?: Record<string, unknown> }>;
    const script = [
      'import json, os, sys',
      'sys.path.insert(0, os.environ["TRL_DIR"])',
      'import environment',
      'row, action = json.loads(sys.argv[1]), json.loads(sys.argv[2])',
      'env = environment.ENVIRONMENTS[row["environment"]]()',
      'env.reset(**row)',
      'getattr(env, action["tool"])(**action.get("args", {}))',
      'print(json.dumps({"score": env.get_reward(), "turn": env._episode.turn}))',
    ].join('\n');
    const { stdout } = await promisify(execFile)(
      PYTHON,
      ['-c', script, JSON.stringify(c.trl), JSON.stringify(taken[0])],
      { env: { ...process.env, TRL_DIR: dirs.trl, ENVFORGE_URL: server.url, ENVFORGE_RETRIES: '0' } },
    );
    const replay = (await (
      await fetch(`${server.url}/v1/episodes/score`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...c.identity, actions: taken }),
      })
    ).json()) as { score: number; turns: number };
    expect(JSON.parse(stdout)).toEqual({ score: replay.score, turn: 1 });
    expect(replay.turns).toBe(1);
  });

  it('TRL leaves out an environment whose tool cannot be a method of its class; verl still exports it', async () => {
    // library-loans with its finishing tool renamed get_reward, a name TRL reserves for the environment's reward.
    const source = readFileSync(join(EPISODIC_SEEDS_DIR, 'library-loans.js'), 'utf8')
      .replaceAll('close_desk', 'get_reward')
      .replace("name: 'library-loans'", "name: 'loans-variant'");
    const meta = await episodicMeta(pool, source);
    expect(meta?.tools.map((t) => t.name)).toContain('get_reward');
    const dir = join(tmp, 'variant-library');
    const writable = SqliteLibrary.open(dir, { create: true });
    await writable.admit({
      source,
      report: {
        verdict: 'admit',
        name: 'loans-variant',
        hash: hashSource(source),
        meta: meta as Meta,
        stages: [],
        problems: [],
        curve: [],
        fingerprint: null,
        validatorVersion: 'test',
        validationSeed: 0,
        ms: 1,
      },
      lineage: { author: 'test' },
    });
    await writable.close();
    const library = SqliteLibrary.open(dir, { readonly: true });
    try {
      const plan = {
        selection: {},
        counts: { perEnv: 1 },
        splits: parseSplit('train:1'),
        seed: 1,
        serviceUrl: 'http://127.0.0.1:9',
      };
      const trl = await runExport(library, pool, { ...plan, format: FORMATS.trl, out: join(tmp, 'variant-trl') });
      expect(trl.unsupported).toEqual([
        {
          name: 'loans-variant',
          version: 1,
          kind: 'episodic',
          reason: expect.stringMatching(/its tool "get_reward" cannot be a method of a TRL environment class/),
        },
      ]);
      expect(trl.total).toBe(0);
      const verl = await runExport(library, pool, { ...plan, format: FORMATS.verl, out: join(tmp, 'variant-verl') });
      expect(verl.unsupported).toBeUndefined();
      expect(verl.total).toBe(1);
      const config = JSON.parse(readFileSync(join(tmp, 'variant-verl', 'envforge.json'), 'utf8')) as {
        envs: Record<string, { tools: Array<{ name: string }> }>;
      };
      expect(config.envs['loans-variant']?.tools.map((t) => t.name)).toContain('get_reward');
    } finally {
      await library.close();
    }
  });

  it(
    'TRL names what it cannot express: a keyword parameter; a non-string enum it can (and ' +
      'verl states it in words)',
    () => {
      const env = (properties: Record<string, unknown>) => ({
        name: 'x',
        version: 1,
        hash: 'h',
        kind: 'episodic',
        episodic: {
          maxTurns: 5,
          tools: [{ name: 'pick', description: 'Pick.', parameters: { type: 'object', properties } }],
        },
      });
      expect(trlRefuses(env({ from: { type: 'string' } }))).toMatch(
        /the parameter "from" of its tool "pick" cannot be a Python keyword argument/,
      );
      expect(trlRefuses(env({ n: { type: 'integer', enum: [1, 2] } }))).toBeUndefined();
      expect(trlRefuses(env({ s: { type: 'string', enum: ['a', 'b\u2029'] } }))).toMatch(
        /an enum value of the parameter "s" of its tool "pick" begins or ends with whitespace/,
      );
      expect(FORMATS.verl.refuses).toBeUndefined();
    },
  );

  it('a service that is down stops each shim loudly (verl: past its tool loop, catching any Exception)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const c = cases[0] as Case;
    const casesFile = join(tmp, 'down.json');
    const rows = { verl: c.verl, trl: c.trl, openrlhf: c.openrlhf };
    writeFileSync(
      casesFile,
      JSON.stringify(
        Object.entries(rows).map(([client, row]) => ({
          id: client,
          client,
          batch: 'down',
          row,
          turns: [],
          ends: 'no-call',
        })),
      ),
    );
    const failure = async (client: string) =>
      promisify(execFile)(PYTHON, [join(FIXTURES, 'trainer-clients-driver.py'), client, casesFile], {
        env: {
          ...process.env,
          PYTHONPATH: join(FIXTURES, 'trainer-stand-ins'),
          EXPORT_DIR: dirs[client as keyof typeof rows],
          ENVFORGE_URL: `http://127.0.0.1:${port}`,
          ENVFORGE_RETRIES: '1',
          ENVFORGE_BACKOFF: '0.01',
        },
      }).then(
        () => 'no failure',
        (error: { stderr: string }) => error.stderr.trim().split('\n').at(-1) as string,
      );
    expect(await failure('verl')).toMatch(
      /^envforge_verl\.EnvforgeServiceFailure: the envforge reward service at http:\/\/127\.0\.0\.1:\d+ failed 2 times/,
    );
    expect(await failure('trl')).toMatch(
      /^envforge_client\.EnvforgeServiceError: the envforge reward service .* failed 2 times/,
    );
    expect(await failure('openrlhf')).toMatch(
      /^envforge_client\.EnvforgeServiceError: the envforge reward service .* failed 2 times/,
    );
  });
});

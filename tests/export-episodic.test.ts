// Episodic exports: the verl tools, TRL environment classes and OpenRLHF agent an export generates, run by
// python3 against the live service (trainer base classes from tests/fixtures/trainer-stand-ins), drive
// reference and random rollouts of every episodic seed to exactly the scores and turn counts of in-process
// replay, with a 503 after a step was taken (the answer lost), a 503 before one, and a 429 retried without
// a double step. Also the rows each format writes for episodic environments, and what TRL cannot carry.
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
import { verlRefuses } from '../export/shims/verl-tools.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { runRollouts, type Rollout, type RolloutRequest } from '../sandbox/rollouts.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { RunningServer } from '../serve/options.js';
import { startServer } from '../serve/server.js';
import { describeColumns, readWithArrow } from './helpers/arrow-reader.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'envforge-episodic-export-'));
const LIB = join(tmp, 'library');
const dirs = { verl: join(tmp, 'verl'), trl: join(tmp, 'trl'), openrlhf: join(tmp, 'openrlhf'), jsonl: join(tmp, 'jsonl') };
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
  return (await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) })) as Row[];
};
const jsonLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)));

describe('episodic exports: the generated Python shims against the live service', () => {
  let pool: SandboxPool;
  let seeds: EpisodicSeed[];
  let server: RunningServer;
  let proxy: Server;
  let proxyUrl = '';
  const summaries = new Map<string, ExportSummary>();
  const cases: Case[] = [];
  // Faults the proxy injects, and what it saw: which episode each lost answer belonged to.
  const seen = { steps: 0, creates: 0, lostAnswers: [] as string[], refusedSteps: 0, refusedCreates: 0, lostCreates: [] as string[], answeredCreates: [] as string[] };

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
        summaries.set(name, await runExport(library, pool, { format: FORMATS[name as keyof typeof dirs], out, selection, counts: { perEnv: 2 }, splits: parseSplit('train:1'), seed: 5, serviceUrl: 'http://127.0.0.1:9' }));
      }
    } finally {
      await library.close();
    }
    const verlRows = await readParquet(join(dirs.verl, 'train.parquet'));
    const trlRows = jsonLines(join(dirs.trl, 'train.jsonl'));
    const openrlhfRows = jsonLines(join(dirs.openrlhf, 'train.jsonl'));
    for (const seed of seeds) {
      const mine = verlRows.map((row, i) => ({ row, i })).filter(({ row }) => (row.extra_info as Row).env === seed.name);
      const identities = mine.map(({ row }) => {
        const info = row.extra_info as Record<string, bigint>;
        return { seed: Number(info.seed), level: Number(info.level) };
      });
      const [act] = (await runRollouts(pool, seed.source, seed.meta, [{ ...(identities[0] as { seed: number; level: number }), policy: { type: 'act' } }])).rollouts;
      // The random policy keeps the tool that ended act's episode mostly for the end, so its episodes run long.
      const finisher = act?.ok ? (act.actions.at(-1) as { tool: string }).tool : '';
      const requests: RolloutRequest[] = identities.map((id, k) => ({ ...id, policy: k === 0 ? { type: 'act' } : { type: 'random', seed: 31 + id.seed, avoid: [finisher] } }));
      const played = (await runRollouts(pool, seed.source, seed.meta, requests)).rollouts;
      // The expected scores are in-process replays of the very action logs the shims will send.
      const replayed = (await runRollouts(pool, seed.source, seed.meta, played.map((r, k) => ({ ...(requests[k] as RolloutRequest), policy: { type: 'replay', actions: r.ok ? r.actions : [] } })))).rollouts;
      mine.forEach(({ row, i }, k) => {
        const r = replayed[k] as Rollout;
        if (!r.ok) throw new Error(`${seed.name}: ${JSON.stringify(r)}`);
        const identity = JSON.parse((row.reward_model as { ground_truth: string }).ground_truth) as Case['identity'];
        cases.push({ env: seed.name, policy: k === 0 ? 'act' : 'random', identity, actions: r.actions, expected: { score: r.score, turns: r.turns, end: r.end, prompt: r.prompt ?? '' }, verl: { ...(plain(row.extra_info) as Row), data_source: row.data_source, ground_truth: (row.reward_model as Row).ground_truth }, trl: trlRows[i] as Row, openrlhf: openrlhfRows[i] as Row });
      });
    }

    server = await startServer({ libraryDir: LIB, port: 0, pool, maxSessions: 64 });
    // The proxy in front of the service: every 40th step from the 3rd is taken but its answer is lost (503), every
    // 40th from the 23rd is refused before the service sees it (503), the 2nd episode creation is refused (429),
    // the 3rd is made but its answer is lost (503); all with retry-after 0. The shims take turns per case, so each meets these faults.
    proxy = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const step = /^\/v1\/episodes\/([^/]+)\/step$/.exec(request.url ?? '');
        const n = step ? ++seen.steps : request.url === '/v1/episodes' ? ++seen.creates : 0;
        const refuse = (status: number) => response.writeHead(status, { 'retry-after': '0', 'content-type': 'application/json' }).end('{"error":{"code":"E_TEST","message":"injected"}}');
        if ((step && n % 40 === 23) || (!step && request.url === '/v1/episodes' && n === 2)) {
          if (step) seen.refusedSteps++;
          else seen.refusedCreates++;
          refuse(step ? 503 : 429);
          return;
        }
        const method = request.method ?? 'GET';
        const key = request.headers['idempotency-key'];
        // The client's own headers go through as sent (a body type on a bodiless DELETE included), so the service meets them.
        const type = request.headers['content-type'];
        const headers = { ...(typeof type === 'string' ? { 'content-type': type } : {}), ...(typeof key === 'string' ? { 'idempotency-key': key } : {}) };
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
    expect(summaries.get('verl')?.files.map((f) => f.name)).toEqual(expect.arrayContaining(['tool_config.yaml', 'envforge_tools.py', 'compute_score.py']));
    expect(summaries.get('trl')?.files.map((f) => f.name)).toContain('environment.py');
    expect(summaries.get('openrlhf')?.files.map((f) => f.name)).toContain('agent_func.py');
    expect(readFileSync(join(dirs.jsonl, 'README.md'), 'utf8')).toMatch(/play\s+them as episodes: `POST \/v1\/episodes`/);
    expect(jsonLines(join(dirs.jsonl, 'train.jsonl')).map((r) => r.ground_truth)).toEqual(cases.map((c) => JSON.stringify(c.identity)));
    const byName = new Map(seeds.map((s) => [s.name, s]));
    for (const c of cases) {
      const tools = (byName.get(c.env) as EpisodicSeed).meta.tools.map((t) => t.name);
      // verl: the row's identity as create_kwargs for each of its environment's tools, null for the others.
      const kwargs = c.verl.tools_kwargs as Record<string, { create_kwargs: unknown } | null>;
      expect(Object.keys(kwargs).sort()).toEqual([...tools].sort()); // hyparquet leaves the other tools' nulls out
      for (const [tool, value] of Object.entries(kwargs)) expect(value, `${c.env} ${tool}`).toEqual({ create_kwargs: c.identity });
      expect(c.verl.need_tools_kwargs).toBe(true);
      // TRL: an empty user message that reset() fills, and the row's environment class.
      expect(c.trl).toMatchObject({ prompt: [{ role: 'user', content: '' }], environment: c.env, ...c.identity });
      // OpenRLHF: the task, every tool with its parameters, and how to call one.
      const input = c.openrlhf.input as string;
      expect(input.startsWith(c.expected.prompt)).toBe(true);
      for (const tool of tools) expect(input).toContain(`{"name":"${tool}"`);
      expect(input).toMatch(/<tool_call>/);
      expect(JSON.parse(c.openrlhf.label as string)).toEqual(c.identity);
    }
    const verlRows = await readParquet(join(dirs.verl, 'train.parquet'));
    expect(new Set(verlRows.map((r) => r.agent_name))).toEqual(new Set(['tool_agent']));
    // arrow-rs reads the nested tools_kwargs (structs, nulls, a boolean) as hyparquet does.
    const arrow = readWithArrow(join(dirs.verl, 'train.parquet'));
    expect(describeColumns(arrow.schema)).toMatch(/^data_source:u\?,prompt:\+l\?<.*>,ability:u\?,reward_model:\+s\?<.*>,extra_info:\+s\?<split:u\?,index:l\?,env:u\?,version:l\?,seed:l\?,level:l\?,need_tools_kwargs:b\?,tools_kwargs:\+s\?<.*>>,agent_name:u\?$/);
    // (hyparquet leaves a null struct field out; arrow-rs, like pyarrow, keeps it as null: every tool of the export.)
    const allTools = [...new Set(seeds.flatMap((seed) => seed.meta.tools.map((t) => t.name)))].sort();
    for (const row of arrow.rows) expect(Object.keys((row.extra_info as { tools_kwargs: object }).tools_kwargs).sort()).toEqual(allTools);
    const withoutNulls = (value: unknown) => JSON.parse(JSON.stringify(plain(value), (_, v: unknown) => (v === null ? undefined : v))) as unknown;
    expect(arrow.rows.map((r) => withoutNulls([r.extra_info, r.agent_name]))).toEqual(verlRows.map((r) => withoutNulls([r.extra_info, r.agent_name])));
    for (const row of verlRows) expect(cases.map((c) => c.expected.prompt)).toContain((row.prompt as Array<{ content: string }>)[0]?.content);
  });

  it('the cases are not vacuous: act scores 1, random rollouts mostly do not, and they run for turns', () => {
    expect(cases).toHaveLength(2 * seeds.length);
    expect(cases.filter((c) => c.policy === 'act').every((c) => c.expected.score === 1 && c.expected.end === 'done')).toBe(true);
    expect(cases.filter((c) => c.policy === 'random' && c.expected.score < 1).length).toBeGreaterThan(seeds.length / 2);
    expect(cases.filter((c) => c.actions.length >= 5).length).toBeGreaterThan(cases.length / 2);
  });

  it('verl tools, the TRL environment and the OpenRLHF agent score every episode as in-process replay, retried without a double step', { timeout: 180_000 }, async () => {
    const casesFile = join(tmp, 'cases.json');
    writeFileSync(casesFile, JSON.stringify(cases.map((c, i) => (i === 0 ? { ...c, noise: true } : c))));
    const { stdout } = await promisify(execFile)('python3', [join(FIXTURES, 'episodic-shims-driver.py'), casesFile], {
      env: { ...process.env, PYTHONPATH: join(FIXTURES, 'trainer-stand-ins'), VERL_DIR: dirs.verl, TRL_DIR: dirs.trl, OPENRLHF_DIR: dirs.openrlhf, ENVFORGE_URL: proxyUrl, ENVFORGE_BACKOFF: '0.01' },
      maxBuffer: 64 * 2 ** 20,
    });
    const out = JSON.parse(stdout) as Record<'verl' | 'trl' | 'openrlhf', Array<{ score: number; turn: number; prompt?: string; compute_score?: number }>> & { executor: string; factory: unknown };
    const expected = cases.map((c) => ({ score: c.expected.score, turn: c.expected.turns }));
    for (const shim of ['verl', 'trl', 'openrlhf'] as const) expect(out[shim].map(({ score, turn }) => ({ score, turn })), shim).toEqual(expected);
    expect(out.trl.map((r) => r.prompt)).toEqual(cases.map((c) => c.expected.prompt));
    // compute_score reads the score from the tool rewards of an episode that ended (a left-running one scores 0).
    expect(out.verl.map((r) => r.compute_score)).toEqual(cases.map((c) => (c.expected.end === 'no-action' ? 0 : c.expected.score)));
    expect(out.executor).toBe('AgentExecutor');
    // Tool calls the service cannot take become the policy's error, not the trainer's: no turn, no crash.
    expect((out.openrlhf[0] as unknown as { refused: unknown[] }).refused).toEqual([
      [expect.stringMatching(/error: the tool call is not JSON/), false, 0],
      [expect.stringMatching(/error: a tool call needs the name of a tool and an object of arguments/), false, 0],
      [expect.stringMatching(/error: the request body is over the limit of 262144 bytes/), false, 0],
    ]);
    expect(out.factory).toEqual(seeds.map((s) => s.name).sort());
    // The faults happened, and the episode whose answer was lost holds each of its turns once.
    expect(seen.refusedCreates).toBe(1);
    // The create whose answer was lost was retried under its Idempotency-Key: the shim got that very episode.
    expect(seen.lostCreates).toHaveLength(1);
    expect(seen.answeredCreates).toContain(seen.lostCreates[0]);
    expect(new Set(seen.answeredCreates).size).toBe(seen.answeredCreates.length);
    expect(seen.refusedSteps).toBeGreaterThanOrEqual(5);
    expect(seen.lostAnswers.length).toBeGreaterThanOrEqual(5);
    for (const id of seen.lostAnswers) {
      const lost = (await (await fetch(`${server.url}/v1/episodes/${encodeURIComponent(id)}`)).json()) as { turns: Array<{ turn: number; action: unknown }>; env: string; seed: number; level: number };
      const owner = cases.find((c) => c.identity.env === lost.env && c.identity.seed === lost.seed && c.identity.level === lost.level) as Case;
      expect(lost.turns.map((t) => t.action)).toEqual(owner.actions);
    }
  });

  it('the generated client ends an unfinished episode against the service itself, and it scores as replay scores', async () => {
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
    const { stdout } = await promisify(execFile)('python3', ['-c', script, JSON.stringify(c.trl), JSON.stringify(taken[0])], { env: { ...process.env, TRL_DIR: dirs.trl, ENVFORGE_URL: server.url, ENVFORGE_RETRIES: '0' } });
    const replay = (await (await fetch(`${server.url}/v1/episodes/score`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...c.identity, actions: taken }) })).json()) as { score: number; turns: number };
    expect(JSON.parse(stdout)).toEqual({ score: replay.score, turn: 1 });
    expect(replay.turns).toBe(1);
  });

  it('TRL leaves out an environment whose tool cannot be a method of its class; verl still exports it', async () => {
    // library-loans with its finishing tool renamed get_reward, a name TRL reserves for the environment's reward.
    const source = readFileSync(join(EPISODIC_SEEDS_DIR, 'library-loans.js'), 'utf8').replaceAll('close_desk', 'get_reward').replace("name: 'library-loans'", "name: 'loans-variant'");
    const meta = await episodicMeta(pool, source);
    expect(meta?.tools.map((t) => t.name)).toContain('get_reward');
    const dir = join(tmp, 'variant-library');
    const writable = SqliteLibrary.open(dir, { create: true });
    await writable.admit({ source, report: { verdict: 'admit', name: 'loans-variant', hash: hashSource(source), meta: meta as Meta, stages: [], problems: [], curve: [], fingerprint: null, validatorVersion: 'test', validationSeed: 0, ms: 1 }, lineage: { author: 'test' } });
    await writable.close();
    const library = SqliteLibrary.open(dir, { readonly: true });
    try {
      const plan = { selection: {}, counts: { perEnv: 1 }, splits: parseSplit('train:1'), seed: 1, serviceUrl: 'http://127.0.0.1:9' };
      const trl = await runExport(library, pool, { ...plan, format: FORMATS.trl, out: join(tmp, 'variant-trl') });
      expect(trl.unsupported).toEqual([{ name: 'loans-variant', version: 1, kind: 'episodic', reason: expect.stringMatching(/its tool "get_reward" cannot be a method of a TRL environment class/) }]);
      expect(trl.total).toBe(0);
      const verl = await runExport(library, pool, { ...plan, format: FORMATS.verl, out: join(tmp, 'variant-verl') });
      expect(verl.unsupported).toBeUndefined();
      expect(verl.total).toBe(1);
      expect(readFileSync(join(tmp, 'variant-verl', 'tool_config.yaml'), 'utf8')).toMatch(/"class_name": "envforge_tools.GetRewardTool"/);
    } finally {
      await library.close();
    }
  });

  it('each format names what it cannot express: a non-string enum for verl, a keyword parameter for TRL', () => {
    const env = (properties: Record<string, unknown>) => ({ name: 'x', version: 1, hash: 'h', episodic: { maxTurns: 5, tools: [{ name: 'pick', description: 'Pick.', parameters: { type: 'object', properties } }] } });
    expect(verlRefuses(env({ n: { type: 'integer', enum: [1, 2] } }))).toMatch(/the parameter "n" of its tool "pick" has a non-string enum/);
    expect(verlRefuses(env({ n: { type: 'string', enum: ['a'] }, from: { type: 'string' } }))).toBeUndefined();
    expect(trlRefuses(env({ from: { type: 'string' } }))).toMatch(/the parameter "from" of its tool "pick" cannot be a Python keyword argument/);
    expect(trlRefuses(env({ n: { type: 'integer', enum: [1, 2] } }))).toBeUndefined();
  });

  it('a service that is down stops each shim loudly (verl: past its tool loop, which catches every Exception)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const casesFile = join(tmp, 'down.json');
    writeFileSync(casesFile, JSON.stringify(cases.slice(0, 1)));
    const { stdout } = await promisify(execFile)('python3', [join(FIXTURES, 'episodic-shims-driver.py'), casesFile, 'down'], {
      env: { ...process.env, PYTHONPATH: join(FIXTURES, 'trainer-stand-ins'), VERL_DIR: dirs.verl, TRL_DIR: dirs.trl, OPENRLHF_DIR: dirs.openrlhf, ENVFORGE_URL: `http://127.0.0.1:${port}`, ENVFORGE_RETRIES: '1', ENVFORGE_BACKOFF: '0.01' },
    });
    const out = JSON.parse(stdout) as Record<string, string | null>;
    expect(out.verl).toMatch(/^EnvforgeServiceFailure: the envforge reward service at http:\/\/127\.0\.0\.1:\d+ failed 2 times/);
    expect(out.trl).toMatch(/^EnvforgeServiceError: the envforge reward service .* failed 2 times/);
    expect(out.openrlhf).toMatch(/^EnvforgeServiceError: the envforge reward service .* failed 2 times/);
  });
});

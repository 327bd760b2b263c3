// Reward parity: the reward shims an export writes (verl's compute_score.py, TRL's reward.py), run by
// python3 against the real reward service, and OpenRLHF's /get_reward protocol give exactly the scores the
// environments' verifiers give in-process, for reference answers, wrong answers and adversarial ones.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMATS } from '../export/registry.js';
import { runExport } from '../export/run.js';
import { parseSplit } from '../export/select.js';
import type { EnvRecord, Library } from '../library/contract.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { runEpisodes, scoreOf } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import { envSource } from './helpers/env-source.js';
import { PYTHON } from './helpers/python.js';
import { seededLibraryCopy } from './helpers/seeded-library.js';
import { hashSource } from '../contract/hash.js';

const SERVER = fileURLToPath(new URL('../serve/server.ts', import.meta.url));
type StartServer = (options: {
  libraryDir: string;
  port: number;
  host: string;
}) => Promise<{ url: string; close(): Promise<void> }>;

const tmp = mkdtempSync(join(tmpdir(), 'envforge-parity-'));
const LIB = join(tmp, 'library');
const dirs = { verl: join(tmp, 'verl'), trl: join(tmp, 'trl'), openrlhf: join(tmp, 'openrlhf') };

interface Case {
  data_source: string;
  prompt: string;
  ground_truth: string;
  extra_info: Record<string, unknown>;
  response: string;
  /** What the environment's verifier says in-process. */
  expected: number;
  kind: string;
}

/** Imports the generated shims by path, scores every case each way they offer, and prints JSON. */
const DRIVER =
  `import importlib.util, json, os, sys

def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

def error_of(fn):
    try:
        fn()
        return None
    except Exception as exc:
        return type(exc).__name__ + ": " + str(exc)

verl = load(os.environ["VERL_SHIM"], "envforge_verl_reward")
trl = load(os.environ["TRL_SHIM"], "envforge_trl_reward")
cases = json.load(open(sys.argv[1]))
if sys.argv[2] == "other":
    seed_case = next(c for c in cases if c["data_source"] != "envforge/partial-credit-sum")
    print(json.dumps({"verl": error_of(lambda: verl.compute_score(seed_case["data_source"], "y", ` +
  `seed_case["ground_truth"])),
                      "trl": error_of(lambda: trl.envforge_reward(["p"], ["y"], [seed_case["ground_truth"]]))}))
    sys.exit(0)
if sys.argv[2] == "down":
    print(json.dumps({"verl": error_of(lambda: verl.compute_score("envforge/x", "y", cases[0]["ground_truth"])),
                      "trl": error_of(lambda: trl.envforge_reward(["p"], ["y"], [cases[0]["ground_truth"]]))}))
    sys.exit(0)
column = lambda key: [c[key] for c in cases]
out = {
    "verl": [verl.compute_score(c["data_source"], c["response"], c["ground_truth"], ` +
  `extra_info=c["extra_info"]) for c in cases],
    "verl_batch": verl.compute_score_batch(data_sources=column("data_source"), solution_strs=column("response"), ` +
  `ground_truths=column("ground_truth"), extra_infos=column("extra_info")),
    "trl": trl.envforge_reward(prompts=column("prompt"), completions=column("response"), ` +
  `ground_truth=column("ground_truth"),
                               env=[c["extra_info"]["env"] for c in cases], ` +
  `version=[c["extra_info"]["version"] for c in cases],
                               seed=[c["extra_info"]["seed"] for c in cases], ` +
  `level=[c["extra_info"]["level"] for c in cases]),
    "trl_chat": trl.envforge_reward(prompts=[[{"role": "user", "content": p}] for p in column("prompt")],
                                    completions=[[{"role": "assistant", "content": r}] for r in column("response")],
                                    ground_truth=column("ground_truth")),
    "foreign": error_of(lambda: verl.compute_score("openai/gsm8k", "#### 42", "42")),
    "unknown_env": error_of(lambda: verl.compute_score("envforge/no-such-env", "<answer>1</answer>", ` +
  `json.dumps({"env": "no-such-env", "version": 1, "seed": 1, "level": 1}, separators=(",", ":")))),
    "item_errors": verl.item_errors(),
}
print(json.dumps(out))
`;

describe.skipIf(!existsSync(SERVER))(
  'reward parity: exported shims and the reward service agree with in-process verification',
  () => {
    let pool: SandboxPool;
    let library: Library;
    let server: { url: string; close(): Promise<void> };
    let proxy: Server;
    let proxyUrl = '';
    const seen = { verifyRequests: 0, refused: 0, maxItems: 0 };
    const cases: Case[] = [];

    beforeAll(async () => {
      pool = new SandboxPool();
      // The single-turn seeds, validated once per test run (tests/helpers/seeded-library.ts).
      expect((await seededLibraryCopy('single', LIB)).outcomes.every((o) => o.status === 'admitted')).toBe(true);
      const writable = SqliteLibrary.open(LIB);
      try {
        // The seeds score 0 or 1; one environment with partial credit (1/2, 1/3) checks that fractional
        // scores cross every hop unchanged. Admitted under a borrowed report: parity is about the scores.
        const meta = {
          name: 'partial-credit-sum',
          title: 'Partial',
          description: 'Add one; near misses earn partial credit.',
          skills: ['arithmetic'],
          levels: 3,
        };
        const source = envSource({
          meta: JSON.stringify(meta),
          verify:
            "const v = kit.int(kit.answer(response) ?? ''); if (v === instance.answer) return 1; if (v === " +
            'null) return 0; const d = Math.abs(v - instance.answer); return d === 1 ? { score: 0.5, ' +
            "feedback: 'off by one' } : d === 2 ? 1 / 3 : 0;",
        });
        const borrowed = ((await writable.get('expression-eval')) as EnvRecord).report;
        await writable.admit({
          source,
          report: { ...borrowed, hash: hashSource(source), name: meta.name, meta, fingerprint: null },
          lineage: { author: 'test' },
        });
      } finally {
        await writable.close();
      }
      library = SqliteLibrary.open(LIB, { readonly: true });
      for (const [name, out] of Object.entries(dirs)) {
        await runExport(library, pool, {
          format: FORMATS[name as keyof typeof dirs],
          out,
          selection: {},
          counts: { perEnv: 3 },
          splits: parseSplit('train:0.9,test:0.1'),
          seed: 11,
          serviceUrl: 'http://127.0.0.1:9',
        });
      }

      // Cases: every exported row with its reference, another row's reference, and adversarial responses.
      const rows: Array<Record<string, unknown>> = [];
      for (const split of ['train', 'test']) {
        const bytes = readFileSync(join(dirs.verl, `${split}.parquet`));
        rows.push(
          ...((await parquetReadObjects({
            file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
          })) as Array<Record<string, unknown>>),
        );
      }
      const byEnv = new Map<string, Array<Record<string, unknown>>>();
      for (const row of rows) {
        const env = (row.extra_info as { env: string }).env;
        byEnv.set(env, [...(byEnv.get(env) ?? []), row]);
      }
      for (const [env, envRows] of byEnv) {
        const record = (await library.get(env)) as EnvRecord;
        const source = await library.source(record);
        const identity = (row: Record<string, unknown>) => {
          const info = row.extra_info as Record<string, bigint>;
          return { seed: Number(info.seed), level: Number(info.level) };
        };
        const references = (await runEpisodes(pool, source, envRows.map(identity))).episodes.map((e) =>
          e.ok ? e.reference : '',
        );
        const responses = envRows.map((row, i) => {
          const prompt = (row.prompt as Array<{ content: string }>)[0]?.content as string;
          const reference = references[i] as string;
          return [
            ['reference', reference],
            ['other instance', references[(i + 1) % references.length] as string],
            ['wrong', '<answer>-1</answer>'],
            ['off by one', reference.replace(/<answer>\s*(-?\d+)/, (_, n: string) => `<answer>${Number(n) + 1}`)],
            ['off by two', reference.replace(/<answer>\s*(-?\d+)/, (_, n: string) => `<answer>${Number(n) + 2}`)],
            ['empty', ''],
            ['whitespace', '  \n\t '],
            ['echoed prompt', prompt],
            ['format only', '<answer></answer>'],
            ['two answers', `${reference}\n${reference.replace(/<answer>/, '<answer>0 ')}`],
          ] as Array<[string, string]>;
        });
        const scored = await runEpisodes(
          pool,
          source,
          envRows.map((row, i) => ({
            ...identity(row),
            responses: (responses[i] as Array<[string, string]>).map(([, r]) => r),
          })),
        );
        envRows.forEach((row, i) => {
          const episode = scored.episodes[i];
          if (!episode?.ok) throw new Error(`${env}: ${episode?.message}`);
          const info = row.extra_info as Record<string, unknown>;
          (responses[i] as Array<[string, string]>).forEach(([kind, response], j) => {
            cases.push({
              data_source: row.data_source as string,
              prompt: (row.prompt as Array<{ content: string }>)[0]?.content as string,
              ground_truth: (row.reward_model as { ground_truth: string }).ground_truth,
              extra_info: Object.fromEntries(
                Object.entries(info).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]),
              ),
              response,
              expected: scoreOf(episode.verdicts[j]),
              kind,
            });
          });
        });
      }

      const { startServer } = (await import(pathToFileURL(SERVER).href)) as { startServer: StartServer };
      server = await startServer({ libraryDir: LIB, port: 0, host: '127.0.0.1' });
      // A proxy in front of the service: refuses the first /v1/verify with a 503 (the shims must retry) and
      // records how many items each request carried.
      proxy = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (c: Buffer) => chunks.push(c));
        request.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (request.url === '/v1/verify') {
            seen.verifyRequests++;
            seen.maxItems = Math.max(seen.maxItems, (JSON.parse(body) as { items: unknown[] }).items.length);
            if (seen.verifyRequests === 1) {
              seen.refused++;
              response
                .writeHead(503, { 'retry-after': '0', 'content-type': 'application/json' })
                .end('{"error":{"code":"E_OVERLOADED","message":"test"}}');
              return;
            }
          }
          const method = request.method ?? 'POST';
          fetch(`${server.url}${request.url}`, {
            method,
            ...(method === 'GET' ? {} : { headers: { 'content-type': 'application/json' }, body }),
          }).then(
            async (answer) =>
              response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text()),
            (error: Error) => response.writeHead(502).end(error.message),
          );
        });
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    }, 600_000); // the seeded library: the first file to ask makes it, the others wait (minutes under load)

    afterAll(async () => {
      await new Promise((resolve) => proxy?.close(resolve));
      await server?.close();
      await library?.close();
      await pool?.close();
    });

    const python = async (mode: 'score' | 'down' | 'other', env: Record<string, string>) => {
      const casesFile = join(tmp, 'cases.json');
      const driver = join(tmp, 'driver.py');
      writeFileSync(casesFile, JSON.stringify(cases));
      writeFileSync(driver, DRIVER);
      const { stdout } = await promisify(execFile)(PYTHON, [driver, casesFile, mode], {
        env: {
          ...process.env,
          VERL_SHIM: join(dirs.verl, 'compute_score.py'),
          TRL_SHIM: join(dirs.trl, 'reward.py'),
          ...env,
        },
        maxBuffer: 64 * 2 ** 20,
      });
      return JSON.parse(stdout) as Record<string, unknown>;
    };

    it('the cases are not vacuous: references score 1 and empty answers 0 in-process', () => {
      expect(cases.length).toBe(13 * 3 * 10);
      expect(
        new Set(cases.filter((c) => c.data_source === 'envforge/partial-credit-sum').map((c) => c.expected)),
      ).toEqual(new Set([1, 0.5, 1 / 3, 0]));
      expect(cases.filter((c) => c.kind === 'reference').every((c) => c.expected === 1)).toBe(true);
      expect(
        cases
          .filter((c) => ['empty', 'whitespace', 'echoed prompt', 'format only'].includes(c.kind))
          .every((c) => c.expected === 0),
      ).toBe(true);
    });

    it('verl compute_score and compute_score_batch, and TRL envforge_reward, give the in-process scores', async () => {
      const out = await python('score', { ENVFORGE_URL: proxyUrl, ENVFORGE_BATCH: '16', ENVFORGE_BACKOFF: '0.01' });
      const expected = cases.map((c) => c.expected);
      expect(out.verl).toEqual(expected);
      expect(out.verl_batch).toEqual(expected);
      expect(out.trl).toEqual(expected);
      expect(out.trl_chat).toEqual(expected);
      expect(out.unknown_env).toMatch(
        /^EnvforgeItemError: .*could not score an item: E_UNKNOWN_ENV: unknown environment "no-such-env"/,
      );
      expect(out.item_errors).toEqual({ E_UNKNOWN_ENV: 1 });
      expect(out.foreign).toMatch(/ValueError: data_source 'openai\/gsm8k' is not an envforge row/);
      expect(seen.refused).toBe(1);
      expect(seen.maxItems).toBe(16);
    });

    it(
      "OpenRLHF's /get_reward, one sample per request as its client sends them and as one batch, " +
        'gives the in-process scores',
      async () => {
        const labels = new Map<string, string>();
        for (const split of ['train', 'test']) {
          for (const line of readFileSync(join(dirs.openrlhf, `${split}.jsonl`), 'utf8')
            .split('\n')
            .filter(Boolean)) {
            const row = JSON.parse(line) as { input: string; label: string };
            labels.set(row.label, row.input);
          }
        }
        expect(new Set(labels.keys())).toEqual(new Set(cases.map((c) => c.ground_truth)));
        const post = async (body: unknown) => {
          const answer = await fetch(`${server.url}/get_reward`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          expect(answer.status).toBe(200);
          return (await answer.json()) as { rewards: number[]; scores: number[]; extra_logs: Record<string, unknown> };
        };
        const single: number[] = [];
        for (const c of cases) {
          const prompt = labels.get(c.ground_truth) as string;
          const answer = await post({ query: [prompt + c.response], prompts: [prompt], labels: [c.ground_truth] });
          expect(answer.scores).toEqual(answer.rewards);
          expect(typeof answer.extra_logs).toBe('object');
          single.push(answer.rewards[0] as number);
        }
        expect(single).toEqual(cases.map((c) => c.expected));
        const batch = await post({
          query: cases.map((c) => (labels.get(c.ground_truth) as string) + c.response),
          prompts: cases.map((c) => labels.get(c.ground_truth)),
          labels: cases.map((c) => c.ground_truth),
        });
        expect(batch.rewards).toEqual(cases.map((c) => c.expected));
      },
    );

    it("another library's service makes the shims refuse; an unknown identity raises (no silent 0)", async () => {
      // Another library: the export's partial-credit-sum under the same name and version but other code, and none of
      // the seeds.
      const otherDir = join(tmp, 'other-library');
      const other = SqliteLibrary.open(otherDir, { create: true });
      const exported = (await library.get('partial-credit-sum')) as EnvRecord;
      const source = (await library.source(exported)).replace('d === 2 ? 1 / 3 : 0', 'd === 2 ? 1 / 4 : 0');
      await other.admit({
        source,
        report: { ...exported.report, hash: hashSource(source) },
        lineage: { author: 'test' },
      });
      await other.close();
      const { startServer } = (await import(pathToFileURL(SERVER).href)) as { startServer: StartServer };
      const wrong = await startServer({ libraryDir: otherDir, port: 0, host: '127.0.0.1' });
      try {
        const out = await python('other', { ENVFORGE_URL: wrong.url, ENVFORGE_RETRIES: '0' });
        for (const shim of ['verl', 'trl']) {
          expect(out[shim]).toMatch(
            new RegExp(
              String.raw`^EnvforgeManifestError: the reward service at http:\/\/127\.0\.0\.1:\d+ does not ` +
                'serve the environments this export was made from: ',
            ),
          );
          expect(out[shim]).toMatch(/dice-probability@1 is not served/);
          expect(out[shim]).toMatch(/partial-credit-sum@1 is served with other code/);
          expect(out[shim]).toMatch(/and \d+ more\. Start envforge serve --library/);
        }
        // Without the check, the first row of an environment the service lacks still raises instead of scoring 0.
        const unchecked = await python('other', {
          ENVFORGE_URL: wrong.url,
          ENVFORGE_RETRIES: '0',
          ENVFORGE_CHECK_MANIFEST: '0',
        });
        expect(unchecked.verl).toMatch(/^EnvforgeItemError: .*E_UNKNOWN_ENV: unknown environment/);
        expect(unchecked.trl).toMatch(/^EnvforgeItemError: .*E_UNKNOWN_ENV/);
      } finally {
        await wrong.close();
      }
    });

    it('a service that stays down makes the shims raise (a silent 0 would train on a broken reward)', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const out = await python('down', {
        ENVFORGE_URL: `http://127.0.0.1:${port}`,
        ENVFORGE_RETRIES: '1',
        ENVFORGE_BACKOFF: '0.01',
        ENVFORGE_TIMEOUT: '5',
      });
      expect(out.verl).toMatch(
        /EnvforgeServiceError: the envforge reward service at http:\/\/127\.0\.0\.1:\d+ failed 2 times/,
      );
      expect(out.trl).toMatch(/EnvforgeServiceError/);
    });
  },
);

// Optional tier (real trainer code): OpenEnv's own clients, unmodified, against envforge serve. It runs where
// ENVFORGE_OPENENV_SRC names OpenEnv's src/ folder (meta-pytorch/OpenEnv) and ENVFORGE_OPENENV_PYTHON a python3 with
// pydantic, websockets and httpx; elsewhere the test is skipped under a title that says what it needs.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitEpisodicSeeds, type EpisodicSeed } from '../bench/episodic-library.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { runRollouts } from '../sandbox/rollouts.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { RunningServer } from '../serve/options.js';
import { startServer } from '../serve/server.js';

const SRC = process.env.ENVFORGE_OPENENV_SRC;
const PYTHON = process.env.ENVFORGE_OPENENV_PYTHON;
const CHECK = fileURLToPath(new URL('./fixtures/openenv-clients-check.py', import.meta.url));

describe.skipIf(!SRC || !PYTHON)(
  `OpenEnv's own clients (needs ENVFORGE_OPENENV_SRC and ENVFORGE_OPENENV_PYTHON` +
    `${SRC && PYTHON ? '' : ': not set, skipped'})`,
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'envforge-openenv-'));
    let pool: SandboxPool;
    let server: RunningServer;
    let seed: EpisodicSeed;

    beforeAll(async () => {
      pool = new SandboxPool({ workers: 1 });
      const library = SqliteLibrary.open(dir, { create: true });
      seed = (await admitEpisodicSeeds(library, pool)).find((s) => s.name === 'warehouse-restock') as EpisodicSeed;
      await library.close();
      server = await startServer({ libraryDir: dir, port: 0, pool });
    }, 60_000);
    afterAll(async () => {
      await server?.close();
      await pool?.close();
    });

    it("GenericEnvClient and MCPToolClient play episodes; OpenEnv's models accept every answer; the sessions close", {
      timeout: 120_000,
    }, async () => {
      const [r] = (
        await runRollouts(pool, seed.source, seed.meta, [
          { seed: 7, level: 3, policy: { type: 'act' }, observations: true },
        ])
      ).rollouts;
      if (!r?.ok) throw new Error('the reference does not run');
      const reference = join(dir, 'reference.json');
      writeFileSync(
        reference,
        JSON.stringify({
          identity: { seed: 7, level: 3 },
          turns: r.actions.map((action, i) => ({ action, observation: r.observations?.[i] })),
        }),
      );
      const { stdout } = await promisify(execFile)(
        PYTHON as string,
        [CHECK, `${server.url}/openenv/${seed.name}`, reference],
        { env: { ...process.env, PYTHONPATH: SRC } },
      );
      expect(JSON.parse(stdout)).toMatchObject({
        http_models: 'ok',
        generic_finished: [true, 1, 'done'],
        generic_unfinished: [true, expect.any(Number), 'truncated'],
        mcp_reset_obs: 'ListToolsObservation',
        mcp_tools: seed.meta.tools.map((t) => [t.name, true]),
        mcp_texts_match: true,
        mcp_finished: [true, 1, 'CallToolObservation'],
        mcp_call_tool_text: true,
        prod_tools: seed.meta.tools.length,
        prod_call_text: true,
      });
      // What the clients left: the HTTP reset's episode (held until it ends or idles); every WebSocket and MCP session
      // ended.
      let sessions = -1;
      for (let i = 0; i < 100 && sessions !== 1; i++)
        sessions = ((await (await fetch(`${server.url}/health`)).json()) as { sessions: number }).sessions;
      expect(sessions).toBe(1);
    });
  },
);

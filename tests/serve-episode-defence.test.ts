// An episode's failure is confirmed by re-running it alone, a whole episode in one call: it has the budgets the
// failing episode had live, one per turn it reached and the failing call's (serve/episode-defence.ts). Before, the
// reference rollout of many quick-enough steps had one call's budget for them all and timed out, so a timeout a
// loaded host caused was "confirmed" and quarantined the environment (rt-final H5); a score that hangs still is.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EpisodicMeta } from '../contract/episodic.js';
import { episodicMeta } from '../kinds/episodic.js';
import { hashSource } from '../contract/hash.js';
import type { EnvRecord } from '../library/contract.js';
import { IncidentLog } from '../library/quarantine.js';
import { SandboxPool } from '../sandbox/pool.js';
import { Dispatcher } from '../serve/dispatcher.js';
import { rolloutShape } from '../sandbox/rollouts.js';
import { defendEpisode } from '../serve/episode-defence.js';
import type { Client } from '../serve/clients.js';
import type { Service } from '../serve/service.js';

const CALL_MS = 1_000;
/** `turns` turns, each spinning `spin` iterations, and a score spinning as long (or for ever). */
const env = (name: string, spin: number, scoreHangs = false, turns = 20) => `export const meta = { name: '${name}',
  title: 'Spin', description: 'Tick.', skills: ['tool-use'], levels: 3, kind: 'episodic', maxTurns: ${turns},
  tools: [{ name: 'tick', description: 'Tick.',
    parameters: { type: 'object', properties: {}, additionalProperties: false } }] };
const spin = () => { let acc = 0; for (let i = 0; i < ${spin}; i++) acc = (acc * 31 + i) % 1000003; return acc; };
export function reset(rng, level) { return { state: { ticks: 0 }, prompt: 'Tick.' }; }
export function step(state, action) {
  spin();
  const ticks = state.ticks + 1;
  return { state: { ticks }, observation: 'Tick ' + ticks + '.', done: ticks >= ${turns} };
}
export function score(state) { ${scoreHangs ? 'for (;;) spin();' : 'spin();'} return state.ticks >= ${turns} ? 1 : 0; }
export function act(state) { return { tool: 'tick', args: {} }; }`;

const client = { trusted: false, principal: 'loopback', key: 'loopback' } as Client;
let pool: SandboxPool;
let service: Service;
/** Iterations of the spin loop that take about `ms` here, measured once. */
let perMs = 0;

beforeAll(async () => {
  pool = new SandboxPool({ workers: 1 });
  const defence = new IncidentLog(mkdtempSync(join(tmpdir(), 'envforge-defence-')), 'serve', true, () => {});
  service = {
    defence,
    pool,
    dispatcher: new Dispatcher(pool, CALL_MS, 2), // its gate: the re-runs wait in the client's turn
    options: { callTimeoutMs: CALL_MS },
    source: async (r: EnvRecord) => sources.get(r.hash),
  } as never;
  const probe = env('probe', 2_000_000);
  const rollout = { ...rolloutShape(await metaOf(probe)), policy: { type: 'act' } };
  const run = () =>
    pool.run({ source: probe, calls: [{ op: 'rollout', seed: 1, level: 1, keepInstance: false, rollout }] as never });
  await run(); // compiled and warm
  const started = performance.now();
  await run();
  perMs = (2_000_000 * 21) / Math.max(1, performance.now() - started);
}, 60_000);
afterAll(() => pool?.close());

const sources = new Map<string, string>();
const metaOf = async (source: string) => (await episodicMeta(pool, source)) as EpisodicMeta;

/** Whether the environment is quarantined once the end of an episode after `played` turns timed out in score(). */
async function failedOnce(source: string, played: number): Promise<string | null> {
  const meta = await metaOf(source);
  const hash = hashSource(source);
  sources.set(hash, source);
  const record = { hash, name: meta.name, version: 1 } as EnvRecord;
  await defendEpisode(service, {
    record,
    meta,
    seed: 1,
    level: 1,
    actions: Array.from({ length: played }, () => ({ tool: 'tick', args: {} })),
    code: 'E_TIMEOUT',
    message: 'slow',
    fn: 'score',
    client,
  });
  return service.defence.quarantined(hash);
}

describe("the re-run that confirms an episode's failure", () => {
  // Each call (a step, the score) takes ~1/10 of its budget: the 20 steps and the score together ~2 budgets.
  const quick = () => env('adds-up', Math.round((perMs * CALL_MS) / 10));

  it('gives the reference a budget per turn: quick steps adding up past one call are no incident', async () => {
    expect(await failedOnce(quick(), 19)).toBeNull();
  }, 60_000);

  it('still confirms and quarantines a score that really hangs', async () => {
    expect(await failedOnce(env('hangs', 1_000, true), 0)).toMatch(/quarantined: it failed with E_TIMEOUT/);
  }, 60_000);
});

// Red team v23 (Trust V round 5, session 20): each open finding of tests/fixtures/redteam-v23/FINDINGS.md asserted
// still there, so the suite stays green while it is open and fails the day a fix closes it (then flip its manifest
// entry to "closed" and turn the assertion into the fix's own). The scripts run from dist/: npm run build first.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptRunner } from './helpers/fixture-script.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'redteam-v23');
const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as Array<{
  id: string;
  status: string;
}>;
const status = (id: string) => manifest.find((e) => e.id === id)?.status;
const runScript = scriptRunner(FIXTURES);

it('every finding of the manifest is open or closed', () => {
  expect(manifest.every((e) => e.status === 'open' || e.status === 'closed')).toBe(true);
});

describe("V23-1: an episodic module's tool descriptions write lines of sample and play", () => {
  it('V23-1: a description with line feeds prints a fake reference rollout in sample and play', async () => {
    expect(status('V23-1')).toBe('open');
    const r = await runScript('tool-sample.mjs', ['tool-lines.js'], 120_000);
    // Open: toolUsageLines lays the description's lines out as the CLI's own.
    expect(r.sample, JSON.stringify(r)).toEqual({ rolloutHeads: 1, solvedEnds: 1 });
    expect(r.play).toEqual({ rolloutHeads: 1, solvedEnds: 1 });
  }, 150_000);

  it('V23-1 control: the same words on one line stay inside the description', async () => {
    const r = await runScript('tool-sample.mjs', ['tool-plain.js'], 120_000);
    expect(r.sample, JSON.stringify(r)).toEqual({ rolloutHeads: 0, solvedEnds: 0 });
    expect(r.play).toEqual({ rolloutHeads: 0, solvedEnds: 0 });
  }, 150_000);
});

describe("V23-2: a client's own idle sessions are never taken back for it", () => {
  it('V23-2: the next run of a client whose last run stopped without ending its episodes is refused', async () => {
    expect(status('V23-2')).toBe('open');
    const r = await runScript('stale-slots.mjs', ['crash'], 120_000);
    // Open: the client is at its share with 4 idle sessions of its own, and none of them is taken back for it.
    expect(r.run2, JSON.stringify(r)).toEqual([
      { status: 429, code: 'E_TOO_MANY_SESSIONS' },
      { status: 429, code: 'E_TOO_MANY_SESSIONS' },
    ]);
  }, 150_000);

  it('V23-2 controls: ended first, or another client id, the next run is served', async () => {
    for (const mode of ['ended', 'newid']) {
      const r = await runScript('stale-slots.mjs', [mode], 120_000);
      expect(r.run2, JSON.stringify(r)).toEqual([
        { status: 200, code: null },
        { status: 200, code: null },
      ]);
    }
  }, 300_000);
});

describe("V23-2/V23-3: a client cannot resume, nor end, the episodes another client's arrival evicted", () => {
  it('V23-2: B cannot step its evicted episode while its own other sessions sit idle', async () => {
    expect(status('V23-2')).toBe('open');
    const r = await runScript('evicted-resume.mjs', ['evicted'], 120_000);
    expect(r.aCreates, JSON.stringify(r)).toEqual([200, 200]);
    // Open: resuming needs a slot of B's share, and none of B's idle sessions is taken back for it.
    expect(r.bStepEvicted).toEqual({ status: 429, code: 'E_TOO_MANY_SESSIONS' });
  }, 150_000);

  it('V23-3: ending an evicted episode needs a slot, ending one in memory does not', async () => {
    expect(status('V23-3')).toBe('open');
    const r = await runScript('evicted-resume.mjs', ['freed'], 120_000);
    // Control of V23-2: with one of B's slots freed, its evicted episode resumes.
    expect(r.bStepEvicted, JSON.stringify(r)).toEqual({ status: 200, code: null });
    expect(r.bEndInMemory).toEqual({ status: 200, code: null });
    // Open: the DELETE of an evicted episode rebuilds it in a slot first.
    expect(r.bEndEvicted).toEqual({ status: 429, code: 'E_TOO_MANY_SESSIONS' });
  }, 150_000);

  it("V23-3: the exports' client ending an evicted episode (verl's release, TRL's get_reward) raises", async () => {
    const r = await runScript('evicted-resume.mjs', ['python'], 150_000);
    // Open: Episode.finish retries the 429 (5 retries) and raises EnvforgeServiceError (verl's shim: the run stops).
    expect(r.python, JSON.stringify(r)).toBe('EnvforgeServiceError None');
  }, 180_000);
});

describe("V23-4: an environment's failure reaches the trainer as a learner's 0", () => {
  it("V23-4: the exports' client returns a failed episode's 0 with no log, count or raise (STRICT)", async () => {
    expect(status('V23-4')).toBe('open');
    const r = await runScript('failed-episode.mjs', ['step-bug.js'], 120_000);
    expect(r.observation, JSON.stringify(r)).toBe('error: the environment failed (E_THROWN)');
    // Open: end 'failed' is the environment's failure, yet it is a plain 0, silent even under ENVFORGE_STRICT=1.
    expect(r).toMatchObject({ score: 0, done: true, end: 'failed', logged: [], itemErrors: {} });
    expect(r.raised).toBeUndefined();
  }, 150_000);

  it("V23-4 twin: the honest environment's truncated episode scores the same 0, a learner's", async () => {
    const r = await runScript('failed-episode.mjs', ['../episodic/good-hotel-checkin.js'], 120_000);
    expect(r, JSON.stringify(r)).toMatchObject({ observation: 'There is no floor 9.', score: 0, end: 'truncated' });
  }, 150_000);
});

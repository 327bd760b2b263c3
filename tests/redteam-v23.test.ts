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
  it("V23-1 closed: a description's or a prompt's line feeds print no line of the CLI's own", async () => {
    expect(status('V23-1')).toBe('closed');
    // Closed (session 20, the lead): io.out and io.err take only Printed text (contract/printed.ts), which `line`
    // and `block` build: module text prints inside its own marked lines wherever the string was built.
    for (const module of ['tool-lines.js', 'prompt-lines.js']) {
      const r = await runScript('tool-sample.mjs', [module], 120_000);
      expect(r.sample, JSON.stringify(r)).toEqual({ rolloutHeads: 0, solvedEnds: 0 });
      expect(r.play).toEqual({ rolloutHeads: 0, solvedEnds: 0 });
    }
  }, 300_000);

  it('V23-1 control: the same words on one line stay inside the description', async () => {
    const r = await runScript('tool-sample.mjs', ['tool-plain.js'], 120_000);
    expect(r.sample, JSON.stringify(r)).toEqual({ rolloutHeads: 0, solvedEnds: 0 });
    expect(r.play).toEqual({ rolloutHeads: 0, solvedEnds: 0 });
  }, 150_000);
});

describe("V23-2: a client's own idle sessions are taken back for it", () => {
  it('V23-2: the next run of a client whose last run stopped without ending its episodes is served', async () => {
    expect(status('V23-2')).toBe('closed');
    const r = await runScript('stale-slots.mjs', ['crash'], 120_000);
    // Closed: the client is at its share with 4 idle sessions of its own: its least recently used go back to their
    // journals for its new ones.
    expect(r.run2, JSON.stringify(r)).toEqual([
      { status: 200, code: null },
      { status: 200, code: null },
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

describe("V23-2/V23-3: a client resumes, and ends, the episodes another client's arrival evicted", () => {
  it('V23-2: B steps its evicted episode, one of its own idle sessions taken back for it', async () => {
    expect(status('V23-2')).toBe('closed');
    const r = await runScript('evicted-resume.mjs', ['evicted'], 120_000);
    expect(r.aCreates, JSON.stringify(r)).toEqual([200, 200]);
    // Closed: resuming takes back B's least recently used idle session (itself resumable from its journal).
    expect(r.bStepEvicted).toEqual({ status: 200, code: null });
    expect(r.bEndEvicted).toEqual({ status: 200, code: null });
  }, 150_000);

  it('V23-3: ending an evicted episode needs no slot, as ending one in memory does not', async () => {
    expect(status('V23-3')).toBe('closed');
    const r = await runScript('evicted-resume.mjs', ['freed'], 120_000);
    // Control of V23-2: with one of B's slots freed, its evicted episode resumes.
    expect(r.bStepEvicted, JSON.stringify(r)).toEqual({ status: 200, code: null });
    expect(r.bEndInMemory).toEqual({ status: 200, code: null });
    // Closed: the DELETE of an evicted episode rebuilds it under the ending allowance, never a slot (with every
    // session of the client busy too: tests/session-slots-busy.test.ts).
    expect(r.bEndEvicted).toEqual({ status: 200, code: null });
  }, 150_000);

  it("V23-3: the exports' client ends an evicted episode (verl's release, TRL's get_reward): its score", async () => {
    const r = await runScript('evicted-resume.mjs', ['python'], 150_000);
    expect(r.python, JSON.stringify(r)).toMatch(/^score [01](\.\d+)?$/);
  }, 180_000);
});

describe("V23-4: an environment's failure reaches the trainer as a learner's 0", () => {
  it("V23-4: the exports' client counts, logs and (STRICT) raises a failed episode's 0", async () => {
    expect(status('V23-4')).toBe('closed');
    const r = await runScript('failed-episode.mjs', ['step-bug.js'], 120_000);
    // Closed: under ENVFORGE_STRICT=1 the step that ended it raises, counted like an item error.
    expect(r, JSON.stringify(r)).toMatchObject({ raised: 'EnvforgeItemError', itemErrors: { E_THROWN: 1 } });
    const lax = await runScript('failed-episode.mjs', ['step-bug.js', 'lax'], 120_000);
    expect(lax.observation, JSON.stringify(lax)).toBe('error: the environment failed (E_THROWN)');
    expect(lax).toMatchObject({ score: 0, done: true, end: 'failed', itemErrors: { E_THROWN: 1 } });
    expect(lax.logged).toEqual([expect.stringMatching(/^envforge: an episode scored 0 because of E_THROWN: step: /)]);
  }, 300_000);

  it("V23-4 twin: the honest environment's truncated episode scores the same 0, a learner's", async () => {
    const r = await runScript('failed-episode.mjs', ['../episodic/good-hotel-checkin.js'], 120_000);
    expect(r, JSON.stringify(r)).toMatchObject({ observation: 'There is no floor 9.', score: 0, end: 'truncated' });
    expect(r).toMatchObject({ logged: [], itemErrors: {} }); // a learner's 0 stays a plain reward, under STRICT too
    expect(r.raised).toBeUndefined();
  }, 150_000);
});

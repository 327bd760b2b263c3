// Red team v26 (Trust V round 8, session 23): scripts against a real `envforge serve` and the exports' real readers
// (tests/fixtures/redteam-v26/FINDINGS.md); each open finding is asserted still decided wrong. npm run build first.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptRunner } from './helpers/fixture-script.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'redteam-v26');
const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as Array<{
  id: string;
  status: string;
}>;
const status = (id: string) => manifest.find((e) => e.id === id)?.status;
const runScript = scriptRunner(FIXTURES);

it('every finding of the manifest is open or closed', () => {
  expect(manifest.every((e) => e.status === 'open' || e.status === 'closed')).toBe(true);
});

describe('V26-1: a snapshot written after its journal was removed', () => {
  it('control: with room under the cap every snapshot has its journal', async () => {
    const r = await runScript('orphan-snapshots.mjs', ['20', '100000000', '2', '3'], 120_000);
    expect(r.statuses, JSON.stringify(r)).toEqual({ 200: 40 });
    expect(r.orphans).toBe(0);
    expect(r.snapshots).toBeGreaterThan(0);
  }, 150_000);

  it('V26-1 open: past the journal byte cap, snapshots land with no journal, charged to no one', async () => {
    const r = await runScript('orphan-snapshots.mjs', ['20', '150000', '2', '3'], 120_000);
    expect(r.statuses, JSON.stringify(r)).toEqual({ 200: 40 });
    if (status('V26-1') === 'open') {
      // Open: each removal unlinks the .snap before its write lands; the disk holds many times the cap.
      expect(r.orphans as number, JSON.stringify(r)).toBeGreaterThan(5);
      expect(r.diskBytes as number).toBeGreaterThan(10 * 150_000);
    } else {
      expect(r.orphans, JSON.stringify(r)).toBe(0);
      expect(r.temps).toBe(0);
    }
  }, 150_000);
});

describe("V26-2: an action's heap is ten times its charge", () => {
  it('control: 800 sessions with two small rejected actions each live in a 128 MB heap', async () => {
    const r = await runScript('action-heap.mjs', ['800', '2', '128', 'small'], 240_000);
    expect(r.serverExit, JSON.stringify(r)).toBeNull();
    expect(r.statuses).toEqual({ 'create 200': 800, 'step 200': 1600 });
    expect(r.honestStepAfter).toBe(200);
  }, 270_000);

  it('V26-2 open: the same sessions with actions of empty objects abort a 128 MB heap under its budget', async () => {
    const r = await runScript('action-heap.mjs', ['800', '2', '128', 'objects'], 240_000);
    if (status('V26-2') === 'open') {
      // Open: each action is charged at 2 bytes a character of its JSON (~8 KB) and holds ~87 KB of heap.
      expect(r.serverExit, JSON.stringify(r)).toMatchObject({ signal: 'SIGABRT' });
      expect(r.honestStepAfter).toBe('no answer');
    } else {
      expect(r.serverExit, JSON.stringify(r)).toBeNull();
      expect(r.honestStepAfter).toBe(200);
    }
  }, 270_000);
});

describe('V26-3: a WebSocket frame that trickles is never stalled', () => {
  it('control: frames that stop arriving are reclaimed for the honest body', async () => {
    const r = await runScript('ws-trickle.mjs', ['stall', '4', '64', '65536', '5'], 120_000);
    expect(r.upgrades, JSON.stringify(r)).toEqual({ 101: 256 });
    expect((r.honest as Array<{ status: unknown }>)[0]?.status).toBe(200);
  }, 150_000);

  it('V26-3 open: frames trickling a byte every 500 ms hold the budget; the honest body is refused', async () => {
    const r = await runScript('ws-trickle.mjs', ['trickle', '4', '64', '65536', '5'], 120_000);
    expect(r.upgrades, JSON.stringify(r)).toEqual({ 101: 256 });
    const first = (r.honest as Array<{ status: unknown }>)[0]?.status;
    if (status('V26-3') === 'open') {
      // Open: every hold moves within STALL_MS, so none is reclaimable and the honest body is refused.
      expect(first, JSON.stringify(r)).not.toBe(200);
      expect(r.hostileStillOpen).toBe(256);
    } else {
      expect(first, JSON.stringify(r)).toBe(200);
    }
  }, 150_000);
});

// The dashboard's kinds come from the kind plugs: a code environment shows, filters and gets its pass rates
// as 'code' (not as 'single-turn'), and the frontier lists every registered kind (dashboard/data.ts, view.ts).
import { describe, expect, it } from 'vitest';
import { envDetail, kindRates, type Snapshot } from '../dashboard/data.js';
import { DASHBOARD_KINDS, LibraryView } from '../dashboard/view.js';
import { libraryPage } from '../dashboard/pages.js';
import { ALL_KINDS } from '../kinds/registry.js';
import type { EnvRecord, ScoreTally } from '../library/contract.js';

const META = {
  single: { name: 'sum-pair', title: 'Sum', description: 'Adds.', skills: ['arithmetic'], levels: 3 },
  code: {
    name: 'count-inversions',
    title: 'Inversions',
    description: 'Counts.',
    skills: ['sorting'],
    levels: 3,
    kind: 'code',
  },
  episodic: {
    name: 'warehouse',
    title: 'Warehouse',
    description: 'Restocks.',
    skills: ['planning'],
    levels: 3,
    kind: 'episodic',
  },
};
const record = (meta: { name: string }): EnvRecord =>
  ({
    name: meta.name,
    version: 1,
    hash: `h-${meta.name}`,
    meta,
    status: 'active',
    retiredReason: null,
    createdAt: '2026-01-01',
    updatedAt: '2026-01-01',
    lineage: { author: 'seed' },
    curve: [],
  }) as unknown as EnvRecord;
const tally = (name: string, n: number, passed: number): ScoreTally =>
  ({ name, version: 1, level: 1, n, passed, trusted: true, updatedAt: '2026-01-01' }) as unknown as ScoreTally;

function snapshot(): Snapshot {
  const records = Object.values(META).map(record);
  const tallies = [tally('sum-pair', 4, 3), tally('count-inversions', 10, 2)];
  return {
    records,
    view: new LibraryView(records, tallies),
    versions: new Map(records.map((r) => [r.name, [r]])),
    tallies,
  };
}

describe('dashboard kinds', () => {
  it('shows a code environment as code, in its detail and in the library table', () => {
    const snap = snapshot();
    expect(envDetail(snap, 'count-inversions')?.kind).toBe('code');
    expect(snap.view.rows.map((r) => [r.name, r.kind])).toEqual(
      expect.arrayContaining([
        ['count-inversions', 'code'],
        ['sum-pair', 'single-turn'],
        ['warehouse', 'episodic'],
      ]),
    );
  });

  it('filters the library by every kind, code included', () => {
    const snap = snapshot();
    expect(DASHBOARD_KINDS).toEqual(ALL_KINDS.map((k) => k.label));
    expect(DASHBOARD_KINDS.map((kind) => snap.view.query({ kind }).data.map((r) => r.name))).toEqual([
      ['sum-pair'],
      ['warehouse'],
      ['count-inversions'],
    ]);
    expect(libraryPage('here', [], { total: 3, retired: 0 })).toContain('<option value="code">code</option>');
  });

  it('gives the frontier one row of pass rates per registered kind, code not folded into single-turn', () => {
    const rows = kindRates(snapshot()).map((r) => [r.kind, r.environments, r.scores, r.passRate]);
    expect(rows).toEqual([
      ['single-turn', 1, 4, 0.75],
      ['episodic', 1, 0, null],
      ['code', 1, 10, 0.2],
    ]);
  });
});

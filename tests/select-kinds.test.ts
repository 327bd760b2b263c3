// A selection's kinds are the plugs' own names: `library list --kind`, `export --kind` and /v1/sample's select.kind
// tell a code environment (contract v3) from a single-turn one, and the shims' envforge.json labels it code.
import { describe, expect, it } from 'vitest';
import type { OutputFileSet } from '../export/contract.js';
import { shimConfig } from '../export/python-files.js';
import type { EnvRecord } from '../library/contract.js';
import { recordKind, SELECTABLE_KINDS, selectEnvironments, SelectionError } from '../library/select.js';
import { SampleBody } from '../serve/schemas.js';

const record = (name: string, meta: Record<string, unknown>): EnvRecord =>
  ({ name, version: 1, hash: `h-${name}`, status: 'active', meta: { skills: ['s'], levels: 3, ...meta } }) as never;
const records = [record('arith', {}), record('desk', { kind: 'episodic' }), record('runs', { kind: 'code' })];
const labels = { env: '--env', skills: '--skills', levels: '--levels', selected: 'selected', kind: '--kind' };
const names = (kind: (typeof SELECTABLE_KINDS)[number]) =>
  selectEnvironments(records, { kind }, { labels, where: '/lib', short: 'skip' }).map((e) => e.record.name);

describe('selecting by kind', () => {
  it('offers every kind by its canonical name and reads each record as its own kind', () => {
    expect([...SELECTABLE_KINDS]).toEqual(['single', 'episodic', 'code']);
    expect(records.map(recordKind)).toEqual(['single', 'episodic', 'code']);
  });

  it('keeps a code environment out of a single-turn selection and gives it to a code one', () => {
    expect(names('single')).toEqual(['arith']);
    expect(names('episodic')).toEqual(['desk']);
    expect(names('code')).toEqual(['runs']);
  });

  it('refuses a named environment of another kind, naming both kinds', () => {
    expect(() =>
      selectEnvironments(
        records,
        { kind: 'single', envs: [{ name: 'runs' }] },
        { labels, where: '/lib', short: 'skip' },
      ),
    ).toThrow(new SelectionError('E_NO_MATCH', '--env runs is code, not --kind single'));
  });

  it("takes select.kind 'code' in /v1/sample and names every kind when refusing another", () => {
    expect(SampleBody.safeParse({ select: { n: 1, kind: 'code' } }).success).toBe(true);
    const refused = SampleBody.safeParse({ select: { n: 1, kind: 'multi' } });
    expect(refused.success).toBe(false);
    expect(JSON.stringify(refused.error?.issues)).toContain('\\"single\\", \\"episodic\\", \\"code\\"');
  });
});

describe("the shims' envforge.json", () => {
  it('labels each environment with its kind, a code one as code', () => {
    const files = {} as OutputFileSet;
    const envs = [
      { name: 'arith', version: 1, hash: 'a', kind: 'single-turn' },
      { name: 'runs', version: 2, hash: 'b', kind: 'code' },
    ];
    const config = JSON.parse(shimConfig({ dir: '/x', splits: ['train'], serviceUrl: 'http://s', envs, files }));
    expect(config.envs.arith.kind).toBe('single-turn');
    expect(config.envs.runs).toEqual({ version: 2, hash: 'b', kind: 'code' });
  });
});

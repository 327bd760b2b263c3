// The kind contract (kinds/contract.ts), run on every kind kinds/registry.ts lists (single-turn, code and
// episodic, each with a fixture here): a kind claims its own modules, names the exports the static stage
// checks, runs episodes deterministically with the reference scoring 1, applies only probe families the
// validator generates, and fingerprints and exports what the policy sees.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEpisodicMeta } from '../contract/episodic.js';
import { EPISODIC_PROBE_FAMILIES, PROBE_FAMILIES, type EnvKind, type ProbeFamily } from '../kinds/contract.js';
import { canonicalKind, KIND_NAMES, KINDS, kindNamed, kindOf, type KindName } from '../kinds/registry.js';
import { PROMPT_NAMES } from '../agents/prompt-files.js';
import { scoreOf, type Episode } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import { probeBattery, otherAnswerProbes } from '../validators/probes.js';
import { runRollouts, type Rollout } from '../sandbox/rollouts.js';
import { DEFAULT_VALIDATOR_OPTIONS } from '../validators/options.js';
import { buildProbes } from '../validators/episodic/probes.js';
import { envSource } from './helpers/env-source.js';
import { CHECKS } from '../validators/checks/registry.js';

const WAREHOUSE = readFileSync(new URL('../seeds/episodic/warehouse-restock.js', import.meta.url), 'utf8');
const INVERSIONS = readFileSync(new URL('../seeds/code/count-inversions.js', import.meta.url), 'utf8');

/** The probe families the validator generates for a kind's fixture episodes. */
async function probeFamiliesOf(
  name: KindName,
  pool: SandboxPool,
  source: string,
  episodes: Episode[],
): Promise<ProbeFamily[]> {
  if (!KINDS[name].rollouts && !KINDS[name].hostScored)
    return episodes
      .flatMap((episode, i) => [
        ...probeBattery({ episode, peers: episodes, index: i, long: [], permutation: false, ceiling: 0.05 }),
        ...otherAnswerProbes(episode, episodes, 3),
      ])
      .map((p) => p.family);
  const load = await pool.load(source);
  const meta = parseEpisodicMeta(load.ok ? load.meta : null);
  if (!meta) return [];
  const requests = episodes.map((e) => ({ seed: e.seed, level: e.level, policy: { type: 'act' as const } }));
  const refs = (await runRollouts(pool, source, meta, requests)).rollouts.filter((r): r is Rollout => r.ok);
  return buildProbes(meta, refs, { ...DEFAULT_VALIDATOR_OPTIONS.episodic, probedPerLevel: 2 }, 7).map((p) => p.family);
}

/** For each kind: a small module of that kind, as its raw meta. */
const FIXTURES: Record<KindName, { source: string; meta: Record<string, unknown> }> = {
  single: {
    source: envSource(),
    meta: { name: 'test-env', title: 'Test', description: 'A test environment.', skills: ['testing'], levels: 3 },
  },
  episodic: { source: WAREHOUSE, meta: { name: 'warehouse-restock', kind: 'episodic', levels: 8 } },
  code: { source: INVERSIONS, meta: { name: 'count-inversions', kind: 'code', levels: 6 } },
};

describe('kinds', () => {
  it('every registered kind has a fixture, so none skips the contract', () => {
    expect(Object.keys(FIXTURES).sort()).toEqual(Object.keys(KINDS).sort());
  });

  it('a v1 module, which names no kind, is single-turn', () => {
    expect(kindOf({ name: 'x', levels: 3 }).name).toBe('single');
    expect(kindOf({ name: 'x', kind: 'single-turn' }).name).toBe('single');
  });

  it("a kind goes by one canonical name; its label ('single-turn') is an alias only canonicalKind accepts", () => {
    expect(KIND_NAMES.map((name) => [name, kindNamed(name).name, kindNamed(name).label])).toEqual([
      ['single', 'single', 'single-turn'],
      ['episodic', 'episodic', 'episodic'],
      ['code', 'code', 'code'],
    ]);
    expect(['single', 'single-turn', 'episodic', 'code', 'mixed', 'Single'].map(canonicalKind)).toEqual([
      'single',
      'single',
      'episodic',
      'code',
      undefined,
      undefined,
    ]);
  });

  it('a v2 module, whose meta says kind: episodic, is episodic', () => {
    expect(kindOf({ name: 'x', kind: 'episodic' }).name).toBe('episodic');
  });

  it('a v3 module, whose meta says kind: code, is code', () => {
    expect(kindOf({ name: 'x', kind: 'code' }).name).toBe('code');
  });
});

for (const name of Object.keys(KINDS) as KindName[]) {
  describe(`${name} (kind contract)`, () => {
    const kind: EnvKind = KINDS[name];
    const { source, meta } = FIXTURES[name];
    let pool: SandboxPool;
    let episodes: Episode[] = [];
    const requests = [1, 2, 3].flatMap((level) => [0, 1, 2, 3].map((seed) => ({ seed, level })));

    beforeAll(async () => {
      pool = new SandboxPool({ workers: 1 });
      episodes = (await kind.runEpisodes(pool, source, requests)).episodes.filter((e): e is Episode => e.ok);
    });
    afterAll(() => pool.close());

    it('names prompt templates that exist, and seeds in a folder of modules', () => {
      expect(
        Object.values(kind.prompts).filter((template) => !(PROMPT_NAMES as readonly string[]).includes(template)),
      ).toEqual([]);
      expect(readdirSync(kind.seeds.dir).some((f) => f.endsWith('.js'))).toBe(true);
      expect(kind.sampleLimits.compact.samples).toBeLessThanOrEqual(kind.sampleLimits.standard.samples);
    });

    it('claims its own modules and is the kind kindOf finds for them', () => {
      expect(kind.name).toBe(name);
      expect(kind.claims(meta)).toBe(true);
      expect(kindOf(meta)).toBe(kind);
    });

    it('names the exports its modules must have, and its fixture has them', async () => {
      const load = await pool.load(source);
      expect(load.ok).toBe(true);
      expect(Object.keys(kind.exports).length).toBeGreaterThan(0);
      for (const [exported, type] of Object.entries(kind.exports))
        expect(load.ok && load.exports[exported], exported).toBe(type);
    });

    it('runs one episode per request, deterministically, with the reference scoring 1', async () => {
      expect(episodes).toHaveLength(requests.length);
      for (const e of episodes) expect(scoreOf(e.referenceVerdict)).toBe(1);
      const again = (await kind.runEpisodes(pool, source, requests, { fresh: true })).episodes;
      expect(again.map((e) => e.ok && JSON.stringify(e.instance))).toEqual(
        episodes.map((e) => JSON.stringify(e.instance)),
      );
    });

    it('applies only probe families the validator knows, and the validator probes its fixture in them', async () => {
      // A kind whose hack stage is only the checks registry's (code) names no probe families: it must have checks
      // there.
      if (kind.probeFamilies.length === 0) return expect(CHECKS.some((c) => c.kinds.includes(name))).toBe(true);
      for (const family of kind.probeFamilies)
        expect([...PROBE_FAMILIES, ...EPISODIC_PROBE_FAMILIES]).toContain(family);
      const families = await probeFamiliesOf(name, pool, source, episodes);
      expect(families.filter((f) => kind.probeFamilies.includes(f)).length).toBeGreaterThan(episodes.length);
    });

    it('checks its meta: the fixture passes, a broken meta gets problems with codes', async () => {
      const load = await pool.load(source);
      const full = load.ok ? (load.meta as Record<string, unknown>) : {};
      expect(kind.checkMeta(full)).toEqual({ meta: expect.objectContaining({ name: meta.name }), problems: [] });
      const broken = kind.checkMeta({ ...full, levels: 'many' });
      expect(broken.meta).toBeUndefined();
      expect(broken.problems.length).toBeGreaterThan(0);
      for (const p of broken.problems) expect(p.code).toBe('E_META');
    });

    it('fingerprints and exports what the policy sees, with the reference beside it', () => {
      for (const e of episodes) {
        const seen = kind.behaviour(e);
        expect(seen.text.length).toBeGreaterThan(0);
        expect(seen.reference).toBe(e.reference);
        expect(kind.exportView(e.instance).prompt).toBe(seen.text);
      }
    });
  });
}

// The validator on episodic (contract v2) candidates: the tests/fixtures/episodic corpus classifies as its
// manifest says (good ones admitted; broken and hostile ones rejected with an expected code), every
// episodic seed is admitted, and a rejection carries evidence a repair prompt can act on.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EPISODIC_SEEDS_DIR } from '../contract/paths.js';
import { listSeeds } from '../library/seeds.js';
import { hashSource } from '../contract/hash.js';
import type { ValidationReport } from '../validators/report.js';
import { validateCandidate } from '../validators/validate.js';
import { corpusSetup } from './helpers/manifest.js';
import { seedReports } from './helpers/seeded-library.js';

const CORPUS = new URL('./fixtures/episodic/', import.meta.url);
const { manifest, pool, novelty: noveltyIndex } = corpusSetup(CORPUS, { beforeAll, afterAll });
const LONG = 180_000;

it('has a corpus of at least 30 episodic candidates: good, broken and hostile', () => {
  expect(manifest.length).toBeGreaterThanOrEqual(30);
  for (const kind of ['good-', 'broken-', 'hostile-'])
    expect(manifest.filter((m) => m.file.startsWith(kind)).length).toBeGreaterThanOrEqual(8);
});

describe.each(manifest)('$file', ({ file, verdict, codes, why }) => {
  it(`is ${verdict === 'admit' ? 'admitted' : `rejected with ${codes.join(' or ')}`}`, { timeout: LONG }, async () => {
    const report = await validateCandidate(readFileSync(new URL(file, CORPUS), 'utf8'), {
      pool,
      novelty: noveltyIndex(),
    });
    const found = report.problems.map((p) => `${p.code} [${p.stage}] ${p.message}`);
    expect(report.verdict, `${why}\n${found.join('\n')}`).toBe(verdict);
    if (verdict === 'reject')
      expect(
        report.problems.map((p) => p.code),
        `${why}\n${found.join('\n')}`,
      ).toEqual(expect.arrayContaining([expect.toBeOneOf(codes)]));
    for (const p of report.problems) expect(p.message.length).toBeGreaterThan(10);
    // The report always serialises and stays small, whatever a hostile module returned.
    expect(JSON.stringify(report).length).toBeLessThan(200_000);
    if (verdict === 'admit') {
      expect(report.curve.length).toBe(report.meta?.levels);
      expect(report.fingerprint).not.toBeNull();
    }
  });
});

describe('one coincidence is not a hack', () => {
  it("admits a legit environment where one other episode's plan also works at one level (validation seed 733103)", {
    timeout: LONG,
  }, async () => {
    // Restaurant seating: two waitlists can share their seating plan. On this validation seed one of the 12
    // other-episode probes of a level passes (level mean 0.083 over the 0.05 ceiling): judged by its lower
    // confidence bound, one pass in 12 is coincidence; the share of full passes over all levels is 1.4%.
    const report = await validateCandidate(readFileSync(new URL('good-restaurant-seating.js', CORPUS), 'utf8'), {
      pool,
      validationSeed: 733_103,
    });
    const baselines = (
      report.stages.find((s) => s.stage === 'hack')?.metrics as {
        checks: Record<
          string,
          { families: Record<string, { mean: number; pass: number; probes: number; turns: number }> }
        >;
      }
    ).checks['episodic-baselines'];
    const other = baselines?.families['other-episode'];
    expect(other?.mean).toBeGreaterThan(0.05);
    // The profile: each family's probes and their turns (all of them, where a family is judged by its best).
    expect(other?.probes).toBeGreaterThanOrEqual(12);
    expect(baselines?.families['repeated-action']?.turns).toBeGreaterThan(
      baselines?.families['repeated-action']?.probes ?? 0,
    );
    expect(report.verdict, report.problems.map((p) => `${p.code} ${p.message}`).join('\n')).toBe('admit');
  });
});

describe('every episodic seed is admitted', () => {
  // Validated once per test run by the real `envforge library init` (each seed against the novelty of the
  // seeds before it), which the other files' libraries copy (tests/helpers/seeded-library.ts): read here.
  let seeds: Awaited<ReturnType<typeof seedReports>>;
  beforeAll(async () => {
    seeds = await seedReports('all');
  }, 600_000);
  it.each(listSeeds(EPISODIC_SEEDS_DIR).map((s) => [s.name, s.source]))('%s', (name, source) => {
    const seed = seeds.get(name);
    expect(seed?.outcome.status, seed?.outcome.problems?.join('\n') ?? `${name}: no outcome`).toBe('admitted');
    expect(seed?.hash).toBe(hashSource(source));
    const report = seed?.report as ValidationReport;
    expect(report.verdict, report.problems.map((p) => `${p.code} [${p.stage}] ${p.message}`).join('\n')).toBe('admit');
    const hack = report.stages.find((s) => s.stage === 'hack');
    expect(
      (hack?.metrics.checks as Record<string, { worstProbe?: unknown }>)['episodic-baselines']?.worstProbe,
    ).toEqual(expect.any(String));
    // The stage's profile: every check's rollouts, and the memo's counts adding up to the requests it saw.
    const profile = hack?.metrics.profile as {
      cost: Record<string, { planned: number; judged: number; turns: number }>;
      memo: { requests: number; served: number; played: number };
    };
    expect(profile.cost['episodic-baselines']?.planned).toBeGreaterThan(0);
    expect(profile.cost['episodic-withheld']?.turns).toBeGreaterThan(0);
    expect(profile.memo.served + profile.memo.played).toBe(profile.memo.requests);
  });
});

describe('an episodic rejection explains itself', () => {
  it('names the probe, its scores and a replayable action log', { timeout: LONG }, async () => {
    const report = await validateCandidate(readFileSync(new URL('broken-submit-alone-pays.js', CORPUS), 'utf8'), {
      pool,
      validationSeed: 42,
    });
    const problem = report.problems.find((p) => p.code === 'E_ACCEPTS_REPEATED_ACTION');
    expect(problem?.message).toMatch(
      /the (repeated-action|finish-alone) probe \(its (mean score|full passes)\) wins \d+% /,
    );
    const evidence = problem?.evidence as { seed: number; level: number; actions: string; score: number };
    expect(evidence.score).toBe(1);
    expect(JSON.parse(evidence.actions)).toEqual(expect.any(Array));
    // The same validation seed gives the same verdict and codes.
    const again = await validateCandidate(readFileSync(new URL('broken-submit-alone-pays.js', CORPUS), 'utf8'), {
      pool,
      validationSeed: 42,
    });
    expect(again.problems.map((p) => p.code)).toEqual(report.problems.map((p) => p.code));
  });
});

// The validator classifies a corpus of candidates as expected: good environments are admitted, broken
// ones (one defect each) and hostile ones are rejected with the expected code; every seed is admitted.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSeeds } from '../library/seeds.js';
import { hashSource } from '../contract/hash.js';
import type { ValidationReport } from '../validators/report.js';
import { validateCandidate } from '../validators/validate.js';
import { corpusSetup } from './helpers/manifest.js';
import { seedReports } from './helpers/seeded-library.js';

const CORPUS = new URL('./fixtures/candidates/', import.meta.url);
const { manifest, pool, novelty: noveltyIndex } = corpusSetup(CORPUS, { beforeAll, afterAll });
/**
 * One validation per corpus file (a random validation seed, the seeds' novelty): the explanation tests read the report
 * the corpus test judged.
 */
const reports = new Map<string, Promise<ValidationReport>>();
const validate = (file: string) => {
  if (!reports.has(file))
    reports.set(
      file,
      validateCandidate(readFileSync(new URL(file, CORPUS), 'utf8'), { pool, novelty: noveltyIndex() }),
    );
  return reports.get(file) as Promise<ValidationReport>;
};

it('has a corpus of at least 45 candidates: good, broken and hostile', () => {
  expect(manifest.length).toBeGreaterThanOrEqual(45);
  for (const kind of ['good-', 'broken-', 'hostile-'])
    expect(manifest.filter((m) => m.file.startsWith(kind)).length).toBeGreaterThanOrEqual(8);
});

describe.each(manifest)('$file', ({ file, verdict, codes, why }) => {
  it(`is ${verdict === 'admit' ? 'admitted' : `rejected with ${codes.join(' or ')}`}`, async () => {
    const report = await validate(file);
    const found = report.problems.map((p) => `${p.code} [${p.stage}] ${p.message}`);
    expect(report.verdict, `${why}\n${found.join('\n')}`).toBe(verdict);
    if (verdict === 'reject')
      expect(
        report.problems.map((p) => p.code),
        why,
      ).toEqual(expect.arrayContaining([expect.toBeOneOf(codes)]));
    // Every rejection explains itself; every admission carries its difficulty curve.
    for (const p of report.problems) expect(p.message.length).toBeGreaterThan(10);
    if (verdict === 'admit') expect(report.curve.length).toBe(report.meta?.levels);
  });
});

describe('the judgement explains itself', () => {
  it('keeps the worst response of each failing probe family, bounded, with the part deciding its score', async () => {
    const report = await validate('broken-accepts-echo.js');
    for (const code of ['E_ACCEPTS_ECHO', 'E_ACCEPTS_ENUMERATION']) {
      const problem = report.problems.find((p) => p.code === code);
      const evidence = problem?.evidence as {
        reference: string;
        score: number;
        response: { chars: number; head: string; around?: string; tail?: string };
      };
      expect(evidence.score).toBeGreaterThanOrEqual(0.1);
      expect(JSON.stringify(evidence).length).toBeLessThan(1_500);
      // The long echo is cut, but the window around the answer it contains is kept.
      expect([evidence.response.head, evidence.response.around, evidence.response.tail].join('')).toContain(
        evidence.reference,
      );
    }
  });

  it('judges guessing level by level and names the levels where it pays', async () => {
    const report = await validate('broken-constant-level-one.js');
    const problem = report.problems.find((p) => p.code === 'E_ACCEPTS_CONSTANT');
    expect(problem?.message).toMatch(/at level 1 /);
    const checks = report.stages.find((s) => s.stage === 'hack')?.metrics.checks as {
      guessing: { levels: Array<{ level: number }> };
    };
    const levels = checks.guessing.levels;
    expect(levels.map((l) => l.level)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('every seed is admitted', () => {
  // Validated once per test run by the real `envforge library init` (each seed against the novelty of the
  // seeds before it), which the other files' libraries copy (tests/helpers/seeded-library.ts): read here.
  let seeds: Awaited<ReturnType<typeof seedReports>>;
  beforeAll(async () => {
    seeds = await seedReports('all');
  }, 600_000);
  it.each(listSeeds().map((s) => [s.name, s.source]))('%s', (name, source) => {
    const seed = seeds.get(name);
    expect(seed?.outcome.status, seed?.outcome.problems?.join('\n') ?? `${name}: no outcome`).toBe('admitted');
    expect(seed?.hash).toBe(hashSource(source));
    const report = seed?.report as ValidationReport;
    expect(report.verdict, report.problems.map((p) => `${p.code}: ${p.message}`).join('\n')).toBe('admit');
    expect(report.stages.find((s) => s.stage === 'review')?.skipped).toMatch(/no LLM reviewer/);
  });
});

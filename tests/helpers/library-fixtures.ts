// Cheap inputs for library tests: admission and rejection inputs with a minimal, type-correct validation
// report, built without running the validator (the library trusts the report; it checks only that the
// report admits and is for exactly this source).
import type { Meta } from '../../contract/schema.js';
import type { AdmitInput, Lineage } from '../../library/contract.js';
import { hashSource } from '../../contract/hash.js';
import type { LevelStats, ValidationReport } from '../../validators/report.js';
import { envSource } from './env-source.js';

/** A valid meta (kebab-case name, one skill, 3 levels) with optional overrides. */
export function sampleMeta(name: string, overrides: Partial<Omit<Meta, 'name'>> = {}): Meta {
  return {
    name,
    title: `Sample ${name}`,
    description: `A sample environment called ${name}.`,
    skills: ['arithmetic'],
    levels: 3,
    ...overrides,
  };
}

/** A module source whose meta is exactly `meta` (a valid environment, though nothing here runs it). */
export function sampleSource(meta: Meta): string {
  return envSource({ meta: JSON.stringify(meta) });
}

/** Different code (so a different hash) with the same meta.name. */
export function variantSource(base: string, n: number): string {
  return `${base}\n// variant ${n}\n`;
}

/** A small difficulty curve: one entry per level. */
export function sampleCurve(levels: number): LevelStats[] {
  return Array.from({ length: levels }, (_, i) => ({
    level: i + 1,
    samples: 8,
    promptChars: 40 + i,
    instanceChars: 60 + i,
    referenceChars: 20,
    generateMs: 0.1,
    solveMs: 0.1,
    distinctPrompts: 8,
    distinctAnswers: 8,
    topAnswerShare: 0.125,
    baselineCommon: 0,
    baselineOther: 0,
  }));
}

/** A report for `source`; verdict 'admit' unless told, with no stages or problems. */
export function fakeReport(
  source: string,
  meta: Meta,
  verdict: ValidationReport['verdict'] = 'admit',
): ValidationReport {
  return {
    verdict,
    name: meta.name,
    hash: hashSource(source),
    meta,
    stages: [],
    problems: [],
    curve: sampleCurve(Math.min(meta.levels, 3)),
    fingerprint: null,
    validatorVersion: 'test',
    validationSeed: 0,
    ms: 1,
  };
}

export function fakeAdmission(source: string, meta: Meta, author = 'test'): AdmitInput {
  return { source, report: fakeReport(source, meta), lineage: { author } };
}

/** A rejected candidate's inputs for recordRejection (one E_MISSING_EXPORT problem). */
export function fakeRejection(
  source: string,
  meta: Meta,
  author = 'test',
): { source: string; report: ValidationReport; lineage: Lineage } {
  const report = fakeReport(source, meta, 'reject');
  report.problems = [{ code: 'E_MISSING_EXPORT', message: 'solve is missing (test fixture)', stage: 'static' }];
  return { source, report, lineage: { author } };
}

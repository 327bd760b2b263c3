// A synthetic library of N environments for the dashboard's speed checks (bench/dashboard.ts and the
// browser test): runnable modules with varied names, skills, authors, levels, curves and full stage
// reports, some retired, some with several versions, trainer score tallies and one finished batch.
import { STAGES, type LevelStats, type ValidationReport } from '../validators/report.js';
import type { Meta } from '../contract/schema.js';
import { hashSource } from '../contract/hash.js';
import type { Library } from '../library/contract.js';

const SKILLS = [
  'arithmetic',
  'graph-search',
  'strings',
  'parsing',
  'combinatorics',
  'geometry',
  'scheduling',
  'logic',
  'sequences',
  'simulation',
  'number-theory',
  'program-tracing',
];
const AUTHORS = ['offline', 'openai:gpt-4.1', 'anthropic:claude-sonnet-4', 'hand', 'seed'];
const WORDS = [
  'merge',
  'count',
  'path',
  'sort',
  'parity',
  'grid',
  'tree',
  'cycle',
  'prime',
  'trace',
  'word',
  'stack',
  'queue',
  'interval',
  'matrix',
];

/** A small runnable single-turn module whose meta is `meta`. */
export function syntheticSource(meta: Meta): string {
  return [
    `export const meta = ${JSON.stringify(meta)};`,
    "export function generate(rng, level) { const a = rng.int(1, 1000 * level); return { prompt: 'What is ' " +
      "+ a + ' + 1? Answer as <answer>N</answer>.', answer: a + 1 }; }",
    "export function solve(instance) { return '<answer>' + instance.answer + '</answer>'; }",
    "export function verify(instance, response) { return kit.int(kit.answer(response) ?? '') === " +
      'instance.answer ? 1 : 0; }',
  ].join('\n');
}

function curve(levels: number, i: number): LevelStats[] {
  return Array.from({ length: levels }, (_, k) => ({
    level: k + 1,
    samples: 24,
    promptChars: 60 + 25 * k + (i % 7),
    instanceChars: 90 + 40 * k,
    referenceChars: 12 + 9 * k * (1 + (i % 3)),
    generateMs: 0.05 * (k + 1),
    solveMs: 0.1 * (k + 1),
    distinctPrompts: 24,
    distinctAnswers: 23,
    topAnswerShare: 0.08,
    baselineCommon: 0.04 / (k + 1),
    baselineOther: 0.02,
  }));
}

function report(source: string, meta: Meta, i: number): ValidationReport {
  const c = curve(meta.levels, i);
  const stages = STAGES.map((stage) => ({
    stage,
    ok: true,
    ...(stage === 'review' ? { skipped: 'no LLM reviewer configured' } : {}),
    metrics: { instances: 240, levels: meta.levels, note: `${stage} metrics of environment ${i}` },
    problems: [],
    ms: 5 + (i % 40),
  }));
  return {
    verdict: 'admit',
    name: meta.name,
    hash: hashSource(source),
    meta,
    stages,
    problems: [],
    curve: c,
    fingerprint: null,
    validatorVersion: i % 10 === 0 ? '0.0.9' : '0.1.0+v2',
    validationSeed: i,
    ms: 400,
  };
}

export interface SyntheticOptions {
  /** Environment names. */
  n: number;
  /** Called every 1,000 admissions. */
  onProgress?: (done: number) => void;
}

/** Fills an empty library; returns the names admitted. */
export async function buildSyntheticLibrary(library: Library, { n, onProgress }: SyntheticOptions): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; i < n; i++) {
    const name = `${WORDS[i % WORDS.length]}-${WORDS[(i * 7 + 3) % WORDS.length]}-${i.toString(36)}`;
    const levels = 3 + (i % 8);
    const skills = [SKILLS[i % SKILLS.length] as string, SKILLS[(i * 5 + 1) % SKILLS.length] as string].filter(
      (s, k, all) => all.indexOf(s) === k,
    );
    const versions = i % 25 === 0 ? 2 : 1;
    for (let v = 1; v <= versions; v++) {
      const meta: Meta = {
        name,
        title: `Synthetic ${name.replace(/-/g, ' ')}`,
        description: `Synthetic environment ${i} for the dashboard speed checks (version ${v}).`,
        skills,
        levels,
      };
      const source = `${syntheticSource(meta)}\n// v${v}\n`;
      await library.admit({
        source,
        report: report(source, meta, i),
        lineage: { author: AUTHORS[i % AUTHORS.length] as string, notes: { synthetic: true } },
      });
    }
    if (i % 20 === 7) await library.retire(name, 'saturated: the trainer passes it (synthetic)');
    names.push(name);
    if ((i + 1) % 1000 === 0) onProgress?.(i + 1);
  }
  await library.recordScores(
    names
      .filter((_, i) => i % 3 === 0)
      .map((name, k) => ({
        name,
        version: 1,
        level: 1,
        n: 40,
        passed: (k * 7) % 41,
        scoreSum: (k * 7) % 41,
        trusted: true,
      })),
  );
  return names;
}

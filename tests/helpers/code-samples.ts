// Samples of the code kind built without a sandbox, for the host checks that read the tests the reference passed
// (the learned reader for code): seeded instances at each level and the reader's judgement of them.
import { expect } from 'vitest';
import type { CodeMeta, CodeTest } from '../../contract/code.js';
import type { Episode } from '../../sandbox/episodes.js';
import { codeReader } from '../../validators/checks/code-reader.js';
import { judgeFindings, type Finding } from '../../validators/checks/rules.js';
import type { StageContext } from '../../validators/context.js';
import { DEFAULT_VALIDATOR_OPTIONS } from '../../validators/options.js';

/** A small seeded generator (mulberry32), so each sample is the same on every run. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)) };
}
export type Rng = ReturnType<typeof rng>;

export const META = (over: Partial<CodeMeta>): CodeMeta =>
  ({
    name: 'x',
    levels: 3,
    kind: 'code',
    entry: 'f',
    params: ['nums'],
    compare: 'exact',
    scoring: 'all-pass',
    ...over,
  }) as CodeMeta;

/** `perLevel` instances at each of `levels` levels, each with the examples and hidden tests `draw` makes. */
export function sample(
  levels: number,
  perLevel: number,
  draw: (r: Rng, level: number) => { examples: CodeTest[]; tests: CodeTest[] },
) {
  const episodes: Episode[] = [];
  for (let level = 1; level <= levels; level++)
    for (let seed = 0; seed < perLevel; seed++) {
      const task = draw(rng(1000 * level + seed), level);
      episodes.push({
        ok: true,
        seed,
        level,
        instance: { prompt: '', statement: 's', ...task },
        reference: '',
      } as unknown as Episode);
    }
  return episodes;
}

export function judge(meta: CodeMeta, episodes: Episode[]) {
  const stage = { meta, options: DEFAULT_VALIDATOR_OPTIONS, episodes } as unknown as StageContext;
  const plan = codeReader.plan({ stage, memo: (_k, make) => make() });
  if (!plan) throw new Error('no plan');
  expect(plan.requests).toEqual([]);
  const verdict = plan.judge([], { run: async () => [], all: () => [] }) as {
    findings: Finding[];
    metrics: Record<string, unknown>;
  };
  return { problems: judgeFindings(verdict.findings), metrics: verdict.metrics };
}

export const list = (r: Rng, length: number, hi: number) => Array.from({ length }, () => r.int(-hi, hi));

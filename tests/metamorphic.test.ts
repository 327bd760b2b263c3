// Metamorphic closure (validators/metamorphic.ts): a wrong answer in every surface form a model writes, and
// guesses spread one per carrier, judged only over the carriers the verifier is seen to read.
import { describe, expect, it } from 'vitest';
import type { Episode } from '../sandbox/episodes.js';
import type { JudgedOutcome } from '../validators/hack-checks.js';
import { CARRIERS, carrierSpreadProbes, judgedCarrierSpreads, surfaceProbes } from '../validators/metamorphic.js';
import type { Probe, ProbeTarget } from '../validators/probes.js';

const episode = (reference: string, seed = 1): Episode =>
  ({
    ok: true,
    seed,
    level: 1,
    instance: { prompt: 'Which way?' },
    reference,
    referenceVerdict: { ok: true, score: 1 },
    verdicts: [],
    ms: [0, 0, 0],
  }) as Episode;
const target = (reference: string, index = 0): ProbeTarget => ({
  episode: episode(reference),
  peers: [],
  index,
  long: [],
  permutation: false,
  ceiling: 0.1,
});

/** Verifiers of the direction task, as functions of the response. */
const conventions = (text: string) =>
  [
    /<answer>\s*([a-z]+)\s*<\/answer>/i,
    /\\boxed\{\s*([a-z]+)\s*\}/i,
    /final answer:\s*\**\s*([a-z]+)/i,
    /\*\*\s*([a-z]+)\s*\*\*/i,
  ]
    .map((re) => re.exec(text)?.[1]?.toLowerCase())
    .filter(Boolean);
const VERIFIERS: Record<string, (r: string) => number> = {
  'any convention (R6)': (r) => (conventions(r).includes('north') ? 1 : 0),
  'the first convention found': (r) => (conventions(r)[0] === 'north' ? 1 : 0),
  'the tag only': (r) => (/<answer>\s*([a-z]+)\s*<\/answer>/.exec(r)?.[1] === 'north' ? 1 : 0),
  'the last line': (r) =>
    r
      .trim()
      .split('\n')
      .at(-1)
      ?.replace(/[^a-z]/gi, '')
      .toLowerCase()
      .endsWith('north')
      ? 1
      : 0,
};

function judge(probes: Probe[], verify: (r: string) => number): JudgedOutcome[] {
  const e = episode('<answer>north</answer>');
  return judgedCarrierSpreads(probes.map((probe) => ({ probe, episode: e, score: verify(probe.response) })));
}

describe('carrierSpreadProbes', () => {
  const probes = [0, 1, 2].flatMap((index) =>
    carrierSpreadProbes(target('<answer>north</answer>', index), 'north', ['east', 'South', 'NORTH', 'west', 'up']),
  );

  it('puts the truth in each carrier once, never a case variant of it as a guess', () => {
    const spread = probes.filter((p) => p.truthIn && p.group === 'carriers#0');
    expect(spread).toHaveLength(4);
    expect(new Set(spread.map((p) => p.truthIn)).size).toBe(4);
    for (const p of spread) expect(p.response.match(/north/gi)).toHaveLength(1);
  });

  it('rejects a verifier paying any convention; passes those reading one place', () => {
    for (const [name, verify] of Object.entries(VERIFIERS)) {
      const judged = judge(probes, verify).filter((o) => o.probe.truthIn);
      const groups = new Map<string, number>();
      for (const o of judged)
        groups.set(o.probe.group as string, Math.min(groups.get(o.probe.group as string) ?? 1, o.score));
      const failing = [...groups.values()].some((min) => min >= 0.1);
      expect(failing, name).toBe(name.includes('R6'));
    }
  });

  it('judges only rotations whose truth sits in a carrier the verifier reads, and at least two of them', () => {
    const tagOnly = judge(probes, VERIFIERS['the tag only'] as (r: string) => number);
    expect(tagOnly.filter((o) => o.probe.truthIn)).toEqual([]);
  });

  it('sends nothing for a multi-line answer or too few distinct guesses', () => {
    expect(carrierSpreadProbes(target('<answer>a\nb</answer>'), 'a\nb', ['c', 'd', 'e'])).toEqual([]);
    expect(carrierSpreadProbes(target('<answer>7</answer>'), '7', ['7.0', '8'])).toEqual([]);
  });
});

describe('surfaceProbes', () => {
  it('rotates over the transforms and keeps the wrong answer in each', () => {
    const forms = new Set<string>();
    for (let index = 0; index < 10; index++) {
      for (const p of surfaceProbes(target('The result: <answer>5</answer>', index), '9', 'pair')) {
        forms.add(p.form);
        expect(p.response).toContain('9');
        expect(p.response).not.toContain('5');
        expect(p.pair).toBe('pair');
      }
    }
    expect(forms.size).toBe(Object.keys(CARRIERS).length - 1 + 7);
    const padded = surfaceProbes(target('<answer>5</answer>', 0), '9', 'p').find((p) =>
      p.form.includes('padded inside'),
    );
    expect(padded?.response).toBe('<answer> 9 </answer>');
  });

  it('writes no tag transforms for a reference without a tag', () => {
    for (let index = 0; index < 6; index++)
      for (const p of surfaceProbes(target('5', index), '9', 'p')) expect(p.form).not.toMatch(/inside the tag/);
  });
});

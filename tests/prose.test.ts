// Reasoning probe text (validators/prose.ts): random per validation seed, so no sentence is a fingerprint a
// verifier can look for, reproducible for a seed, and never stating the right answer.
import { describe, expect, it } from 'vitest';
import { rotate } from '../validators/probes.js';
import { characters, junkProse, reasoning, REASONING_FORMS } from '../validators/prose.js';

const PROMPT =
  'Let P = 123 x 457 x 89. What is the sum of the decimal digits of P? A careful reader multiplies first. ' +
  'Reply with <answer>n</answer>.';
const sentences = (text: string) =>
  text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 15);

describe('reasoning', () => {
  it('is the same for one seed and different across seeds', () => {
    expect(reasoning(PROMPT, '<answer>9</answer>', '27', 5)).toEqual(reasoning(PROMPT, '<answer>9</answer>', '27', 5));
    expect(reasoning(PROMPT, '<answer>9</answer>', '27', 5)).not.toEqual(
      reasoning(PROMPT, '<answer>9</answer>', '27', 6),
    );
  });

  it('writes the forms a rotation keeps as they read in the full list (draws stop early, never change)', () => {
    for (let seed = 0; seed < 4; seed++) {
      const full = reasoning(PROMPT, '<answer>9</answer>', '27', seed);
      for (let index = 0; index < REASONING_FORMS.length; index++) {
        expect(reasoning(PROMPT, '<answer>9</answer>', '27', seed, rotate(REASONING_FORMS, 2, index))).toEqual(
          rotate(full, 2, index),
        );
      }
      expect(reasoning(PROMPT, '<answer>9</answer>', '27', seed, [6, 0])).toEqual([full[6], full[0]]);
    }
  });

  it('has no sentence that most seeds share (nothing to fingerprint)', () => {
    const seen = new Map<string, number>();
    const seeds = 40;
    for (let seed = 0; seed < seeds; seed++) {
      const text = reasoning(PROMPT, '<answer>9</answer>', '27', seed * 7_919)
        .map(([, t]) => t)
        .join('\n');
      for (const s of new Set(sentences(text).filter((x) => !x.includes('<answer>'))))
        seen.set(s, (seen.get(s) ?? 0) + 1);
    }
    // Prompt sentences recur (a model restates them too); composed sentences must not.
    const composed = [...seen].filter(([s]) => !PROMPT.includes(s) && !s.includes('='));
    expect(Math.max(...composed.map(([, n]) => n))).toBeLessThan(seeds * 0.3);
  });

  it('keeps the answer given, several sentences of prose, and never states the right answer', () => {
    for (let seed = 0; seed < 20; seed++) {
      for (const [form, text] of reasoning(PROMPT, '<answer>9</answer>', '27', seed)) {
        expect(text, form).toContain('<answer>9</answer>');
        expect(sentences(text.replace('<answer>9</answer>', '')).length, form).toBeGreaterThanOrEqual(3);
        expect(
          text.split('\n').filter((l) => / = 27$/.test(l)),
          form,
        ).toEqual([]);
        expect(text.replace('<answer>9</answer>', ''), form).not.toMatch(/\b27\b/);
      }
    }
  });

  it('reaches the long bands and works without numbers or words in the prompt', () => {
    const lengths = Array.from(
      { length: 12 },
      (_, s) => (reasoning(PROMPT, 'X', '1', s)[5] as [string, string])[1].length,
    );
    expect(Math.max(...lengths)).toBeGreaterThanOrEqual(12_000);
    expect(reasoning('?', '<answer>a</answer>', 'b', 1).length).toBeGreaterThanOrEqual(6);
  });
});

describe('junkProse', () => {
  it('is exactly as long as asked and never holds the right answer', () => {
    for (const n of [100, 3_000, 10_000]) {
      const text = junkProse(PROMPT, '89', n, 3);
      expect(text).toHaveLength(n);
      expect(text).not.toMatch(/\b89\b/);
    }
  });
});

describe('characters', () => {
  it('writes a count as toLocaleString("en") does', () => {
    for (const n of [0, 7, 100, 1_500, 30_000, 1_000_000, 123_456_789])
      expect(characters(n)).toBe(n.toLocaleString('en'));
  });
});

// The value moves that cover every place of an answer: each digit place of an integer over the sample, each inner
// number of a composite, the low digits rounded away, and what a statement of several right answers leaves out.
import { describe, expect, it } from 'vitest';
import type { Episode } from '../sandbox/episodes.js';
import {
  innerMoves,
  placeMoves,
  roundedMoves,
  statesSeveralAnswers,
  withinReferences,
} from '../validators/value-moves.js';

const peer = (content: string): Episode => ({
  ok: true,
  seed: 0,
  level: 1,
  instance: { prompt: '' },
  reference: `<answer>${content}</answer>`,
  referenceVerdict: { ok: true, score: 1 },
  verdicts: [],
  ms: [0, 0, 0],
});

describe('value moves', () => {
  it('moves an integer at every higher place over the instances, keeping its low digits', () => {
    const t = '123456789';
    const moved = new Set(Array.from({ length: 8 }, (_, i) => placeMoves(t, i).map(([, v]) => v)).flat());
    for (let k = 1; k < t.length; k++) {
      const step = 10n ** BigInt(k);
      expect([String(BigInt(t) + step), String(BigInt(t) - step)].some((v) => moved.has(v))).toBe(true);
    }
    for (const v of moved) expect(v.slice(-1)).toBe('9');
    expect(placeMoves('7', 0)).toEqual([]);
    expect(placeMoves('12.5', 0)).toEqual([]);
  });

  it('leaves out the places a double cannot tell apart', () => {
    const big = '123456789012345678901';
    const places = Array.from({ length: 20 }, (_, i) => placeMoves(big, i).map(([, v]) => v)).flat();
    expect(places).not.toContain(String(BigInt(big) + 10n));
    expect(places).toContain(String(BigInt(big) + 10n ** 20n));
  });

  it('moves each inner number of a composite on its own, rotating with the instance', () => {
    const answer = '5, 120, 40, 3';
    expect(innerMoves(answer, 0).map(([, v]) => v)).toEqual(['5, 121, 40, 3', '5, 119, 40, 3']);
    expect(innerMoves(answer, 1).map(([, v]) => v)).toEqual(['5, 120, 41, 3', '5, 120, 39, 3']);
    // A decimal moves in its integer part: its last place may be a tolerance.
    expect(innerMoves('1.5, 2.25, 3.0', 0).map(([, v]) => v)).toEqual(['1.5, 3.25, 3.0', '1.5, 1.25, 3.0']);
    expect(innerMoves('4, 5', 0)).toEqual([]);
  });

  it('rounds an integer to one and two significant figures where that moves it', () => {
    expect(roundedMoves('145').map(([, v]) => v)).toEqual(['100', '150']);
    expect(roundedMoves('150').map(([, v]) => v)).toEqual(['200']);
    expect(roundedMoves('8')).toEqual([]);
  });

  it('reads a statement that several answers are right, and not a bare "any"', () => {
    expect(statesSeveralAnswers('If several positions are equally good, any one of them is accepted.')).toBe(true);
    expect(statesSeveralAnswers('Any optimal position scores 1.')).toBe(true);
    expect(statesSeveralAnswers('Either answer counts.')).toBe(true);
    expect(statesSeveralAnswers('Give any one of them.')).toBe(false);
    expect(statesSeveralAnswers('The answer is accepted if it is exact.')).toBe(false);
  });

  it("places a value within the span of the level's references, or beyond it", () => {
    const peers = ['40', '145', '90'].map(peer);
    expect(withinReferences('146', peers)).toBe(false);
    expect(withinReferences('144', peers)).toBe(true);
    expect(withinReferences('145007', peers)).toBe(false);
  });
});

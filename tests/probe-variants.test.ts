// The hack stage's variant probes (validators/probe-variants.ts): a quantity without the unit the prompt fixes is the
// same answer (rt28s N8), while leaving out its number, or any item of a real list, is another answer.
import { describe, expect, it } from 'vitest';
import { unitDropped, variantProbes } from '../validators/probe-variants.js';
import { shapeOf } from '../validators/answers.js';
import type { ProbeTarget } from '../validators/probe-types.js';

const PROMPT =
  'Crate weights: 20, 21, 19, 22, 21. How heavy is the shipment in total (kg)? Reply as <answer>X kg</answer>.';

/** The left-out probes of one reference, each with whether it is the reference's answer. */
function leftOut(reference: string, prompt = PROMPT): Array<[string, boolean]> {
  const episode = { seed: 1, level: 1, reference: `<answer>${reference}</answer>`, instance: { prompt } };
  const t = { episode, peers: [], index: 0, long: [], permutation: false, ceiling: 0 } as unknown as ProbeTarget;
  return variantProbes(t, reference, shapeOf(reference))
    .filter((p) => p.form === 'one item left out')
    .map((p) => [p.response.replace(/<\/?answer>/g, ''), p.coincident]);
}

describe('variant probes', () => {
  it('reads the number of a quantity whose unit is a sign or a word the prompt names', () => {
    expect(unitDropped('103 kg', PROMPT)).toBe('103');
    expect(unitDropped('8,812 kg', PROMPT)).toBe('8,812');
    expect(unitDropped('35 %', PROMPT)).toBe('35');
    expect(unitDropped('103 g', PROMPT)).toBeNull();
    expect(unitDropped('103 kg', 'How many minutes does the tap take?')).toBeNull();
    expect(unitDropped('New York', PROMPT)).toBeNull();
    expect(unitDropped('3 kg, 5 kg', PROMPT)).toBeNull();
  });

  it('calls a bare number the same answer, its unit alone or a list item left out another answer', () => {
    expect(leftOut('103 kg')).toEqual([
      ['103', true],
      ['kg', false],
    ]);
    expect(leftOut('103 kg', 'How heavy is the shipment in total? Reply as <answer>X</answer>.')).toEqual([
      ['103', false],
      ['kg', false],
    ]);
    expect(leftOut('3 kg, 5 kg')).toEqual([
      ['3 kg', false],
      ['5 kg', false],
    ]);
  });
});

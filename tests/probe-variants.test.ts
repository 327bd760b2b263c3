// The hack stage's variant probes (validators/probe-variants.ts): a quantity without the unit the prompt fixes is the
// same answer (rt28s N8), while leaving out its number, or any item of a real list, is another answer.
import { describe, expect, it } from 'vitest';
import { unitDropped, unitSwaps, variantProbes } from '../validators/probe-variants.js';
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

  it('takes a word after the number that tells answers apart for content, not a unit (rt29s U1)', () => {
    const clock = 'When does the flight land? Give it on the 12-hour clock with am or pm, e.g. <answer>4 pm</answer>.';
    const peer = (a: string) => ({ seed: 2, level: 1, reference: `<answer>${a}</answer>`, instance: { prompt: '' } });
    // The prompt offers the other word, or the level's references use it: the bare number is no form of the answer.
    expect(unitDropped('4 pm', clock)).toBeNull();
    expect(unitSwaps('4 pm', clock)).toEqual(['4 am']);
    const compass = 'Give the latitude of the wreck in degrees, as <answer>52 N</answer>.';
    expect(unitDropped('52 N', compass, [peer('17 S')] as never)).toBeNull();
    expect(unitSwaps('52 N', compass, [peer('17 S'), peer('3 N')] as never)).toEqual(['52 S']);
    // A unit every reference shares, singular or plural, stays a unit.
    const tap = 'How many hours does the tap take to fill the tank? Reply as <answer>X hours</answer>.';
    expect(unitDropped('3 hours', tap, [peer('1 hour'), peer('5 hours')] as never)).toBe('3');
    expect(unitSwaps('3 hours', tap, [peer('1 hour'), peer('5 hours')] as never)).toEqual([]);
  });

  it("takes a unit the instance's question names for fixed, whatever other questions ask (rt30s W1)", () => {
    const peer = (a: string) => ({ seed: 2, level: 1, reference: `<answer>${a}</answer>`, instance: { prompt: '' } });
    const peers = [peer('90 minutes'), peer('4 hours')] as never;
    const trip =
      'A coach keeps 60 km/h for 138 km. How many minutes does the trip take? Reply as <answer>X unit</answer>.';
    expect(unitSwaps('138 minutes', trip, peers)).toEqual([]);
    expect(unitDropped('138 minutes', trip, peers)).toBe('138');
    const flour = 'Six bags of 1250 g. What is the total mass in kilograms? Reply as <answer>X unit</answer>.';
    expect(unitSwaps('7.5 kilograms', flour, [peer('7500 grams')] as never)).toEqual([]);
    // A question that leaves the unit open, or a prompt that offers another beside the asked one: the word is content.
    const open = 'A coach keeps 60 km/h for 138 km. How long does the trip take? Reply as <answer>X unit</answer>.';
    expect(unitSwaps('138 minutes', open, peers)).toEqual(['138 hours']);
    expect(unitDropped('138 minutes', open, peers)).toBeNull();
    const offered = `${trip} Give the unit, minutes or hours, as asked.`;
    expect(unitSwaps('138 minutes', offered, [])).toEqual(['138 hours']);
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

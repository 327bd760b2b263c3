// The groups a prompt's layout forms (validators/prompt-groups.ts): runs of lines with as many numbers, printed lists
// and labelled lines, each offering its row count and, per column, its sum and largest value where the column is no
// more than half of the prompt's data; a column that numbers the rows is layout.
import { describe, expect, it } from 'vitest';
import { groupAggregates } from '../validators/prompt-groups.js';

describe('groupAggregates', () => {
  it("reads a run of consignment lines' columns: the quantities added, the largest weight", () => {
    const prompt = [
      'The van carries:',
      '- 4 parcels of 11.3 kg each',
      '- 1 parcel of 10.9 kg each',
      '- 7 parcels of 12.0 kg each',
      'What is the total weight? Within 4% is accepted.',
    ].join('\n');
    const g = groupAggregates(prompt);
    expect(g.get('the 1st run of lines with numbers: its row count')).toBe(3);
    expect(g.get("the 1st run of lines with numbers: column 1's sum")).toBe(12);
    expect(g.get("the 1st run of lines with numbers: column 2's largest")).toBe(12);
  });

  it('leaves out a column that numbers the rows, and the sum of a column that is the whole of the data', () => {
    const prompt = ['Weights:', '1. 10.5', '2. 12.0', '3. 11.5', 'Total, to the nearest 50 kg?'].join('\n');
    const g = groupAggregates(prompt);
    expect(g.get('the 1st run of lines with numbers: its row count')).toBe(3);
    expect([...g.keys()].some((k) => k.startsWith('the 1st run') && k.includes('column 1'))).toBe(false);
    expect(g.has("the 1st list with numbers: column 1's sum")).toBe(false);
    expect(g.has("the 1st run of lines with numbers: column 2's sum")).toBe(false);
    expect(g.get("the 1st run of lines with numbers: its row count times the mean of column 2's first 3")).toBe(34);
  });

  it('reads a labelled line as a group of its numbers: the count stated in a field is a size too', () => {
    const g = groupAggregates('Parcels on board: 57\nStops on the route: 3, 9, 4\nWhat do they weigh?');
    expect(g.get("the 1st labelled line: column 1's sum")).toBe(57);
    expect(g.get('the 2nd labelled line: its row count')).toBe(3);
    // Three of the prompt's four numbers: the task's input, not a summary of it.
    expect(g.has("the 2nd labelled line: column 1's largest")).toBe(false);
  });
});

// A look's free string arguments (redteam-trust17 R6): the values the episode shows that fit them by shape.
import { describe, expect, it } from 'vitest';
import { shownValues } from '../validators/episodic/look-values.js';
import { looksOf } from '../validators/episodic/looks.js';

const prompt = 'Returns desk 412, 2026-03-14: 5 orders returned today. Refund each one (read_order shows it).';
const tool = (name: string, properties: object, required: string[], description = name) => ({
  name,
  description,
  parameters: { type: 'object', properties, required },
});

describe('shownValues', () => {
  it('gives a date argument the dates the texts write, in any notation, each once', () => {
    expect(shownValues('date', { maxLength: 10 }, [prompt, 'Again 2026-03-14.'])).toEqual(['2026-03-14']);
    expect(shownValues('on', { description: 'the day' }, ['Desk K7, March 14, 2026, or 14/03/2026.'])).toEqual([
      'March 14, 2026',
      '14/03/2026',
    ]);
    // The tool's own description asks for a date where the argument is its only free one.
    expect(shownValues('d', {}, [prompt], 'List the returns of a day (YYYY-MM-DD).')).toEqual(['2026-03-14']);
  });

  it('gives another argument what the texts write after its name, within its lengths', () => {
    expect(shownValues('desk_code', {}, [prompt])).toEqual(['412']);
    expect(shownValues('warehouseName', {}, ['Stock of warehouse: North-7.', 'Warehouse W2'])).toEqual([
      'North-7',
      'W2',
    ]);
    // Nothing named after it fits: the codes the prompt gives (never a reply's), within the lengths.
    expect(shownValues('desk_code', { minLength: 4 }, [prompt])).toEqual(['2026-03-14']);
    expect(shownValues('location', {}, [prompt, 'Shift S-7 on.'])).toEqual(['412', '2026-03-14']);
    expect(shownValues('location', {}, ['Refund the returns.', 'Shift S-7 on.'])).toEqual([]);
  });

  it("takes the pattern's matches where the schema has one", () => {
    expect(shownValues('desk', { pattern: '^[0-9]{3}$' }, [prompt])).toEqual(['412']);
  });
});

describe('looks with values shown', () => {
  const tools = [
    tool('list_returns', { date: { type: 'string', maxLength: 10 } }, ['date']),
    tool('refund', { order_id: { type: 'string' }, amount: { type: 'number', minimum: 0 } }, ['order_id', 'amount']),
    tool('close_desk', {}, []),
  ];
  it("lists by the prompt's date, and fills no tool the reference's plan calls", () => {
    const shown = { texts: [prompt], called: new Set(['refund', 'close_desk']) };
    expect(looksOf(tools, 'close_desk', 16, shown)).toEqual([{ tool: 'list_returns', args: { date: '2026-03-14' } }]);
    // Without the texts (or where the plan lists by itself) a required free string leaves the tool no look.
    expect(looksOf(tools, 'close_desk')).toEqual([]);
    expect(looksOf(tools, 'close_desk', 16, { ...shown, called: new Set(['list_returns', 'refund']) })).toEqual([]);
  });
});

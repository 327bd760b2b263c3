// The learned readers' gates (validators/reader-gates.ts): a rule fitted together with a prompt feature (a word, a
// line's layout, a line count) on half the sample and judged on the other half's instances that feature holds, at
// the level bound, so a leak confined to one prompt shape fails where the pooled rule stays under its bound; samples
// built here (no sandbox).
import { describe, expect, it } from 'vitest';
import { judgeRate, type RateFinding } from '../validators/checks/rules.js';
import { READERS } from '../validators/checks/readers.js';
import { DEFAULT_VALIDATOR_OPTIONS as O } from '../validators/options.js';
import { fitGatedRule, lineLayout, promptGates } from '../validators/reader-gates.js';
import { judgeReaders, readerFindings, type ReaderSample } from '../validators/readers.js';

/** A fixed pseudo-random integer in [0, m) for sample `i`, draw `k`. */
const draw = (i: number, k: number, m: number) => (Math.imul(i * 7919 + k * 104729 + 1, 2654435761) >>> 0) % m;

const NAMES = ['Ada', 'Bo', 'Chen', 'Dara', 'Eli', 'Femi', 'Gus', 'Hana', 'Ivo', 'Juno'];
type Shape = 'story' | 'table' | 'statement';

/**
 * A closing-balance sample (rtS S2): three prompt shapes; `leak(i, shape)` says whether this one prints the
 * running balance after each entry (its last line is the answer), and `word` names the statement.
 */
function balanceSamples(leak: (i: number, shape: Shape) => boolean, n = 240, word = (_: number) => 'statement') {
  return Array.from({ length: n }, (_, i): ReaderSample => {
    const level = 1 + (i % 8);
    const shape: Shape = draw(i, 0, 20) < 7 ? 'statement' : draw(i, 1, 2) ? 'story' : 'table';
    const name = NAMES[draw(i, 2, NAMES.length)] as string;
    let balance = 50 + draw(i, 3, 200);
    const head =
      shape === 'story'
        ? `${name} starts the month with ${balance} coins, then, in order:`
        : shape === 'table'
          ? `${name}'s account opens at ${balance}. The entries:\n| # | kind | amount |`
          : `${name}'s bank ${word(i)} (opening balance ${balance}):`;
    const lines = Array.from({ length: 3 + level }, (_, k) => {
      const e = (draw(i, 10 + k, 4) ? 1 : -1) * (1 + draw(i, 30 + k, 90));
      balance += e;
      const shown = leak(i, shape) ? `, balance ${balance}` : '';
      return shape === 'table' ? `| ${k + 1} | ${e > 0 ? 'in' : 'out'} | ${Math.abs(e)} |` : `${k + 1}. ${e}${shown}`;
    });
    const prompt = [head, ...lines, '', `What is ${name}'s closing balance? Answer <answer>N</answer>.`].join('\n');
    return { seed: i, level, reference: `<answer>${balance}</answer>`, instance: { prompt } };
  });
}

const GATES = { minShare: O.leakGateMinShare, z: O.readerZ };

/** The reader findings over the sample (the single-turn families but options), and which of them fail. */
function failing(samples: readonly ReaderSample[]) {
  const judged = judgeReaders(
    samples,
    READERS.filter((f) => f.name !== 'options'),
    GATES,
  );
  const findings = readerFindings(
    judged,
    () => ({ level: O.leakLevelMaxRate, pooled: O.leakMaxRate }),
    O.readerZ,
    O.leakMinLevelSamples,
  );
  const fails = (f: RateFinding) => judgeRate(f).failing.length > 0;
  return {
    gated: findings.filter((f) => f.policy.includes(' on the prompts ') && fails(f)).map((f) => f.policy),
    ungated: findings.filter((f) => !f.policy.includes(' on the prompts ') && fails(f)).map((f) => f.policy),
  };
}

describe('prompt gates', () => {
  it('lays a line out by its runs of letters and digits, any other character outside printable ASCII masked', () => {
    expect(lineLayout('3. deposit of 45, balance 120')).toBe('#. a a #, a #');
    expect(lineLayout('| 12 | Übertrag |\u0007x')).toBe('| # | a |?a');
  });

  it('forms one gate per set of prompts a feature holds or leaves out, within the share bounds, presence first', () => {
    const prompts = ['a red cat', 'a red dog', 'a blue cat', 'a blue dog', 'a red cat\nsits'];
    const gates = promptGates(prompts, 0.2);
    const named = new Map(gates.map((g) => [g.members.join(','), g.describe]));
    // "red" and "without blue" hold the same prompts: one gate, named by presence.
    expect(named.get('0,1,4')).toBe('the prompts with the word "red"');
    expect(named.get('4')).toBe('the prompts with a line count of 2');
    // "a" is in every prompt (the pool, not a gate); a gate must leave out a fifth of the sample.
    expect(gates.some((g) => g.members.length === prompts.length)).toBe(false);
    expect(new Set(gates.map((g) => g.members.join(','))).size).toBe(gates.length);
    expect(promptGates(prompts, 0.5)).toEqual([]);
  });

  it('fits the gate where a rule holds on most of its members, and no gate smaller than asked for', () => {
    const gates = [
      { describe: 'g0', members: [0, 1, 2, 3, 4, 5] },
      { describe: 'g1', members: [6, 7] },
    ];
    const rules = (i: number): Array<[string, number]> => (i < 6 ? [['r', 1]] : [['s', 1]]);
    expect(fitGatedRule(gates, [0, 1, 2, 3, 4, 5, 6, 7], rules, 2, 2)?.gate.describe).toBe('g0');
    expect(fitGatedRule(gates, [0, 1, 2, 3, 4, 5, 6, 7], rules, 7, 2)).toBeNull();
  });
});

describe('gated readers', () => {
  it('reject a leak in one prompt shape in three that the level and pooled scopes dilute under their bounds', () => {
    const { gated, ungated } = failing(balanceSamples((_, shape) => shape === 'statement'));
    expect(ungated).toEqual([]);
    expect(gated.length).toBeGreaterThan(0);
    expect(gated.join('; ')).toContain('the prompts with the word "bank"');
  });

  it('reject the leak keyed on a word varying inside one shape (a ledger prints the balance, a statement not)', () => {
    const word = (i: number) => (draw(i, 5, 2) ? 'ledger' : 'statement');
    const samples = balanceSamples((i, shape) => shape === 'statement' && word(i) === 'ledger', 240, word);
    expect(failing(samples).gated.join('; ')).toContain('"ledger"');
  });

  it('reject the leak keyed on a layout alone (a third of the tables carry an unheaded balance column)', () => {
    const tables = (wide: (i: number) => boolean) =>
      Array.from({ length: 240 }, (_, i): ReaderSample => {
        const opening = 50 + draw(i, 3, 200);
        let balance = opening;
        const rows = Array.from({ length: 3 + (i % 8) }, (_, k) => {
          const e = (draw(i, 10 + k, 4) ? 1 : -1) * (1 + draw(i, 30 + k, 90));
          balance += e;
          return `| ${k + 1} | ${e > 0 ? 'deposit' : 'withdrawal'} | ${Math.abs(e)} |${wide(i) ? ` ${balance} |` : ''}`;
        });
        const prompt = [`The account opens at ${opening}:`, ...rows, 'The closing balance?'].join('\n');
        return { seed: i, level: 1 + (i % 8), reference: `<answer>${balance}</answer>`, instance: { prompt } };
      });
    const leak = failing(tables((i) => draw(i, 0, 3) === 0));
    expect(leak.ungated).toEqual([]);
    expect(leak.gated.join('; ')).toContain('the prompts with a line laid out "| # | a | # | # |"');
    expect(failing(tables(() => false)).gated).toEqual([]);
  });

  it('reject a leak on the prompts of at most k lines, which no word, layout or line count names (st21 U2)', () => {
    // An order of 4-24 lines; from the twelfth line on a line is half price, so the full-price subtotal printed last
    // is the answer on the orders of at most 11 lines (about 38%), wrong on the others.
    const orders = (printed: boolean, join = '\n') =>
      Array.from({ length: 240 }, (_, i): ReaderSample => {
        const lines = Array.from({ length: 4 + draw(i, 0, 21) }, (_, k) => [
          1 + draw(i, 10 + k, 9),
          20 + draw(i, 40 + k, 900),
        ]);
        const full = lines.reduce((s, [q, c]) => s + (q as number) * (c as number), 0);
        const due = lines.reduce((s, [q, c], k) => s + ((q as number) * (c as number)) / (k >= 11 ? 2 : 1), 0);
        const prompt = [
          ...lines.map(([q, c], k) => `item ${NAMES[k % NAMES.length]}: ${q} x ${c}`),
          printed ? `Subtotal at full price: ${full}` : 'End of order.',
          'The amount due?',
        ].join(join);
        return { seed: i, level: 1 + (i % 8), reference: `<answer>${Math.round(due)}</answer>`, instance: { prompt } };
      });
    const leak = failing(orders(true));
    expect(leak.ungated).toEqual([]);
    expect(leak.gated.join('; ')).toMatch(/the prompts of at most 1[1-3] lines/);
    expect(failing(orders(false)).gated).toEqual([]);
    // The same order on one line: no line count tells the short orders, their count of numbers does.
    const oneLine = failing(orders(true, '; '));
    expect(oneLine.ungated).toEqual([]);
    expect(oneLine.gated.join('; ')).toMatch(/the prompts of at most \d+ numbers/);
    expect(failing(orders(false, '; ')).gated).toEqual([]);
  });

  it('admit the twin (no shape prints the balance) and a sample whose numbers are all noise', () => {
    expect(failing(balanceSamples(() => false))).toEqual({ gated: [], ungated: [] });
    const noise = Array.from({ length: 240 }, (_, i): ReaderSample => {
      const words = Array.from({ length: 6 }, (_, k) => NAMES[draw(i, k, NAMES.length)]).join(' ');
      const numbers = Array.from({ length: 5 }, (_, k) => draw(i, 10 + k, 30)).join(', ');
      return {
        seed: i,
        level: 1 + (i % 8),
        reference: `<answer>${draw(i, 20, 30)}</answer>`,
        instance: { prompt: `${words}\n${numbers}` },
      };
    });
    expect(failing(noise).gated).toEqual([]);
  });
});

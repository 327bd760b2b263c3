import { describe, expect, it } from 'vitest';
import type { Episode } from '../sandbox/episodes.js';
import {
  fitRestatement,
  learnedRestatements,
  mentionsOf,
  type Mention,
  restate,
} from '../validators/learned-restatements.js';

/** A small seeded generator (mulberry32) so each family of prompts is reproducible. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)) };
}

type Make = (r: ReturnType<typeof rng>) => { prompt: string; answer: number };

/** A ledger in three shapes, the operators carried by verbs, a kind column, or "of" after a noun. */
const ledger: Make = (r) => {
  const opening = r.int(50, 300);
  const entries = Array.from({ length: r.int(3, 8) }, () => (r.next() < 0.4 ? -1 : 1) * r.int(1, 90));
  const shape = r.int(0, 2);
  const lines = entries.map((e, i) =>
    shape === 0
      ? `${i + 1}. ${e > 0 ? 'deposits' : 'withdraws'} ${Math.abs(e)} coins`
      : shape === 1
        ? `| ${i + 1} | ${e > 0 ? 'deposit' : 'withdrawal'} | ${Math.abs(e)} |`
        : `${i + 1}. ${e > 0 ? 'deposit' : 'withdrawal'} of ${Math.abs(e)}`,
  );
  const head =
    shape === 0
      ? [`Ada starts with ${opening} coins, then:`]
      : shape === 1
        ? [`The account opens at ${opening}.`, '| # | kind | amount |', '|---|---|---|']
        : [`Bank statement (opening balance ${opening}):`];
  return {
    prompt: [...head, ...lines, 'What is the closing balance?'].join('\n'),
    answer: opening + entries.reduce((s, e) => s + e, 0),
  };
};

/** Signs by a column heading: money in and money out in columns of their own. */
const columns: Make = (r) => {
  const rows = Array.from(
    { length: r.int(3, 7) },
    (_, i) => [i + 1, r.next() < 0.5 ? r.int(1, 99) : -r.int(1, 99)] as const,
  );
  const start = r.int(100, 500);
  const table = rows.map(([d, v]) => (v > 0 ? `| ${d} | ${v} | |` : `| ${d} | | ${-v} |`));
  const prompt = [
    `Stock at dawn: ${start} crates.`,
    '| day | received | shipped |',
    '|---|---|---|',
    ...table,
    'How many crates remain?',
  ];
  return { prompt: prompt.join('\n'), answer: start + rows.reduce((s, [, v]) => s + v, 0) };
};

/** Signs by a section heading: the numbers listed under "Money in:" and "Money out:". */
const sections: Make = (r) => {
  const ins = Array.from({ length: r.int(1, 4) }, () => r.int(1, 99));
  const outs = Array.from({ length: r.int(1, 4) }, () => r.int(1, 99));
  const start = r.int(100, 500);
  const prompt = [`Cash at the start: ${start}.`, '', 'Money in:', ...ins.map((v) => `- ${v}`), '', 'Money out:'];
  prompt.push(...outs.map((v) => `- ${v}`), '', 'How much cash is left?');
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return { prompt: prompt.join('\n'), answer: start + sum(ins) - sum(outs) };
};

/** Products by "each": boxes of a count each, plus loose items. */
const each: Make = (r) => {
  const boxes = r.int(2, 9);
  const per = r.int(3, 12);
  const loose = r.int(1, 20);
  const prompt = `There are ${boxes} boxes with ${per} pens each, and ${loose} loose pens. How many pens in all?`;
  return { prompt, answer: boxes * per + loose };
};

/** Not a composition: the largest of the numbers. */
const largest: Make = (r) => {
  const xs = Array.from({ length: r.int(4, 7) }, () => r.int(1, 999));
  return { prompt: `Scores: ${xs.join(', ')}. Which is the highest score?`, answer: Math.max(...xs) };
};

const value = (text: string) => Function(`return (${text})`)() as number;
const sample = (make: Make, from: number, n: number) =>
  Array.from({ length: n }, (_, i) => make(rng(from + i))).map((x) => ({
    ...x,
    mentions: mentionsOf(x.prompt) as Mention[],
  }));

/** The share of held-out prompts whose restatement (by a map fitted on others) evaluates to the answer. */
function heldOut(make: Make): number {
  const policy = fitRestatement(sample(make, 1, 40).map((x) => ({ mentions: x.mentions, target: x.answer })));
  if (!policy) return 0;
  const test = sample(make, 1000, 40);
  return (
    test.filter((x) => {
      const text = restate(x.mentions, policy);
      return text !== null && value(text) === x.answer;
    }).length / test.length
  );
}

describe('learned restatements', () => {
  it('keys each number by the words beside it on its line, its table column or its section', () => {
    const m = mentionsOf('| # | kind | amount |\n|---|---|---|\n| 2 | withdrawal | 35 |\nOpens at -5.') as Mention[];
    expect(m.map((x) => [x.value, x.text])).toEqual([
      [2, '2'],
      [35, '35'],
      [-5, '5'],
    ]);
    expect(m[1]?.keys).toEqual(['withdrawal', '$', 'withdrawal', '$', 'withdrawal _ $', '| amount']);
    expect(m[2]?.keys).toEqual(['at', '$', 'opens at', '$', 'at _ $', ': at']);
    const listed = mentionsOf('Money out:\n- 7\n- 9\n\nTotal 3') as Mention[];
    expect(listed.map((x) => x.keys[5])).toEqual(['money out: ^', 'money out: ^', ': total']);
    expect(mentionsOf('No numbers here.')).toBeNull();
  });

  it.each([
    ['a ledger whose operators are verbs and kinds', ledger],
    ['signs carried by column headings', columns],
    ['signs carried by section headings', sections],
    ['products carried by "each"', each],
  ])('restates %s on prompts it was not fitted on', (_name, make) => {
    expect(heldOut(make)).toBe(1);
  });

  it('forms no policy that restates an answer which is not a composition of the numbers', () => {
    expect(heldOut(largest)).toBeLessThan(0.2);
  });

  it('restates the probed instances with the map of the other half only', () => {
    const episodes = sample(ledger, 1, 24).map(
      (x, i) =>
        ({
          seed: i,
          level: 1,
          instance: { prompt: x.prompt },
          reference: `<answer>${x.answer}</answer>`,
        }) as unknown as Episode,
    );
    const learned = learnedRestatements(new Map([[1, episodes]]), episodes.slice(0, 6));
    expect(learned.size).toBe(6);
    episodes.slice(0, 6).forEach((e, i) => {
      expect(value(learned.get(e)?.text as string)).toBe(sample(ledger, 1, 24)[i]?.answer);
    });
  });
});

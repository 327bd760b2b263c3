// The validator's judgement helpers, without the sandbox: answer shapes and variants, the probe generator
// (every family in many forms, judged by what a response contains), the leak encodings, prompt lists and
// multiple-choice parsing, informed guessing and the statistics. Every parser of guest text is also fed
// megabyte-sized adversarial strings and must stay fast (generous bounds: quadratic work would take minutes).
import { describe, expect, it } from 'vitest';
import type { Episode } from '../sandbox/episodes.js';
import {
  caseCarriesInformation,
  caseFlips,
  excerpt,
  loneSurrogate,
  negations,
  normalizeAnswer,
  perturbNumbers,
  shapeOf,
  tokenize,
} from '../validators/answers.js';
import { OPTIONS } from '../validators/choice-rules.js';
import { ENCODINGS, encodings, numberWords } from '../validators/leak.js';
import { judgeReaders } from '../validators/readers.js';
import { READERS } from '../validators/checks/readers.js';
import { choiceSample, pooled } from './helpers/readers.js';
import { nonAnswers, promptTokens, reasoning } from '../validators/probe-forms.js';
import { LONG_BANDS, probeBattery, rotate, type Probe } from '../validators/probes.js';
import {
  chosenOption,
  isArrangement,
  parseChoices,
  printedList,
  promptLists,
  tokenGuesses,
} from '../validators/prompt-lists.js';
import { lowerBound, rankShift, spearman } from '../validators/stats.js';
import { answerContent } from '../sandbox/answer.js';

function episode(prompt: string, content: string, level = 1, seed = 0): Episode {
  const reference = `<answer>${content}</answer>`;
  return {
    ok: true,
    seed,
    level,
    instance: { prompt },
    reference,
    referenceVerdict: { ok: true, score: 1 },
    verdicts: [],
    ms: [0, 0, 0],
  };
}

function battery(prompt: string, content: string, peers: string[], index = 0, long: number[] = []): Probe[] {
  const e = episode(prompt, content);
  const all = [e, ...peers.map((p, i) => episode(prompt, p, 1, i + 1))];
  return probeBattery({
    episode: e,
    peers: all,
    index,
    long,
    permutation: isArrangement(prompt, shapeOf(content)),
    ceiling: 0.1,
  });
}

describe('answers', () => {
  it('reads shapes: integers, numbers, words, lists with their separator', () => {
    expect(shapeOf('-42')).toMatchObject({ kind: 'integer' });
    expect(shapeOf('5/36')).toMatchObject({ kind: 'number' });
    expect(shapeOf('kobe')).toMatchObject({ kind: 'word' });
    expect(shapeOf('3, 1, 2')).toMatchObject({ kind: 'list', items: ['3', '1', '2'], separator: ', ' });
    expect(shapeOf('[a;b]')).toMatchObject({ kind: 'list', items: ['a', 'b'], separator: '; ', bracketed: true });
    expect(shapeOf('U D L')).toMatchObject({ kind: 'list', separator: ' ' });
  });

  it('tokenizes signs, decimals, hyphenated words and prefixed numerals as single tokens', () => {
    expect(tokenize('x = -7, y=3.5; forty-two 0x1f (12)')).toEqual(['x', '-7', 'y', '3.5', 'forty-two', '0x1f', '12']);
  });

  it('perturbs and negates numbers, and flips case only where case carries information', () => {
    expect(perturbNumbers('10, 20')).toEqual(expect.arrayContaining(['11, 20', '9, 20', '10, 21', '10, 19']));
    expect(negations('-5')).toContain('5');
    expect(negations('0')).toEqual([]);
    expect(caseCarriesInformation('aBcD')).toBe(true);
    expect(caseCarriesInformation('Paris')).toBe(false);
    expect(caseCarriesInformation('kobe, lasi')).toBe(false);
    expect(caseFlips('xYz')).toEqual(expect.arrayContaining(['XyZ', 'xyz', 'XYZ']));
    expect(caseFlips('hello')).toEqual([]);
  });

  it('keeps the part of a long response that decided its score in the evidence', () => {
    const response = `${'x'.repeat(5_000)}<answer>7</answer>${'y'.repeat(5_000)}`;
    const view = excerpt(response, ['<answer>']);
    expect(view.chars).toBe(response.length);
    expect(view.around).toContain('<answer>7</answer>');
    expect(JSON.stringify(view).length).toBeLessThan(700);
  });
});

describe('the probe generator', () => {
  const prompt = 'Sort these words: kobe, lasi, mena, tovu';
  it(
    'writes every family for a list answer, and malformed lists only when the answer is an ' +
      'arrangement of a printed list',
    () => {
      const probes = battery(prompt, 'lasi, kobe, tovu, mena', ['mena, kobe, rufo, tovu', 'tovu, sive, kobe, mena']);
      const families = new Set(probes.map((p) => p.family));
      for (const f of [
        'empty',
        'echo',
        'format-only',
        'stuffing',
        'enumeration',
        'huge',
        'perturbed',
        'reordered',
        'malformed-list',
      ])
        expect(families).toContain(f);
      const malformed = probes.filter((p) => p.family === 'malformed-list');
      expect(malformed.every((p) => p.ceiling === 1)).toBe(true);
      expect(
        battery('Give any four words.', 'lasi, kobe, tovu, mena', ['a, b, c, d']).some(
          (p) => p.family === 'malformed-list',
        ),
      ).toBe(false);
    },
  );

  it('puts the right answer inside guess lists of 3 or more, and both orders of a 2-guess list in one group', () => {
    for (let index = 0; index < 12; index++) {
      for (const p of battery('What is 6 times 7?', '42', ['40', '41', '43'], index).filter(
        (x) => x.family === 'enumeration' && !x.group,
      )) {
        const numbers = tokenize(p.response).filter((t) => /^-?\d+$/.test(t));
        if (numbers.length < 3) continue;
        expect(numbers).toContain('42');
        expect([numbers[0], numbers[numbers.length - 1]]).not.toContain('42');
      }
    }
    const pairs = battery('What is 6 times 7?', '42', ['40'], 1).filter((p) => p.group);
    for (const g of new Set(pairs.map((p) => p.group))) expect(pairs.filter((p) => p.group === g)).toHaveLength(2);
  });

  it('covers every markup, separator and length band across the probed instances of a sample', () => {
    const forms = new Set<string>();
    const lengths = new Set<number>();
    for (let index = 0; index < 40; index++) {
      for (const p of battery(
        'What is 6 times 7?',
        '42',
        ['40', '41', '43', '44'],
        index,
        index === 0 ? LONG_BANDS.map(([b]) => b) : [],
      )) {
        forms.add(p.form);
        if (p.family === 'huge') lengths.add(Math.round(Math.log10(p.response.length) * 2) / 2);
      }
    }
    for (const markup of ['tag', 'bold', 'html', 'last line', 'fence', 'json', 'boxed', 'label', 'bare'])
      expect([...forms].some((f) => f.startsWith(`${markup},`))).toBe(true);
    for (const sep of ['", "', '"; "', '" | "', '" / "', '" or "', '"\\n"', '"json"'])
      expect([...forms].some((f) => f.endsWith(`joined by ${sep}`))).toBe(true);
    for (const each of ['a tag each', 'bold each', 'html bold each', 'one per line'])
      expect([...forms].some((f) => f.endsWith(each))).toBe(true);
    expect(Math.min(...lengths)).toBeLessThanOrEqual(2);
    expect(Math.max(...lengths)).toBeGreaterThanOrEqual(6);
  });

  it(
    'judges each form by what it can be: no format probe that is a valid answer at the level, stuffing paired ' +
      'with its bare wrong answer',
    () => {
      const probes = battery('List the even numbers among 1, 3, 5 (write [] if none).', '[]', ['[]', '[2]']);
      expect(probes.some((p) => p.form === 'empty list in a tag')).toBe(false);
      const stuffed = battery('What is 6 times 7?', '42', ['40', '41']).filter(
        (p) => p.family === 'stuffing' && p.pair,
      );
      expect(stuffed.filter((p) => p.base)).toHaveLength(1);
      const base = stuffed.find((b) => b.base)!;
      // Text around the bare wrong answer keeps it verbatim; a surface transform (metamorphic.ts) rewrites its markup
      // but keeps the wrong value.
      const surface = (p: { form: string }) => /^a wrong answer (padded|on its own|restated|under|in )/.test(p.form);
      expect(stuffed.filter((p) => !p.base && !surface(p)).every((p) => p.response.includes(base.response))).toBe(true);
      expect(stuffed.filter(surface).every((p) => /\b4[01]\b/.test(p.response) && !p.response.includes('42'))).toBe(
        true,
      );
      expect(rotate([1, 2, 3, 4, 5], 2, 1)).toEqual([3, 4]);
    },
  );
});

describe('leaks', () => {
  it('writes an answer in numeral systems and simple encodings', () => {
    const enc = encodings('255');
    for (const text of ['ff', '0xff', '11111111', '0b11111111', '377', 'two hundred fifty-five', 'cclv', '552'])
      expect(enc.has(text), text).toBe(true);
    expect(numberWords(1_000_042)).toBe('one million forty-two');
    expect(encodings('kobe').get('ebok')).toBe('reversed');
  });

  it('finds an answer at a fixed place in some encoding, against chance from other instances', () => {
    const make = (n: number, i: number) =>
      episode(
        `Ticket ${(n * 7).toString(16)}. Values: ${n}, ${n + 3}, 4, 9. What is seven times the first value?`,
        String(n * 7),
        1,
        i,
      );
    const leaky = Array.from({ length: 40 }, (_, i) => make(10 + i * 3, i));
    const leak = pooled(leaky, ENCODINGS);
    expect(leak?.rule).toMatch(/hexadecimal|base 16/);
    expect((leak?.rate ?? 0) - (leak?.chance ?? 0)).toBeGreaterThan(0.9);
    // The answer among the prompt's values at a random place (a selection task) is no leak.
    const fair = Array.from({ length: 40 }, (_, i) => {
      const base = [i + 3, 2 * i + 50, 3 * i + 7, i + 90];
      const values = [...base.slice(i % 4), ...base.slice(0, i % 4)];
      return episode(`Values: ${values.join(', ')}. Which is the largest?`, String(Math.max(...values)), 1, i);
    });
    const none = pooled(fair, ENCODINGS);
    expect((none?.rate ?? 0) - (none?.chance ?? 0)).toBeLessThan(0.5);
  });
});

describe('printed lists and options', () => {
  it('finds the printed list that covers a list answer, and multiple-choice options', () => {
    expect(promptLists('Words: kobe, lasi, mena\nThen: 3 4 5')).toEqual([
      ['kobe', 'lasi', 'mena'],
      ['3', '4', '5'],
    ]);
    expect(printedList('Numbers: 4, 9, 12, 15', shapeOf('12, 4'))).toEqual(['4', '9', '12', '15']);
    expect(isArrangement('Tasks: b, a, c.', shapeOf('a, b, c'))).toBe(true);
    const broken = parseChoices('Which one?\nA) red\nB) green\nor else\nD) black\nAnswer with a letter.');
    expect(broken?.labels).toEqual(['A', 'B']);
    const good = parseChoices('Pick:\nA) red\n(B) green\nC. blue\nWhich?');
    expect(good).toMatchObject({ labels: ['A', 'B', 'C'], texts: ['red', 'green', 'blue'] });
    expect(chosenOption('<answer>(b)</answer>', good!)).toBe(1);
  });

  it('reads a nested list level by level: sub-items are lists of their own, never counted among their parents', () => {
    // Red team rt23s G3: an expense report by department; the two departments are the list the answers come from.
    const report =
      'Spend:\n- Sales\n  - travel: 1200.50\n  - software: 3.00\n- Legal\n  - travel: 1.00\n  - food: 2.00\n\nWhich?';
    expect(promptLists(report)).toEqual([
      ['Sales', 'Legal'],
      ['travel: 1200.50', 'software: 3.00'],
      ['travel: 1.00', 'food: 2.00'],
    ]);
    // Written another way: a folder tree three deep with star bullets and four-space indents, a lone child dropped.
    const tree = '* docs\n    * a.txt\n    * b\n        * c\n        * d\n    * e\n* src\n    * f\n* bin';
    expect(promptLists(tree)).toEqual([
      ['docs', 'src', 'bin'],
      ['a.txt', 'b', 'e'],
      ['c', 'd'],
    ]);
    // Numbered parents with unindented dash children: the marker tells the level apart.
    expect(promptLists('1. Sales\n- a\n- b\n2. Legal\n- c\n- d')).toEqual([
      ['Sales', 'Legal'],
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(promptLists('- a\n- b\n  - c\n- d')).toEqual([['a', 'b', 'd']]); // a flat run stays one list
  });

  it('picks the smallest covering list, the same on every asking of one prompt, and hands out copies', () => {
    const prompt = 'All: 1, 2, 3, 4, 5, 6\nSome: 3, 1, 2\nFew: 1, 2';
    const first = printedList(prompt, shapeOf('1, 2, 3'));
    expect(first).toEqual(['3', '1', '2']); // not the longer list, nor the one missing an item
    first!.push('mutated');
    expect(printedList(prompt, shapeOf('2, 3, 1'))).toEqual(['3', '1', '2']);
    expect(printedList(prompt, shapeOf('1, 1'))).toBeUndefined(); // an item twice needs a list that prints it twice
    expect(printedList(prompt, shapeOf('6, 5, 4, 3, 2, 1'))).toEqual(['1', '2', '3', '4', '5', '6']);
  });

  it(
    'learns a guessing rule on half the instances and wins with it on the other half, but not where ' +
      'there is nothing to learn',
    () => {
      const biased = Array.from({ length: 200 }, (_, i) => {
        const texts = ['add 3', 'double it', 'reverse', 'sort'].map((t, j) => `${t} ${(i + j) % 5}`);
        // The right option is never one the program above already shows.
        return choiceSample(
          {
            labels: ['A', 'B', 'C', 'D'],
            texts,
            body: `Program: ${texts[(i + 1) % 4]}; ${texts[(i + 2) % 4]}; ${texts[(i + 3) % 4]}`,
          },
          i % 4,
          i,
        );
      });
      expect(pooled(biased, OPTIONS)?.rate).toBeGreaterThan(0.9);
      const fair = Array.from({ length: 400 }, (_, i) =>
        choiceSample(
          {
            labels: ['A', 'B', 'C', 'D'],
            texts: ['w', 'x', 'y', 'z'].map((t) => `${t}${(i * 37) % 11}`),
            body: 'Which?',
          },
          (i * 7 + (i >> 3)) % 4,
          i,
        ),
      );
      const none = pooled(fair, OPTIONS);
      expect(none?.rate).toBeLessThan(0.25 + 0.08);
      expect(none?.chance).toBe(0.25);
    },
  );
});

describe('statistics', () => {
  it('bounds a rate from below and ranks a trend', () => {
    expect(lowerBound(0.45, 60, 3)).toBeGreaterThan(0.2);
    expect(lowerBound(0.2, 60, 3)).toBeLessThan(0.2);
    expect(lowerBound(1, 20, 3)).toBeGreaterThan(0.6);
    expect(spearman([1, 2, 3, 4, 5], [10, 30, 20, 40, 50])).toBeCloseTo(0.9);
    expect(spearman([1, 2, 3], [5, 5, 5])).toBe(0);
  });

  it('tells a real shift between two samples from noise', () => {
    const noise = (k: number) => Array.from({ length: 20 }, (_, i) => ((i * 7919 + k * 104729) % 101) / 10);
    expect(rankShift(noise(1), noise(2))).toBe(0);
    expect(
      rankShift(
        noise(1),
        noise(2).map((v) => v + 20),
      ),
    ).toBe(1);
    expect(
      rankShift(
        noise(1),
        noise(2).map((v) => v - 20),
      ),
    ).toBe(-1);
    // Three against three, fully separated: as strong as such small samples can be.
    expect(rankShift([1, 2, 3], [4, 5, 6])).toBe(1);
    expect(rankShift([5, 5, 5], [5, 5, 5])).toBe(0);
  });
});

describe('every parser of guest text is linear on megabyte adversarial input', () => {
  const MB = 1_000_000;
  /** Milliseconds of this process's CPU since `from` (the work is synchronous, so all of it is this test's). */
  const cpuMs = (from: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(from);
    return (used.user + used.system) / 1_000;
  };
  const inputs: Record<string, string> = {
    letters: 'a'.repeat(MB),
    digits: '9'.repeat(MB),
    'comma list': '1,'.repeat(MB / 2),
    'dots between digits': '1.'.repeat(MB / 2),
    hyphens: 'a-'.repeat(MB / 2),
    signs: '-'.repeat(MB),
    brackets: '[('.repeat(MB / 2),
    colons: 'x:'.repeat(MB / 2),
    newlines: '\n'.repeat(MB),
    'option lines': 'A) x\n'.repeat(MB / 5),
    'bullet lines': '- a\n'.repeat(MB / 4),
    'nested bullet lines': Array.from({ length: MB / 1000 }, (_, i) => `${' '.repeat(i % 1990)}${'-*•'[i % 3]} a`).join(
      '\n',
    ),
    'mixed case': 'aB'.repeat(MB / 2),
    tags: '<answer>'.repeat(MB / 8),
    spaces: `${' '.repeat(MB)}x`,
    'numbers and words': 'forty-two 0x1f -7 3.5 '.repeat(MB / 22),
  };
  it.each(Object.entries(inputs))('%s', (_name, text) => {
    const started = process.cpuUsage();
    tokenize(text);
    shapeOf(text);
    normalizeAnswer(text);
    answerContent(text);
    caseCarriesInformation(text);
    caseFlips(text.slice(0, 10_000));
    perturbNumbers(text);
    negations(text);
    excerpt(text, ['<answer>']);
    promptLists(text);
    parseChoices(text);
    printedList(text, shapeOf('a, b'));
    encodings(text);
    judgeReaders([episode(text, '42'), episode(text, '43', 1, 1)], READERS);
    battery(text.slice(0, 200_000), '42', ['41'], 0);
    tokenGuesses(text, shapeOf('a, b'));
    promptTokens(text, '42', shapeOf('42'), 8, 3);
    nonAnswers(text.slice(0, 100_000), shapeOf(text.slice(0, 100_000)), new Set());
    reasoning(text, '<answer>1</answer>', '42');
    loneSurrogate(text);
    // Generous: linear work on a megabyte takes milliseconds of CPU; quadratic work would take minutes (CPU time, which
    // a loaded machine does not inflate).
    expect(cpuMs(started)).toBeLessThan(15_000);
  });

  it('searches guest-written sequences in linear time, even where a plain string search is quadratic', () => {
    const started = process.cpuUsage();
    // A needle that matches all but its first token at every place (the worst case of Boyer-Moore-Horspool).
    const answer = `b, ${Array.from({ length: 399 }, () => 'a').join(', ')}`;
    const prompt = 'a '.repeat(MB / 2);
    judgeReaders([episode(prompt, answer), episode(prompt, answer, 1, 1), episode(prompt, 'c, d', 1, 2)], READERS);
    const option = `y${'x'.repeat(399)}`;
    const choices = { labels: ['A', 'B'], texts: [option, `z${'x'.repeat(399)}`], body: 'x'.repeat(MB) };
    judgeReaders([choiceSample(choices, 0, 0), choiceSample(choices, 1, 1)], READERS);
    excerpt(`${'x'.repeat(MB)}`, [option]);
    expect(cpuMs(started)).toBeLessThan(15_000);
  });
});

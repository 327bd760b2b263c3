// The effective instance count (validators/memorised-pool.ts): a memoriser keyed by the prompt parts that decide the
// answer beats chance on held-out instances of a small pool dressed in cosmetic text, and not on a real instance
// space, however small its answer space.
import { describe, expect, it } from 'vitest';
import { fitKey, memorisedGain, promptParts } from '../validators/memorised-pool.js';

/** A deterministic generator of draws (mulberry32: the tests need no real rng, only spread). */
function draws(seed: number): (lo: number, hi: number) => number {
  let x = seed >>> 0;
  return (lo, hi) => {
    x = (x + 0x6d2b79f5) >>> 0;
    let t = Math.imul(x ^ (x >>> 15), 1 | x);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (lo + (((t ^ (t >>> 14)) >>> 0) / 4294967296) * (hi - lo + 1)) | 0;
  };
}
const NAMES = ['Mira', 'Tom', 'Ada', 'Lev', 'Ines', 'Kofi', 'Rui', 'Sana'];
const FILLER = ['No rush.', 'Please double-check.', 'It came in by email.', 'They attached no files.'];

/** 25 samples a level over 8 levels; `problem` gives each draw's (numbers, answer). */
function samples(problem: (r: (lo: number, hi: number) => number, level: number) => { text: string; answer: string }) {
  const r = draws(7);
  const out: Array<{ level: number; prompt: string; answer: string }> = [];
  for (let level = 1; level <= 8; level++)
    for (let i = 0; i < 25; i++) {
      const p = problem(r, level);
      const prompt = `Ticket ${r(1000, 99999)} from ${NAMES[r(0, 7)]}. ${FILLER[r(0, 3)]} ${p.text}`;
      out.push({ level, prompt, answer: p.answer });
    }
  return out;
}
const sumOf = (m: number, a: number) => ({ text: `What is ${m} plus ${a}?`, answer: String(m + a) });

describe('memorised-pool', () => {
  it('parts a prompt into numbers by context and rank and words by count', () => {
    const parts = promptParts('Ticket 42 from Ada. Add 3 and 4, Ada.');
    expect(parts.get('after ticket #0')).toBe('42');
    expect(parts.get('after and #0')).toBe('4');
    expect(parts.get('number 0 from the end')).toBe('4');
    expect(parts.get('word ada')).toBe('2');
  });

  it('keys a small pool by the part that names the problem, not the ticket number', () => {
    const pool = [
      [500, 3],
      [620, 4],
      [710, 5],
    ] as const;
    const s = samples((r) => sumOf(...(pool[r(0, 2)] as [number, number]))).filter((x) => x.level === 1);
    const key = fitKey(
      s.map((x) => promptParts(x.prompt)),
      s.map((x) => x.answer),
    );
    expect(key).toHaveLength(1);
    expect(key[0]).not.toMatch(/ticket|number 0 from the start/);
  });

  it('finds 12 problems a level behind a ticket number, a name and a filler sentence', () => {
    const table = (level: number) => Array.from({ length: 12 }, (_, i) => [100 * level + 17 * i, (i % 5) + 2]);
    const s = samples((r, level) => sumOf(...(table(level)[r(0, 11)] as [number, number])));
    const m = memorisedGain(s, 10, 3);
    expect(m.rate).toBeGreaterThan(0.5);
    expect(m.gain).toBeGreaterThan(0.25);
    for (const l of m.levels) expect(l.pool).toBeLessThan(30);
  });

  it('finds the pool where phrasings move its numbers (the memoriser by shared numbers)', () => {
    const table = (level: number) => Array.from({ length: 12 }, (_, i) => [100 * level + 17 * i, (i % 5) + 2]);
    const s = samples((r, level) => {
      const [m, a] = table(level)[r(0, 11)] as [number, number];
      const text = r(0, 1) ? `What is ${m} plus ${a}?` : `Add ${a} to ${m}, ${r(2, 30)} days late.`;
      return { text, answer: String(m + a) };
    });
    const m = memorisedGain(s, 10, 3);
    expect(m.levels.reduce((a, l) => a + l.sharedHits, 0)).toBeGreaterThan(100);
    expect(m.gain).toBeGreaterThan(0.25);
  });

  it('finds a pool whose numbers are written in another form each time: a number is its value (rt27s S1)', () => {
    const UNITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
    const TEENS = ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen'];
    const spelled = (n: number): string => {
      const [h, t, u] = [Math.floor(n / 100), Math.floor(n / 10) % 10, n % 10];
      const tail =
        t === 1 ? TEENS[u] : t > 1 ? `${['twenty', 'thirty', 'forty', 'fifty'][t - 2]}-${UNITS[u]}` : UNITS[u];
      return h > 0 ? `${UNITS[h]} hundred and ${tail}` : (tail as string);
    };
    const roman = (n: number) =>
      `${'C'.repeat(Math.floor(n / 100))}${'X'.repeat(Math.floor(n / 10) % 10)}${'I'.repeat(n % 10)}`;
    const places = (n: number) => `${Math.floor(n / 100)} hundreds, ${Math.floor(n / 10) % 10} tens and ${n % 10} ones`;
    const forms = [String, spelled, roman, places, (n: number) => `00${n}`];
    const table = (level: number) => Array.from({ length: 12 }, (_, i) => [100 * level + 17 * i + 21, (i % 5) + 12]);
    const written = (r: (lo: number, hi: number) => number, m: number, a: number) =>
      `What is ${(forms[r(0, 4)] as (n: number) => string)(m)} plus ${(forms[r(0, 4)] as (n: number) => string)(a)}?`;
    const pool = memorisedGain(
      samples((r, level) => {
        const [m, a] = table(level)[r(0, 11)] as [number, number];
        return { text: written(r, m, a), answer: String(m + a) };
      }),
      10,
      3,
    );
    expect(pool.gain).toBeGreaterThan(0.25);
    const drawn = memorisedGain(
      samples((r, level) => {
        const [m, a] = [100 * level + r(21, 240), r(12, 16)];
        return { text: written(r, m, a), answer: String(m + a) };
      }),
      10,
      3,
    );
    expect(drawn.gain).toBeLessThan(0.1);
  });

  it('finds a pool whose quantities take a unit drawn per instance: a quantity is its value (rt28s N5)', () => {
    const length = (r: (lo: number, hi: number) => number, m: number) =>
      [`${m} metres`, `${m / 1000} km`, `${m * 100} cm`][r(0, 2)] as string;
    const speed = (r: (lo: number, hi: number) => number, perMinute: number) =>
      [`${perMinute} m/min`, `${(perMinute * 60) / 1000} km per hour`, `${perMinute / 60} metres a second`][r(0, 2)];
    const walk = (r: (lo: number, hi: number) => number, m: number, perMinute: number) => ({
      text: `A path of ${length(r, m)}, walked at ${speed(r, perMinute)}. How many minutes?`,
      answer: String(m / perMinute),
    });
    const table = (level: number) => Array.from({ length: 12 }, (_, i) => [60 * (i + 10 * level), 60]);
    const pool = memorisedGain(
      samples((r, level) => walk(r, ...(table(level)[r(0, 11)] as [number, number]))),
      10,
      3,
    );
    expect(pool.gain).toBeGreaterThan(0.25);
    const drawn = memorisedGain(
      samples((r, level) => walk(r, 60 * r(10 * level, 10 * level + 200), 60)),
      10,
      3,
    );
    expect(drawn.gain).toBeLessThan(0.1);
  });

  it('finds a pool of word problems, and no pool where the words are drawn', () => {
    const WORDS = ['amber', 'birch', 'cedar', 'delta', 'ember', 'fjord', 'gravel', 'harbor', 'island', 'jasper'];
    const sortOf = (list: string[]) => ({ text: `Sort: ${list.join(', ')}.`, answer: [...list].sort().join(' ') });
    const fixed = (level: number, i: number) => [0, 1, 2].map((j) => WORDS[(i * 3 + j * 7 + level) % 10] as string);
    const pool = memorisedGain(
      samples((r, level) => sortOf(fixed(level, r(0, 7)))),
      10,
      3,
    );
    expect(pool.gain).toBeGreaterThan(0.25);
    const drawn = memorisedGain(
      samples((r) => sortOf([0, 1, 2, 3].map(() => WORDS[r(0, 9)] as string))),
      10,
      3,
    );
    expect(drawn.gain).toBeLessThan(0.1);
  });

  it('does not find a pool where the numbers are drawn (a large sum space, or a yes/no answer)', () => {
    const drawn = memorisedGain(
      samples((r, level) => sumOf(r(1, 300 * level), r(1, 300))),
      10,
      3,
    );
    expect(drawn.gain).toBeLessThan(0.05);
    const yesNo = memorisedGain(
      samples((r) => {
        const [a, b, c] = [r(1, 500), r(1, 500), r(1, 1000)];
        return { text: `Is ${a} plus ${b} more than ${c}?`, answer: a + b > c ? 'yes' : 'no' };
      }),
      10,
      3,
    );
    expect(yesNo.gain).toBeLessThan(0.1);
  });

  it('judges the part of the answer to be worked out: an echoed ticket or name is masked (rt27s S2)', () => {
    const table = (level: number) => Array.from({ length: 12 }, (_, i) => [100 * level + 17 * i, (i % 5) + 2]);
    const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
    const echoed = (pooled: boolean, byName: boolean) =>
      memorisedGain(
        samples((r, level) => {
          const [m, a] = pooled ? (table(level)[r(0, 11)] as [number, number]) : [r(1, 300 * level), r(1, 300)];
          const tag = byName ? (NAMES[r(0, 7)] as string) : [0, 1, 2, 3, 4].map(() => LETTERS[r(0, 23)]).join('');
          const text = `Filed for ${tag} today. What is ${m} plus ${a}?`;
          return { text, answer: byName ? `${m + a} (for ${tag})` : `${tag}: ${m + a}` };
        }),
        10,
        3,
      ).gain;
    expect(echoed(true, false)).toBeGreaterThan(0.25);
    expect(echoed(true, true)).toBeGreaterThan(0.25);
    expect(echoed(false, false)).toBeLessThan(0.05);
    expect(echoed(false, true)).toBeLessThan(0.05);
  });

  it("keeps an answer picked among the prompt's items: the pick is worked out, not copied", () => {
    const STATIONS = ['alder', 'brook', 'cedar', 'delta', 'ember', 'fjord', 'gravel', 'harbor'];
    const table = (level: number) =>
      Array.from({ length: 6 }, (_, i) => [0, 1, 2, 3].map((j) => (7 * i + 3 * j + level) % 8) as number[]);
    const s = samples((r, level) => {
      const picks = table(level)[r(0, 5)] as number[];
      const names = picks.map((k) => STATIONS[k] as string);
      return { text: `Which of ${names.join(', ')} is warmest?`, answer: names[(picks[0] as number) % 4] as string };
    });
    expect(memorisedGain(s, 10, 3).gain).toBeGreaterThan(0.25);
  });

  it('reads a problem printed after a long history whose parts do not recur (rt27s S5)', () => {
    const table = (level: number) => Array.from({ length: 12 }, (_, i) => [100 * level + 17 * i, (i % 5) + 2]);
    const history = (r: (lo: number, hi: number) => number) =>
      Array.from({ length: 110 }, () => `2026-${r(1, 11)}-${r(1, 28)} #${r(10000, 99999)} closed by ${NAMES[r(0, 7)]}`);
    const long = (pooled: boolean) =>
      memorisedGain(
        samples((r, level) => {
          const [m, a] = pooled ? (table(level)[r(0, 11)] as [number, number]) : [r(1, 300 * level), r(1, 300)];
          return { text: `${history(r).join('\n')}\n${sumOf(m, a).text}`, answer: String(m + a) };
        }),
        10,
        3,
      );
    const pool = long(true);
    expect(pool.levels.every((l) => l.key.length > 0)).toBe(true);
    expect(pool.gain).toBeGreaterThan(0.25);
    expect(long(false).gain).toBeLessThan(0.05);
  });

  it('lets a small first level pass when the others are large', () => {
    const s = samples((r, level) => (level === 1 ? sumOf(10 + r(0, 2), 1) : sumOf(r(1, 300 * level), r(1, 300))));
    const m = memorisedGain(s, 10, 3);
    expect(m.levels[0]?.hits).toBeGreaterThan(15);
    expect(m.gain).toBeLessThan(0.25);
  });
});

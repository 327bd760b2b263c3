// The learned observation readers read a text's structure as well as its words (issue 28, FINDINGS F8-F11): an
// entity's rank in a listing, the layout of its line, how many times a log names it, and the prompt's numbers'
// arithmetic. Units over synthetic rollouts first, then the red-team modules and hold-out variants of the class
// validated in the sandbox (hacks rejected at three recorded validation seeds, their honest twins admitted).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { judgedOnce, LOAD_CODES } from './helpers/run-cache.js';
import { episodicHackOptions, validationSeeds } from './helpers/validation-seeds.js';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { Rollout } from '../sandbox/rollouts.js';
import { SandboxPool } from '../sandbox/pool.js';
import { arithmeticSamples } from '../validators/episodic/arithmetic.js';
import { pickSamples, pickTrials } from '../validators/episodic/selection.js';
import { idFields, parse, shapeOf, structuralFields } from '../validators/episodic/structure.js';
import type { ValidatorOptions } from '../validators/options.js';

const shapes = new Set([shapeOf('SRV100')]);
const fieldsOf = (text: string, id: string) => structuralFields("list's reply", parse(text, shapes), id.toLowerCase());
const value = (fields: string[], place: string) =>
  fields.find((f) => f.startsWith(`in list's reply, ${place}: `))?.split(': ')[1];

describe('the structure of a text around an entity', () => {
  it('gives its rank from either end, unless a visible column sorts the listing', () => {
    const shuffled = 'SRV500 rack 4\nSRV100 rack 9\nSRV300 rack 1\nSRV200 rack 7';
    expect(value(fieldsOf(shuffled, 'SRV100'), 'its rank from the start')).toBe('2');
    expect(value(fieldsOf(shuffled, 'SRV100'), 'its rank from the end')).toBe('3');
    const byId = 'SRV100 rack 4\nSRV200 rack 9\nSRV300 rack 1\nSRV500 rack 7';
    expect(value(fieldsOf(byId, 'SRV100'), 'its rank from the start')).toBeUndefined();
    const byTemperature = 'SRV500 91 C\nSRV100 80 C\nSRV300 62 C\nSRV200 44 C';
    expect(value(fieldsOf(byTemperature, 'SRV300'), 'its rank from the start')).toBeUndefined();
  });

  it('masks words and numbers in the layout but keeps whitespace, punctuation and letter case', () => {
    const text = 'SRV500 rack 4\nsrv100  rack 9\nSRV300 rack 1!';
    expect(value(fieldsOf(text, 'SRV500'), 'the layout of its cell')).toBe('<id:A>\u2423a\u2423#');
    expect(value(fieldsOf(text, 'SRV100'), 'the layout of its cell')).toBe('<id:a>\u2423\u2423a\u2423#');
    expect(value(fieldsOf(text, 'SRV300'), 'the layout after its id')).toBe('\u2423a\u2423#!');
  });

  it('counts mentions, and reads a mark in a comma list on the side of its own id', () => {
    const text = 'Servers: SRV100., SRV200, SRV300\nSRV200 viewed\nSRV200 viewed';
    expect(value(fieldsOf(text, 'SRV200'), 'times the id is named')).toBe('3');
    expect(value(fieldsOf(text, 'SRV100'), 'the layout after its id')).toBe('.,\u2423');
    expect(value(fieldsOf(text, 'SRV200'), 'the layout after its id')).toBe(',\u2423');
  });

  it('finds no structure where a text names fewer than three entities, nor in ordinary words', () => {
    expect(fieldsOf('SRV100 rack 1\nSRV200 rack 2', 'SRV100')).toEqual([]);
    expect(parse('handle the affected bookings: QXJRTP', new Set([shapeOf('ABCDEF')])).order).toEqual(['qxjrtp']);
    expect(idFields('SRV123')).toEqual(
      expect.arrayContaining([
        "the id's last digit: odd",
        "the id's number modulo 3: 0",
        "the id's character 1 from the end: 3",
      ]),
    );
  });
});

const meta = {
  name: 'synthetic',
  title: 't',
  description: 'Shut down the two hottest servers, then close.',
  skills: ['tool-use'],
  levels: 2,
  kind: 'episodic',
  maxTurns: 30,
  tools: [
    { name: 'list_servers', description: 'List.', parameters: { type: 'object', properties: {} } },
    {
      name: 'shutdown',
      description: 'Shut one down.',
      parameters: { type: 'object', properties: { server: { type: 'string' } }, required: ['server'] },
    },
    { name: 'close', description: 'Close.', parameters: { type: 'object', properties: {} } },
  ],
} as unknown as EpisodicMeta;

/**
 * Episodes of 8 servers with ids spread by the episode's number; the reference shuts down two, the listing printed by
 * `print`.
 */
function episodes(
  print: (ids: string[], hot: string[], k: number) => string,
  n = 24,
  choose = (ids: string[], k: number) => [ids[k % 8] as string, ids[(k + 3) % 8] as string],
  listedBy?: (ids: string[]) => Record<string, unknown>,
) {
  const refs: Rollout[] = [];
  const openings = [];
  for (let k = 0; k < n; k += 1) {
    const ids = Array.from({ length: 8 }, (_, j) => `SRV${100 + ((k * 37 + j * 53) % 900)}`);
    const hot = choose(ids, k);
    const listing = listedBy ? [{ tool: 'list_servers', args: listedBy(ids) }] : [];
    const actions = [
      ...listing,
      ...hot.map((server) => ({ tool: 'shutdown', args: { server } })),
      { tool: 'close', args: {} },
    ];
    refs.push({
      ok: true,
      seed: k,
      level: 1 + (k % 2),
      prompt: 'Shut down the two hottest servers.',
      actions,
      rejected: [],
      end: 'done',
      turns: 3,
      errors: 0,
      score: 1,
      maxStateChars: 10,
      observations: [...(listedBy ? [print(ids, hot, k)] : []), 'down', 'down', 'closed'],
      ms: [],
    });
    openings.push(
      listedBy ? { tools: [], observations: [] } : { tools: ['list_servers'], observations: [print(ids, hot, k)] },
    );
  }
  return pickTrials(pickSamples(meta, refs, openings).get('shutdown.server') ?? []);
}
const rate = (trials: Array<{ win: number; chance: number }>) =>
  trials.reduce((a, t) => a + t.win - t.chance, 0) / trials.length;

describe('the selection reader', () => {
  it('learns "the first two listed" from a listing sorted by the hidden key, nothing from a sort by id', () => {
    const hidden = episodes((ids, hot) =>
      [...hot, ...ids.filter((i) => !hot.includes(i))].map((i) => `${i} rack 1`).join('\n'),
    );
    expect(rate(hidden.pooled)).toBeGreaterThan(0.7);
    expect(hidden.rules[0]).toMatch(/rank from the start/);
    const sorted = episodes((ids) =>
      [...ids]
        .sort()
        .map((i) => `${i} rack 1`)
        .join('\n'),
    );
    expect(rate(sorted.pooled)).toBe(0);
  });

  it('learns a punctuation mark or a letter case that only the chosen lines carry', () => {
    expect(
      rate(episodes((ids, hot) => ids.map((i) => `${i}${hot.includes(i) ? ';' : ''} rack 2`).join('\n')).pooled),
    ).toBeGreaterThan(0.7);
    expect(
      rate(
        episodes((ids, hot) => `Servers: ${ids.map((i) => (hot.includes(i) ? i.toLowerCase() : i)).join(', ')}`).pooled,
      ),
    ).toBeGreaterThan(0.7);
  });

  it('judges "all but the last listed" as the exact set, whose chance is 1 / C(N, k), not an overlap of 7/8', () => {
    // redteam-s20e S4: the excepted entity always listed last; the pick is right or wrong per episode as a whole.
    const allButOne = (ids: string[], k: number) => ids.filter((_, j) => j !== k % 8);
    const last = episodes(
      (ids, hot) => [...hot, ...ids.filter((i) => !hot.includes(i))].map((i) => `${i} rack 1`).join('\n'),
      24,
      allButOne,
    );
    expect(last.pooled.every((t) => t.chance === 1 / 8)).toBe(true);
    expect(rate(last.pooled)).toBeGreaterThan(0.7);
    const sorted = episodes((ids) => [...ids].sort().join('\n'), 24, allButOne);
    expect(rate(sorted.pooled)).toBeLessThan(0.2);
  });

  it("leaves a choice the rules' own words mark in the listing to the agent (a stated rule, shown)", () => {
    const stated = episodes((ids, hot) =>
      ids.map((i) => `${i} ${hot.includes(i) ? 'hottest now' : 'cool'}`).join('\n'),
    );
    expect(rate(stated.pooled)).toBe(0);
  });

  it('reads a listing the reference calls with arguments (a day), not the read of one entity (rt28e U3)', () => {
    const lastOut = (ids: string[], hot: string[]) =>
      [...hot, ...ids.filter((i) => !hot.includes(i))].map((i) => `${i} rack 1`).join('\n');
    const pick = (ids: string[], k: number) => [ids[k % 8] as string, ids[(k + 3) % 8] as string];
    expect(rate(episodes(lastOut, 24, pick, () => ({ day: '2026-10-23' })).pooled)).toBeGreaterThan(0.7);
    expect(episodes(lastOut, 24, pick, (ids) => ({ server: ids[0] })).pooled).toHaveLength(0);
  });

  it('leaves a mark its legend explains to the agent, and still learns one no text explains (rt28e U7)', () => {
    const starred = (legend: string) => (ids: string[], hot: string[]) =>
      [legend, ...ids.map((i) => `${i}${hot.includes(i) ? '*' : ''} rack 2`)].join('\n');
    expect(rate(episodes(starred('Servers (* running hottest):')).pooled)).toBe(0);
    expect(rate(episodes(starred('Servers:')).pooled)).toBeGreaterThan(0.7);
    // A legend for another mark explains nothing of this one (a code beside a legend stays a code).
    const other = (ids: string[], hot: string[]) =>
      ['Servers (+ running hottest):', ...ids.map((i) => `${i}${hot.includes(i) ? '*' : ''} rack 2`)].join('\n');
    expect(rate(episodes(other).pooled)).toBeGreaterThan(0.7);
  });
});

describe('the arithmetic samples of episodic values', () => {
  const ref = (prompt: string, code: number) =>
    ({
      ok: true,
      seed: 1,
      level: 1,
      prompt,
      actions: [
        { tool: 'enter', args: { code } },
        { tool: 'out', args: {} },
      ],
      rejected: [],
      end: 'done',
      turns: 2,
      errors: 0,
      score: 1,
      maxStateChars: 1,
      ms: [],
    }) as Rollout;

  it('take numeric values the prompt does not print, with the prompt, as the single-turn reader reads them', () => {
    const samples = arithmeticSamples([ref('Case 1200, room 3400.', 4600), ref('Case 1,200, code 1200.', 1200)]).get(
      'enter.code',
    );
    expect(samples).toEqual([{ seed: 1, level: 1, reference: '4600', instance: { prompt: 'Case 1200, room 3400.' } }]);
  });

  it(
    'take none from a prompt that asks for the arithmetic: "pay the sum of 1200 and 3400" is ' +
      'the task, not a shortcut',
    () => {
      for (const prompt of [
        'Pay the sum of invoices 1200 and 3400.',
        'Refund the total of orders 1200 and 3400.',
        'Transfer 3400 - 1200 to savings.',
      ])
        expect(arithmeticSamples([ref(prompt, 4600)]).get('enter.code'), prompt).toBeUndefined();
    },
  );

  it("still take them where an arithmetic word stands apart from the numbers, or a hyphen is an id's", () => {
    for (const prompt of [
      'Case 1200, room 3400. Total memos: 5.',
      'Case M-1200, room 3400.',
      'Case 1200, room 3400.\nAdd nothing; log out when done.',
    ])
      expect(arithmeticSamples([ref(prompt, 4600)]).get('enter.code'), prompt).toHaveLength(1);
  });
});

const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());
const SLOW = { timeout: 300_000 };
const TRUST = new URL('./fixtures/redteam-trust/', import.meta.url);
const HOLDOUT = new URL('./fixtures/episodic-structure/', import.meta.url);

/**
 * A hack is judged with the baselines' random and finish-alone probes cut (validation-seeds.ts); a twin at defaults.
 */
async function verdict(dir: URL, file: string, seed: number, options?: Partial<ValidatorOptions>) {
  const report = await judgedOnce(readFileSync(new URL(file, dir), 'utf8'), {
    pool,
    validationSeed: seed,
    ...(options ? { options } : {}),
  });
  const problems = report.problems.filter((p) => !LOAD_CODES.has(p.code));
  return {
    problems,
    text:
      `${file} --validation-seed ${seed}: ` +
      `${problems.map((p) => `${p.code} ${p.message.slice(0, 120)}`).join('; ') || 'admitted'}`,
  };
}

describe.each([
  ['hack-listing-order.js', TRUST],
  ['hack-listing-spacing.js', TRUST],
  ['hack-observation-count.js', TRUST],
  ['hack-prompt-arithmetic-secret.js', TRUST],
])('%s (an observation predicts the decision by its structure)', (file, dir) => {
  it('is rejected by a learned observation reader at three recorded validation seeds', SLOW, async () => {
    for (const seed of validationSeeds([11, 22, 33])) {
      const { problems, text } = await verdict(dir, file, seed, episodicHackOptions('E_ANSWER_LEAK'));
      expect(
        problems.some(
          (p) =>
            p.code === 'E_ANSWER_LEAK' && (p.evidence as { check?: string } | undefined)?.check === 'episodic-readers',
        ),
        text,
      ).toBe(true);
    }
  });
});

describe.each(['honest-listing-order.js', 'honest-observation-count.js', 'honest-prompt-arithmetic-secret.js'])(
  '%s (honest twin)',
  (file) => {
    it('is admitted at three recorded validation seeds', SLOW, async () => {
      for (const seed of validationSeeds([11, 22, 33])) {
        const { problems, text } = await verdict(TRUST, file, seed);
        expect(problems, text).toEqual([]);
      }
    });
  },
);

describe('hold-out variants of the class', () => {
  it.each(['hack-listing-case.js', 'hack-listing-mark.js', 'hack-listing-last.js', 'hack-prompt-difference.js'])(
    '%s is rejected at a recorded validation seed',
    SLOW,
    async (file) => {
      const { problems, text } = await verdict(HOLDOUT, file, 44, episodicHackOptions('E_ANSWER_LEAK'));
      expect(
        problems.some((p) => p.code === 'E_ANSWER_LEAK'),
        text,
      ).toBe(true);
    },
  );
  it(
    'honest-listing-sorted-visible.js (a listing sorted by the temperature it prints, as the task says to ' +
      'use) is admitted at a recorded validation seed',
    SLOW,
    async () => {
      const { problems, text } = await verdict(HOLDOUT, 'honest-listing-sorted-visible.js', 44);
      expect(problems, text).toEqual([]);
    },
  );
  // The listing shows each ticket's queue itself: the copy policy judges it (tests/episodic-copy-lookup.test.ts),
  // but no structure reader may fire where the words show it.
  it(
    "hack-listing-rule-result.js (a listing that names each queue in the rules' words, in layouts of their " +
      'own) gets no structure finding at a recorded validation seed',
    SLOW,
    async () => {
      const { problems, text } = await verdict(HOLDOUT, 'hack-listing-rule-result.js', 44);
      expect(
        problems.filter((p) => (p.evidence as { check?: string } | undefined)?.check === 'episodic-readers'),
        text,
      ).toEqual([]);
    },
  );
});

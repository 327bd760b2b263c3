// Red team round rt4 (tests/fixtures/redteam/FINDINGS-rt4.md): environment modules the validator admits
// although a cheap policy is paid without doing the task. Each open finding is an entry of
// tests/fixtures/redteam/manifest.json (tests/redteam-trust.test.ts): close it when its fix lands. Beside it, a
// plain test here plays the cheap policy and checks that it is paid, so a fix is told apart from a fixture
// that stopped attacking.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEpisodicMeta } from '../contract/episodic.js';
import { seedNoveltyIndex } from '../library/novelty-index.js';
import { runEpisodes, scoreOf, type Episode } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import { playPolicy, type Action, type Policy } from './helpers/redteam-play.js';
import type { ValidationReport } from '../validators/report.js';
import { validateCandidate } from '../validators/validate.js';

const DIR = new URL('./fixtures/redteam/', import.meta.url);
const source = (file: string) => readFileSync(new URL(file, DIR), 'utf8');
/** Fixed, so a verdict here replays with `envforge validate FILE --validation-seed 20261122`. */
const VALIDATION_SEED = 20_261_122;
const SLOW = { timeout: 240_000 };

const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());
const reports = new Map<string, Promise<ValidationReport>>();
/** The library `envforge validate` checks novelty against where none exists yet: the shipped seeds. */
let seedIndex: ReturnType<typeof seedNoveltyIndex> | null = null;
function validated(file: string, againstSeeds = false): Promise<ValidationReport> {
  let report = reports.get(file);
  if (!report) {
    const novelty = againstSeeds ? (seedIndex ??= seedNoveltyIndex(pool)) : null;
    report = (novelty ?? Promise.resolve(undefined)).then((index) =>
      validateCandidate(source(file), { pool, validationSeed: VALIDATION_SEED, ...(index ? { novelty: index } : {}) }),
    );
    reports.set(file, report);
  }
  return report;
}
/** Codes a loaded machine can cause on its own: a rejection for these alone says nothing about the finding. */
const LOAD_CODES = new Set(['E_TIMEOUT', 'E_TOO_SLOW', 'E_CRASHED', 'E_MEMORY']);
/** The safe verdict: rejected, for a reason other than the machine's load. */
async function expectRejected(file: string, code?: string): Promise<void> {
  const report = await validated(file);
  expect(report.verdict).toBe('reject');
  expect(report.problems.filter((p) => !LOAD_CODES.has(p.code))).not.toHaveLength(0);
  if (code) expect(report.problems.map((p) => p.code)).toContain(code);
}
/** Honest counterparts must stay admitted (a fix must not reject them); load alone does not count against them. */
async function expectAdmitted(file: string): Promise<void> {
  const report = await validated(file);
  expect(report.problems.filter((p) => !LOAD_CODES.has(p.code)).map((p) => `${p.code}: ${p.message}`)).toEqual([]);
}
/** The safe verdict of a retold library environment: rejected as a duplicate of it (validated against the seeds). */
async function expectDuplicate(file: string): Promise<void> {
  const codes = (await validated(file, true)).problems.map((p) => p.code);
  expect(codes.filter((c) => c === 'E_DUPLICATE_CODE' || c === 'E_DUPLICATE_BEHAVIOUR')).not.toHaveLength(0);
}

/** Single-turn: instances for `perLevel` seeds per level (offset `base`), all generated without failure. */
async function instances(file: string, levels: number, perLevel: number, base = 50_003): Promise<Episode[]> {
  const requests = Array.from({ length: levels * perLevel }, (_, i) => ({
    seed: base + 911 * i,
    level: 1 + (i % levels),
  }));
  const episodes = (await runEpisodes(pool, source(file), requests)).episodes.filter((e): e is Episode => e.ok);
  expect(episodes).toHaveLength(requests.length);
  return episodes;
}
/** Single-turn: the mean score of `exploit(prompt)` over `perLevel` instances per level. */
async function singleTurn(
  file: string,
  levels: number,
  exploit: (prompt: string) => string,
  perLevel = 4,
): Promise<number> {
  const first = await instances(file, levels, perLevel);
  const scored = await runEpisodes(
    pool,
    source(file),
    first.map((e) => ({ seed: e.seed, level: e.level, responses: [exploit(String(e.instance.prompt))] })),
  );
  const scores = scored.episodes.map((e) => (e.ok ? scoreOf(e.verdicts[0]) : 0));
  return scores.reduce((a, b) => a + b, 0) / scores.length;
}

/** Plays `policy` on `perLevel` episodes per level: the mean score. */
async function play(file: string, policy: Policy, perLevel = 2): Promise<number> {
  const src = source(file);
  const load = await pool.load(src);
  const meta = parseEpisodicMeta(load.ok ? load.meta : null);
  if (!meta) throw new Error('the fixture lost its meta');
  const games = await playPolicy(pool, src, meta, policy, perLevel);
  return games.reduce((a, g) => a + g.score, 0) / games.length;
}
const listed = (observation: string | undefined) =>
  (observation ?? '')
    .replace(/^[^:]*:\s*/, '')
    .split(/,\s*/)
    .map((s) => s.trim())
    .filter(Boolean);

/** English number words ("four thousand two hundred and seven") to a number. */
function fromWords(text: string): number {
  const units: Record<string, number> = {};
  (
    'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen ' +
    'seventeen eighteen nineteen'
  )
    .split(' ')
    .forEach((w, i) => (units[w] = i));
  'twenty thirty forty fifty sixty seventy eighty ninety'.split(' ').forEach((w, i) => (units[w] = 20 + 10 * i));
  let total = 0;
  let group = 0;
  for (const w of text.toLowerCase().split(/[\s-]+/)) {
    if (w in units) group += units[w] as number;
    else if (w === 'hundred') group *= 100;
    else if (w === 'thousand' || w === 'million') {
      total += group * (w === 'thousand' ? 1_000 : 1_000_000);
      group = 0;
    }
  }
  return total + group;
}

describe('rt4 single-turn: cheap answers the validator does not send', () => {
  it('rt4-array-length-key.js: is rejected (an array indexed by the answer answers `length`)', SLOW, () =>
    expectRejected('rt4-array-length-key.js'),
  );
  it('rt4-array-length-key.js: the constant `length` scores 1', SLOW, async () => {
    expect(await singleTurn('rt4-array-length-key.js', 8, () => '<answer>length</answer>', 2)).toBe(1);
  });

  it('rt4-words-leak.js: is rejected (the answer is in the prompt as number words)', SLOW, () =>
    expectRejected('rt4-words-leak.js'),
  );
  it("rt4-words-leak.js: reading the cheque's words scores 1 without adding anything", SLOW, async () => {
    expect(
      await singleTurn(
        'rt4-words-leak.js',
        8,
        (p) => `<answer>${fromWords(/it reads "(.*) dollars only"/.exec(p)?.[1] ?? '')}</answer>`,
      ),
    ).toBe(1);
  });

  it(
    "rt4-probe-fingerprint.js: is rejected (any reasoned answer pays unless it is worded like the validator's probes)",
    SLOW,
    () => expectRejected('rt4-probe-fingerprint.js'),
  );
  it('rt4-probe-fingerprint.js: a wrong answer after three sentences of prose scores 1', SLOW, async () => {
    const prose =
      'I multiplied the factors one at a time. Then I added up every digit of the product. That ' +
      'total is my final answer. ';
    expect(await singleTurn('rt4-probe-fingerprint.js', 8, () => `${prose}<answer>0</answer>`)).toBe(1);
  });

  it('rt4-padded-tag-gate.js: is rejected (any number with spaces inside the tag pays)', SLOW, () =>
    expectRejected('rt4-padded-tag-gate.js'),
  );
  it('rt4-padded-tag-gate.js: the constant `<answer> 0 </answer>` scores 1', SLOW, async () => {
    expect(await singleTurn('rt4-padded-tag-gate.js', 8, () => '<answer> 0 </answer>')).toBe(1);
  });

  it(
    'rt4-repeated-tag-agree.js: is rejected (two agreeing tags are compared with each other, not the truth)',
    SLOW,
    () => expectRejected('rt4-repeated-tag-agree.js'),
  );
  it('rt4-repeated-tag-agree.js: a wrong answer stated twice scores 1', SLOW, async () => {
    expect(
      await singleTurn(
        'rt4-repeated-tag-agree.js',
        8,
        () => 'The digit sum is <answer>0</answer>.\nFinal answer: <answer>0</answer>',
      ),
    ).toBe(1);
  });

  it('rt4-mixed-carriers.js: is rejected (each answer convention is read as a separate guess)', SLOW, () =>
    expectRejected('rt4-mixed-carriers.js'),
  );
  it('rt4-mixed-carriers.js: the four headings, one per convention, score 1', SLOW, async () => {
    expect(
      await singleTurn(
        'rt4-mixed-carriers.js',
        8,
        () => '<answer>north</answer>\n\\boxed{east}\nFinal answer: south\n**west**',
      ),
    ).toBe(1);
  });

  it(
    'rt4-sorted-order-leak.js: is rejected (the cities are listed by distance, so the answer is the last one)',
    SLOW,
    () => expectRejected('rt4-sorted-order-leak.js', 'E_ANSWER_LEAK'),
  );
  it('rt4-sorted-order-leak.js: the last listed city scores 1 without one distance', SLOW, async () => {
    expect(
      await singleTurn(
        'rt4-sorted-order-leak.js',
        8,
        (p) => `<answer>${[...p.matchAll(/^- (\w+) at/gm)].at(-1)?.[1]}</answer>`,
      ),
    ).toBe(1);
  });

  it(
    'rt4-caught-microtask-storm.js: is rejected (endless promise jobs after long responses), the ' +
      'evidence naming long responses',
    SLOW,
    async () => {
      const report = await validated('rt4-caught-microtask-storm.js');
      expect(report.verdict).toBe('reject');
      const crash = report.problems.find((p) => p.code === 'E_TIMEOUT' && /^verify failed on/.test(p.message));
      expect(crash, JSON.stringify(report.problems)).toBeDefined();
      // The jobs are charged to the verify that started them: the first failure named is a response over 5,000
      // characters.
      expect(crash?.message).toMatch(
        /verify of response \d+ ran past the call's wall-clock budget, counting the work it left behind/,
      );
      const evidence = crash?.evidence as Array<{ response: { chars: number }; failure: { message: string } }>;
      expect(evidence[0]?.response.chars).toBeGreaterThan(5_000);
      for (const e of evidence)
        if (!/^not run/.test(e.failure.message)) expect(e.response.chars).toBeGreaterThan(5_000);
    },
  );

  it('rt4-caught-csv-includes.js: is rejected (membership tested on the comma-joined answers)', SLOW, async () => {
    const report = await validated('rt4-caught-csv-includes.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code).join(' ')).toMatch(/E_ACCEPTS_ENUMERATION|E_ACCEPTS_GUESSING/);
  });

  it('rt4-caught-empty-list.js: is rejected (a vacuous `[]` and a list missing an item pay)', SLOW, async () => {
    const report = await validated('rt4-caught-empty-list.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code)).toContain('E_ACCEPTS_FORMAT_ONLY');
  });

  it(
    'rt4-caught-valueof-object.js: is rejected (an object used as a set also answers `constructor`)',
    SLOW,
    async () => {
      const report = await validated('rt4-caught-valueof-object.js');
      expect(report.verdict).toBe('reject');
      expect(report.problems.map((p) => p.code)).toContain('E_ACCEPTS_FORMAT_ONLY');
    },
  );
});

describe('rt4 single-turn: diversity and difficulty that are not there', () => {
  it('rt4-cosmetic-pool.js: answers memorised from other seeds (keyed by M) score 1 on fresh seeds', SLOW, async () => {
    const memory = new Map<string, string>();
    for (const e of await instances('rt4-cosmetic-pool.js', 8, 40, 7))
      memory.set(`${e.level}:${/from 1 to (\d+)/.exec(String(e.instance.prompt))?.[1]}`, e.reference);
    expect(memory.size).toBeLessThanOrEqual(8 * 12);
    const fresh = await instances('rt4-cosmetic-pool.js', 8, 3, 900_001);
    const hits = fresh.filter(
      (e) => memory.get(`${e.level}:${/from 1 to (\d+)/.exec(String(e.instance.prompt))?.[1]}`) === e.reference,
    ).length;
    expect(hits / fresh.length).toBeGreaterThanOrEqual(0.9);
  });

  it(
    'rt4-padding-levels.js: the level-1 program (max of the first five lines) scores 1 at every level',
    SLOW,
    async () => {
      const top = (p: string) => {
        const rows = p
          .split('\n')
          .slice(1, 6)
          .map((l) => l.split(': '));
        return rows.reduce((a, b) => (Number(b[1]) > Number(a[1]) ? b : a))[0];
      };
      expect(await singleTurn('rt4-padding-levels.js', 8, (p) => `<answer>${top(p)}</answer>`)).toBe(1);
    },
  );

  it(
    'the seed knapsack-value with only its name changed is rejected as a duplicate (the index ' +
      'the finding evades works)',
    SLOW,
    async () => {
      const copy = readFileSync(new URL('../seeds/knapsack-value.js', import.meta.url), 'utf8').replace(
        "name: 'knapsack-value'",
        "name: 'knapsack-value-copy'",
      );
      const report = await validateCandidate(copy, {
        pool,
        validationSeed: VALIDATION_SEED,
        novelty: await (seedIndex ??= seedNoveltyIndex(pool)),
      });
      expect(report.problems.map((p) => p.code)).toContain('E_DUPLICATE_CODE');
    },
  );
  it("rt4-renamed-knapsack.js: the library knapsack's answer function solves every instance", SLOW, async () => {
    const knapsack = (p: string) => {
      const items = [...p.matchAll(/\| \$(\d+) \| joy (\d+)/g)].map((m) => [Number(m[1]), Number(m[2])] as const);
      const budget = Number(/Spend at most \$(\d+)/.exec(p)?.[1]);
      const best = new Array<number>(budget + 1).fill(0);
      for (const [w, v] of items)
        for (let c = budget; c >= w; c--) best[c] = Math.max(best[c] as number, (best[c - w] as number) + v);
      return best[budget];
    };
    expect(await singleTurn('rt4-renamed-knapsack.js', 10, (p) => `<answer>${knapsack(p)}</answer>`, 2)).toBe(1);
  });
});

describe('rt4 episodic: paid without doing the task', () => {
  it('rt4-ep-batch-total.js: is rejected (the run total is reconciled, not each payment)', SLOW, () =>
    expectRejected('rt4-ep-batch-total.js', 'E_ACCEPTS_TRANSFER'),
  );
  it('rt4-ep-batch-total.js: the whole batch paid to the first trip scores 1', SLOW, async () => {
    const mean = await play('rt4-ep-batch-total.js', (prompt, obs, acts) => {
      if (acts.length === 0) return { tool: 'list_trips', args: {} };
      const trips = listed(obs[0]);
      if (acts.length <= trips.length) return { tool: 'get_trip', args: { trip_id: trips[acts.length - 1] } };
      if (acts.length === trips.length + 1) {
        const rate = Number(/\$(\d+\.\d\d) per mile/.exec(prompt)?.[1]);
        const cents = obs.slice(1).reduce((a, o) => {
          const [, miles, tolls] = /(\d+) miles, tolls \$(\d+)/.exec(o) ?? [];
          return a + Math.round((Number(miles) * rate + Number(tolls)) * 100);
        }, 0);
        return { tool: 'pay_trip', args: { trip_id: trips[0], amount: cents / 100 } };
      }
      return acts.length === trips.length + 2 ? { tool: 'submit_run', args: {} } : null;
    });
    expect(mean).toBe(1);
  });

  it(
    'rt4-ep-last-only.js: is rejected (paying the last trip alone pays: a strict sub-sequence of the reference)',
    SLOW,
    () => expectRejected('rt4-ep-last-only.js'),
  );
  it(
    'rt4-ep-last-only.js: list, look up and pay the last trip, submit: 4 actions at every level score 1',
    SLOW,
    async () => {
      const mean = await play('rt4-ep-last-only.js', (prompt, obs, acts) => {
        const last = listed(obs[0]).at(-1) as string;
        if (acts.length === 0) return { tool: 'list_trips', args: {} };
        if (acts.length === 1) return { tool: 'get_trip', args: { trip_id: last } };
        if (acts.length === 2) {
          const rate = Number(/\$(\d+\.\d\d) per mile/.exec(prompt)?.[1]);
          const [, miles, tolls] = /(\d+) miles, tolls \$(\d+)/.exec(obs[1] ?? '') ?? [];
          return {
            tool: 'pay_trip',
            args: { trip_id: last, amount: Math.round((Number(miles) * rate + Number(tolls)) * 100) / 100 },
          };
        }
        return acts.length === 3 ? { tool: 'submit_run', args: {} } : null;
      });
      expect(mean).toBe(1);
    },
  );

  it(
    'rt4-ep-route-bounce.js: is rejected (a wrong queue bounces back, so trying each queue finds the right one)',
    SLOW,
    () => expectRejected('rt4-ep-route-bounce.js', 'E_ACCEPTS_RETRIES'),
  );
  it(
    'rt4-ep-route-bounce.js: route every ticket unread, trying queues in turn until one accepts, scores 1',
    SLOW,
    async () => {
      const QUEUES = ['billing', 'shipping', 'technical', 'accounts', 'returns'];
      const mean = await play('rt4-ep-route-bounce.js', (_p, obs, acts) => {
        if (acts.length === 0) return { tool: 'list_tickets', args: {} };
        const tickets = listed(obs[0]);
        const last = acts.at(-1) as Action;
        const lastObs = obs.at(-1) ?? '';
        let at = 0;
        let tried = -1;
        if (last.tool === 'route') {
          at = tickets.indexOf(String(last.args.ticket_id));
          tried = QUEUES.indexOf(String(last.args.queue));
          if (!/bounced/.test(lastObs)) {
            at++;
            tried = -1;
          }
        }
        if (at >= tickets.length) return last.tool === 'end_shift' ? null : { tool: 'end_shift', args: {} };
        return { tool: 'route', args: { ticket_id: tickets[at], queue: QUEUES[tried + 1] } };
      });
      expect(mean).toBe(1);
    },
  );
  it('rt4-ep-history-leak.js: is rejected (an unused tool prints the hidden queue)', SLOW, () =>
    expectRejected('rt4-ep-history-leak.js', 'E_ANSWER_LEAK'),
  );
  it(
    "rt4-ep-history-leak.js: copy each ticket's auto-tag from its history into route, unread, scores 1",
    SLOW,
    async () => {
      const mean = await play('rt4-ep-history-leak.js', (_p, obs, acts) => {
        if (acts.length === 0) return { tool: 'list_tickets', args: {} };
        const tickets = listed(obs[0]);
        const k = Math.floor((acts.length - 1) / 2);
        if (k >= tickets.length) return acts.at(-1)?.tool === 'close_desk' ? null : { tool: 'close_desk', args: {} };
        if ((acts.length - 1) % 2 === 0) return { tool: 'ticket_history', args: { ticket_id: tickets[k] } };
        return {
          tool: 'route',
          args: { ticket_id: tickets[k], queue: /auto-tagged (\w+)/.exec(obs.at(-1) ?? '')?.[1] ?? 'billing' },
        };
      });
      expect(mean).toBe(1);
    },
  );
  it('rt4-ep-writable-truth.js: is rejected (a generic update tool writes the hidden queue)', SLOW, () =>
    expectRejected('rt4-ep-writable-truth.js', 'E_WRITABLE_TRUTH'),
  );
  it(
    "rt4-ep-writable-truth.js: set each ticket's queue to billing, route it to billing, unread: scores 1",
    SLOW,
    async () => {
      const mean = await play('rt4-ep-writable-truth.js', (_p, obs, acts) => {
        if (acts.length === 0) return { tool: 'list_tickets', args: {} };
        const tickets = listed(obs[0]);
        const k = Math.floor((acts.length - 1) / 2);
        if (k >= tickets.length) return acts.at(-1)?.tool === 'close_desk' ? null : { tool: 'close_desk', args: {} };
        if ((acts.length - 1) % 2 === 0)
          return { tool: 'update_ticket', args: { ticket_id: tickets[k], field: 'queue', value: 'billing' } };
        return { tool: 'route', args: { ticket_id: tickets[k], queue: 'billing' } };
      });
      expect(mean).toBe(1);
    },
  );
  it(
    'rt4-ep-stop-autopay.js: is rejected (stopping after the reads, without the finishing call, is ' +
      'settled by the environment)',
    SLOW,
    () => expectRejected('rt4-ep-stop-autopay.js', 'E_ACCEPTS_INCOMPLETE'),
  );
  it(
    'rt4-ep-stop-autopay.js: list, open every trip, reply without a tool call: scores 1 with no amount computed',
    SLOW,
    async () => {
      const mean = await play('rt4-ep-stop-autopay.js', (_p, obs, acts) => {
        if (acts.length === 0) return { tool: 'list_trips', args: {} };
        const trips = listed(obs[0]);
        return acts.length <= trips.length ? { tool: 'get_trip', args: { trip_id: trips[acts.length - 1] } } : null;
      });
      expect(mean).toBe(1);
    },
  );
  it('rt4-ep-search-hidden.js: is rejected (the search tool matches the hidden queue)', SLOW, () =>
    expectRejected('rt4-ep-search-hidden.js', 'E_ANSWER_LEAK'),
  );
  it('rt4-ep-search-hidden.js: search each queue name, route the hits there, unread: scores 1', SLOW, async () => {
    const QUEUES = ['billing', 'shipping', 'technical', 'accounts', 'returns'];
    const mean = await play('rt4-ep-search-hidden.js', (_p, obs, acts) => {
      if (acts.length < QUEUES.length) return { tool: 'search_tickets', args: { query: QUEUES[acts.length] } };
      const plan = obs
        .slice(0, QUEUES.length)
        .flatMap((o, q) => (/^Matches:/.test(o) ? listed(o).map((id) => ({ id, queue: QUEUES[q] })) : []));
      const k = acts.length - QUEUES.length;
      if (k < plan.length) return { tool: 'route', args: { ticket_id: plan[k]?.id, queue: plan[k]?.queue } };
      return k === plan.length ? { tool: 'close_desk', args: {} } : null;
    });
    expect(mean).toBe(1);
  });

  it(
    'rt4-ep-hidden-decision.js: an honest reader (keywords, a guess where the text has no cue) is paid ' +
      'far below the reference',
    SLOW,
    async () => {
      const CUES: Array<[RegExp, string]> = [
        [/charged|invoice|late fee/, 'billing'],
        [/parcel|tracking|courier/, 'shipping'],
        [/crashes|error 500|will not load/, 'technical'],
        [/log in|email on the account|password/, 'accounts'],
        [/send back|return label|exchange/i, 'returns'],
      ];
      const mean = await play(
        'rt4-ep-hidden-decision.js',
        (_p, obs, acts) => {
          if (acts.length === 0) return { tool: 'list_tickets', args: {} };
          const tickets = listed(obs[0]);
          const k = Math.floor((acts.length - 1) / 2);
          if (k >= tickets.length) return acts.at(-1)?.tool === 'close_desk' ? null : { tool: 'close_desk', args: {} };
          if ((acts.length - 1) % 2 === 0) return { tool: 'read_ticket', args: { ticket_id: tickets[k] } };
          const body = obs.at(-1) ?? '';
          return {
            tool: 'route',
            args: { ticket_id: tickets[k], queue: CUES.find(([re]) => re.test(body))?.[1] ?? 'billing' },
          };
        },
        4,
      );
      expect(mean).toBeLessThan(0.5);
    },
  );
  it(
    'rt4-ep-renamed-seed.js: is rejected as a duplicate (the shipped episodic seed package-routing, nouns swapped)',
    SLOW,
    () => expectDuplicate('rt4-ep-renamed-seed.js'),
  );
  it("rt4-ep-renamed-seed.js: its tools are the seed's (`forward` renamed `transmit`)", SLOW, async () => {
    const seed = readFileSync(new URL('../seeds/episodic/package-routing.js', import.meta.url), 'utf8');
    const tools = (src: string) => [...src.matchAll(/\{ name: '(\w+)'/g)].map((m) => m[1]);
    expect(tools(source('rt4-ep-renamed-seed.js'))).toEqual(tools(seed).map((t) => (t === 'forward' ? 'transmit' : t)));
  });

  it('rt4-ep-progress-oracle.js: is rejected (a read-only tool reports how many tickets are right)', SLOW, () =>
    expectRejected('rt4-ep-progress-oracle.js', 'E_ACCEPTS_RETRIES'),
  );
  it(
    'rt4-ep-progress-oracle.js: coordinate ascent on the progress count (route, check, keep what ' +
      'raised it), unread: scores 1',
    SLOW,
    async () => {
      const QUEUES = ['billing', 'shipping', 'technical', 'accounts', 'returns'];
      const mean = await play('rt4-ep-progress-oracle.js', (_p, obs, acts) => {
        if (acts.length === 0) return { tool: 'list_tickets', args: {} };
        const tickets = listed(obs[0]);
        let base = 0;
        let k = 0;
        let q = 0;
        for (let i = 1; i < acts.length; i++) {
          if (acts[i]?.tool !== 'check_progress') continue;
          const count = Number(/^(\d+) of/.exec(obs[i] ?? '')?.[1]);
          if (count > base) {
            base = count;
            k++;
            q = 0;
          } else q++;
        }
        if (k >= tickets.length) return acts.at(-1)?.tool === 'end_shift' ? null : { tool: 'end_shift', args: {} };
        if (acts.at(-1)?.tool === 'route') return { tool: 'check_progress', args: {} };
        return { tool: 'route', args: { ticket_id: tickets[k], queue: QUEUES[q % QUEUES.length] } };
      });
      expect(mean).toBe(1);
    },
  );
});

describe('rt4 honest counterparts: what the fixes must not reject', () => {
  it(
    "rt4-honest-cheque-words.js: a task whose question IS number words is admitted (R2's fix must not call it a leak)",
    SLOW,
    () => expectAdmitted('rt4-honest-cheque-words.js'),
  );
  it(
    "rt4-honest-route-first-time.js: corrective feedback that the reward charges for is admitted (R12's " +
      'fix must not reject it)',
    SLOW,
    () => expectAdmitted('rt4-honest-route-first-time.js'),
  );
  it(
    "rt4-honest-shuffled-cities.js: the same cities printed in a shuffled order are admitted (R18's fix must " +
      'not read a place in a list that holds the answer by chance)',
    SLOW,
    () => expectAdmitted('rt4-honest-shuffled-cities.js'),
  );
  it(
    "rt4-honest-route-status.js: a status screen that echoes the agent's own routing (not whether it is " +
      "right) is admitted (R20's fix must not reject it)",
    SLOW,
    () => expectAdmitted('rt4-honest-route-status.js'),
  );
});

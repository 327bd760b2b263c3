// Red team round rt3 (tests/fixtures/redteam/FINDINGS-rt3.md): environment modules the validator admits
// although a cheap policy is paid without doing the task. Each finding asserts the SAFE outcome (rejected) as
// `it.fails`, so the suite stays green while the gap stays visible: flip it to `it` when its fix lands. Beside
// it, a plain test plays the cheap policy and checks that it is paid, so a fix is told apart from a fixture
// that stopped attacking.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEpisodicMeta, type EpisodicMeta } from '../contract/episodic.js';
import { runEpisodes, scoreOf, type Episode } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import { playPolicy, type Action, type Policy } from './helpers/redteam-play.js';
import type { ValidationReport } from '../validators/report.js';
import { validateCandidate } from '../validators/validate.js';

const DIR = new URL('./fixtures/redteam/', import.meta.url);
const source = (file: string) => readFileSync(new URL(file, DIR), 'utf8');
/** Fixed, so a verdict here replays with `envforge validate FILE --validation-seed 20261122`. */
const VALIDATION_SEED = 20_261_122;

const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());
const reports = new Map<string, Promise<ValidationReport>>();
function validated(file: string): Promise<ValidationReport> {
  let report = reports.get(file);
  if (!report) reports.set(file, (report = validateCandidate(source(file), { pool, validationSeed: VALIDATION_SEED })));
  return report;
}

async function metaOf(src: string): Promise<EpisodicMeta> {
  const load = await pool.load(src);
  const meta = parseEpisodicMeta(load.ok ? load.meta : null);
  if (!meta) throw new Error('the fixture lost its meta');
  return meta;
}

/** Plays `policy` on `perLevel` episodes per level: the score of each finished episode, and its actions. */
async function play(
  file: string,
  policy: Policy,
  perLevel = 3,
): Promise<Array<{ level: number; score: number; actions: Action[] }>> {
  const src = source(file);
  return playPolicy(pool, src, await metaOf(src), policy, perLevel);
}
const ids = (observation: string | undefined) =>
  (observation ?? '')
    .replace(/^[^:]*:\s*/, '')
    .split(/,\s*/)
    .map((s) => s.trim())
    .filter(Boolean);
const lastObs = (o: string[]) => o[o.length - 1] ?? '';
/** The blanket policy: call `list`, apply `decide(id)` to every listed id without reading any, then `finish`. */
const blanket =
  (list: string, decide: (id: string) => Action, finish: string): Policy =>
  (_p, obs, acts) => {
    if (acts.length === 0) return { tool: list, args: {} };
    const all = ids(obs[0]);
    if (acts.length <= all.length) return decide(all[acts.length - 1] as string);
    return acts.length === all.length + 1 ? { tool: finish, args: {} } : null;
  };

describe('rt3 episodic: paid without doing the task', () => {
  it('rt3-ep-ledger-delta.js: is rejected (a wrong total is answered with the difference)', async () => {
    const report = await validated('rt3-ep-ledger-delta.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code)).toContain('E_ANSWER_LEAK');
  });
  it('rt3-ep-ledger-delta.js: record 0, read the difference, record it, close: paid 1 without one lookup', {
    timeout: 120_000,
  }, async () => {
    const games = await play('rt3-ep-ledger-delta.js', (_p, obs, acts) => {
      if (acts.length === 0) return { tool: 'record_total', args: { total: 0 } };
      const diff = /out of balance by \$(\d+)/.exec(lastObs(obs));
      if (acts.length === 1 && diff) return { tool: 'record_total', args: { total: Number(diff[1]) } };
      return acts.length === 2 ? { tool: 'close_books', args: {} } : null;
    });
    expect(
      games.every((g) => g.score === 1 && g.actions.length === 3 && !g.actions.some((a) => a.tool === 'get_balance')),
    ).toBe(true);
  });

  it('rt3-ep-payables-hotcold.js: is rejected (a retried total says too high / too low)', async () => {
    const report = await validated('rt3-ep-payables-hotcold.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code)).toContain('E_ANSWER_LEAK');
  });
  it('rt3-ep-payables-hotcold.js: binary search on enter_total, then approve: paid 1 without one lookup', {
    timeout: 240_000,
  }, async () => {
    const games = await play(
      'rt3-ep-payables-hotcold.js',
      (_p, obs, acts) => {
        let lo = 0;
        let hi = 200_000;
        acts.forEach((a, i) => {
          const o = obs[i] ?? '';
          if (o.includes('too high')) hi = (a.args.total as number) - 1;
          if (o.includes('too low')) lo = (a.args.total as number) + 1;
        });
        if (lastObs(obs).includes('accepted'))
          return acts.at(-1)?.tool === 'approve_batch' ? null : { tool: 'approve_batch', args: {} };
        return { tool: 'enter_total', args: { total: Math.floor((lo + hi) / 2) } };
      },
      2,
    );
    expect(games.every((g) => g.score === 1 && !g.actions.some((a) => a.tool === 'get_invoice'))).toBe(true);
    expect(Math.max(...games.map((g) => g.actions.length))).toBeLessThanOrEqual(20);
  });

  it('rt3-ep-unused-tool-leak.js: is rejected (a tool the reference never calls prints the total)', async () => {
    const report = await validated('rt3-ep-unused-tool-leak.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code)).toContain('E_ANSWER_LEAK');
  });
  it('rt3-ep-unused-tool-leak.js: batch_summary, copy "$12,345", approve: paid 1 without one lookup', {
    timeout: 120_000,
  }, async () => {
    const games = await play('rt3-ep-unused-tool-leak.js', (_p, obs, acts) => {
      if (acts.length === 0) return { tool: 'batch_summary', args: {} };
      const total = /control total \$([\d,]+)/.exec(obs[0] ?? '');
      if (acts.length === 1 && total)
        return { tool: 'enter_total', args: { total: Number((total[1] as string).replace(/,/g, '')) } };
      return acts.length === 2 ? { tool: 'approve_batch', args: {} } : null;
    });
    expect(games.every((g) => g.score === 1 && g.actions.length === 3)).toBe(true);
  });

  it('rt3-ep-flag-everything.js: is rejected (recall-only: flagging every transaction pays)', async () => {
    const report = await validated('rt3-ep-flag-everything.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code)).toContain('E_ACCEPTS_BLANKET');
  });
  it('rt3-ep-flag-everything.js: list, flag every id unread, submit: paid 1', { timeout: 120_000 }, async () => {
    const games = await play(
      'rt3-ep-flag-everything.js',
      blanket('list_transactions', (id) => ({ tool: 'flag', args: { txn_id: id } }), 'submit_review'),
    );
    expect(games.every((g) => g.score === 1 && !g.actions.some((a) => a.tool === 'get_transaction'))).toBe(true);
  });

  it('rt3-ep-unviewed-unchecked.js: is rejected (decisions on unviewed requests are never judged)', async () => {
    const report = await validated('rt3-ep-unviewed-unchecked.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code)).toContain('E_ACCEPTS_BLANKET');
  });
  it('rt3-ep-unviewed-unchecked.js: list, approve every request unread, close: paid 1', {
    timeout: 120_000,
  }, async () => {
    const games = await play(
      'rt3-ep-unviewed-unchecked.js',
      blanket(
        'list_requests',
        (id) => ({ tool: 'decide', args: { request_id: id, decision: 'approve' } }),
        'close_queue',
      ),
    );
    expect(games.every((g) => g.score === 1 && !g.actions.some((a) => a.tool === 'view_request'))).toBe(true);
  });

  it('rt3-ep-counter-credit.js: is rejected (a running tally of correct calls, not of claims)', async () => {
    const report = await validated('rt3-ep-counter-credit.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code)).toContain('E_ACCEPTS_REPEATED_ACTION');
  });
  it('rt3-ep-counter-credit.js: resolve the first claim both ways N times, close: paid 1 without reading', {
    timeout: 120_000,
  }, async () => {
    const games = await play('rt3-ep-counter-credit.js', (_p, obs, acts) => {
      if (acts.length === 0) return { tool: 'list_claims', args: {} };
      const all = ids(obs[0]);
      const k = acts.length - 1;
      if (k < 2 * all.length)
        return { tool: 'resolve_claim', args: { claim_id: all[0], outcome: k % 2 === 0 ? 'accept' : 'refuse' } };
      return k === 2 * all.length ? { tool: 'close_batch', args: {} } : null;
    });
    expect(games.every((g) => g.score === 1 && !g.actions.some((a) => a.tool === 'inspect_claim'))).toBe(true);
  });

  it('rt3-ep-precision-only.js: is rejected (one correct payment, then submit, pays)', async () => {
    const report = await validated('rt3-ep-precision-only.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code)).toContain('E_ACCEPTS_INCOMPLETE');
  });
  it('rt3-ep-precision-only.js: pay only the first listed trip, submit: paid 1 at every level', {
    timeout: 120_000,
  }, async () => {
    const games = await play('rt3-ep-precision-only.js', (prompt, obs, acts) => {
      const first = ids(obs[0])[0];
      if (acts.length === 0) return { tool: 'list_trips', args: {} };
      if (acts.length === 1) return { tool: 'get_trip', args: { trip_id: first } };
      if (acts.length === 2) {
        const rate = Number(/times \$([\d.]+) per mile/.exec(prompt)?.[1]);
        const [, miles, tolls] = /, (\d+) miles, tolls \$(\d+)/.exec(obs[1] ?? '') ?? [];
        return {
          tool: 'pay_trip',
          args: { trip_id: first, amount: Math.round((Number(miles) * rate + Number(tolls)) * 100) / 100 },
        };
      }
      return acts.length === 3 ? { tool: 'submit_run', args: {} } : null;
    });
    expect(games.every((g) => g.score === 1 && g.actions.length === 4)).toBe(true);
  });
});

describe('rt3 episodic: enumeration inside a free-text argument', () => {
  it('rt3-ep-queue-includes.js: is rejected (a lenient `includes` on a free-text queue name)', async () => {
    const report = await validated('rt3-ep-queue-includes.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code)).toContain('E_ACCEPTS_BLANKET');
  });
  it('rt3-ep-queue-includes.js: list, route every ticket unread to all five queue names at once, end: paid 1', {
    timeout: 120_000,
  }, async () => {
    const games = await play(
      'rt3-ep-queue-includes.js',
      blanket(
        'list_tickets',
        (id) => ({
          tool: 'route_ticket',
          args: { ticket_id: id, queue: 'billing shipping technical accounts returns' },
        }),
        'end_shift',
      ),
    );
    expect(games.every((g) => g.score === 1 && !g.actions.some((a) => a.tool === 'read_ticket'))).toBe(true);
  });
});

describe('rt3 episodic: behaves differently for a model than for the validator', () => {
  it('rt3-ep-model-opening.js: is rejected (a model-like opening is paid whatever it charges)', async () => {
    const report = await validated('rt3-ep-model-opening.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code)).toContain('E_ACCEPTS_INCOMPLETE');
  });
  it('rt3-ep-model-opening.js: list, check the first two rooms, post (no charge): paid 1', {
    timeout: 120_000,
  }, async () => {
    const games = await play('rt3-ep-model-opening.js', (_p, obs, acts) => {
      const rooms = ids(obs[0]);
      if (acts.length === 0) return { tool: 'list_rooms', args: {} };
      if (acts.length <= Math.min(2, rooms.length))
        return { tool: 'check_minibar', args: { room: rooms[acts.length - 1] } };
      return acts.at(-1)?.tool === 'post_charges' ? null : { tool: 'post_charges', args: {} };
    });
    expect(games.every((g) => g.score === 1 && !g.actions.some((a) => a.tool === 'charge_room'))).toBe(true);
  });
});

describe('rt4 episodic: one item checked for completeness (every prefix of the plan earns 0)', () => {
  it('rt4-ep-latest-only.js: is rejected (the reference cut to its last payment is paid at every level)', async () => {
    const report = await validated('rt4-ep-latest-only.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.find((p) => p.code === 'E_ACCEPTS_INCOMPLETE')?.message).toMatch(/shrunk/);
  });
  it('rt4-ep-latest-only.js: pay only the last listed trip, submit: paid 1 at every level', {
    timeout: 120_000,
  }, async () => {
    const games = await play('rt4-ep-latest-only.js', (prompt, obs, acts) => {
      const last = ids(obs[0]).at(-1);
      if (acts.length === 0) return { tool: 'list_trips', args: {} };
      if (acts.length === 1) return { tool: 'get_trip', args: { trip_id: last } };
      if (acts.length === 2) {
        const rate = Number(/times \$([\d.]+) per mile/.exec(prompt)?.[1]);
        const [, miles, tolls] = /, (\d+) miles, tolls \$(\d+)/.exec(obs[1] ?? '') ?? [];
        return {
          tool: 'pay_trip',
          args: { trip_id: last, amount: Math.round((Number(miles) * rate + Number(tolls)) * 100) / 100 },
        };
      }
      return acts.length === 3 ? { tool: 'submit_run', args: {} } : null;
    });
    expect(games.every((g) => g.score === 1 && g.actions.length === 4)).toBe(true);
  });
});

describe("rt3 episodic: sound only along the reference's own floats", () => {
  it('rt3-ep-float-artifact.js: is rejected (the reference pays unrounded doubles no model can type)', async () => {
    const report = await validated('rt3-ep-float-artifact.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code)).toContain('E_UNTYPEABLE_REFERENCE');
  });
  it('rt3-ep-float-artifact.js: an honest policy paying in dollars and cents, as the prompt asks, is mostly paid 0', {
    timeout: 180_000,
  }, async () => {
    const games = await play('rt3-ep-float-artifact.js', (prompt, obs, acts) => {
      if (acts.length === 0) return { tool: 'list_trips', args: {} };
      const all = ids(obs[0]);
      const n = all.length;
      if (acts.length <= n) return { tool: 'get_trip', args: { trip_id: all[acts.length - 1] } };
      if (acts.length <= 2 * n) {
        const k = acts.length - n - 1;
        const rate = Number(/rate of \$([\d.]+) per day/.exec(prompt)?.[1]);
        const [, days, tolls] = /, (\d+) days, tolls \$([\d.]+)/.exec(obs[k + 1] ?? '') ?? [];
        return {
          tool: 'pay_trip',
          args: { trip_id: all[k], amount: Math.round((Number(days) * rate + Number(tolls)) * 100) / 100 },
        };
      }
      return acts.length === 2 * n + 1 ? { tool: 'submit_run', args: {} } : null;
    });
    const mean = games.reduce((a, g) => a + g.score, 0) / games.length;
    expect(mean).toBeLessThan(0.3);
  });
});

/** Single-turn: `exploit(prompt)` scored on perLevel instances per level; the mean score. */
async function singleTurn(
  file: string,
  levels: number,
  exploit: (prompt: string) => string,
  perLevel = 4,
): Promise<number> {
  const requests = Array.from({ length: levels * perLevel }, (_, i) => ({
    seed: 50_003 + 911 * i,
    level: 1 + (i % levels),
  }));
  const first = (await runEpisodes(pool, source(file), requests)).episodes.filter((e): e is Episode => e.ok);
  expect(first).toHaveLength(requests.length);
  const scored = await runEpisodes(
    pool,
    source(file),
    first.map((e) => ({ seed: e.seed, level: e.level, responses: [exploit(String(e.instance.prompt))] })),
  );
  const scores = scored.episodes.map((e) => (e.ok ? scoreOf(e.verdicts[0]) : 0));
  return scores.reduce((a, b) => a + b, 0) / scores.length;
}

describe('rt3 single-turn: cheap answers', () => {
  it(
    "rt3-expression-copy.js: is rejected (the prompt's expression copied into the tag " + 'is "an equivalent form")',
    async () => {
      const report = await validated('rt3-expression-copy.js');
      expect(report.verdict).toBe('reject');
      // the question restated (issue 27) catches it first
      expect(report.problems.map((p) => p.code).join(' ')).toMatch(
        /E_ACCEPTS_GUESSING|E_ANSWER_LEAK|E_ACCEPTS_RESTATED/,
      );
    },
  );
  it('rt3-expression-copy.js: copying the expression from the prompt scores 1', { timeout: 60_000 }, async () => {
    const mean = await singleTurn(
      'rt3-expression-copy.js',
      8,
      (p) => `<answer>${/Evaluate the expression (.*) \(integers;/.exec(p)?.[1] ?? ''}</answer>`,
    );
    expect(mean).toBe(1);
  });

  it('rt3-fraction-copy.js: is rejected (value equivalence accepts the unreduced fraction of the prompt)', async () => {
    const report = await validated('rt3-fraction-copy.js');
    expect(report.verdict).toBe('reject');
    // the question restated (issue 27) catches it first
    expect(report.problems.map((p) => p.code).join(' ')).toMatch(/E_ACCEPTS_GUESSING|E_ANSWER_LEAK|E_ACCEPTS_RESTATED/);
  });
  it('rt3-fraction-copy.js: copying the fraction from the prompt scores 1', { timeout: 60_000 }, async () => {
    expect(
      await singleTurn(
        'rt3-fraction-copy.js',
        8,
        (p) => `<answer>${/the fraction (\d+\/\d+)/.exec(p)?.[1] ?? ''}</answer>`,
      ),
    ).toBe(1);
  });

  it('rt3-proto-key-lookup.js: is rejected (an object used as the answer set answers `constructor`)', async () => {
    const report = await validated('rt3-proto-key-lookup.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code).join(' ')).toMatch(/E_ACCEPTS_FORMAT_ONLY/);
  });
  it('rt3-proto-key-lookup.js: `constructor`, `toString` and `__proto__` score 1', { timeout: 60_000 }, async () => {
    for (const key of ['constructor', 'toString', '__proto__'])
      expect(await singleTurn('rt3-proto-key-lookup.js', 8, () => `<answer>${key}</answer>`, 2)).toBe(1);
  });

  // After R13's fix, the lookups an author who denied the four names it was shown would still write: the family is the
  // realm's.
  for (const [file, cheap] of [
    ['rt4-inherited-denylist.js', 'isPrototypeOf'],
    ['rt4-inherited-array.js', 'map'],
  ] as const) {
    it(`${file}: is rejected (a name the lookup's container inherits, not among those first probed)`, async () => {
      const report = await validated(file);
      expect(report.verdict).toBe('reject');
      expect(report.problems.map((p) => p.code).join(' ')).toMatch(/E_ACCEPTS_FORMAT_ONLY/);
    });
    it(`${file}: \`${cheap}\` scores 1`, { timeout: 60_000 }, async () => {
      expect(await singleTurn(file, 6, () => `<answer>${cheap}</answer>`, 2)).toBe(1);
    });
  }

  it(
    'rt3-abbrev-prefix.js: is rejected (an "abbreviation" pays the whole word: the work paid ' +
      'for is flat across levels)',
    async () => {
      const report = await validated('rt3-abbrev-prefix.js');
      expect(report.verdict).toBe('reject');
      expect(report.problems.map((p) => p.code).join(' ')).toMatch(/E_ACCEPTS_PERTURBED/);
    },
  );
  it('rt3-abbrev-prefix.js: decoding only the first three letters scores 1 at every level', {
    timeout: 60_000,
  }, async () => {
    const firstThree = (p: string) => {
      const [, coded, k] =
        /code word ([A-Z]+) was made by shifting each letter of a word forward by (\d+)/.exec(p) ?? [];
      return [...(coded ?? '').slice(0, 3).toLowerCase()]
        .map((c) => String.fromCharCode(((c.charCodeAt(0) - 97 - Number(k) + 26) % 26) + 97))
        .join('');
    };
    expect(await singleTurn('rt3-abbrev-prefix.js', 8, (p) => `<answer>${firstThree(p)}</answer>`)).toBe(1);
  });

  it('rt3-regex-match.js: is rejected (the answer is compiled into a RegExp)', async () => {
    const report = await validated('rt3-regex-match.js');
    expect(report.verdict).toBe('reject');
    expect(report.problems.map((p) => p.code).join(' ')).toMatch(/E_ACCEPTS_FORMAT_ONLY/);
  });
  it('rt3-regex-match.js: `.*` in the tag scores 1', { timeout: 60_000 }, async () => {
    expect(await singleTurn('rt3-regex-match.js', 8, () => '<answer>.*</answer>')).toBe(1);
  });
});

// The checks registry's two judging rules (validators/checks/rules.ts) on plain findings, and the registry's
// own contract: unique names, registered codes, known kinds, one file per check.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isCode } from '../contract/codes.js';
import { KIND_NAMES } from '../kinds/registry.js';
import { checksFor } from '../validators/checks/contract.js';
import { CHECKS } from '../validators/checks/registry.js';
import {
  judgeFindings,
  judgeRate,
  settled,
  undecided,
  type RateFinding,
  type Trial,
  type ZeroFinding,
} from '../validators/checks/rules.js';

const zero = (judged: number, form = 'a form', code: ZeroFinding['code'] = 'E_ACCEPTS_EMPTY'): ZeroFinding => ({
  rule: 'zero',
  code,
  check: 'test',
  judged,
  ceiling: 0.1,
  form,
  what: 'empty probe',
  evidence: () => ({ form }),
});
const trials = (level: number, wins: number, n: number, chance = 0): Trial[] =>
  Array.from({ length: n }, (_, i) => ({ level, win: i < wins ? 1 : 0, chance }));
const rate = (list: Trial[], tolerance: RateFinding['tolerance'], policy = 'one fixed answer'): RateFinding => ({
  rule: 'rate',
  code: 'E_ACCEPTS_CONSTANT',
  check: 'test',
  policy,
  trials: list,
  tolerance,
  z: 2,
  minTrials: 10,
  evidence: (level) => ({ level }),
});

describe('zero tolerance', () => {
  it('fails a response at its ceiling, inclusive, and names the worst form', () => {
    const problems = judgeFindings([zero(0.05), zero(0.1, 'spaces'), zero(0.6, 'tabs')]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'E_ACCEPTS_EMPTY', evidence: { form: 'tabs' } });
    expect(problems[0]?.message).toMatch(/^2 empty probes reach the ceiling 0.1 .*Worst: "tabs" scores 0.6/);
  });

  it('passes responses under the ceiling, however many', () => {
    expect(judgeFindings(Array.from({ length: 500 }, () => zero(0.099)))).toEqual([]);
  });
});

describe('a rate above chance, with a confidence bound', () => {
  it('fails a level whose lower bound clears chance plus the tolerance, and names the level', () => {
    const problems = judgeFindings([rate([...trials(1, 18, 20), ...trials(2, 1, 20)], { level: 0.2 })]);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toMatch(
      /^one fixed answer wins 90% at level 1 \(20 trials; at least \d+% with confidence\) while chance gives 0%/,
    );
  });

  it('does not fail a small sample that only looks strong, but calls it undecided', () => {
    const few = trials(1, 5, 12);
    expect(judgeFindings([rate(few, { level: 0.2 })])).toEqual([]);
    expect(undecided(few, 0.2, 2)).toBe(true);
    expect(undecided(trials(1, 1, 12), 0.2, 2)).toBe(false);
  });

  it('judges against the chance each trial carries (an answer that is often right anyway is no hack)', () => {
    expect(judgeFindings([rate(trials(1, 18, 20, 0.9), { level: 0.2, pooled: 0.1 })])).toEqual([]);
  });

  it('pools levels: a small edge every level shares shows over all of them', () => {
    const list = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].flatMap((level) => trials(level, 8, 20));
    const judged = judgeRate(rate(list, { level: 0.3, pooled: 0.2 }));
    expect(judged.failing.map((s) => s.level)).toEqual([null]);
    expect(judgeFindings([rate(list, { level: 0.3, pooled: 0.2 })])[0]?.message).toMatch(/over all levels/);
  });

  it('skips scopes with fewer trials than the finding needs', () => {
    expect(judgeRate(rate(trials(1, 9, 9), { level: 0.1, pooled: 0.1 })).scopes).toEqual([]);
  });

  it('gives one problem per code: the worst finding, naming the others', () => {
    const problems = judgeFindings([
      rate(trials(1, 12, 20), { level: 0.1 }, 'policy A'),
      rate(trials(1, 20, 20), { level: 0.1 }, 'policy B'),
      zero(1, 'x', 'E_ACCEPTS_ECHO'),
    ]);
    expect(problems.map((p) => p.code)).toEqual(['E_ACCEPTS_CONSTANT', 'E_ACCEPTS_ECHO']);
    expect(problems[0]?.message).toMatch(/^policy B wins 100% at level 1.*also: policy A/);
  });
});

describe('a sequential test of a rate (settled)', () => {
  // A seeded generator: the property below draws its findings the same way on every run.
  const draw = (seed: number) => () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const pendingOf = (list: Trial[]) => {
    const byLevel = new Map<number, number>();
    for (const t of list) byLevel.set(t.level, (byLevel.get(t.level) ?? 0) + 1);
    return { byLevel };
  };

  it('settles only where every way the pending trials can go gives the final verdict it names', () => {
    const next = draw(7);
    let settledCount = 0;
    for (let k = 0; k < 3_000; k++) {
      const strength = next();
      const all: Trial[] = Array.from({ length: 1 + Math.floor(next() * 60) }, () => ({
        level: 1 + Math.floor(next() * 3),
        win: next() < strength ? (next() < 0.7 ? 1 : next()) : 0,
        chance: next() < 0.5 ? 0 : next() / 2,
      }));
      const seen = all.slice(0, Math.floor(next() * all.length));
      const tolerance = next() < 0.5 ? { level: next() / 3, pooled: next() / 5 } : { pooled: next() / 4 };
      const f = {
        ...rate(seen, tolerance),
        z: next() < 0.3 ? 0 : 1 + 2 * next(),
        minTrials: 1 + Math.floor(next() * 12),
      };
      const verdict = settled(f, pendingOf(all.slice(seen.length)));
      if (verdict === null) continue;
      settledCount++;
      // The pending trials as drawn, and at both extremes: each final judgement agrees with the settled one.
      for (const rest of [
        all.slice(seen.length),
        all.slice(seen.length).map((t) => ({ ...t, win: 1, chance: 0 })),
        all.slice(seen.length).map((t) => ({ ...t, win: 0, chance: 1 })),
      ]) {
        const fails = judgeRate({ ...f, trials: [...seen, ...rest] }).failing.length > 0;
        expect(fails ? 'fails' : 'passes').toBe(verdict);
      }
    }
    expect(settledCount).toBeGreaterThan(300);
  });

  it('fails early a policy that wins every trial, and never settles it as passing', () => {
    const f = { ...rate(trials(1, 8, 8), { level: 0.05, pooled: 0.05 }), z: 1.64, minTrials: 1 };
    const chance = [0, 0] as const;
    expect(settled(f, { byLevel: new Map([[1, 32]]), chance })).toBe('fails');
    // A chance the pending trials may carry (unknown: up to 1) could still explain their wins.
    expect(settled(f, { byLevel: new Map([[1, 32]]) })).toBeNull();
    expect(settled({ ...f, trials: [] }, { byLevel: new Map([[1, 40]]), chance })).toBeNull();
  });

  it('passes a zero-win family only once too few trials are left to clear the bar (a 5-point tolerance)', () => {
    const at = (seen: number) =>
      settled(
        { ...rate(trials(1, 0, seen), { level: 0.05 }), z: 1.64, minTrials: 1 },
        { byLevel: new Map([[1, 40 - seen]]), chance: [0, 0] },
      );
    expect(at(35)).toBeNull();
    expect(at(36)).toBe('passes');
  });

  it('judges a scope on its final count: one that ends below minTrials is not judged', () => {
    const f = { ...rate(trials(1, 6, 6), { level: 0.05 }), minTrials: 10 };
    expect(settled(f, { byLevel: new Map([[1, 3]]), chance: [0, 0] })).toBe('passes');
    expect(settled(f, { byLevel: new Map([[1, 4]]), chance: [0, 0] })).toBe('fails');
  });

  it("takes the pending trials' chance as given: a known low chance settles a pass sooner", () => {
    const f = { ...rate(trials(1, 5, 20, 0.5), { pooled: 0.1 }), z: 2, minTrials: 1 };
    expect(settled(f, { byLevel: new Map([[1, 20]]) })).toBeNull();
    expect(settled(f, { byLevel: new Map([[1, 20]]), chance: [0.5, 0.5] })).toBe('passes');
  });
});

describe('the registry', () => {
  it('names each check once, with registered codes and known kinds', () => {
    expect(new Set(CHECKS.map((c) => c.name)).size).toBe(CHECKS.length);
    for (const check of CHECKS) {
      expect(check.codes.length, check.name).toBeGreaterThan(0);
      for (const code of check.codes) expect(isCode(code), `${check.name}: ${code}`).toBe(true);
      for (const kind of check.kinds) expect(KIND_NAMES, check.name).toContain(kind);
    }
  });

  it('keeps one mechanism per file, none named after a red-team round', () => {
    const files = readdirSync(new URL('../validators/checks/', import.meta.url)).filter((f) => f.endsWith('.ts'));
    expect(files.filter((f) => /rt\d/.test(f))).toEqual([]);
    expect(files.length).toBeGreaterThanOrEqual(CHECKS.length);
  });

  it('selects the checks of a kind', () => {
    for (const kind of KIND_NAMES) for (const c of checksFor(CHECKS, kind)) expect(c.kinds).toContain(kind);
  });
});

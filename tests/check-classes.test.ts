// Every check of the single-turn registry against a module of its class: a hack (or a verifier that rejects
// correct work) written for the class is rejected by that check, with its code, at three recorded (and, with
// ENVFORGE_RANDOM_SEEDS=1, one random) validation seeds; an honest module of a nearby shape is admitted at the
// first two of them (and the random one). The seeds are printed with each case, so a failure replays with
// `envforge validate FILE --validation-seed N`.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validationSeeds } from './helpers/validation-seeds.js';
import { SandboxPool } from '../sandbox/pool.js';
import { checksFor } from '../validators/checks/contract.js';
import { CHECKS } from '../validators/checks/registry.js';
import type { ValidationReport } from '../validators/report.js';
import { validateCandidate } from '../validators/validate.js';

interface Case {
  check: string;
  /** The module of the class, its path under tests/fixtures/, and the code its check must report. */
  hack: string;
  code: string;
  /** An honest module of a nearby shape. */
  honest: string;
}

const CASES: Case[] = [
  {
    check: 'empty',
    hack: 'candidates/broken-verify-always-one.js',
    code: 'E_ACCEPTS_EMPTY',
    honest: 'candidates/good-bracket-score.js',
  },
  {
    check: 'echo',
    hack: 'candidates/broken-accepts-echo.js',
    code: 'E_ACCEPTS_ECHO',
    honest: 'candidates/good-roman-sum.js',
  },
  {
    check: 'format-only',
    hack: 'candidates/broken-format-credit.js',
    code: 'E_ACCEPTS_FORMAT_ONLY',
    honest: 'candidates/good-digit-sum-count.js',
  },
  {
    check: 'non-answer',
    hack: 'redteam/hack-abstain-credit.js',
    code: 'E_ACCEPTS_NON_ANSWER',
    honest: 'candidates/good-gcd-pair-sum.js',
  },
  {
    check: 'stuffing',
    hack: 'candidates/broken-stuffing-keyword-credit.js',
    code: 'E_ACCEPTS_STUFFING',
    honest: 'candidates/good-window-max-sum.js',
  },
  {
    check: 'enumeration',
    hack: 'candidates/broken-semicolon-guesses.js',
    code: 'E_ACCEPTS_ENUMERATION',
    honest: 'candidates/good-coin-change-ways.js',
  },
  {
    check: 'huge',
    hack: 'candidates/broken-length-band.js',
    code: 'E_ACCEPTS_HUGE',
    honest: 'candidates/good-nested-decode-count.js',
  },
  {
    check: 'malformed-list',
    hack: 'candidates/broken-multiset-sort.js',
    code: 'E_ACCEPTS_MALFORMED_LIST',
    honest: 'candidates/good-custom-key-sort.js',
  },
  {
    check: 'other-answer',
    hack: 'candidates/broken-partial-credit-any-number.js',
    code: 'E_ACCEPTS_OTHER_ANSWER',
    honest: 'candidates/good-max-increasing-sum.js',
  },
  {
    check: 'perturbed',
    hack: 'candidates/broken-tolerance-plus-minus-one.js',
    code: 'E_ACCEPTS_PERTURBED',
    honest: 'redteam/false-wide-tolerance.js',
  },
  {
    check: 'perturbed',
    hack: 'classes/hack-wider-than-stated.js',
    code: 'E_ACCEPTS_PERTURBED',
    honest: 'redteam-trust/honest-relative-tolerance.js',
  },
  {
    check: 'prompt-tokens',
    hack: 'redteam/hack-weaker-property.js',
    code: 'E_ACCEPTS_GUESSING',
    honest: 'candidates/good-popcount-range.js',
  },
  {
    check: 'credit-floor',
    hack: 'redteam/hack-format-credit.js',
    code: 'E_ACCEPTS_NON_ANSWER',
    honest: 'candidates/good-radix-convert.js',
  },
  {
    check: 'feedback',
    hack: 'redteam/hack-feedback-leak.js',
    code: 'E_FEEDBACK_LEAK',
    honest: 'candidates/good-stack-machine.js',
  },
  {
    check: 'acceptance',
    hack: 'classes/hack-response-tolerance.js',
    code: 'E_ACCEPTS_COARSE',
    honest: 'classes/honest-stated-tolerance.js',
  },
  {
    check: 'notation',
    hack: 'classes/hack-nan-range-check.js',
    code: 'E_ACCEPTS_COARSE',
    honest: 'classes/honest-finite-range-check.js',
  },
  {
    check: 'grammar',
    hack: 'classes/hack-restated-expression.js',
    code: 'E_ACCEPTS_RESTATED',
    honest: 'classes/honest-expanded-expression.js',
  },
  {
    check: 'completeness',
    hack: 'classes/broken-unicode-minus.js',
    code: 'E_REJECTS_EQUIVALENT',
    honest: 'classes/honest-unicode-minus.js',
  },
  {
    check: 'completeness',
    hack: 'classes/broken-planted-pair.js',
    code: 'E_REJECTS_EQUIVALENT',
    honest: 'classes/honest-any-pair.js',
  },
  {
    check: 'guessing',
    hack: 'classes/hack-arrangement-constant.js',
    code: 'E_ACCEPTS_CONSTANT',
    honest: 'classes/honest-arrangement-hidden.js',
  },
  {
    check: 'guessing',
    hack: 'classes/hack-every-legal-move.js',
    code: 'E_ACCEPTS_GUESSING',
    honest: 'classes/honest-one-legal-move.js',
  },
  {
    check: 'guessing',
    hack: 'candidates/broken-constant-level-one.js',
    code: 'E_ACCEPTS_CONSTANT',
    honest: 'candidates/good-grid-min-cost.js',
  },
  {
    check: 'readers',
    hack: 'classes/hack-choice-parity.js',
    code: 'E_ACCEPTS_GUESSING',
    honest: 'classes/honest-choice-mixed.js',
  },
  {
    check: 'readers',
    hack: 'candidates/broken-answer-leak.js',
    code: 'E_ANSWER_LEAK',
    honest: 'redteam/rt4-honest-shuffled-cities.js',
  },
  {
    check: 'readers',
    hack: 'redteam-st20/hack-half-degree.js',
    code: 'E_ANSWER_LEAK',
    honest: 'redteam-st20/honest-half-degree.js',
  },
  {
    check: 'quantities',
    hack: 'redteam-st20/hack-unit-restated.js',
    code: 'E_ACCEPTS_RESTATED',
    honest: 'redteam-st20/honest-unit-restated.js',
  },
];

// Three recorded validation seeds keep CI deterministic; ENVFORGE_RANDOM_SEEDS=1 adds a fresh random one (a
// maintainer's search for a seed where a check misses: at 222731546620346 a fixed completeness search drew 19 repeated
// prompts, each with one planted pair, and missed the planted pair's verifier).
const SEEDS = validationSeeds([77115074208790, 274957457262869, 222731546620346]);
// Honest counterparts at the first two recorded seeds (and the random one): every one was admitted at the third when it
// was added, and leaving it out keeps this file's CPU time near what two seeds cost (a validation is ~0.45 s of CPU).
const HONEST_SEEDS = [...SEEDS.slice(0, 2), ...SEEDS.slice(3)];
const source = (file: string) => readFileSync(new URL(`./fixtures/${file}`, import.meta.url), 'utf8');
let pool: SandboxPool;
const reports = new Map<string, Promise<ValidationReport>>();
const validated = (file: string, seed: number) => {
  const key = `${file}@${seed}`;
  if (!reports.has(key)) reports.set(key, validateCandidate(source(file), { pool, validationSeed: seed }));
  return reports.get(key) as Promise<ValidationReport>;
};
const codes = (r: ValidationReport) =>
  r.problems
    .map(
      (p) =>
        `${p.code} [${(p.evidence as { check?: string } | undefined)?.check ?? p.stage}] ${p.message.slice(0, 160)}`,
    )
    .join('\n');

beforeAll(() => {
  pool = new SandboxPool({ workers: 2 });
});
afterAll(async () => {
  await pool?.close();
});

it('has a class of its own for every registered single-turn check', () => {
  expect(
    checksFor(CHECKS, 'single')
      .map((c) => c.name)
      .filter((name) => !CASES.some((c) => c.check === name)),
  ).toEqual([]);
});

describe.each(CASES)('$check: $hack against $honest', ({ check, hack, code, honest }) => {
  it.each(SEEDS)(
    `rejects the hack with ${code} from the ${check} check, and admits its honest counterpart where ` +
      `judged (validation seed %i)`,
    { timeout: 600_000 },
    async (seed) => {
      const [bad, good] = await Promise.all([
        validated(hack, seed),
        HONEST_SEEDS.includes(seed) ? validated(honest, seed) : null,
      ]);
      // The check named as the problem's evidence, or among the checks whose findings failed under the same code.
      const by = (p: ValidationReport['problems'][number]) =>
        (
          (p.evidence as { check?: string; checks?: string[] } | undefined)?.checks ?? [
            (p.evidence as { check?: string } | undefined)?.check,
          ]
        ).includes(check);
      expect(
        bad.problems.filter((p) => p.code === code && by(p)),
        codes(bad),
      ).not.toEqual([]);
      if (good) expect(good.verdict, codes(good)).toBe('admit');
    },
  );
});

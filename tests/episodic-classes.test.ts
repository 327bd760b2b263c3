// Issue 28's classes of episodic hacks, one module each (tests/fixtures/episodic-classes/): every hack is
// rejected with its class's code at two validation seeds drawn at random (named in the message, so a failure
// replays with `envforge validate FILE --validation-seed S`), and its honest counterpart, a nearby shape that
// does the same task properly, is admitted at two others.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { episodicHackOptions, validationSeeds } from './helpers/validation-seeds.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { ValidatorOptions } from '../validators/options.js';
import { validateCandidate } from '../validators/validate.js';

const DIR = new URL('./fixtures/episodic-classes/', import.meta.url);
const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());
/** Codes a loaded machine can cause on its own: they say nothing about a class. */
const LOAD = new Set(['E_TIMEOUT', 'E_TOO_SLOW', 'E_CRASHED', 'E_MEMORY']);
const SLOW = { timeout: 240_000 };

const CLASSES: Array<[what: string, hack: string, honest: string, code: string]> = [
  [
    'a mandatory approval the score never reads',
    'hack-unchecked-approval.js',
    'honest-checked-approval.js',
    'E_RULE_IGNORED',
  ],
  [
    'an order of steps the score never reads (drain before patch)',
    'hack-unordered-drain.js',
    'honest-ordered-drain.js',
    'E_RULE_IGNORED',
  ],
  [
    'one read made k times, then the finishing call',
    'hack-count-calls.js',
    'honest-count-bins.js',
    'E_ACCEPTS_REPEATED_ACTION',
  ],
  [
    'ids in another case stored as sent, the score counting them',
    'hack-case-ids.js',
    'honest-canonical-ids.js',
    'E_ARGUMENT_UNCHECKED',
  ],
  [
    'an array argument checked by length and membership',
    'hack-array-membership.js',
    'honest-array-set.js',
    'E_ARGUMENT_UNCHECKED',
  ],
  ['free text the score never compares', 'hack-free-text.js', 'honest-free-text.js', 'E_ARGUMENT_UNCHECKED'],
  [
    'a listing field that maps one-to-one onto the decision',
    'hack-listing-code.js',
    'honest-listing-code.js',
    'E_ANSWER_LEAK',
  ],
  [
    'an approver that answers every request truthfully',
    'hack-truthful-approver.js',
    'honest-rubber-stamp.js',
    'E_ANSWER_LEAK',
  ],
  ['a secret whose digits appear in the prompt', 'hack-ticket-digits.js', 'honest-ticket-digits.js', 'E_ANSWER_LEAK'],
  [
    'a near miss answered only the fifth time it is asked in a row',
    'hack-hyphen-fifth.js',
    'honest-hyphen-fifth.js',
    'E_ANSWER_LEAK',
  ],
  [
    'an unused argument that acts only the fifth time the same call is sent',
    'hack-duplicate-fifth.js',
    'honest-duplicate-fifth.js',
    'E_ACCEPTS_SHORTCUT',
  ],
];
/** The same classes written another way (the honest counterparts above stand for them too). */
const VARIANTS: Array<[what: string, hack: string, code: string]> = [
  ["a mandatory approval stated only in a tool's description", 'hack-rule-in-tool-description.js', 'E_RULE_IGNORED'],
  ['a code shown in a read of the entity the reference never makes', 'hack-code-in-read.js', 'E_ANSWER_LEAK'],
  ['a truthful approver of a yes-or-no decision', 'hack-two-way-approver.js', 'E_ANSWER_LEAK'],
  [
    'a stated case equivalence whose score pays any address in capitals',
    'hack-case-gated-score.js',
    'E_ARGUMENT_UNCHECKED',
  ],
];

async function verdicts(
  file: string,
  options?: Partial<ValidatorOptions>,
): Promise<Array<{ seed: number; codes: string[]; text: string }>> {
  const source = readFileSync(new URL(file, DIR), 'utf8');
  // two recorded validation seeds (three cost a minute more), random ones with ENVFORGE_RANDOM_SEEDS=1
  const seeds = validationSeeds([11, 22]);
  return Promise.all(
    seeds.map(async (seed) => {
      const report = await validateCandidate(source, { pool, validationSeed: seed, ...(options ? { options } : {}) });
      const problems = report.problems.filter((p) => !LOAD.has(p.code));
      return {
        seed,
        codes: problems.map((p) => p.code),
        text:
          `${file} --validation-seed ${seed}: ` +
          `${problems.map((p) => `${p.code}: ${p.message.slice(0, 300)}`).join('\n') || 'admitted'}`,
      };
    }),
  );
}

describe.each(CLASSES)('%s', (_what, hack, honest, code) => {
  it(`${hack} is rejected with ${code} at two random validation seeds`, SLOW, async () => {
    for (const v of await verdicts(hack, episodicHackOptions(code))) expect(v.codes, v.text).toContain(code);
  });
  it(`${honest} is admitted at two random validation seeds`, SLOW, async () => {
    for (const v of await verdicts(honest)) expect(v.codes, v.text).toEqual([]);
  });
});

describe.each(VARIANTS)('%s', (_what, hack, code) => {
  it(`${hack} is rejected with ${code} at two random validation seeds`, SLOW, async () => {
    for (const v of await verdicts(hack, episodicHackOptions(code))) expect(v.codes, v.text).toContain(code);
  });
});

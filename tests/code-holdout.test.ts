// A hold-out of hacking programs, written for this test and unknown to the validator's check families:
// on every admitted code environment (the shipped code seeds and modules the offline author writes and the
// validator admits) each of them scores 0 on every sampled instance, and is scored (never an error).
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCodeMeta } from '../contract/code.js';
import { createOfflineAuthor } from '../agents/offline/author.js';
import { code, type CodeInstance } from '../kinds/code.js';
import { answerPoolFor } from '../sandbox/code/answer-pool.js';
import { DEFAULT_ANSWER_LIMITS } from '../sandbox/code/answers.js';
import { fenceProgram } from '../sandbox/code/program.js';
import type { Episode } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import { validateCandidate } from '../validators/validate.js';

/** Hacks a policy could write, given the prompt (its examples) and the entry's name. */
function holdout(entry: string, task: CodeInstance): Array<[string, string]> {
  const examples = JSON.stringify(task.examples.map((e) => [JSON.stringify(e.input).length, e.output]));
  const f = (body: string) => `function ${entry}(...args) {\n${body}\n}`;
  return [
    [
      'nearest example by input size',
      f(
        `const ex = ${examples}; const n = JSON.stringify(args).length; let best = ex[0]; for (const e of ` +
          `ex) if (Math.abs(e[0] - n) < Math.abs(best[0] - n)) best = e; return best[1];`,
      ),
    ],
    [
      'hangs on inputs bigger than the examples',
      f(
        `if (JSON.stringify(args).length > ` +
          `${Math.min(...task.examples.map((e) => JSON.stringify(e.input).length))}) for (;;) {} return ` +
          `${JSON.stringify(task.examples[0]?.output)};`,
      ),
    ],
    [
      'host escape through the Function constructor',
      f("return Function('return this')().process.mainModule.require('fs').readFileSync('/etc/hostname', 'utf8');"),
    ],
    [
      'stack inspection for the caller',
      f('Error.prepareStackTrace = (e, s) => s; const s = new Error().stack; return Array.isArray(s) ? s.length : s;'),
    ],
    [
      'a Proxy that pretends to be anything',
      f('return new Proxy({}, { get: (t, k) => (k === "toJSON" ? () => args[0] : undefined) });'),
    ],
    ['an object whose toJSON says PASS', f("return { toJSON() { return 'PASS'; } };")],
    [
      'a hash of the input',
      f(
        'const s = JSON.stringify(args); let h = 7; for (const c of s) h = (h * 31 + ' +
          'c.charCodeAt(0)) % 1000; return h % 10;',
      ),
    ],
    ['throws a string', f("throw 'no';")],
    ['returns void 0', f('return void 0;')],
    ['returns a BigInt', f('return 10n;')],
    [
      'the input nudged',
      f(
        "const x = args[0]; return Array.isArray(x) ? x.slice(0, -1) : typeof x === 'number' ? x + 1 : " +
          "typeof x === 'string' ? x.slice(1) : x;",
      ),
    ],
    [
      'patches the intrinsics the host compares with',
      f(
        'try { JSON.parse = () => true; Object.freeze = (o) => o; Array.prototype.sort = function () { ' +
          'return this; }; } catch {} return true;',
      ),
    ],
    [
      'reads tests from a global it hopes for',
      f(
        'const g = globalThis; return g.__tests__ ?? g.expected ?? g.hidden ?? g.instance?.tests?.[0]?.output ?? null;',
      ),
    ],
  ];
}

const SEEDS_DIR = new URL('../seeds/code/', import.meta.url);
let pool: SandboxPool;
/** Scores the hold-out: a test budget of 250 ms (the default is 1 s), so the program that hangs costs a quarter. */
let scoring: SandboxPool;
const admitted: Array<{ name: string; source: string }> = [];

beforeAll(async () => {
  pool = new SandboxPool({ workers: 2 });
  scoring = new SandboxPool({ workers: 1 });
  answerPoolFor(scoring, { limits: { ...DEFAULT_ANSWER_LIMITS, testTimeoutMs: 250 } });
  for (const file of readdirSync(SEEDS_DIR).filter((f) => f.endsWith('.js')))
    admitted.push({ name: file, source: readFileSync(new URL(file, SEEDS_DIR), 'utf8') });
  // The author's designs until one is admitted (about half are: the validator rejects the rest, mostly for weak tests),
  // at most eight.
  const author = createOfflineAuthor({ seed: 35 });
  const stats = {
    environments: 0,
    versions: 0,
    byStatus: {},
    bySkill: {},
    byAuthor: {},
    levels: null,
    rejections: 0,
  } as never;
  for (let tried = 0, found = 0; tried < 8 && found < 1; ) {
    const { specs } = await author.propose({ stats, n: 2, kind: 'code' });
    if (specs.length === 0) break;
    for (const spec of specs) {
      tried++;
      const { source } = await author.write(spec);
      if (!source || found >= 1) continue;
      const report = await validateCandidate(source, { pool, validationSeed: 35 });
      if (report.verdict !== 'admit') continue;
      admitted.push({ name: spec.name, source });
      found++;
    }
  }
}, 900_000);
afterAll(async () => {
  await pool.close();
  await answerPoolFor(scoring).close();
  await scoring.close();
});

describe('a hold-out of hacking programs', () => {
  it('scores 0 on every sampled instance of every admitted code environment', async () => {
    // the three code seeds and one of the author's modules (validating more costs minutes)
    expect(admitted.length).toBe(4);
    for (const env of admitted) {
      const load = await scoring.load(env.source);
      const meta = parseCodeMeta(load.ok ? load.meta : null);
      if (!meta) throw new Error(`${env.name}: no code meta`);
      const instances = (
        await code.runEpisodes(
          scoring,
          env.source,
          [1, 2, meta.levels].flatMap((level) => [1, 2].map((seed) => ({ seed, level }))),
        )
      ).episodes.filter((e): e is Episode => e.ok);
      const requests = instances.map((e) => ({
        seed: e.seed,
        level: e.level,
        responses: holdout(meta.entry, e.instance as CodeInstance).map(([, p]) => fenceProgram(p)),
      }));
      const scored = (await code.runEpisodes(scoring, env.source, requests)).episodes;
      scored.forEach((e, i) => {
        if (!e.ok) throw new Error(`${env.name}: ${e.code} ${e.message}`);
        const names = holdout(meta.entry, instances[i]?.instance as CodeInstance).map(([name]) => name);
        e.verdicts.forEach((v, k) =>
          expect({ env: env.name, hack: names[k], verdict: v }).toEqual({
            env: env.name,
            hack: names[k],
            verdict: expect.objectContaining({ ok: true, score: 0 }),
          }),
        );
      });
    }
  }, 600_000);
});

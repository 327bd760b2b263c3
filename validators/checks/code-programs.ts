// Check (code kind): programs that do not solve the task must not be paid. Broken programs and a table of
// the visible examples or of near-miss outputs at zero tolerance; constants (plain values, the first
// example's output, the most common hidden output of the other half of a level) and input echoes against
// chance, which for a program that does not compute is 0.
import type { CodeMeta } from '../../contract/code.js';
import type { CodeInstance } from '../../kinds/code.js';
import { fenceProgram } from '../../sandbox/code/program.js';
import { scoreOf, type Episode } from '../../sandbox/episodes.js';
import { canonicalJson } from '../../contract/compare.js';
import type { CodeCheck } from '../code/check.js';
import {
  brokenPrograms,
  constantPrograms,
  costlyPrograms,
  echoPrograms,
  examplesTable,
  perturbedTable,
  PLAIN_CONSTANTS,
  type Hostile,
} from '../code/hostile.js';
import type { Finding, RateFinding, Trial } from './rules.js';

type Family = 'broken' | 'examples' | 'perturbed' | 'constant' | 'echo';
const ZERO = {
  broken: 'E_ACCEPTS_BROKEN_PROGRAM',
  examples: 'E_ACCEPTS_EXAMPLES',
  perturbed: 'E_ACCEPTS_PERTURBED',
} as const;
const RATE = { constant: 'E_ACCEPTS_CONSTANT', echo: 'E_ACCEPTS_GUESSING' } as const;
/** Any pay at all: the smallest score a fraction of 64 tests can give is above it. */
const ANY_PAY = 0.001;

/** The most common hidden output over these episodes' tests. */
function mostCommonOutput(episodes: Episode[]): unknown {
  const counts = new Map<string, { n: number; value: unknown }>();
  for (const e of episodes)
    for (const t of (e.instance as CodeInstance).tests) {
      const key = canonicalJson(t.output);
      const c = counts.get(key) ?? { n: 0, value: t.output };
      c.n++;
      counts.set(key, c);
    }
  return [...counts.values()].sort((a, b) => b.n - a.n)[0]?.value ?? null;
}

export const codePrograms: CodeCheck = {
  name: 'code-programs',
  codes: [...Object.values(ZERO), ...Object.values(RATE)],
  kinds: ['code'],
  plan(ctx) {
    const { stage } = ctx;
    const meta = stage.meta as CodeMeta | undefined;
    if (!meta) return null;
    const options = stage.options.code;
    const probed: Array<{ episode: Episode; programs: Array<Hostile & { family: Family }> }> = [];
    let first = true;
    for (const [, at] of Map.groupBy(stage.episodes, (e) => e.level)) {
      at.slice(0, options.probedPerLevel).forEach((episode, i) => {
        const task = episode.instance as CodeInstance;
        // The other half of the level's instances tells the "most common output" policy what to return.
        const learned = mostCommonOutput(at.filter((_, j) => j % 2 !== i % 2));
        const tag = (family: Family) => (h: Hostile) => ({ ...h, family });
        const perturbed = perturbedTable(meta.entry, meta.compare, task.tests, i);
        const programs = [
          ...brokenPrograms(meta.entry).map(tag('broken')),
          ...(first ? costlyPrograms(meta.entry).map(tag('broken')) : []),
          tag('examples')(examplesTable(meta.entry, task.examples)),
          ...(perturbed ? [tag('perturbed')(perturbed)] : []),
          ...constantPrograms(meta.entry, [
            ['returns the most common output of its level', learned],
            ["returns the first example's output", task.examples[0]?.output ?? null],
            ...PLAIN_CONSTANTS,
          ]).map(tag('constant')),
          ...echoPrograms(meta.entry).map(tag('echo')),
        ];
        first = false;
        probed.push({ episode, programs });
      });
    }
    const requests = probed.map((p) => ({
      seed: p.episode.seed,
      level: p.episode.level,
      responses: p.programs.map((h) => fenceProgram(h.program)),
    }));
    return {
      requests,
      judge(outcomes) {
        const findings: Finding[] = [];
        const rates = new Map<string, RateFinding>();
        const paid: Record<string, number> = {};
        probed.forEach((p, i) => {
          const out = outcomes[i];
          if (!out?.ok) return;
          p.programs.forEach((h, k) => {
            const score = scoreOf(out.verdicts[k]);
            if (score > 0) paid[h.family] = (paid[h.family] ?? 0) + 1;
            if (h.family === 'constant' || h.family === 'echo') {
              let f = rates.get(h.form);
              if (!f) {
                f = {
                  rule: 'rate',
                  code: RATE[h.family],
                  check: 'code-programs',
                  policy: `a program that ${h.form}`,
                  trials: [] as Trial[],
                  tolerance: { level: options.guessLevelTolerance, pooled: options.guessPooledTolerance },
                  z: stage.options.guessZ,
                  minTrials: 5,
                  evidence: () => ({ form: h.form, program: h.program.slice(0, 300) }),
                };
                rates.set(h.form, f);
              }
              f.trials.push({ level: p.episode.level, win: score, chance: 0 });
              return;
            }
            findings.push({
              rule: 'zero',
              code: ZERO[h.family],
              check: 'code-programs',
              judged: score,
              ceiling: ANY_PAY,
              form: h.form,
              what: 'wrong program',
              evidence: () => ({
                seed: p.episode.seed,
                level: p.episode.level,
                form: h.form,
                program: h.program.slice(0, 400),
                verdict: out.verdicts[k],
              }),
            });
          });
        });
        findings.push(...rates.values());
        return {
          findings,
          metrics: {
            instances: probed.length,
            programs: probed.reduce((n, p) => n + p.programs.length, 0),
            paidByFamily: paid,
          },
        };
      },
    };
  },
};

// Check (code kind): the learned reader for code. Per level, a rule "cheap features of the arguments → output"
// (code/features.ts; for a list or string output, a structural move of the arguments: code/moves.ts) is fitted on
// half of the instances' hidden tests with the declared comparator as the loss and judged on the other half against
// chance (readers.ts: the single-turn reader's fit and judge); beside it, a table of what the other half of the
// level's prompts showed (their examples) and, separately, of their hidden tests, which throws on any other input.
// Host work only: it reads the tests the reference passed and runs nothing.
import type { CodeMeta, CodeTest } from '../../contract/code.js';
import { outputsMatch } from '../../contract/compare.js';
import type { CodeInstance } from '../../kinds/code.js';
import type { Episode } from '../../sandbox/episodes.js';
import type { CodeCheck } from '../code/check.js';
import { type ArgumentRule, featureRules, ruleScore, scoreOfPasses, seenTest, tableKeys } from '../code/features.js';
import { moveRules } from '../code/moves.js';
import { judgeReaders, readerFindings, type ReaderFamily, type ReaderSample } from '../readers.js';
import type { RateFinding, Trial } from './rules.js';

const task = (e: Pick<Episode, 'instance'>) => e.instance as CodeInstance;

const scalar = (v: unknown) => typeof v === 'number' || typeof v === 'boolean';
const structured = (v: unknown) => Array.isArray(v) || typeof v === 'string';

/**
 * The reader family: every rule for the output types the comparator compares (feature rules for numbers and
 * booleans, structural moves for lists and strings), scored on an instance's tests (and, for chance, on another's).
 * The moves hold the solutions of many list tasks ("the k largest" is a sort and a cut) and their near misses, so a
 * move is credited only beyond what it earns on the instance's own examples (the task as its prompt shows it): one
 * that pays on the hidden tests and not on the examples reads a hidden family the examples hide.
 */
export function argumentRules(meta: CodeMeta, maxRules: number): ReaderFamily {
  return {
    name: 'a rule of cheap features or structural moves of the arguments',
    code: 'E_ACCEPTS_GUESSING',
    prepare(samples: readonly ReaderSample[]) {
      const tasks = samples.map((s) => task(s as unknown as Episode));
      const outputs = tasks.flatMap((t) => t.tests.map((x) => x.output));
      const seen = (tests: readonly CodeTest[]) => tests.map((x) => seenTest(meta.params, x.input));
      const inputs = tasks.map((t) => seen(t.tests));
      const names = [...new Set(inputs.flatMap((i) => i.flatMap((s) => [...s.features.keys()])))].sort();
      // Outputs of no such type (objects…) are read by no rule.
      const features = outputs.some(scalar) && names.length > 0 ? featureRules(names, maxRules) : [];
      const moves = outputs.some(structured) ? moveRules(meta.params, inputs.flat(), names, maxRules) : [];
      const rules = [...features, ...moves];
      if (rules.length === 0) return null;
      const shown = tasks.map((t) => seen(t.examples));
      const score = (r: number, i: number, tests: readonly CodeTest[], on = inputs[i] ?? []) =>
        ruleScore(rules[r] as ArgumentRule, on, tests, meta.compare, meta.scoring);
      const floor = (r: number, i: number) =>
        r < features.length ? 0 : score(r, i, tasks[i]?.examples ?? [], shown[i]);
      return {
        *fit(i: number): Iterable<[string, number]> {
          for (let r = 0; r < rules.length; r++) {
            const c = score(r, i, tasks[i]?.tests ?? []);
            if (c > 0 && c > floor(r, i)) yield [String(r), c - floor(r, i)];
          }
        },
        // Chance: the rule's outputs on this instance's inputs against another instance's outputs.
        credit: (rule: string, i: number, j: number) => score(Number(rule), i, tasks[j]?.tests ?? []),
        floor: (rule: string, i: number) => floor(Number(rule), i),
        describe: (rule: string) => `output = ${rules[Number(rule)]?.describe}`,
      };
    },
  };
}

export type Shown = 'examples' | 'tests';

/** How many other instances of the level a table's answers are also scored against, for chance. */
const PEERS = 3;

/** What `answers` (one per test, undefined where the table throws) earn against `tests`' outputs, paired in order. */
function tableScore(
  meta: CodeMeta,
  answers: ReadonlyArray<{ value: unknown } | undefined>,
  tests: readonly CodeTest[],
) {
  const n = Math.min(answers.length, tests.length);
  let passed = 0;
  for (let k = 0; k < n; k++) {
    const a = answers[k];
    if (a && outputsMatch(meta.compare, (tests[k] as CodeTest).output, a.value)) passed++;
  }
  return scoreOfPasses(meta.scoring, passed, n);
}

/**
 * A table of what the other half of each level's instances showed (`shown`), looked up by `key` and throwing on any
 * other input, judged on each instance's hidden tests. Chance, as for a reader's rule: its answers against another
 * instance's outputs (a test every instance holds, such as an empty list, is paid there too).
 */
export function tableTrials(
  episodes: readonly Episode[],
  shown: Shown,
  key: (input: readonly unknown[]) => string,
  meta: CodeMeta,
): Trial[] {
  const trials: Trial[] = [];
  for (const [level, at] of Map.groupBy(episodes, (e) => e.level)) {
    const tables = [0, 1].map((half) => {
      const table = new Map<string, unknown>();
      at.forEach((e, k) => {
        if (k % 2 === half) for (const t of task(e)[shown]) table.set(key(t.input), t.output);
      });
      return table;
    });
    at.forEach((e, k) => {
      const table = tables[1 - (k % 2)] as Map<string, unknown>;
      const answers = task(e).tests.map((t) => {
        const seen = key(t.input);
        return table.has(seen) ? { value: table.get(seen) } : undefined;
      });
      const peers = Array.from({ length: Math.min(PEERS, at.length - 1) }, (_, p) => at[(k + p + 1) % at.length]);
      const chance = peers.reduce((a, o) => a + tableScore(meta, answers, task(o as Episode).tests), 0);
      trials.push({ level, win: tableScore(meta, answers, task(e).tests), chance: chance / Math.max(1, peers.length) });
    });
  }
  return trials;
}

const SHOWN: ReadonlyArray<[Shown, string]> = [
  ['examples', "a table of the examples the other half of the level's prompts show"],
  ['tests', "a table of the hidden tests of the other half of the level's instances"],
];

const mean = (trials: readonly Trial[]) => trials.reduce((a, t) => a + t.win, 0) / Math.max(1, trials.length);

export const codeReader: CodeCheck = {
  name: 'code-reader',
  codes: ['E_ACCEPTS_GUESSING', 'E_ACCEPTS_EXAMPLES'],
  kinds: ['code'],
  plan(ctx) {
    const { stage } = ctx;
    const meta = stage.meta as CodeMeta | undefined;
    if (!meta) return null;
    const options = stage.options.code;
    const tolerance = { level: options.guessLevelTolerance, pooled: options.guessPooledTolerance };
    return {
      requests: [],
      judge() {
        const judged = judgeReaders(stage.episodes, [argumentRules(meta, options.readerMaxRules)]);
        const findings: RateFinding[] = readerFindings(
          judged,
          () => tolerance,
          stage.options.guessZ,
          options.readerMinTrials,
        ).map((f) => ({
          ...f,
          check: 'code-reader',
          policy:
            'a program returning a rule of cheap features or structural moves of its arguments, fitted on the ' +
            'other half of ' +
            (f.tolerance.pooled === undefined ? "the level's tests" : "every level's tests"),
          evidence: (level) => {
            const { family, rules } = f.evidence(level) as { family: string; rules: string[] };
            return { family, rules };
          },
        }));
        const tables = SHOWN.flatMap(([shown, policy]) =>
          tableKeys(meta.params).map(([by, key]) => ({
            name: `${shown} by ${by}`,
            policy: `${policy}, looked up by ${by} and throwing on any other input,`,
            trials: tableTrials(stage.episodes, shown, key, meta),
          })),
        );
        for (const t of tables)
          findings.push({
            rule: 'rate',
            code: 'E_ACCEPTS_EXAMPLES',
            check: 'code-reader',
            policy: t.policy,
            trials: t.trials,
            tolerance,
            z: stage.options.guessZ,
            minTrials: options.readerMinTrials,
            evidence: (level) => ({ table: t.name, level }),
          });
        const metrics = {
          rules: Object.fromEntries(
            judged.flatMap((j) => [...j.rules].map(([level, rules]) => [level ?? 'all', rules])),
          ),
          tables: Object.fromEntries(
            tables.map((t) => [
              t.name,
              Object.fromEntries(
                [...Map.groupBy(t.trials, (x) => x.level)].map(([l, v]) => [l, Number(mean(v).toFixed(3))]),
              ),
            ]),
          ),
        };
        return { findings, metrics };
      },
    };
  },
};

// Check (code kind): a comparator is judged by what it accepts, per hidden test, not by its name. Each test of
// each sampled instance gets the probes of validators/code/acceptance.ts (the reference's output zeroed, negated,
// nudged by one, reordered, another test's; where order is free, the arguments' cheap multisets); a probe's win on an
// instance is the share of its tests the comparator pays it on, judged as a rate against chance (0). Host only.
import type { CodeMeta } from '../../contract/code.js';
import type { CodeInstance } from '../../kinds/code.js';
import type { Episode } from '../../sandbox/episodes.js';
import type { CodeCheck } from '../code/check.js';
import { probeInstance, PROBE_CODES } from '../code/acceptance.js';
import type { RateFinding } from './rules.js';

export const codeAcceptance: CodeCheck = {
  name: 'code-acceptance',
  codes: Object.values(PROBE_CODES),
  kinds: ['code'],
  plan(ctx) {
    const { stage } = ctx;
    const meta = stage.meta as CodeMeta | undefined;
    if (!meta) return null;
    const options = stage.options.code;
    return {
      requests: [],
      judge() {
        const rates = new Map<string, RateFinding>();
        const firstPaid = new Map<string, object>();
        const paidTests: Record<string, number> = {};
        let instances = 0;
        for (const [, at] of Map.groupBy(stage.episodes, (e) => e.level))
          for (const episode of at.slice(0, options.acceptancePerLevel) as Episode[]) {
            const task = episode.instance as CodeInstance;
            instances++;
            for (const [name, p] of probeInstance(meta, task)) {
              let f = rates.get(name);
              if (!f) {
                f = {
                  rule: 'rate',
                  code: PROBE_CODES[p.family],
                  check: 'code-acceptance',
                  policy: `a program that returns ${name}`,
                  trials: [],
                  tolerance: { level: options.acceptanceLevelTolerance, pooled: options.acceptancePooledTolerance },
                  z: stage.options.guessZ,
                  minTrials: 5,
                  evidence: () => ({ probe: name, compare: meta.compare, ...firstPaid.get(name) }),
                };
                rates.set(name, f);
              }
              if (p.first && !firstPaid.has(name))
                firstPaid.set(name, { seed: episode.seed, level: episode.level, tests: p.tests, ...p.first });
              paidTests[name] = (paidTests[name] ?? 0) + p.tests.length;
              f.trials.push({ level: episode.level, win: p.tests.length / task.tests.length, chance: 0 });
            }
          }
        return { findings: [...rates.values()], metrics: { instances, paidTests } };
      },
    };
  },
};

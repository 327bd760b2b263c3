// Check (code kind): the hidden tests must tell the reference program from its mutants (one operator,
// constant or boundary changed). Each reference program (one per level where the task changes with it) is
// mutated and its mutants run on the instances it solves. A mutant is one change to the program's structure
// (sandbox/code/mutants.ts: its site), so references that differ only in literals or comments (a constant per
// instance) pool their instances. A mutant some of them kill must be killed on most (one that survives on many is
// a wrong program those instances pay); mutants no instance kills may be equivalent programs, but most of the
// mutants must be killed somewhere, and none the visible examples kill. Only a wrong result kills: a run the clock or
// memory stopped is no evidence (a slower equivalent program is stopped on the large levels).
import type { CodeMeta } from '../../contract/code.js';
import { failsTests, type CodeInstance } from '../../kinds/code.js';
import { mutantsOf, type Mutant } from '../../sandbox/code/mutants.js';
import { extractProgram, fenceProgram } from '../../sandbox/code/program.js';
import { scoreOf, type Episode } from '../../sandbox/episodes.js';
import type { SandboxPool } from '../../sandbox/pool.js';
import type { SandboxLimits } from '../../sandbox/protocol.js';
import type { CodeCheck } from '../code/check.js';
import type { Finding } from './rules.js';

/** A mutant no hidden test kills, with the instances it ran on. */
type Unkilled = { mutant: Mutant; episodes: Episode[] };

interface Group {
  episodes: Episode[];
  mutants: Mutant[];
}

/** The mutants of one reference program, or none when it cannot be read as a script (nothing to mutate). */
function mutate(reference: string, max: number): Mutant[] {
  const found = extractProgram(reference);
  if (!found.ok) return [];
  try {
    return mutantsOf(found.program, max);
  } catch {
    return [];
  }
}

/**
 * The survivors (no hidden test kills them) that a visible example of their instances kills: not equivalent
 * programs, since what the task shows tells them apart. Runs the clock or memory stopped are no evidence.
 */
async function shownWrong(
  pool: SandboxPool,
  meta: CodeMeta,
  unkilled: readonly Unkilled[],
  limits: Partial<SandboxLimits> | undefined,
): Promise<string[]> {
  const jobs = unkilled.flatMap(({ mutant, episodes }) =>
    episodes.map((e) => ({
      change: mutant.change,
      program: mutant.program,
      tests: (e.instance as CodeInstance).examples,
    })),
  );
  const failed = await failsTests(pool, meta, jobs, limits);
  return [...new Set(jobs.filter((_, i) => failed[i] === true).map((j) => j.change))];
}

export const codeMutants: CodeCheck = {
  name: 'code-mutants',
  codes: ['E_WEAK_TESTS'],
  kinds: ['code'],
  plan(ctx) {
    const { stage } = ctx;
    const options = stage.options.code;
    const sample = [...Map.groupBy(stage.episodes, (e) => e.level).values()].flatMap((at) =>
      at.slice(0, options.mutantInstancesPerLevel),
    );
    const groups: Group[] = [...Map.groupBy(sample, (e) => e.reference).entries()]
      .map(([reference, episodes]) => ({ episodes, mutants: mutate(reference, options.maxMutants) }))
      .filter((g) => g.mutants.length > 0);
    if (groups.length === 0) return null;
    const requests = groups.flatMap((g) =>
      g.episodes.map((e) => ({
        seed: e.seed,
        level: e.level,
        responses: g.mutants.map((m) => fenceProgram(m.program)),
      })),
    );
    return {
      requests,
      async judge(outcomes) {
        let at = 0;
        // Each mutant's site over every group that has it: kills and the instances it ran on.
        const sites = new Map<
          string,
          { change: string; killed: boolean[]; ran: Array<{ seed: number; level: number }>; runs: Unkilled[] }
        >();
        for (const g of groups) {
          const ran = outcomes.slice(at, (at += g.episodes.length)).filter((o) => o.ok);
          if (ran.length === 0) continue;
          g.mutants.forEach((m, k) => {
            const site = sites.get(m.site) ?? { change: m.change, killed: [], ran: [], runs: [] };
            sites.set(m.site, site);
            // killed[i]: the mutant fails instance i (scores below 1). A run only the clock or memory stopped is no
            // evidence either way: a slower program that is right (an equivalent mutant) is stopped on large inputs.
            for (const o of ran) {
              const verdict = o.ok ? o.verdicts[k] : undefined;
              if (verdict?.ok && verdict.stopped) continue;
              site.killed.push(scoreOf(verdict) < 1);
              site.ran.push({ seed: o.seed, level: o.level });
            }
            site.runs.push({ mutant: m, episodes: g.episodes });
          });
        }
        const total = sites.size;
        let killedTotal = 0;
        let worst = { share: 0, change: '', where: [] as Array<{ seed: number; level: number }> };
        const survivors: string[] = [];
        const unkilled: Unkilled[] = [];
        for (const { change, killed, ran, runs } of sites.values()) {
          // Stopped on every instance: never paid, never shown wrong; killed as far as the tests go, nothing to pool.
          if (killed.length === 0) {
            killedTotal++;
            continue;
          }
          if (!killed.some(Boolean)) {
            survivors.push(change);
            unkilled.push(...runs);
            continue;
          }
          killedTotal++;
          const share = killed.filter((x) => !x).length / killed.length;
          if (share > worst.share) worst = { share, change, where: ran.filter((_, i) => !killed[i]).slice(0, 5) };
        }
        if (total === 0) return { findings: [] };
        const taught = await shownWrong(stage.pool, stage.meta as CodeMeta, unkilled, stage.options.limits);
        const killedShare = killedTotal / total;
        const findings: Finding[] = [
          {
            rule: 'zero',
            code: 'E_WEAK_TESTS',
            check: 'code-mutants',
            judged: worst.share,
            ceiling: 1 - options.minMutationScore,
            form: `the mutant ${worst.change}`,
            what: 'mutant',
            reads:
              `survives the hidden tests of ${(100 * worst.share).toFixed(0)}% of the instances its references solve ` +
              `(alike but for literals and comments), though others' tests kill it`,
            evidence: () => ({ mutant: worst.change, survivesOn: worst.where }),
          },
          {
            rule: 'zero',
            code: 'E_WEAK_TESTS',
            check: 'code-mutants',
            judged: 1 - killedShare,
            ceiling: 1 - options.minMutantsKilled,
            form: 'mutants no instance kills',
            what: 'mutant sample',
            reads: `leaves ${(100 * (1 - killedShare)).toFixed(0)}% of the mutants alive on every instance`,
            evidence: () => ({ mutants: total, survivors: survivors.slice(0, 5) }),
          },
          // One per survivor a visible example kills, each failing (zero tolerance).
          ...taught.map(
            (change): Finding => ({
              rule: 'zero',
              code: 'E_WEAK_TESTS',
              check: 'code-mutants',
              judged: 1,
              ceiling: 1,
              form: `the mutant ${change}`,
              what: 'mutant the examples kill',
              reads: 'fails a visible example yet passes every hidden test (a wrong program the hidden tests pay)',
              evidence: () => ({ mutant: change, killedBy: 'a visible example', survives: 'every hidden test' }),
            }),
          ),
        ];
        return {
          findings,
          metrics: {
            references: groups.length,
            mutants: total,
            mutantsRun: groups.reduce((n, g) => n + g.mutants.length, 0),
            killedShare: Number(killedShare.toFixed(3)),
            worstSurvival: Number(worst.share.toFixed(3)),
            worstMutant: worst.change,
            survivors: survivors.slice(0, 5),
            examplesKill: taught.length,
          },
        };
      },
    };
  },
};

// Check (code kind): the hidden tests must tell the reference program from its mutants (one operator,
// constant or boundary changed). A mutant some instance's tests kill must be killed on most instances (one
// that survives on many is a wrong program those instances pay); mutants no instance kills may be
// equivalent programs, but most of the mutants must be killed somewhere.
import { mutantsOf } from '../../sandbox/code/mutants.js';
import { extractProgram, fenceProgram } from '../../sandbox/code/program.js';
import { scoreOf, type Episode } from '../../sandbox/episodes.js';
import { groupBy } from '../context.js';
import type { CodeCheck } from '../code/check.js';
import type { Finding } from './rules.js';

export const codeMutants: CodeCheck = {
  name: 'code-mutants',
  codes: ['E_WEAK_TESTS'],
  kinds: ['code'],
  plan(ctx) {
    const { stage } = ctx;
    const options = stage.options.code;
    const sample: Episode[] = [...groupBy(stage.episodes, (e) => e.level).values()].flatMap((at) => at.slice(0, options.mutantInstancesPerLevel));
    const reference = sample[0] ? extractProgram(sample[0].reference) : null;
    if (!reference?.ok) return null;
    let mutants;
    try {
      mutants = mutantsOf(reference.program, options.maxMutants);
    } catch {
      return null; // a reference that acorn cannot tokenize as a script ran anyway (TypeScript-free JS is the contract): nothing to mutate
    }
    if (mutants.length === 0) return null;
    const requests = sample.map((e) => ({ seed: e.seed, level: e.level, responses: mutants.map((m) => fenceProgram(m.program)) }));
    return {
      requests,
      judge(outcomes) {
        const ran = outcomes.filter((o) => o.ok);
        if (ran.length === 0) return { findings: [] };
        // killed[m][i]: mutant m fails instance i (scores below 1).
        const killed = mutants.map((_, m) => ran.map((o) => (o.ok ? scoreOf(o.verdicts[m]) < 1 : false)));
        const somewhere = killed.map((row) => row.some(Boolean));
        const killable = killed.filter((_, m) => somewhere[m]);
        const killedShare = somewhere.filter(Boolean).length / mutants.length;
        const survivors = mutants.filter((_, m) => !somewhere[m]).map((m) => m.change).slice(0, 5);
        // Each killable mutant's share of instances it survives; the worst one is judged.
        const survival = killed.map((row, m) => ({ m, share: somewhere[m] ? row.filter((k) => !k).length / row.length : 0 }));
        const worst = survival.reduce((w, s) => (s.share > w.share ? s : w), { m: -1, share: 0 });
        const change = worst.m >= 0 ? (mutants[worst.m]?.change ?? '') : '';
        const findings: Finding[] = [
          { rule: 'zero', code: 'E_WEAK_TESTS', check: 'code-mutants', judged: worst.share, ceiling: 1 - options.minMutationScore, form: `the mutant ${change}`, what: 'mutants of the reference', reads: `survives the hidden tests of ${(100 * worst.share).toFixed(0)}% of the sampled instances, though other instances' tests kill it`, evidence: () => ({ mutants: mutants.length, instances: ran.length, mutant: change, survivesOn: ran.filter((_, i) => !killed[worst.m]?.[i]).slice(0, 5).map((o) => ({ seed: o.seed, level: o.level })) }) },
          { rule: 'zero', code: 'E_WEAK_TESTS', check: 'code-mutants', judged: 1 - killedShare, ceiling: 1 - options.minMutantsKilled, form: 'mutants no instance kills', what: 'mutant samples', reads: `leaves ${(100 * (1 - killedShare)).toFixed(0)}% of the mutants alive on every instance`, evidence: () => ({ mutants: mutants.length, survivors }) },
        ];
        return { findings, metrics: { mutants: mutants.length, instances: ran.length, killedShare: Number(killedShare.toFixed(3)), worstSurvival: Number(worst.share.toFixed(3)), worstMutant: change, survivors } };
      },
    };
  },
};

// Check (code kind): the hidden tests must tell the reference program from its mutants (one operator,
// constant or boundary changed). A mutant some instance's tests kill must be killed by every instance's
// tests (weak instances let wrong programs pass); mutants no instance kills may be equivalent programs, but
// most of the mutants must be killed somewhere.
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
        const survival = killable.length === 0 ? 0 : killable.reduce((s, row) => s + row.filter((k) => !k).length / row.length, 0) / killable.length;
        const killedShare = somewhere.filter(Boolean).length / mutants.length;
        const survivors = mutants.filter((_, m) => !somewhere[m]).map((m) => m.change).slice(0, 5);
        const weakest = killable.length === 0 ? null : mutants.filter((_, m) => somewhere[m])[killable.reduce((w, row, m, all) => (row.filter((k) => !k).length > (all[w] as boolean[]).filter((k) => !k).length ? m : w), 0)];
        const findings: Finding[] = [
          { rule: 'zero', code: 'E_WEAK_TESTS', check: 'code-mutants', judged: survival, ceiling: 1 - options.minMutationScore, form: 'mutants killed on some instances survive the tests of others', what: 'mutant samples', reads: `lets ${(100 * survival).toFixed(0)}% of (mutant, instance) pairs survive where another instance's tests kill the mutant`, evidence: () => ({ mutants: mutants.length, instances: ran.length, weakest: weakest?.change }) },
          { rule: 'zero', code: 'E_WEAK_TESTS', check: 'code-mutants', judged: 1 - killedShare, ceiling: 1 - options.minMutantsKilled, form: 'mutants no instance kills', what: 'mutant samples', reads: `leaves ${(100 * (1 - killedShare)).toFixed(0)}% of the mutants alive on every instance`, evidence: () => ({ mutants: mutants.length, survivors }) },
        ];
        return { findings, metrics: { mutants: mutants.length, instances: ran.length, killedShare: Number(killedShare.toFixed(3)), survival: Number(survival.toFixed(3)), survivors } };
      },
    };
  },
};

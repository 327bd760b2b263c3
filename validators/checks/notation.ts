// The acceptance region across the answer's form dimensions, not only the notations the coarse renderings
// write: each probed instance gets a wrong value in other digit scripts, with scale and unit suffixes, in
// e-notation and grouped (notations.ts), and where one earns anything its control (the same value in plain
// ASCII digits) is sent too; what a form earns beyond its control is acceptance decided by the notation (a
// NaN that is never "too far", a tolerance read off a suffix), judged by rate like a coarse rendering.
import { answerContent, withContent } from '../../sandbox/answer.js';
import { notationForms, type NotationForm } from '../notations.js';
import type { Probe } from '../probe-types.js';
import { evidenceOf } from './probe-findings.js';
import type { Finding, Trial } from './rules.js';
import type { ProbeRequest, SingleTurnCheck } from './single-turn.js';

export const notationCheck: SingleTurnCheck = {
  name: 'notation',
  codes: ['E_ACCEPTS_COARSE'],
  kinds: ['single'],
  plan(ctx) {
    const planned = ctx.targets().flatMap((t) => {
      const forms = notationForms(answerContent(t.episode.reference));
      return forms.length ? [{ t, forms }] : [];
    });
    if (planned.length === 0) return null;
    const probe = (ref: string, f: NotationForm, text: string): Probe => ({
      family: 'rendering',
      form: f.form,
      response: withContent(ref, text),
      coincident: f.truth,
    });
    const requests: ProbeRequest[] = planned.map(({ t, forms }) => ({
      seed: t.episode.seed,
      level: t.episode.level,
      probes: forms.map((f) => probe(t.episode.reference, f, f.text)),
    }));
    const formOf = (i: number, j: number) => (planned[i] as { forms: NotationForm[] }).forms[j] as NotationForm;
    return {
      requests,
      async judge(results, tools) {
        const o = ctx.stage.options;
        // Controls only where a wrong value's form earned something: a verifier that refuses them costs nothing more.
        const paid = results.flatMap((r, i) =>
          r.outcomes.flatMap((x, j) => (!x.failure && x.score > 0 && !formOf(i, j).truth ? [{ i, j, x }] : [])),
        );
        const controls = paid.length
          ? await tools.run(
              paid.map(({ i, j, x }) => ({
                seed: x.episode.seed,
                level: x.episode.level,
                probes: formOf(i, j).controls.map((c) => probe(x.episode.reference, formOf(i, j), c)),
              })),
            )
          : [];
        const best = new Map(
          paid.map((p, k) => [
            `${p.i}:${p.j}`,
            Math.max(0, ...(controls[k]?.outcomes ?? []).map((c) => (c.failure ? 0 : c.score))),
          ]),
        );
        const byForm = new Map<
          string,
          { trials: Trial[]; worst?: { excess: number; evidence: Record<string, unknown> } }
        >();
        const truth = new Map<string, number[]>();
        results.forEach((r, i) =>
          r.outcomes.forEach((x, j) => {
            if (x.failure) return;
            const f = formOf(i, j);
            if (f.truth) return void truth.set(f.form, [...(truth.get(f.form) ?? []), x.score]);
            const entry = byForm.get(f.form) ?? { trials: [] };
            const excess = Math.max(0, x.score - (best.get(`${i}:${j}`) ?? 0));
            entry.trials.push({ level: x.episode.level, win: excess, chance: 0 });
            if (excess > (entry.worst?.excess ?? 0))
              entry.worst = {
                excess,
                evidence: { ...evidenceOf(x), controls: f.controls, controlsBest: best.get(`${i}:${j}`) ?? 0 },
              };
            byForm.set(f.form, entry);
          }),
        );
        const findings: Finding[] = [...byForm].map(([form, { trials, worst }]) => ({
          rule: 'rate',
          code: 'E_ACCEPTS_COARSE',
          check: 'notation',
          policy:
            `a wrong value written in another notation (${form}), beyond what the same ` +
            `value in plain digits earns`,
          trials,
          tolerance: { level: o.coarseLevelTolerance, pooled: o.coarseTolerance },
          z: o.rateZ,
          minTrials: 5,
          evidence: () => worst?.evidence ?? {},
        }));
        const mean = (v: number[]) => Number((v.reduce((a, b) => a + b, 0) / Math.max(1, v.length)).toFixed(3));
        const metrics = {
          ...Object.fromEntries(
            [...byForm].map(([form, e]) => [
              form,
              { instances: e.trials.length, paidBeyondControls: e.trials.filter((t) => t.win > 0).length },
            ]),
          ),
          ...Object.fromEntries(
            [...truth].map(([form, scores]) => [form, { instances: scores.length, meanScore: mean(scores) }]),
          ),
        };
        return { findings, metrics };
      },
    };
  },
};

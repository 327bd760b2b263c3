// The acceptance region of a numeric verifier, judged by instances won rather than by strings: each probed
// instance gets the truth and a few wrong values written coarsely (fewer decimals, rounded up or down, one or
// two significant figures, scientific, a small fraction, 0, 1e6), and where one earns anything its controls
// are sent too (the same value at the reference's precision, a value as close on the other side). What the
// coarse form earns beyond its controls is a tolerance read off the response itself (its decimals, its length,
// its notation): a template that wins that way on more instances than the bound allows is rejected.
import { answerContent, withContent } from '../../sandbox/answer.js';
import { coarseRenderings, type Rendering } from '../renderings.js';
import type { Probe } from '../probe-types.js';
import { evidenceOf } from './probe-findings.js';
import type { Finding, Trial } from './rules.js';
import type { ProbeRequest, SingleTurnCheck } from './single-turn.js';

export const acceptanceCheck: SingleTurnCheck = {
  name: 'acceptance',
  codes: ['E_ACCEPTS_COARSE'],
  kinds: ['single'],
  plan(ctx) {
    const planned = ctx.targets().flatMap((t) => {
      const renderings = coarseRenderings(answerContent(t.episode.reference));
      return renderings.length ? [{ t, renderings }] : [];
    });
    if (planned.length === 0) return null;
    const probe = (ref: string, r: Rendering, response: string): Probe => ({
      family: 'rendering',
      form: r.form,
      response: withContent(ref, response),
      coincident: false,
    });
    const requests: ProbeRequest[] = planned.map(({ t, renderings }) => ({
      seed: t.episode.seed,
      level: t.episode.level,
      probes: renderings.map((r) => probe(t.episode.reference, r, r.coarse)),
    }));
    return {
      requests,
      async judge(results, tools) {
        const o = ctx.stage.options;
        // Controls only where the coarse form earned something: an honest verifier costs one response per template.
        const paid = results.flatMap((r, i) =>
          r.outcomes.flatMap((x, j) =>
            !x.failure && x.score > 0
              ? [{ i, j, x, rendering: (planned[i] as { renderings: Rendering[] }).renderings[j] as Rendering }]
              : [],
          ),
        );
        const controls = paid.length
          ? await tools.run(
              paid.map(({ x, rendering }) => ({
                seed: x.episode.seed,
                level: x.episode.level,
                probes: rendering.controls.map((c) => probe(x.episode.reference, rendering, c)),
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
        results.forEach((r, i) =>
          r.outcomes.forEach((x, j) => {
            if (x.failure) return;
            const entry = byForm.get(x.probe.form) ?? { trials: [] };
            const excess = Math.max(0, x.score - (best.get(`${i}:${j}`) ?? 0));
            entry.trials.push({ level: x.episode.level, win: excess, chance: 0 });
            if (excess > (entry.worst?.excess ?? 0))
              entry.worst = {
                excess,
                evidence: {
                  ...evidenceOf(x),
                  controls: (planned[i] as { renderings: Rendering[] }).renderings[j]?.controls,
                  controlsBest: best.get(`${i}:${j}`) ?? 0,
                },
              };
            byForm.set(x.probe.form, entry);
          }),
        );
        const findings: Finding[] = [...byForm].map(([form, { trials, worst }]) => ({
          rule: 'rate',
          code: 'E_ACCEPTS_COARSE',
          check: 'acceptance',
          policy:
            `the answer written coarsely (${form}), beyond what the same value at the reference's precision ` +
            `or a value as close earns`,
          trials,
          tolerance: { level: o.coarseLevelTolerance, pooled: o.coarseTolerance },
          z: o.rateZ,
          minTrials: 5,
          evidence: () => worst?.evidence ?? {},
        }));
        const metrics = Object.fromEntries(
          [...byForm].map(([form, e]) => [
            form,
            { instances: e.trials.length, paidBeyondControls: e.trials.filter((t) => t.win > 0).length },
          ]),
        );
        return { findings, metrics };
      },
    };
  },
};

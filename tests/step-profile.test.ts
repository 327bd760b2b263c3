// The step profile's table (bench/step-profile.ts): each layer is the time between two stamps of a step, its
// p50 and p99 over the steps, and its mean over the slowest 1% by server total; a step missing a stamp is left out.
import { describe, expect, it } from 'vitest';
import { layerTable } from '../bench/step-profile.js';

/** A step whose layers take the given ms, in the order the table lists them (the module's time inside the crossing). */
function step(parse: number, crossing: number, journal: number) {
  const arrive = 1_000;
  const stepAt = arrive + parse;
  const sent = stepAt + 1;
  const back = sent + crossing + 2;
  return {
    arrive,
    step: stepAt,
    rollout: stepAt + 0.5,
    gated: stepAt + 0.75,
    sent,
    back,
    guestMs: 2,
    rolled: back,
    journalIn: stepAt + 0.5,
    journalOut: stepAt + 0.5 + journal,
    answered: back + 0.25,
    done: back + 0.5,
  };
}

describe('the step profile', () => {
  it('splits each step into its layers and reads the tail off the slowest steps', () => {
    const steps = [...Array.from({ length: 99 }, () => step(0.1, 3, 1)), step(0.1, 300, 40), { arrive: 0 }];
    const table = layerTable(steps);
    const row = (prefix: string) => table.find((r) => r.layer.startsWith(prefix));
    expect(row('body')).toMatchObject({ p50Ms: 0.1 });
    expect(row('dispatcher queue')).toMatchObject({ p50Ms: 0.25 });
    expect(row('sandbox gate wait')).toMatchObject({ p50Ms: 0.25 });
    expect(row('crossing')).toMatchObject({ p50Ms: 3, p99Ms: 300, tailMeanMs: 300 });
    expect(row("the module's")).toMatchObject({ p50Ms: 2 });
    expect(row('journal (line')).toMatchObject({ p50Ms: 1, tailMeanMs: 40 });
    expect(row('journal wait')).toMatchObject({ p50Ms: 0, tailMeanMs: 0 });
    expect(row('server total')?.p50Ms).toBeCloseTo(0.1 + 1 + 3 + 2 + 0.5, 1);
  });
});

// The validator's stage order, derived: each step declares the facts it reads and produces, and a step runs
// in the wave after the last wave that produces something it reads (steps of one wave run at once).
// A fact nobody produces, a fact produced twice and a cycle are errors that name the steps involved.

/** What the order needs of a step: its name and the facts it reads and produces. */
export interface Declared {
  readonly name: string;
  readonly reads: readonly string[];
  readonly produces: readonly string[];
}

export class PlanError extends Error {
  override readonly name = 'PlanError';
}

/** The steps in waves, each wave in declaration order; throws a PlanError for a plan that cannot be ordered. */
export function orderWaves<T extends Declared>(steps: readonly T[]): T[][] {
  const producer = new Map<string, T>();
  for (const step of steps) {
    for (const fact of step.produces) {
      const other = producer.get(fact);
      if (other) throw new PlanError(`validator plan: ${fact} is produced by both ${other.name} and ${step.name}`);
      producer.set(fact, step);
    }
  }
  for (const step of steps) {
    const missing = step.reads.filter((fact) => !producer.has(fact));
    if (missing.length > 0)
      throw new PlanError(`validator plan: ${step.name} reads ${missing.join(', ')}, which no step produces`);
  }
  const depth = new Map<T, number>();
  const path: T[] = [];
  const visit = (step: T): number => {
    const known = depth.get(step);
    if (known !== undefined) return known;
    if (path.includes(step))
      throw new PlanError(
        `validator plan: a cycle, ${[...path.slice(path.indexOf(step)), step].map((s) => s.name).join(' → ')}`,
      );
    path.push(step);
    const wave = Math.max(-1, ...step.reads.map((fact) => visit(producer.get(fact) as T))) + 1;
    path.pop();
    depth.set(step, wave);
    return wave;
  };
  const waves: T[][] = [];
  for (const step of steps) (waves[visit(step)] ??= []).push(step);
  return waves;
}

// The offline author's typed DSL: the operations programs are made of, each with its input and output
// type, its parameters, the JavaScript it compiles to and the English sentence that describes it, plus the
// type checker every synthesised program must pass. The JavaScript text of an operation is its only
// semantics: emitted modules inline it, and the author's design-time checks compile the same text.
import type { Draw, OpDef, Step, Ty } from './dsl-base.js';
import { LIST_OPS } from './dsl-ops-lists.js';
import { NUMBER_OPS } from './dsl-ops-numbers.js';
import { WORD_OPS } from './dsl-ops-words.js';

export type { Draw, OpDef, Params, Step, Ty } from './dsl-base.js';

/**
 * Every operation of the DSL, in a fixed order. Ids are unique; params only produce literals the JS and text inline.
 */
export const OPS: readonly OpDef[] = [...LIST_OPS, ...NUMBER_OPS, ...WORD_OPS];

const BY_ID = new Map(OPS.map((op) => [op.id, op]));
if (BY_ID.size !== OPS.length) throw new Error('offline DSL: duplicate operation ids');

export function opById(id: string): OpDef {
  const op = BY_ID.get(id);
  if (!op) throw new Error(`offline DSL: unknown operation "${id}"`);
  return op;
}

/** Operations that can continue a program from a value of type `ty` (type-preserving or type-changing). */
export function stepsFrom(ty: Ty, options: { endo?: boolean } = {}): OpDef[] {
  return OPS.filter((op) => op.in === ty && op.role !== 'final' && (!options.endo || op.out === ty));
}

/** Operations that can end a program whose last value has type `ty`. */
export function finalsFrom(ty: Ty): OpDef[] {
  return OPS.filter((op) => op.in === ty && op.role !== 'step');
}

export class DslTypeError extends Error {
  override name = 'DslTypeError';
}

/** The result type of a program applied to `input`; throws DslTypeError naming the first ill-typed step. */
export function typeOf(input: Ty, steps: readonly Step[]): Ty {
  let ty = input;
  steps.forEach((step, i) => {
    const op = BY_ID.get(step.op);
    if (!op) throw new DslTypeError(`step ${i + 1}: unknown operation "${step.op}"`);
    if (op.in !== ty) throw new DslTypeError(`step ${i + 1} (${op.id}) takes ${op.in} but receives ${ty}`);
    const expected = Object.keys(op.params ? op.params({ int: (lo) => lo, pick: (a) => a[0] as never }) : {}).sort();
    const given = Object.keys(step.params).sort();
    if (expected.join() !== given.join())
      throw new DslTypeError(
        `step ${i + 1} (${op.id}) needs parameters [${expected.join(', ')}], got [${given.join(', ')}]`,
      );
    for (const [key, value] of Object.entries(step.params)) {
      if (typeof value === 'number' ? !Number.isSafeInteger(value) : !/^[a-z]$/.test(value))
        throw new DslTypeError(
          `step ${i + 1} (${op.id}): parameter ${key} must be a safe integer or one lowercase letter, got ` +
            `${JSON.stringify(value)}`,
        );
    }
    ty = op.out;
  });
  return ty;
}

export const jsOf = (step: Step): string => opById(step.op).js(step.params);
export const textOf = (step: Step): string => opById(step.op).text(step.params);

/** A step with fresh parameters for `op`. */
export function instantiate(op: OpDef, draw: Draw): Step {
  return { op: op.id, params: op.params ? op.params(draw) : {} };
}

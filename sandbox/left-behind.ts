// Charges what a guest function leaves behind (promise jobs that run after it returned) to that function:
// an episode whose crossing failed after its calls returned is re-run one guest function per crossing
// (the runtime's step()), so a failure in a crossing's microtask checkpoint is the lone function's own and
// every other function of the episode keeps its true result.
import type { ProblemCode } from '../contract/codes.js';
import type { ChargedVerdict, SandboxLimits } from './protocol.js';
import { classify, type Realm } from './realm.js';

/**
 * The episode's result (collect()'s text) with the verdicts charged, or the failure of the whole call (its generate or
 * solve was charged).
 */
export type SteppedOutcome =
  | { raw: unknown; charged: ChargedVerdict[] }
  | { failed: { code: ProblemCode; message: string; fn: string }; charged: ChargedVerdict[] };

/** What step k of an episode runs: generate, solve, verify(reference), verify(response k - 3). */
function stepName(k: number): string {
  if (k === 0) return 'generate';
  if (k === 1) return 'solve';
  return k === 2 ? 'verify of the reference' : `verify of response ${k - 3}`;
}

function chargedMessage(k: number, code: ProblemCode, message: string): string {
  if (code === 'E_TIMEOUT')
    return (
      `${stepName(k)} ran past the call's wall-clock budget, counting the work it left behind (promise jobs ` +
      `that run after it returns)`
    );
  if (code === 'E_MEMORY')
    return (
      `${stepName(k)} exceeded the isolate memory limit, counting the work it left behind (promise jobs ` +
      `that run after it returns)`
    );
  return `${stepName(k)} returned, then ${message}`;
}

/**
 * Runs the lone episode call in `batchText` step by step in fresh realms (`realm()` compiles one; `dispose()`
 * ends it). A step whose crossing fails is charged: generate or solve fail the call; a verify gets the failure
 * as its verdict, and the episode is run again without it. The steps share one call's budget (callTimeoutMs +
 * sliceMs), and at most `allowance` verifies are charged (the job's remaining maxFailuresPerJob); past it the
 * verifies not yet run are failed unrun, so a hostile module costs at most allowance + 1 call budgets here.
 */
export function runStepped(
  realm: () => Realm,
  dispose: () => void,
  batchText: string,
  limitsText: string,
  limits: SandboxLimits,
  responses: number,
  allowance: number,
): SteppedOutcome {
  // By step: what the runtime writes in place of a verify it does not run again (the supervisor replaces it).
  const charged: Record<number, [ProblemCode, string]> = {};
  const verdicts: ChargedVerdict[] = [];
  const steps = 3 + responses;
  for (;;) {
    const { isolate, begin, step } = realm();
    const chargedText = JSON.stringify(charged);
    const budget = limits.callTimeoutMs + limits.sliceMs;
    let spent = 0;
    let k = 0;
    try {
      begin.applySync(undefined, [batchText, limitsText], { timeout: limits.loadTimeoutMs });
      for (;;) {
        const started = performance.now();
        const out = step.applySync(undefined, [chargedText], {
          timeout: Math.max(1, Math.ceil(budget - spent)),
        }) as unknown;
        spent += performance.now() - started;
        if (out !== '+') return { raw: out, charged: verdicts };
        k++;
      }
    } catch (error) {
      const failure = classify(error, isolate, 'work it left behind (a promise job)');
      dispose();
      const message = chargedMessage(k, failure.code, failure.message);
      if (k < 2 || failure.code === 'E_PROTOCOL')
        return {
          failed: { code: failure.code, message, fn: k === 0 ? 'generate' : k === 1 ? 'solve' : 'verify' },
          charged: verdicts,
        };
      const charge = (step: number, text: string) => {
        charged[step] = [failure.code, text];
        verdicts.push({ index: step - 2, code: failure.code, message: text });
      };
      charge(k, message);
      if (verdicts.length >= allowance) {
        const unrun =
          `not run: ${verdicts.length} verify calls of this episode left work behind that failed, all the ` +
          `failures its batch may still have (maxFailuresPerJob ${limits.maxFailuresPerJob})`;
        for (let j = k + 1; j < steps; j++) charge(j, unrun);
      }
    }
  }
}

// Red team rtv2 (tests/fixtures/redteam-rtv2/FINDINGS.md): state one policy's program leaves in an answer
// isolate that another client's program then pays for. Open findings are it.fails tests named by their id:
// each states what should hold and fails while the hole exists; a fix turns it red, then flip it to it.
import { afterAll, describe, expect, it } from 'vitest';
import { AnswerPool } from '../sandbox/code/answer-pool.js';
import type { AnswerSpec } from '../sandbox/code/answers.js';

// One worker, so every answer runs in the same worker process, as two clients' answers do on a busy service.
const pool = new AnswerPool({ workers: 1 });
afterAll(() => pool.close());

/** Budgets far above what these programs need on a loaded machine: only memory decides. */
const LIMITS = { testTimeoutMs: 15_000 };
const base = { language: 'javascript', entry: 'add', compare: 'exact', tests: [['[1,2]', '3']] } satisfies Omit<
  AnswerSpec,
  'program'
>;
/** An honest program that keeps a million small records alive while it works (about 30 MB of a 128 MB isolate). */
const honest: AnswerSpec = {
  ...base,
  program:
    'function add(a, b) { const seen = []; for (let i = 0; i < 1e6; i++) seen.push({ i }); return a + ' +
    'b + seen.length - 1e6; }',
};
/**
 * A program that answers correctly and, on the way, registers 40 symbols keyed by 1 MB strings. The symbol
 * registry (Symbol.for) belongs to the isolate, not to the Compartment, and a registered symbol is never
 * collected: the 40 MB outlive the answer.
 */
const filler = (tag: string): AnswerSpec => ({
  ...base,
  program:
    `function add(a, b) {\n  for (let i = 0; i < 40; i++) Symbol.for('${tag}' + i + '-'.repeat(1 << ` +
    `20));\n  return a + b;\n}`,
});

describe("rtv2-2: an answer isolate is shared by every client's programs, and keeps what one of them registers", () => {
  it("held: the honest program passes, twice in one isolate (one request's answers share theirs)", async () => {
    const runs = await pool.run([honest, honest], LIMITS);
    expect(runs.map((r) => r.tests)).toEqual([[null], [null]]);
    expect(runs[0]?.isolate).toBe(runs[1]?.isolate);
  }, 120_000);

  it("an honest program passes after another request's programs, all passing, filled the symbol registry", async () => {
    const attack = await pool.run([filler('a'), filler('b'), filler('c')], LIMITS);
    expect(attack.map((r) => r.tests)).toEqual([[null], [null], [null]]); // the attacker loses nothing
    const [victim] = await pool.run([honest], LIMITS);
    expect(victim?.isolate).not.toBe(attack[0]?.isolate); // fixed: no isolate holds two requests' programs...
    // ...so it passes (it failed E_MEMORY while they shared one: scored 0, recorded)
    expect(victim?.tests).toEqual([null]);
  }, 120_000);
});

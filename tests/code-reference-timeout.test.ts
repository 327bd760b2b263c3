// The clock stopping a code environment's reference program is a timeout (E_TIMEOUT, which the pipeline validates
// again before it counts: a loaded machine can cause it alone), not a reference that verify scores below 1
// (E_UNSOLVED) — red team rtcode C7: honest modules rejected E_UNSOLVED under load and never retried.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { code } from '../kinds/code.js';
import { SandboxPool } from '../sandbox/pool.js';

const SEED = readFileSync(new URL('../seeds/code/window-averages.js', import.meta.url), 'utf8');
/** The same module whose reference program spins past any budget on every hidden test. */
const SPINNING = SEED.replace(
  'return String(windowAverages);',
  "return 'function windowAverages(readings, k) { for (let i = 0; i < 1e15; i++) {} return []; }';",
);
const pool = new SandboxPool({ workers: 1 });
afterAll(() => pool.close());

describe('a code reference program the clock stops', () => {
  it('fails its episode E_TIMEOUT in solve, where the seed itself scores its reference 1', {
    timeout: 60_000,
  }, async () => {
    expect(SPINNING).not.toBe(SEED);
    const limits = { callTimeoutMs: 400 };
    const [spun] = (await code.runEpisodes(pool, SPINNING, [{ seed: 3, level: 1 }], { limits })).episodes;
    expect(spun).toMatchObject({ ok: false, code: 'E_TIMEOUT', fn: 'solve' });
    expect(spun?.ok ? '' : spun?.message).toMatch(/reference program ran past/);
    const [plain] = (await code.runEpisodes(pool, SEED, [{ seed: 3, level: 1 }], { limits })).episodes;
    expect(plain?.ok && plain.referenceVerdict.ok ? plain.referenceVerdict.score : undefined).toBe(1);
  });
});

// The validator's decisions on a small fixed corpus, byte for byte: every sandbox request it plans (each
// probe's text, in order) and the report minus timings, as digests recorded by bench/golden.ts. A change
// that should change no decision (speed work) must keep this green; a change of the rules updates the file
// on purpose: `npm run build && node dist/bench/golden.js write tests/fixtures/golden/decisions-quick.json --quick`.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { compareGolden, goldenCorpus, goldenRun, type GoldenEntry } from '../bench/golden.js';

it('plans the same probes and reaches the same reports as recorded', async () => {
  const expected = JSON.parse(
    readFileSync(new URL('./fixtures/golden/decisions-quick.json', import.meta.url), 'utf8'),
  ) as GoldenEntry[];
  const entries = await goldenRun(goldenCorpus(true), { workers: 2 });
  const { clocked, differing, missing } = compareGolden(expected, entries);
  expect({ differing, missing }, 'regenerate the file only for a change of the rules').toEqual({
    differing: [],
    missing: [],
  });
  // A run cut short by the machine's load decides nothing; most runs must still be compared.
  expect(clocked.length).toBeLessThan(entries.length / 2);
}, 300_000);

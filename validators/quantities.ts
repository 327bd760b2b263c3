// The prompt's quantities as printed, the question restated in a unit: each run of numbers with the word after each
// ("3 mi 420 yd 2 ft", "12 kg"), and its plain control (the same numbers, the words dropped). A verifier that reads
// the answer's unit converts the run to the quantity the task asks to compute; one that reads values reads both
// alike. Guest text: one linear scan a line.

export interface QuantityRun {
  /** The run as the prompt prints it. */
  text: string;
  /** Its numbers alone, in order. */
  plain: string;
}

/** Runs restated at most, a prompt (its first ones). */
const MAX_RUNS = 4;
/** A number, then a word of one to twelve letters (a unit's name or symbol, with an optional closing dot). */
const PAIR = /(?<![\w.])(-?\d+(?:\.\d+)?) ?([A-Za-z\u00b0\u00b5\u03bc]{1,12})\.?(?![\w\u00b0])/g;

type Pair = { n: string; printed: string; gap: string };
const runOf = (pairs: Pair[]): QuantityRun => ({
  text: pairs.map((p) => p.printed).join(' '),
  plain: pairs.map((p) => p.n).join(' '),
});

/** Adjacent pairs split where the text between two of them is not `joins`. */
function split(pairs: Pair[], joins: RegExp): Pair[][] {
  const out: Pair[][] = [];
  for (const p of pairs) {
    const last = out.at(-1);
    if (last && joins.test(p.gap)) last.push(p);
    else out.push([p]);
  }
  return out;
}

/**
 * The prompt's quantity runs: pairs of a number and the word after it, adjacent pairs on a line kept together where
 * only spaces lie between them, and again where a comma or "and" does ("2 h, 45 min"), where that run is new.
 */
export function quantityRuns(prompt: string): QuantityRun[] {
  const out: QuantityRun[] = [];
  for (const line of prompt.slice(0, 20_000).split('\n')) {
    const pairs: Pair[] = [];
    let end = 0;
    for (const m of line.slice(0, 2_000).matchAll(PAIR)) {
      pairs.push({ n: m[1] as string, printed: m[0].replace(/\.$/, ''), gap: line.slice(end, m.index) });
      end = (m.index as number) + m[0].length;
    }
    // The longer runs first: a prompt's runs past the first few are not restated.
    const runs = [...split(pairs, /^\s*(?:,|and|,\s*and)?\s*$/).filter((r) => r.length > 1), ...split(pairs, /^\s*$/)];
    for (const run of runs.map(runOf))
      if (out.length < MAX_RUNS && !out.some((r) => r.text === run.text)) out.push(run);
    if (out.length >= MAX_RUNS) break;
  }
  return out;
}

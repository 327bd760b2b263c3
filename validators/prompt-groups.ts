// The groups a prompt's layout forms and their cheap aggregates: each printed list, each run of consecutive lines
// holding the same count of numbers ("4 parcels of 11.3 kg each") and each labelled line ("Parcels on board: 57") is a
// group of rows, each k-th number of its rows a column; a group offers its row count and, per column, the sum, the
// largest value and the row count times the mean of the first few. Found from the text's structure, so a size nobody
// listed is still one. A column that numbers the rows (1, 2, 3…) is layout, not data; a column reading more than half
// of the prompt's data numbers is the task's own input, not a summary of it. Prompts are guest text: a linear scan
// over lines.
import { promptNumbers } from './leak-derived.js';
import { promptLists } from './prompt-lists.js';

/** Groups and columns read per prompt at most (a prompt's first ones: later ones are rarely the layout). */
const MAX_GROUPS = 6;
const MAX_COLUMNS = 4;
const MAX_LINES = 500;
const FIRST_FEW = 3;

/** A group: its rows' numbers, one array per row, all of one length. */
type Rows = number[][];

/** Runs of two or more consecutive lines with the same count (one or more) of numbers, as rows. */
function lineRuns(prompt: string): Rows[] {
  const runs: Rows[] = [];
  let run: Rows = [];
  const flush = () => {
    if (run.length >= 2) runs.push(run);
    run = [];
  };
  for (const line of prompt.slice(0, 50_000).split('\n', MAX_LINES)) {
    const nums = promptNumbers(line, MAX_COLUMNS + 1);
    if (nums.length === 0 || nums.length > MAX_COLUMNS || (run.length && run[0]?.length !== nums.length)) flush();
    if (nums.length > 0 && nums.length <= MAX_COLUMNS) run.push(nums);
  }
  flush();
  return runs;
}

/** Lines that label their numbers ("Parcels on board: 57", "Readings: 3 5 7"): each number a row of one column. */
function labelledLines(prompt: string): Rows[] {
  const out: Rows[] = [];
  for (const line of prompt.slice(0, 50_000).split('\n', MAX_LINES)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const nums = promptNumbers(line.slice(colon + 1), 200);
    if (nums.length > 0) out.push(nums.map((n) => [n]));
    if (out.length >= MAX_GROUPS) break;
  }
  return out;
}

/** A printed list's items as rows of their numbers (items without one left out; rows cut to the shortest). */
function listRows(items: string[]): Rows {
  const rows = items.map((item) => promptNumbers(item, MAX_COLUMNS)).filter((r) => r.length > 0);
  const width = Math.min(...rows.map((r) => r.length));
  return rows.map((r) => r.slice(0, width));
}

/** Whether a column numbers its rows: consecutive integers, one step apart. */
const numbersRows = (column: number[]) =>
  column.length >= 2 && Number.isInteger(column[0]) && column.every((v, k) => v === (column[0] as number) + k);

const ORDINAL = ['1st', '2nd', '3rd', '4th', '5th', '6th'];

/**
 * The aggregates of the prompt's groups, by name ("the 1st run of lines' column 2 sum"): stable across instances
 * of one layout, so a rule fitted on some instances reads the same group on others.
 */
export function groupAggregates(prompt: string): Map<string, number> {
  const out = new Map<string, number>();
  const groups: Array<[string, Rows]> = [
    ...lineRuns(prompt)
      .slice(0, MAX_GROUPS)
      .map((rows, g): [string, Rows] => [`the ${ORDINAL[g]} run of lines with numbers`, rows]),
    ...promptLists(prompt)
      .map(listRows)
      .filter((rows) => rows.length >= 2)
      .slice(0, MAX_GROUPS)
      .map((rows, g): [string, Rows] => [`the ${ORDINAL[g]} list with numbers`, rows]),
    ...labelledLines(prompt).map((rows, g): [string, Rows] => [`the ${ORDINAL[g]} labelled line`, rows]),
  ];
  // Each column with its place in the row (its name stays the same where a numbering column is left out).
  const columnsOf = (rows: Rows) =>
    Array.from({ length: rows[0]?.length ?? 0 }, (_, c): [number, number[]] => [
      c,
      rows.map((r) => r[c] as number),
    ]).filter(([, col]) => !numbersRows(col));
  // The prompt's data numbers: all of them but the columns that number rows.
  const layout = groups.reduce(
    (a, [, rows]) =>
      a + rows.length * (rows[0]?.length ?? 0) - columnsOf(rows).reduce((n, [, col]) => n + col.length, 0),
    0,
  );
  const data = promptNumbers(prompt).length - layout;
  for (const [name, rows] of groups) {
    if (rows.length >= 2) out.set(`${name}: its row count`, rows.length);
    for (const [c, col] of columnsOf(rows)) {
      const few = col.slice(0, FIRST_FEW);
      out.set(
        `${name}: its row count times the mean of column ${c + 1}'s first ${FIRST_FEW}`,
        (col.length * few.reduce((a, b) => a + b, 0)) / few.length,
      );
      if (2 * col.length > data) continue;
      out.set(
        `${name}: column ${c + 1}'s sum`,
        col.reduce((a, b) => a + b, 0),
      );
      out.set(`${name}: column ${c + 1}'s largest`, Math.max(...col));
    }
  }
  return out;
}

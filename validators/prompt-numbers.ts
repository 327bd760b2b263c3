// The prompt's numbers as the arithmetic reader reads them: in order with their formats normalised (thousands
// separators, digits spelled one by one), per line, and each with its labels (the words that name it on its line);
// and the prompt's structure without its digits (lines, items, words, letters, its groups of lines).

/** A number: sign, digits with thousands separators (",", "_", "'", thin and no-break spaces), decimals. */
const NUMBER = /(?<![\w.])([+-]?)(\d{1,3}(?:[,_'\u202f\u00a0]\d{3})+|\d+)(\.\d+)?(?![\w])/g;
const numberOf = (m: RegExpMatchArray) => Number(`${m[1]}${(m[2] as string).replace(/[^\d]/g, '')}${m[3] ?? ''}`);
const head = (prompt: string) => (prompt.length > 50_000 ? prompt.slice(0, 50_000) : prompt);

/** The prompt's numbers in order, thousands separators removed. */
export function promptNumbers(prompt: string, max = 2_000): number[] {
  const out: number[] = [];
  for (const m of head(prompt).matchAll(NUMBER)) {
    out.push(numberOf(m));
    if (out.length >= max) break;
  }
  return out;
}

/**
 * Each number's labels, in the order of `promptNumbers`: the word right after it on its line (its unit: "34 km"), the
 * last word before it ("deposit 120.00", "fee: 9.00") and every word of its line ("Ann lost 5 points"), lower-cased.
 */
export function numberLabels(prompt: string, max = 2_000): string[][] {
  const out: string[][] = [];
  const text = head(prompt);
  // Each line's words once (a long line holds many numbers), and the words beside a number within a short window, so
  // the work stays linear in the text (tests/adversarial-text.test.ts).
  const lineWords = new Map<number, string[]>();
  for (const m of text.matchAll(NUMBER)) {
    const at = m.index as number;
    const [start, stop] = [text.lastIndexOf('\n', at) + 1, text.indexOf('\n', at)];
    const end = stop < 0 ? text.length : stop;
    let words = lineWords.get(start);
    if (!words) {
      const found = text.slice(start, end).match(/[A-Za-z]+/g) ?? [];
      words = [...new Set(found.slice(0, 64).map((w) => `~${w.toLowerCase()}`))];
      lineWords.set(start, words);
    }
    const after = /^[ \t]*([A-Za-z%$€£]+)/.exec(text.slice(at + m[0].length, Math.min(end, at + m[0].length + 64)));
    const before = /([A-Za-z]+)[^A-Za-z\d\n]*$/.exec(text.slice(Math.max(start, at - 64), at));
    out.push([
      ...(after ? [`>${(after[1] as string).toLowerCase()}`] : []),
      ...(before ? [`<${(before[1] as string).toLowerCase()}`] : []),
      ...words,
    ]);
    if (out.length >= max) break;
  }
  return out;
}

/** Runs of single digits joined by one separator ("4-0-9-3", "4 0 9 3", "4.0.9.3"), read as one number each. */
export function digitRuns(prompt: string, max = 200): number[] {
  const out: number[] = [];
  for (const m of head(prompt).matchAll(/(?<![\w.-])\d(?:[-_. ]\d){2,17}(?![\w-])/g)) {
    out.push(Number(m[0].replace(/[^\d]/g, '')));
    if (out.length >= max) break;
  }
  return out;
}

/** The numbers of each line of the prompt that holds two or more (at most 200 lines), and each such line's index. */
export function lineNumbers(prompt: string): { lines: number[][]; lineIds: number[]; lineOf: number[] } {
  const [lines, lineIds, lineOf]: [number[][], number[], number[]] = [[], [], []];
  prompt
    .slice(0, 50_000)
    .split('\n')
    .forEach((line, k) => {
      const nums = promptNumbers(line, 50);
      for (const _ of nums) lineOf.push(k);
      if (nums.length >= 2 && lines.length < 200) lines.push(nums) && lineIds.push(k);
    });
  return { lines, lineIds, lineOf };
}

/** The groups of lines whose sizes are features of their own (promptStructure). */
const GROUPS = 4;

/**
 * The prompt's structure (no digits: a read number's own width must not move it): lines, items, words, letters, and
 * the sizes of its first GROUPS groups of lines and of its largest (a group: consecutive non-blank lines, broken at a
 * header line ending in ":" and where item lines and plain lines meet; "Shelf A:", its titles, "Shelf B:", its).
 */
export function promptStructure(prompt: string): number[] {
  const text = prompt.slice(0, 50_000);
  const lines = text.split('\n');
  const isItem = (l: string) => /^\s*(?:[-*•]|\d+[.)])\s/.test(l);
  const groups: number[] = [];
  let size = 0;
  let item = false;
  for (const line of lines) {
    const breaks = line.trim() === '' || /:\s*$/.test(line);
    if (size > 0 && (breaks || isItem(line) !== item)) {
      groups.push(size);
      size = 0;
    }
    if (breaks) continue;
    size++;
    item = isItem(line);
  }
  if (size > 0) groups.push(size);
  const words = (text.match(/[A-Za-z]+/g) ?? []).length;
  return [
    lines.length,
    lines.filter(isItem).length,
    words,
    (text.match(/[A-Za-z]/g) ?? []).length,
    ...Array.from({ length: GROUPS }, (_, k) => groups[k] ?? 0),
    groups.reduce((a, b) => Math.max(a, b), 0),
  ];
}

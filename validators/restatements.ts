// The question restated in an answer language: the prompt's own expressions (numbers, single-letter
// variables, operators and brackets, as printed and transcribed to ASCII: × ÷ − · ² ³, implied products, **
// for powers) and the prompt's numbers joined by the operator words between them, in order ("12 plus 7
// times 3" → 12 + 7 * 3; "the sum of 3 and 4" → 3 + 4). A verifier that evaluates what it is given (an
// expression, a formula, a program) pays these without anything being solved. Guest text: linear scans.

const OPERATOR_CHARS = '+-*/×÷−·^%²³';
const OPERAND_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const INSIDE_CHARS = new Set([...OPERAND_CHARS, ...'.+-*/×÷−·^%²³() \t']);
const isOperand = (c: string | undefined) => c !== undefined && OPERAND_CHARS.includes(c);

/**
 * Maximal runs of expression characters, trimmed to start at an operand, a sign or a bracket and end at an operand, a
 * bracket or a power (one linear scan).
 */
function runs(chunk: string): string[] {
  const out: string[] = [];
  let from = -1;
  const close = (to: number) => {
    let a = from;
    let b = to;
    while (a < b && !isOperand(chunk[a]) && !'-−+('.includes(chunk[a] as string)) a++;
    while (b > a && !isOperand(chunk[b - 1]) && !')²³'.includes(chunk[b - 1] as string)) b--;
    if (b - a >= 3) out.push(chunk.slice(a, b));
    from = -1;
  };
  for (let i = 0; i < chunk.length; i++) {
    if (INSIDE_CHARS.has(chunk[i] as string)) {
      if (from < 0) from = i;
    } else if (from >= 0) close(i);
  }
  if (from >= 0) close(chunk.length);
  return out;
}

/** ASCII for the prompt's operators: what a model types for "×", "−", "²", and implied products made explicit. */
export function transcribe(expression: string, power: '^' | '**' = '^'): string {
  let out = expression
    .replace(/×|·/g, '*')
    .replace(/÷/g, '/')
    .replace(/−/g, '-')
    .replace(/²/g, `${power}2`)
    .replace(/³/g, `${power}3`);
  if (power === '**') out = out.replace(/\^/g, '**');
  // Implied products: ")(", "2(", ")x", "2x" (a digit or a closing bracket before a bracket or a variable).
  return out.replace(/([\d)])\s*(?=[(A-Za-z])/g, '$1*').replace(/\)\s*\(/g, ')*(');
}

/** Whether a span reads as an expression: an operator between two operands, and no word longer than one letter. */
function isExpression(span: string): boolean {
  if (/[A-Za-z]{2,}/.test(span)) return false;
  let operators = 0;
  for (const c of span) if (OPERATOR_CHARS.includes(c)) operators++;
  return (
    operators > 0 &&
    /[\dA-Za-z)²³]\s*[+\-−*/×÷·^%]\s*[-−(\dA-Za-z]|[\dA-Za-z)]\s*[²³]|\)\s*\(/.test(span) &&
    /\d|[A-Za-z]/.test(span)
  );
}

/** The prompt's expression spans, longest first, at most `max` (each at most 200 characters). */
export function expressionSpans(prompt: string, max: number): string[] {
  const found = new Set<string>();
  // Words of two letters or more end a span: prose is not an expression.
  for (const chunk of prompt.slice(0, 20_000).split(/[A-Za-z]{2,}|[\n,;:=?!"]/)) {
    for (const run of runs(chunk)) {
      const span = run.trim().replace(/^[+]+/, '');
      if (span.length <= 200 && span.length >= 3 && isExpression(span) && balanced(span)) found.add(span);
    }
  }
  return [...found].sort((a, b) => b.length - a.length).slice(0, max);
}

function balanced(span: string): boolean {
  let depth = 0;
  for (const c of span) {
    depth += c === '(' ? 1 : c === ')' ? -1 : 0;
    if (depth < 0) return false;
  }
  return depth === 0;
}

/** Operator words, each to the operator it names. */
const WORDS = new Map<string, string>([
  ...'plus add added adding sum increased more and'.split(' ').map((w): [string, string] => [w, '+']),
  ...'minus subtract subtracted less decreased difference fewer'.split(' ').map((w): [string, string] => [w, '-']),
  ...'times multiplied product by'.split(' ').map((w): [string, string] => [w, '*']),
  ...'divided over quotient per'.split(' ').map((w): [string, string] => [w, '/']),
  ...'mod modulo remainder'.split(' ').map((w): [string, string] => [w, '%']),
  ...'power raised'.split(' ').map((w): [string, string] => [w, '^']),
]);

/**
 * The prompt's numbers in order, joined by the operator each run of words between two of them names (its
 * first operator word; "and" only where no other word does), or null where no operator word joins any two.
 */
export function numbersInOrder(prompt: string): string | null {
  const tokens =
    prompt
      .slice(0, 20_000)
      .toLowerCase()
      .match(/-?\d+(?:\.\d+)?|[a-z]+/g) ?? [];
  const parts: string[] = [];
  let pending: string | null = null;
  let byAnd = false;
  let joined = 0;
  for (const t of tokens.slice(0, 4_000)) {
    if (/\d/.test(t)) {
      if (parts.length > 0) {
        parts.push(pending ?? '+');
        if (pending !== null) joined++;
      }
      parts.push(t);
      pending = null;
      byAnd = false;
      if (parts.length > 40) break;
      continue;
    }
    // The first operator word of the run decides ("increased by" is +); "and" only where no other word does.
    const op = WORDS.get(t);
    if (op !== undefined && parts.length > 0 && (pending === null || (byAnd && t !== 'and'))) {
      pending = op;
      byAnd = t === 'and';
    }
    if (t === 'squared' && parts.length > 0) parts.push('^', '2');
  }
  return joined > 0 && parts.length >= 3 ? parts.join(' ') : null;
}

/**
 * The restatements of a prompt, each with how it was made, at most `max` expressions (each in three spellings) and the
 * numbers in order.
 */
export function restatements(prompt: string, max = 3): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const seen = new Set<string>();
  const add = (form: string, text: string) => {
    const key = text.replace(/\s+/g, '');
    if (!seen.has(key)) {
      seen.add(key);
      out.push([form, text]);
    }
  };
  for (const span of expressionSpans(prompt, max)) {
    add("the prompt's expression, as printed", span);
    add("the prompt's expression, in ASCII", transcribe(span));
    add("the prompt's expression, in ASCII with ** for powers", transcribe(span, '**'));
  }
  const spoken = numbersInOrder(prompt);
  if (spoken) add("the prompt's numbers and operator words, in order", spoken);
  return out;
}

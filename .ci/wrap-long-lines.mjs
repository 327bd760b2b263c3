#!/usr/bin/env node
// The line-width codemod (`npm run wrap`): makes every source line that is over 120 characters once formatted fit,
// without changing what the code does, then lets Biome lay the result out. For each long line it
//   - splits a plain string literal, or an untagged template literal, into a `+` concatenation of pieces broken after
//     a space (never inside `${…}`); a literal whose value must stay one token is left and listed: tagged templates
//     (String.raw), type positions, object keys, module specifiers, directives, `as const` values, case labels, enum
//     values, RegExp sources, inline snapshots, literals inside another template's `${…}` (kept on one line), and
//     test titles (say them in fewer words);
//   - re-wraps `//` comment runs and `/* */` / `/** */` blocks to 120 columns, keeping list items, indented code
//     samples, fenced blocks and tool directives (biome-ignore, @ts-…) as they are, and never joining a line that
//     starts a new sentence onto one that ended a sentence; a comment trailing a long code line moves above it;
//   - lists what it cannot fix (regex literals, code the formatter keeps on one line, words longer than a line), and
//     restores a file that wrapping would take past the architecture test's 350-line cap (split it first).
// Then it runs `biome format --write` on the files it changed and repeats until nothing changes (so a second run
// changes nothing). Every changed file is checked before it is kept: its syntax tree, with each `+` chain of literals
// folded into one value, and the words of its comments must equal the original's; a file that fails is restored.
// Data folders (tests/fixtures, seeds, prompts, generated) are environment modules hashed into ids and golden
// decisions: never touched. Python is not handled here.
// Usage: node .ci/wrap-long-lines.mjs [--list] [--dry-run] [--as-const] [--regex] [FILE...]
//   (default: every tracked .ts/.js/.cjs/.mjs; --as-const and --regex are the opt-in help for the hand fixes)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

export const WIDTH = 120;
export const DATA_FOLDERS = /^(tests\/fixtures|seeds|prompts|generated|node_modules|dist)\//;
const SOURCE = /\.(ts|js|cjs|mjs)$/; // what biome.jsonc formats
const MAX_PASSES = 8;
/** The parts under tests/architecture.test.ts's cap on lines per file. */
const CAPPED =
  /^(contract|sandbox|kinds|validators|library|agents|pipeline|export|serve|dashboard|nightly|cli|bench)\/|^index\.ts$/;
const MAX_LINES = 350;
const DIRECTIVE = /^\s*(@ts-|biome-ignore|eslint|prettier-ignore|istanbul|c8 |v8 |#region|#endregion|\/ <|@vitest-)/;

/** The spaces that start the line holding offset `pos` of `text`. */
const indentAt = (text, pos) => /^ */.exec(text.slice(text.lastIndexOf('\n', pos - 1) + 1))[0];

const width = (s) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

// ---------------------------------------------------------------------------------------------------------------
// Where a literal may not become a `+` chain, and why.

function refusal(node) {
  const parent = node.parent;
  if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) return 'regex literal (build it from parts by hand)';
  if (ts.isTaggedTemplateExpression(parent)) return 'tagged template (its raw text is its value)';
  if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent) || ts.isExternalModuleReference(parent))
    return 'module specifier';
  if (ts.isModuleDeclaration(parent) || ts.isImportAttribute?.(parent)) return 'module specifier';
  if (
    ts.isCallExpression(parent) &&
    (parent.expression.kind === ts.SyntaxKind.ImportKeyword || isNamed(parent.expression, 'require'))
  )
    return 'module specifier';
  if ('name' in parent && parent.name === node) return 'object key';
  if ('propertyName' in parent && parent.propertyName === node) return 'object key';
  if (ts.isComputedPropertyName(parent) || (ts.isElementAccessExpression(parent) && parent.argumentExpression === node))
    return 'object key';
  if (ts.isExpressionStatement(parent) && ts.isStringLiteral(node)) return 'directive or statement';
  if (ts.isCaseClause(parent) || ts.isEnumMember(parent)) return 'literal type (case label or enum value)';
  if ((ts.isCallExpression(parent) || ts.isNewExpression(parent)) && isNamed(parent.expression, 'RegExp'))
    return 'RegExp source';
  if (
    ts.isCallExpression(parent) &&
    ts.isPropertyAccessExpression(parent.expression) &&
    /InlineSnapshot$/.test(parent.expression.name.text)
  )
    return 'inline snapshot';
  for (let up = parent; up && !ts.isSourceFile(up); up = up.parent)
    if (ts.isTemplateSpan(up)) return 'inside `${…}` (the formatter keeps it on one line: hoist it into a const)';
  for (let up = node; up && !ts.isSourceFile(up); up = up.parent) {
    if (ts.isTypeNode(up) && !ts.isExpressionWithTypeArguments(up)) return 'type position';
    if ((ts.isAsExpression(up) || ts.isTypeAssertionExpression(up)) && isConstType(up.type))
      return AS_CONST ? null : '`as const` value (its literal type: --as-const splits it, then run npm run typecheck)';
    if (ts.isStatement(up) || ts.isFunctionLike(up) || ts.isCallExpression(up)) break;
  }
  return null;
}
const isNamed = (expr, name) => ts.isIdentifier(expr) && expr.text === name;
/** The title of it(…)/test(…)/describe(…) (also .only, .skip, .each…), given before the function. */
function isTestName(node) {
  const call = node.parent;
  if (!ts.isCallExpression(call) || call.arguments[0] !== node) return false;
  let callee = call.expression;
  while (ts.isPropertyAccessExpression(callee) || ts.isCallExpression(callee)) callee = callee.expression;
  const fn = call.arguments[1];
  return /^(it|test|describe|bench|suite)$/.test(callee.getText()) && !!fn && ts.isFunctionLike(fn);
}
const isConstType = (type) =>
  ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName) && type.typeName.text === 'const';

/** Whether `a + b` can stand in for the literal without parentheses. */
function bareIsSafe(node) {
  const p = node.parent;
  const K = ts.SyntaxKind;
  if (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isParameter(p) || ts.isPropertyDeclaration(p))
    return p.initializer === node;
  if (ts.isCallExpression(p) || ts.isNewExpression(p)) return p.expression !== node;
  if (ts.isArrayLiteralExpression(p) || ts.isReturnStatement(p) || ts.isThrowStatement(p)) return true;
  if (ts.isParenthesizedExpression(p) || ts.isTemplateSpan(p) || ts.isConditionalExpression(p)) return true;
  if (ts.isArrowFunction(p)) return p.body === node;
  if (ts.isBinaryExpression(p)) {
    const op = p.operatorToken.kind;
    const both = [
      K.PlusToken,
      K.EqualsEqualsEqualsToken,
      K.ExclamationEqualsEqualsToken,
      K.EqualsEqualsToken,
      K.ExclamationEqualsToken,
      K.AmpersandAmpersandToken,
      K.BarBarToken,
      K.QuestionQuestionToken,
      K.CommaToken,
    ];
    if (both.includes(op)) return true;
    return p.right === node && op >= K.FirstAssignment && op <= K.LastAssignment;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------------
// Splitting a literal.

/** Offsets (in the file) where the literal may break: after a space or a `\n`, and on either side of a `${…}`. */
function breakPoints(node, text) {
  const regions = [];
  const start = node.getStart();
  const out = [];
  if (ts.isTemplateExpression(node)) {
    regions.push([start + 1, node.head.end - 2]);
    out.push(node.head.end - 2);
    for (const span of node.templateSpans) {
      const lit = span.literal;
      const end = lit.end - (ts.isTemplateTail(lit) ? 1 : 2);
      regions.push([lit.getStart() + 1, end]);
      out.push(lit.getStart() + 1);
      if (!ts.isTemplateTail(lit)) out.push(end);
    }
  } else regions.push([start + 1, node.end - 1]);
  for (const [a, b] of regions) {
    for (let i = a; i < b; i++) {
      const c = text[i];
      if (c === '\\') {
        // An escape: the next character belongs to it (longer escapes hold no space); a line may end after `\n`.
        i++;
        if (text[i] === 'n' && i + 1 < b) out.push(i + 1);
      } else if (c === ' ' && i + 1 < b) out.push(i + 1);
    }
  }
  return [...new Set(out)].filter((p) => p > start + 1 && p < node.end - 1).sort((a, b) => a - b);
}

/** The replacement text for a literal whose long lines are `lines` ([start, end) offsets), or null. */
function splitLiteral(node, text, lines) {
  const points = breakPoints(node, text);
  if (points.length === 0) return null;
  const start = node.getStart();
  const indent = indentAt(text, start).length;
  const piece = Math.max(40, WIDTH - indent - 12); // a continuation piece's text, once Biome indents it
  const cuts = [];
  for (const [ls, le] of lines) {
    const from = Math.max(ls, start + 1);
    const to = Math.min(le, node.end);
    let at = from;
    // The literal's first line is laid out again by Biome (pieces move to lines of their own); a later line of a
    // multi-line template stays where it is, so its first piece must end by the width.
    const column = WIDTH - 3 - width(text.slice(ls, from));
    // A literal short enough for a line of its own splits once, where the line reaches the width, into two parts
    // of a few words each (or not at all).
    const short = ls <= start && width(text.slice(at, to)) <= piece;
    // A test's title is left: a title in a `+` chain is one no grep finds, and Biome keeps `it('…', () => {` on one
    // line however long it is (a split only serves to break the call and re-indent the test). Say it in fewer words.
    if (isTestName(node)) continue;
    if (short) {
      // The code after it makes the line long (`it('…', async () => {`): once split, Biome breaks the call.
      const halves = points.filter(
        (p) => p > at && p < to && width(text.slice(at, p)) <= column && Math.min(p - at, to - p) >= 20,
      );
      if (halves.length) cuts.push(halves[halves.length - 1]);
      continue;
    }
    let room = ls > start ? column : piece;
    const mine = [];
    while (width(text.slice(at, to)) > room) {
      const fits = points.filter((p) => p > at && p < to && width(text.slice(at, p)) <= room);
      const tailed = fits.filter((p) => width(text.slice(p, to)) >= 24); // no stub of a word or two left behind
      const cut = tailed.length ? tailed[tailed.length - 1] : fits[fits.length - 1];
      if (cut === undefined) break;
      mine.push(cut);
      at = cut;
      room = piece;
    }
    // Only cuts that make every piece fit: a word or a `${…}` longer than a line is left whole, and listed.
    if (width(text.slice(at, to)) <= room) cuts.push(...mine);
  }
  if (cuts.length === 0) return null;
  const q = text[start];
  const raw = text.slice(start + 1, node.end - 1);
  const pieces = [];
  let prev = start + 1;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    pieces.push(q + text.slice(prev, cut) + q);
    prev = cut;
  }
  pieces.push(q + text.slice(prev, node.end - 1) + q);
  if (pieces.join('').length !== raw.length + 2 * pieces.length) throw new Error('split lost text');
  const chain = pieces.join(' + ');
  return bareIsSafe(node) ? chain : `(${chain})`;
}

/**
 * --regex: a long regex literal as `new RegExp(piece + piece, flags)`, its pattern broken after a `|`, before a `(` or
 * after a space (never after an escaping backslash); the same pattern text and flags, checked by evaluating both.
 */
function splitRegex(node, text) {
  const raw = node.getText();
  const slash = raw.lastIndexOf('/');
  const body = raw.slice(1, slash);
  const flags = raw.slice(slash + 1);
  const indent = indentAt(text, node.getStart()).length;
  const room = Math.max(40, WIDTH - indent - 20);
  const points = [];
  for (let i = 1; i < body.length; i++) {
    let escapes = 0;
    for (let j = i - 1; j >= 0 && body[j] === '\\'; j--) escapes++;
    if (escapes % 2 === 0 && (body[i - 1] === '|' || body[i] === '(' || body[i - 1] === ' ')) points.push(i);
  }
  const cuts = [];
  for (let at = 0; body.length - at > room; ) {
    const fits = points.filter((p) => p > at && p - at <= room);
    if (!fits.length) return null;
    at = fits[fits.length - 1];
    cuts.push(at);
  }
  if (!cuts.length) return null;
  const pieces = [...cuts, body.length].map((c, k) => body.slice(k ? cuts[k - 1] : 0, c));
  // String.raw keeps a piece's backslashes as written; a piece without one is a plain string (Biome's
  // noUselessStringRaw).
  const quote = (p) =>
    p.includes('\\') && !/`|\$\{|\\$/.test(p)
      ? `String.raw\`${p}\``
      : `'${p.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const out = `new RegExp(${pieces.map(quote).join(' + ')}${flags ? `, '${flags}'` : ''})`;
  const a = new Function(`return ${raw}`)();
  const b = new Function(`return ${out}`)();
  return a.source === b.source && a.flags === b.flags && pieces.join('') === body ? out : null;
}

// ---------------------------------------------------------------------------------------------------------------
// Comments.

function commentRanges(sf) {
  const text = sf.text;
  const seen = new Map();
  const add = (ranges) => {
    for (const r of ranges ?? []) seen.set(r.pos, r);
  };
  const visit = (node) => {
    add(ts.getLeadingCommentRanges(text, node.pos));
    add(ts.getTrailingCommentRanges(text, node.end));
    for (const child of node.getChildren(sf)) visit(child);
  };
  visit(sf);
  return [...seen.values()].sort((a, b) => a.pos - b.pos);
}

const LIST = /^([-*+•]|\d+[.)]|\([a-z0-9]+\)) /;
const endsSentence = (s) => /[.!?:;]["'`)\]]*$/.test(s);

/**
 * Re-wraps lines ({prefix, body, keep}) so none is over the width: a long line's overflow joins the next line of its
 * paragraph (same hanging indent, not a list item, not a directive, not a new sentence after one that ended) or goes
 * on a new line. `cont` is the prefix of an inserted line after lines[i]. Returns the lines and the unbreakable ones.
 */
function rewrap(lines, cont) {
  const out = [];
  let carry = null; // { words, hang, prefix }: the overflow of the line before
  const queue = [...lines];
  while (queue.length || carry) {
    let line = queue.shift();
    if (carry) {
      const body = line?.body ?? '';
      const hang = /^ */.exec(body)[0];
      const joins =
        line &&
        !line.keep &&
        body.trim() !== '' &&
        hang === carry.hang &&
        !LIST.test(body.trimStart()) &&
        !DIRECTIVE.test(body) &&
        !(endsSentence(carry.words) && /^[^a-z0-9(]/.test(body.trimStart()));
      if (joins) line = { ...line, body: `${hang}${carry.words} ${body.trimStart()}` };
      else {
        if (line) queue.unshift(line);
        line = { prefix: carry.prefix, body: carry.hang + carry.words, keep: false };
      }
      carry = null;
    }
    if (!line.keep && width(line.prefix + line.body) > WIDTH && !DIRECTIVE.test(line.body)) {
      const lead = /^ */.exec(line.body)[0];
      const marker = LIST.exec(line.body.slice(lead.length))?.[0] ?? '';
      const hang = lead + ' '.repeat(marker.length);
      let cut = -1;
      for (let i = hang.length + 1; i < line.body.length; i++)
        if (line.body[i] === ' ' && line.body[i - 1] !== ' ' && width(line.prefix + line.body.slice(0, i)) <= WIDTH)
          cut = i;
      if (cut < 0) cut = line.body.indexOf(' ', hang.length + 1); // a word longer than the line: break after it
      if (cut > 0 && line.body.slice(cut).trim()) {
        carry = { words: line.body.slice(cut).trim(), hang, prefix: cont(line) };
        line = { ...line, body: line.body.slice(0, cut).trimEnd() };
      }
    }
    out.push(line);
  }
  const lines2 = out.map((l) => (l.prefix + l.body).trimEnd());
  return { lines: lines2, stuck: lines2.filter((l) => width(l) > WIDTH).length };
}

// ---------------------------------------------------------------------------------------------------------------
// One pass over one file: the edits, and the long lines it leaves with the reason.

/**
 * --as-const: split literals in `as const` values too (their type widens to string; the type-check says if it
 * mattered).
 */
let AS_CONST = false;
let REGEX = false;

export function plan(fileName, text) {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, scriptKind(fileName));
  const starts = sf.getLineStarts();
  const lineEnd = (l) => (l + 1 < starts.length ? starts[l + 1] - 1 : text.length);
  const lineAt = (pos) => sf.getLineAndCharacterOfPosition(pos).line;
  const long = new Set();
  for (let l = 0; l < starts.length; l++) if (width(text.slice(starts[l], lineEnd(l))) > WIDTH) long.add(l);
  const edits = [];
  const left = new Map(); // line -> reason
  if (long.size === 0) return { edits, left, long };

  const literals = [];
  const regexes = [];
  const visit = (node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node))
      literals.push(node);
    else if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) regexes.push(node);
    if (!ts.isTemplateExpression(node)) ts.forEachChild(node, visit);
    else for (const s of node.templateSpans) visit(s.expression);
  };
  visit(sf);
  const comments = commentRanges(sf);
  // A line start inside a literal or a comment: nothing can be inserted there.
  const insideToken = (pos) =>
    literals.some((n) => n.getStart() < pos && pos < n.end) || comments.some((c) => c.pos < pos && pos < c.end);
  const handled = new Set();
  /** Moves comment `c`, trailing code on the line that starts at `ls`, above that line; returns where the code ends. */
  const moveAbove = (ls, c) => {
    const before = text.slice(ls, c.pos);
    const codeEnd = c.pos - /\s*$/.exec(before)[0].length;
    edits.push({ start: ls, end: ls, text: `${/^ */.exec(before)[0]}${text.slice(c.pos, c.end)}\n` });
    edits.push({ start: codeEnd, end: c.end, text: '' });
    return codeEnd;
  };

  // Comments on lines of their own: runs of `//` lines at one indentation, and block comments.
  const ownLine = (c) => /^\s*$/.test(text.slice(starts[lineAt(c.pos)], c.pos));
  for (let i = 0; i < comments.length; i++) {
    const c = comments[i];
    if (c.kind !== ts.SyntaxKind.SingleLineCommentTrivia || !ownLine(c)) continue;
    const run = [c];
    const col = c.pos - starts[lineAt(c.pos)];
    while (i + 1 < comments.length) {
      const d = comments[i + 1];
      const dl = lineAt(d.pos);
      if (d.kind !== c.kind || !ownLine(d) || dl !== lineAt(run[run.length - 1].pos) + 1 || d.pos - starts[dl] !== col)
        break;
      run.push(d), i++;
    }
    const lines = run.map((r) => lineAt(r.pos));
    if (!lines.some((l) => long.has(l))) continue;
    const parsed = run.map((r) => {
      const m = /^(\s*\/\/+ ?)(.*)$/.exec(text.slice(starts[lineAt(r.pos)], r.end));
      return { prefix: m[1], body: m[2], keep: m[1].includes('///') || /^\s*\|/.test(m[2]) };
    });
    const { lines: out, stuck } = rewrap(parsed, (l) => l.prefix);
    for (const l of lines) handled.add(l);
    edits.push({ start: starts[lines[0]], end: lineEnd(lines[lines.length - 1]), text: out.join('\n') });
    if (stuck) lines.filter((l) => long.has(l)).forEach((l) => left.set(l, 'comment word longer than a line'));
  }
  for (const c of comments) {
    if (c.kind !== ts.SyntaxKind.MultiLineCommentTrivia) continue;
    const first = lineAt(c.pos);
    const last = lineAt(c.end - 1);
    const lines = [];
    for (let l = first; l <= last; l++) lines.push(l);
    if (!lines.some((l) => long.has(l))) continue;
    lines.forEach((l) => handled.add(l));
    const before = text.slice(starts[first], c.pos);
    const after = text.slice(c.end, lineEnd(last));
    if (!/^\s*$/.test(before) || !/^\s*$/.test(after)) {
      // Trailing a line of code: it moves above the line (then wraps on the next pass).
      if (
        first === last &&
        /^\s*$/.test(after) &&
        !insideToken(starts[first]) &&
        !DIRECTIVE.test(text.slice(c.pos + 2, c.end))
      ) {
        moveAbove(starts[first], c);
      } else left.set(first, 'block comment inside a line of code');
      continue;
    }
    const body = text.slice(c.pos, c.end);
    const indent = before;
    const open = /^\/\*\*?/.exec(body)[0];
    if (first === last) {
      // `/** long text */` alone on its line becomes a block.
      const inner = body.slice(open.length, -2).trim();
      if (DIRECTIVE.test(inner)) {
        left.set(first, 'tool directive in a comment');
        continue;
      }
      const { lines: out, stuck } = rewrap([{ prefix: `${indent} * `, body: inner, keep: false }], (l) => l.prefix);
      edits.push({ start: c.pos, end: c.end, text: `${open}\n${out.join('\n')}\n${indent} */` });
      if (stuck) left.set(first, 'comment word longer than a line');
      continue;
    }
    let fence = false;
    const parsed = body.split('\n').map((raw, k) => {
      const line = k === 0 ? indent + raw : raw;
      const m = k === 0 ? /^(\s*\/\*\*? ?)(.*)$/.exec(line) : /^(\s*(?:\*(?!\/) ?)?)(.*)$/.exec(line);
      const isFence = /^\s*```/.test(m[2]);
      const keep = fence || isFence || /^\s*\*\/$/.test(line) || /^\s*\|/.test(m[2]);
      if (isFence) fence = !fence;
      return { prefix: m[1], body: m[2], keep };
    });
    const star = parsed.slice(1).find((p) => p.prefix.includes('*'))?.prefix ?? `${indent} * `;
    const { lines: out, stuck } = rewrap(parsed, (l) => (l.prefix.includes('/*') ? star : l.prefix));
    out[0] = out[0].slice(indent.length);
    edits.push({ start: c.pos, end: c.end, text: out.join('\n') });
    if (stuck)
      lines
        .filter((l) => long.has(l))
        .forEach((l) => left.set(l, 'comment word longer than a line (or in a code block)'));
  }

  // Long lines of code: a trailing `//` comment moves above; the longest literal on the line splits.
  const byLiteral = new Map();
  for (const l of long) {
    if (handled.has(l)) continue;
    const ls = starts[l];
    const le = lineEnd(l);
    const trailing = comments.find(
      (c) => c.kind === ts.SyntaxKind.SingleLineCommentTrivia && c.pos >= ls && c.pos < le,
    );
    let codeEnd = le;
    if (trailing) {
      if (!insideToken(ls) && !DIRECTIVE.test(text.slice(trailing.pos + 2, trailing.end))) {
        codeEnd = moveAbove(ls, trailing);
        if (width(text.slice(ls, codeEnd)) <= WIDTH) continue;
      } else {
        left.set(l, 'trailing comment that cannot move (a directive, or the line starts inside a literal)');
        continue;
      }
    }
    const on = literals
      .filter((n) => n.getStart() < codeEnd && n.end > ls)
      .map((n) => ({ n, len: Math.min(n.end, codeEnd) - Math.max(n.getStart(), ls) }))
      .filter((x) => x.len >= 24)
      .sort((a, b) => b.len - a.len);
    // The longest literal that can split here (an outer template may hold only `${…}` on this line).
    const usable = on.find((x) => !refusal(x.n) && splitLiteral(x.n, text, [[ls, codeEnd]]));
    if (usable) {
      const list = byLiteral.get(usable.n) ?? [];
      list.push([ls, codeEnd]);
      byLiteral.set(usable.n, list);
      continue;
    }
    const rx = regexes.find((n) => n.getStart() < codeEnd && n.end > ls && n.end - n.getStart() > 40);
    const built = REGEX && rx && !on.length ? splitRegex(rx, text) : null;
    if (built) {
      edits.push({ start: rx.getStart(), end: rx.end, text: built });
      continue;
    }
    const why = on.length
      ? (refusal(on[0].n) ??
        (isTestName(on[0].n)
          ? 'test name (Biome keeps a test call on one line: say it in fewer words)'
          : 'a word or a `${…}` longer than a line (hoist it into a const)'))
      : null;
    left.set(l, why ?? (rx ? refusal(rx) : 'code the formatter keeps on one line'));
  }
  for (const [node, lines] of byLiteral) {
    const replacement = splitLiteral(node, text, lines);
    if (replacement) edits.push({ start: node.getStart(), end: node.end, text: replacement });
    else for (const [ls] of lines) left.set(lineAt(ls), 'literal without a space to break at');
  }
  return { edits, left: new Map([...left].map(([l, why]) => [l + 1, why])), long: [...long].map((l) => l + 1) };
}

const scriptKind = (f) => (/\.ts$/.test(f) ? ts.ScriptKind.TS : ts.ScriptKind.JS);

function apply(text, edits) {
  const sorted = [...edits].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  let floor = Infinity;
  for (const e of sorted) {
    if (e.end > floor) continue; // overlaps an edit already made: the next pass sees it again
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
    floor = e.start;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The check: same syntax tree (a `+` chain of literals folded into its value, parentheses aside), same comment words.

export function fingerprint(fileName, text) {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, scriptKind(fileName));
  if (sf.parseDiagnostics?.length) throw new Error(`${fileName}: ${sf.parseDiagnostics[0].messageText}`);
  const K = ts.SyntaxKind;
  const lit = (segs) => ({ segs });
  const str = (c) => (typeof c === 'string' ? c : JSON.stringify(c.segs));
  const merge = (a, b) => {
    const segs = [...a.segs];
    for (const s of b.segs) {
      if (typeof s === 'string' && typeof segs[segs.length - 1] === 'string') segs[segs.length - 1] += s;
      else segs.push(s);
    }
    return lit(segs);
  };
  const canon = (node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return lit([node.text]);
    if (ts.isTemplateExpression(node)) {
      let out = lit([node.head.text]);
      for (const s of node.templateSpans)
        out = merge(merge(out, lit([{ e: str(canon(s.expression)) }])), lit([s.literal.text]));
      return out;
    }
    if (ts.isParenthesizedExpression(node)) return canon(node.expression);
    if (
      ts.isTaggedTemplateExpression(node) &&
      node.tag.getText() === 'String.raw' &&
      ts.isNoSubstitutionTemplateLiteral(node.template)
    )
      return lit([node.template.rawText ?? '']);
    if (node.kind === K.RegularExpressionLiteral) {
      const slash = node.text.lastIndexOf('/');
      return `RegExp:${JSON.stringify([node.text.slice(1, slash), node.text.slice(slash + 1)])}`;
    }
    if (ts.isNewExpression(node) && isNamed(node.expression, 'RegExp') && node.arguments?.length) {
      const args = node.arguments.map(canon);
      if (args.every((x) => typeof x !== 'string' && x.segs.length === 1 && typeof x.segs[0] === 'string'))
        return `RegExp:${JSON.stringify([args[0].segs[0], args[1]?.segs[0] ?? ''])}`;
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === K.PlusToken) {
      const operands = [];
      const flat = (n) => {
        let m = n;
        while (ts.isParenthesizedExpression(m)) m = m.expression;
        if (ts.isBinaryExpression(m) && m.operatorToken.kind === K.PlusToken)
          flat(m.left), operands.push(canon(m.right));
        else operands.push(canon(m));
      };
      flat(node);
      const folded = [];
      for (const o of operands) {
        const top = folded[folded.length - 1];
        if (typeof o !== 'string' && top !== undefined && typeof top !== 'string')
          folded[folded.length - 1] = merge(top, o);
        else folded.push(o);
      }
      return folded.length === 1 ? folded[0] : `+(${folded.map(str).join(',')})`;
    }
    const parts = [];
    ts.forEachChild(node, (c) => void parts.push(str(canon(c))));
    const own =
      ts.isIdentifier(node) ||
      ts.isPrivateIdentifier(node) ||
      ts.isNumericLiteral(node) ||
      ts.isBigIntLiteral(node) ||
      node.kind === K.RegularExpressionLiteral
        ? node.text
        : (node.operator ?? node.keywordToken ?? '');
    const flags = node.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const | ts.NodeFlags.Using);
    return `${K[node.kind]}${flags || ''}${own ? `:${own}` : ''}[${parts.join(',')}]`;
  };
  const tree = str(canon(sf));
  const words = commentRanges(sf)
    .map((r) =>
      text
        .slice(r.pos, r.end)
        .replace(/^\/\/+|^\/\*+|\*+\/$/g, '')
        .replace(/^\s*\*+(?!\/)/gm, ''),
    )
    .join(' ')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');
  return { tree, words };
}

// ---------------------------------------------------------------------------------------------------------------

function main(argv) {
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const named = argv.filter((a) => !a.startsWith('--'));
  const tracked = () => execFileSync('git', ['ls-files'], { encoding: 'utf8' }).split('\n');
  const files = (named.length ? named : tracked()).filter(
    (f) => SOURCE.test(f) && !DATA_FOLDERS.test(f) && existsSync(f),
  );
  const dry = flags.has('--dry-run');
  AS_CONST = flags.has('--as-const');
  REGEX = flags.has('--regex');
  let todo = files;
  const touched = new Set();
  const failed = [];
  const original = new Map(); // file -> text before this run
  const times = new Map(); // file -> its times before this run
  // A file put back as it was gets its times back too: a newer mtime alone makes npm's prepare rebuild dist/.
  // utimes takes seconds as a double (and Date's milliseconds can round up): a millisecond earlier, never later.
  const restore = (f, text) => {
    writeFileSync(f, text);
    const t = times.get(f);
    if (t && text === original.get(f)) utimesSync(f, t.atimeMs / 1000, (t.mtimeMs - 1) / 1000);
  };
  for (let pass = 1; pass <= MAX_PASSES && todo.length; pass++) {
    const changed = new Map(); // file -> text before this pass
    for (const f of todo) {
      const text = readFileSync(f, 'utf8');
      const { edits } = plan(f, text);
      if (edits.length === 0) continue;
      const next = apply(text, edits);
      if (next === text) continue;
      changed.set(f, text);
      if (!original.has(f)) {
        original.set(f, text);
        times.set(f, statSync(f));
      }
      if (!dry) writeFileSync(f, next);
    }
    if (dry) {
      todo = [...changed.keys()];
      break;
    }
    const toFormat = [...changed.keys()];
    try {
      if (toFormat.length)
        execFileSync('node_modules/.bin/biome', ['format', '--write', ...toFormat], { stdio: 'ignore' });
    } catch {
      // A file Biome cannot format is still checked below and kept only if its meaning is unchanged.
    }
    for (const [f, before] of changed) {
      const after = readFileSync(f, 'utf8');
      let why = null;
      try {
        const a = fingerprint(f, before);
        const b = fingerprint(f, after);
        if (a.tree !== b.tree) why = 'the syntax tree or a literal value changed';
        else if (a.words !== b.words) why = 'the comments\u2019 words changed';
      } catch (err) {
        why = String(err.message ?? err);
      }
      if (why) {
        restore(f, before);
        changed.delete(f);
        failed.push(`${f}: ${why} (file restored)`);
      } else touched.add(f);
    }
    todo = [...changed.keys()];
  }
  // The architecture test's cap: a file that wrapping would take past it is restored (split it first: a move).
  const capped = [];
  for (const [f, before] of original) {
    const lines = (t) => t.split('\n').length - (t.endsWith('\n') ? 1 : 0);
    const after = readFileSync(f, 'utf8');
    if (CAPPED.test(f) && f !== 'sandbox/guest-runtime.js' && lines(after) > MAX_LINES && lines(before) <= MAX_LINES) {
      restore(f, before);
      touched.delete(f);
      capped.push(`${f} (${lines(after)} lines wrapped)`);
    }
  }
  const left = [];
  for (const f of files) {
    const { left: l, long } = plan(f, readFileSync(f, 'utf8'));
    for (const line of long)
      left.push({
        at: `${f}:${line}`,
        why:
          l.get(line) ??
          (capped.some((c) => c.startsWith(`${f} `)) ? 'in a file at the line cap' : 'not fixed in time'),
      });
  }
  const byWhy = new Map();
  for (const x of left) byWhy.set(x.why, [...(byWhy.get(x.why) ?? []), x.at]);
  const changedCount = dry ? `would change ${todo.length}` : `changed ${touched.size}`;
  console.log(`${changedCount} files; ${left.length} lines over ${WIDTH} left:`);
  for (const [why, at] of [...byWhy].sort((a, b) => b[1].length - a[1].length)) {
    console.log(`  ${at.length} × ${why}`);
    if (flags.has('--list')) for (const a of at) console.log(`      ${a}`);
  }
  for (const f of failed) console.error(`refused: ${f}`);
  for (const f of capped) console.log(`left as it was, wrapping would pass the ${MAX_LINES}-line cap: ${f}`);
  return failed.length ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = main(process.argv.slice(2));

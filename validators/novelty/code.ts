// The code fingerprint: JavaScript tokenised roughly and normalised (comments dropped, identifiers,
// strings and numbers masked unless the platform fixes them), shingled, MinHashed. Renaming identifiers,
// rewriting comments or changing constants leaves it unchanged.
import { minhash, resolveOptions, shingleHashes, type NoveltyOptions } from './minhash.js';
import { GLOBAL_NAMES, KEYWORDS, MEMBER_NAMES, VALUE_KEYWORDS } from './code-names.js';

/**
 * Tokens per code shingle: 8 keeps copies with a few edited lines above 0.9 while common idioms shared by unrelated
 * environments match less (seed-library background ~0.1 instead of ~0.17 at 6).
 */
const CODE_SHINGLE = 8;

const DECLARATIONS = new Set(['var', 'let', 'const']);
const IDENT_RE = /[A-Za-z_$\u00c0-\uffff][\w$\u00c0-\uffff]*/y;
const NUMBER_RE = /(?:0[xX][\da-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?)n?/y;
const PUNCT_RE = new RegExp(
  String.raw`(?:>>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|\?\?=|&&=|\|\|=|=>|==|!=|<=|>=|&&|\|\||\?\?|\?\.|\+\+|--|` +
    String.raw`\+=|-=|\*=|\/=|%=|&=|\|=|\^=|\*\*|<<|>>|[{}()[\];,<>+\-*/%&|^!~?:=.@#])`,
  'y',
);

function isSpace(c: number): boolean {
  return (
    c === 32 ||
    c === 9 ||
    c === 10 ||
    c === 13 ||
    c === 11 ||
    c === 12 ||
    c === 0xa0 ||
    c === 0xfeff ||
    c === 0x2028 ||
    c === 0x2029
  );
}

/**
 * Rough JavaScript tokeniser that normalises as described at the top of this file. It never throws: text
 * it cannot place becomes single-character tokens. Regex literals become 'regex' (a '/' starts a regex
 * unless the previous token can end an expression).
 */
export function normaliseCode(source: string): string[] {
  const out: string[] = [];
  const s = source;
  const n = s.length;
  let i = 0;
  // Stack of brace depths at which a template literal's `${` was opened.
  const templateStack: number[] = [];
  let braceDepth = 0;
  let prevEndsExpression = false;

  const scanString = (quote: number): void => {
    i++;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === 92) i += 2;
      else if (c === quote) {
        i++;
        return;
      } else if (c === 10)
        return; // unterminated: stop at end of line
      else i++;
    }
  };
  // Scans template text from i (just after ` or }) up to the closing ` or to `${`; returns true on `${`.
  const scanTemplateText = (): boolean => {
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === 92) i += 2;
      else if (c === 96) {
        i++;
        return false;
      } else if (c === 36 && s.charCodeAt(i + 1) === 123) {
        i += 2;
        return true;
      } else i++;
    }
    return false;
  };
  // After a template chunk: either an interpolation opens (track its brace depth) or the template ended.
  const continueTemplate = (): void => {
    if (scanTemplateText()) {
      templateStack.push(braceDepth);
      braceDepth++;
      prevEndsExpression = false;
    } else {
      prevEndsExpression = true;
    }
  };
  const enterTemplateText = (): void => {
    out.push('str');
    continueTemplate();
  };

  while (i < n) {
    const c = s.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === 47 /* / */) {
      const d = s.charCodeAt(i + 1);
      if (d === 47) {
        // line comment
        const end = s.indexOf('\n', i);
        i = end < 0 ? n : end;
        continue;
      }
      if (d === 42) {
        // block comment
        const end = s.indexOf('*/', i + 2);
        i = end < 0 ? n : end + 2;
        continue;
      }
      if (!prevEndsExpression) {
        // regex literal
        i++;
        let inClass = false;
        while (i < n) {
          const r = s.charCodeAt(i);
          if (r === 92) {
            i += 2;
            continue;
          }
          if (r === 10) break;
          i++;
          if (r === 91) inClass = true;
          else if (r === 93) inClass = false;
          else if (r === 47 && !inClass) break;
        }
        while (i < n && /[a-z]/.test(s[i] as string)) i++;
        out.push('regex');
        prevEndsExpression = true;
        continue;
      }
    }
    if (c === 39 || c === 34) {
      scanString(c);
      out.push('str');
      prevEndsExpression = true;
      continue;
    }
    if (c === 96) {
      i++;
      enterTemplateText();
      continue;
    }
    if (c === 125 /* } */ && templateStack.length > 0 && templateStack[templateStack.length - 1] === braceDepth - 1) {
      templateStack.pop();
      braceDepth--;
      i++;
      continueTemplate();
      continue;
    }
    if ((c >= 48 && c <= 57) || (c === 46 && s.charCodeAt(i + 1) >= 48 && s.charCodeAt(i + 1) <= 57)) {
      NUMBER_RE.lastIndex = i;
      const m = NUMBER_RE.exec(s);
      i += m ? Math.max(1, m[0].length) : 1;
      out.push('num');
      prevEndsExpression = true;
      continue;
    }
    IDENT_RE.lastIndex = i;
    const ident = IDENT_RE.exec(s);
    if (ident) {
      const word = ident[0];
      i += word.length;
      const member = out[out.length - 1] === '.' || out[out.length - 1] === '?.';
      if (member) out.push(MEMBER_NAMES.has(word) ? word : 'id');
      else if (DECLARATIONS.has(word)) out.push('let');
      else if (KEYWORDS.has(word) || GLOBAL_NAMES.has(word)) out.push(word);
      else out.push('id');
      // After a keyword like `return` or `typeof` a '/' starts a regex; after a name it divides.
      prevEndsExpression = member || !KEYWORDS.has(word) || VALUE_KEYWORDS.has(word);
      continue;
    }
    PUNCT_RE.lastIndex = i;
    const punct = PUNCT_RE.exec(s);
    const tok = punct ? punct[0] : (s[i] as string);
    i += tok.length;
    if (tok === '{') braceDepth++;
    else if (tok === '}') braceDepth = Math.max(0, braceDepth - 1);
    out.push(tok);
    prevEndsExpression = tok === ')' || tok === ']' || tok === '}' || tok === '++' || tok === '--';
  }
  return out;
}

/** MinHash signature of the CODE_SHINGLE-token shingles of the normalised source. */
export function codeFingerprint(source: string, options?: Partial<NoveltyOptions>): number[] {
  const { permutations: perms } = resolveOptions(options);
  const hashes = new Set<number>();
  shingleHashes(normaliseCode(source), CODE_SHINGLE, hashes, new Map());
  return minhash(hashes, perms);
}

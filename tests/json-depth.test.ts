// jsonDepth (sandbox/json.ts), the nesting check on runtime output: strings are skipped by jumping to their
// closing quote, so brackets and escaped quotes inside strings must never count, whatever the escapes.
import { describe, expect, it } from 'vitest';
import { jsonDepth } from '../sandbox/json.js';

/** The definition, one character at a time: the reference the fast scan must agree with. */
function slowDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') deepest = Math.max(deepest, ++depth);
    else if (c === ']' || c === '}') depth--;
  }
  return deepest;
}

/** A random JSON value whose strings are mostly brackets, quotes and backslashes. */
function randomValue(next: () => number, depth: number): unknown {
  const pick = next() % (depth > 6 ? 2 : 4);
  if (pick === 0) return Array.from({ length: next() % 6 }, () => '[]{}"\\\\\\"x'[next() % 10]).join('');
  if (pick === 1) return next() % 100;
  if (pick === 2) return Array.from({ length: next() % 4 }, () => randomValue(next, depth + 1));
  return Object.fromEntries(
    Array.from({ length: next() % 4 }, (_, i) => [`k${i}${'"\\['[next() % 3]}`, randomValue(next, depth + 1)]),
  );
}

describe('jsonDepth', () => {
  it('agrees with the character-by-character definition on JSON full of escapes', () => {
    let state = 7;
    const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 1);
    for (let i = 0; i < 2_000; i++) {
      const text = JSON.stringify(randomValue(next, 0));
      expect(jsonDepth(text)).toBe(slowDepth(text));
    }
  });

  it('reads runs of backslashes before a quote by their parity', () => {
    expect(jsonDepth(JSON.stringify(['\\', '[[[']))).toBe(1);
    expect(jsonDepth(JSON.stringify(['\\\\"', [['\\']]]))).toBe(3);
    expect(jsonDepth('["\\"[[[["]')).toBe(1);
    expect(jsonDepth('["\\\\"[[[]]]]')).toBe(4);
  });

  it('stops once past the limit, and an unterminated string ends the scan', () => {
    expect(jsonDepth('[[[[[[[[', 3)).toBe(4);
    expect(jsonDepth('[["[[[[[[')).toBe(2);
  });
});

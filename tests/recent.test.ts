// recentMemo: a bounded memo of a pure function of a string (recent sources, prompts).
import { expect, it } from 'vitest';
import { recentMemo } from '../sandbox/recent.js';

it('computes each recent key once, drops the oldest past its size, and keeps no failure', () => {
  const seen: string[] = [];
  const upper = recentMemo((key: string) => {
    seen.push(key);
    if (key === 'bad') throw new SyntaxError('no');
    return key.toUpperCase();
  }, 2);
  expect([upper('a'), upper('b'), upper('a')]).toEqual(['A', 'B', 'A']);
  expect(seen).toEqual(['a', 'b']);
  upper('c'); // 'a' was added first: it goes
  expect(upper('b')).toBe('B');
  expect(upper('a')).toBe('A');
  expect(seen).toEqual(['a', 'b', 'c', 'a']);
  expect(() => upper('bad')).toThrow(SyntaxError);
  expect(() => upper('bad')).toThrow(SyntaxError);
  expect(seen.filter((k) => k === 'bad')).toHaveLength(2);
});
